"""The suite's results as a Markdown report (one table per task) and a JSON file."""

from __future__ import annotations

import json
import os
import platform
from datetime import date
from pathlib import Path

from .runner import Result

__all__ = ["default_results_dir", "load_results", "merge_results", "to_markdown",
           "write_results"]

_COLUMNS = [
    ("accuracy", "accuracy %", lambda v: f"{100 * v:.2f}"),
    ("g_means", "g-means %", lambda v: f"{100 * v:.2f}"),
    ("auc", "AUC %", lambda v: f"{100 * v:.2f}"),
    ("prbep", "PRBEP %", lambda v: f"{100 * v:.2f}"),
    ("train_seconds", "train CPU s", lambda v: f"{v:.3f}"),
    ("us_per_example", "µs / example", lambda v: f"{v:.2f}"),
    ("peak_mb", "peak MB", lambda v: f"{v:.1f}"),
    ("model_kb", "model KB", lambda v: f"{v:.1f}"),
]


def _cell(result: Result, key: str, fmt) -> str:
    value = getattr(result, key)
    return "" if value is None else fmt(value)


def to_markdown(results: list[Result], *, title: str, notes: str = "") -> str:
    lines = [f"# {title}", "",
             f"_{date.today().isoformat()} · {platform.machine()} · Python "
             f"{platform.python_version()}_", ""]
    if notes:
        lines += [notes, ""]
    for task in dict.fromkeys(r.task for r in results):
        rows = [r for r in results if r.task == task]
        if len(rows) == 1 and rows[0].contender == "-":
            lines += [f"## {task}", "", f"skipped: {rows[0].error}", ""]
            continue
        first = rows[0]
        lines += [f"## {task} ({first.n_train:,} train / {first.n_test:,} test)", "",
                  "| contender | learns | " + " | ".join(h for _, h, _ in _COLUMNS) + " |",
                  "|---|---|" + "---:|" * len(_COLUMNS)]
        for r in rows:
            if r.error:
                status = r.error if r.error.startswith("skipped") else f"failed: {r.error}"
                lines.append(f"| {r.contender} | {r.mode} | {status} |"
                             + " |" * (len(_COLUMNS) - 1))
                continue
            cells = [_cell(r, key, fmt) for key, _, fmt in _COLUMNS]
            lines.append(f"| {r.contender} | {r.mode} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def default_results_dir() -> Path:
    """Where ``streamsvm bench`` writes without ``--output-dir``:
    ``$XDG_CACHE_HOME/streamsvm/bench``, by default ``~/.cache/streamsvm/bench`` (never the
    current directory, so a run inside a checkout leaves it clean)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "streamsvm" / "bench"


def write_results(results: list[Result], directory, stem: str, *, title: str, notes: str = ""):
    """Write ``<stem>.md`` and ``<stem>.json`` into ``directory``; returns both paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    md = directory / f"{stem}.md"
    js = directory / f"{stem}.json"
    md.write_text(to_markdown(results, title=title, notes=notes) + "\n", encoding="utf-8")
    js.write_text(json.dumps([r.as_dict() for r in results], indent=1) + "\n", encoding="utf-8")
    return md, js


def load_results(path) -> list[Result]:
    """The results of an earlier run from its JSON file."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    return [Result(**row) for row in rows]


def merge_results(previous: list[Result], new: list[Result]) -> list[Result]:
    """``previous`` with every (task, contender) pair that ``new`` measured again replaced in
    place; pairs only ``new`` has are added after the rest of their task."""
    fresh = {(r.task, r.contender): r for r in new}
    merged = [fresh.pop((r.task, r.contender), r) for r in previous]
    for result in fresh.values():
        last_of_task = max((i for i, r in enumerate(merged) if r.task == result.task),
                           default=len(merged) - 1)
        merged.insert(last_of_task + 1, result)
    return merged
