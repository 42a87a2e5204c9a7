"""The benchmarks' index (``benchmarks/index.py``): every script carries its header (claim,
``Writes:``, ``Run:``) and a row in ``benchmarks/README.md``, the README's tables are what the
headers give, and every results page names the command that made it. The checks are also run
on broken copies in ``tmp_path``, to show that each of them can fail."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def _load(root: pathlib.Path = BENCHMARKS):
    spec = importlib.util.spec_from_file_location(f"bench_index_{abs(hash(root))}",
                                                  root / "index.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def index():
    return _load()


def _copy(tmp_path: pathlib.Path) -> pathlib.Path:
    """benchmarks/ without its data files (only .py and .md), under tmp_path."""
    target = tmp_path / "benchmarks"
    shutil.copytree(BENCHMARKS, target, ignore=lambda folder, names: [
        n for n in names if not (pathlib.Path(folder, n).is_dir() or n.endswith((".py", ".md")))
        or n in ("__pycache__", ".scratch")])
    return target


# --------------------------------------------------------------------------- the real tree
def test_every_script_has_its_header(index):
    scripts, _ = index.collect()
    assert len(scripts) >= 40
    missing = {s.path: s.problems for s in scripts if s.problems}
    assert missing == {}


def test_every_script_names_files_that_exist_and_its_own_path(index):
    scripts, _ = index.collect()
    for s in scripts:
        assert f"python {s.path}" in s.run, s.path
        absent = [w for w in s.writes if not (ROOT / w).is_file()]
        assert absent == [], f"{s.path} says it writes {absent}, which are not committed"


def test_every_script_is_listed_in_the_readme_index(index):
    scripts, helpers = index.collect()
    text = index.README.read_text(encoding="utf-8")
    tables = "\n".join(block.split(index.END)[0] for block in text.split("<!-- index: ")[1:])
    unlisted = [s.path for s in scripts if f"python {s.path}" not in tables
                and f"`{s.path}`" not in tables]
    assert unlisted == []
    assert [h for h in helpers if f"`{h.as_posix()}`" not in tables] == []


def test_readme_index_is_what_the_headers_give(index):
    scripts, helpers = index.collect()
    text = index.README.read_text(encoding="utf-8")
    built, problems = index.build(text, scripts, helpers)
    assert problems == []
    assert built == text, "benchmarks/README.md is stale: run python benchmarks/index.py"


def test_every_results_page_names_its_command(index):
    pages = index.results_pages()
    assert len(pages) >= 60
    missing = {p.relative_to(ROOT).as_posix(): index.page_problem(p) for p in pages}
    missing = {k: v for k, v in missing.items() if v}
    assert missing == {}


def test_every_script_that_writes_a_page_writes_its_run_line(index):
    """A script whose header names a page under ``benchmarks/`` writes the page's ``Run:``
    line itself: through ``_common.write_markdown`` (which adds the running command to a page
    that names none) or a ``Run: `...``` of its own; a page made by hand says so."""
    scripts, _ = index.collect()
    silent = []
    for s in scripts:
        pages = [w for w in s.writes if w.startswith("benchmarks/") and w.endswith(".md")]
        source = (ROOT / s.path).read_text(encoding="utf-8")
        by_hand = all("Run: by hand" in (ROOT / w).read_text(encoding="utf-8") for w in pages)
        if pages and not by_hand and "write_markdown(" not in source and "Run: `" not in source:
            silent.append(s.path)
    assert len(scripts) >= 40
    assert silent == []


def _study(monkeypatch, tmp_path, argv):
    spec = importlib.util.spec_from_file_location("defaults_study_under_test",
                                                  BENCHMARKS / "defaults" / "study.py")
    study = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(study)
    monkeypatch.setattr(study, "RESULTS", tmp_path)
    monkeypatch.setattr(sys, "argv", argv)
    return study


def test_defaults_study_writes_the_command_that_made_its_page(monkeypatch, tmp_path):
    script = str(BENCHMARKS / "defaults" / "study.py")
    study = _study(monkeypatch, tmp_path, [script, "--only", "Forgetron", "--output", "x"])
    recorded = json.loads((BENCHMARKS / "results" / "defaults_forgetron.json").read_text())
    assert "commands" not in recorded  # made before the study recorded its command
    study.write_report(recorded, "old")
    old = (tmp_path / "old.md").read_text(encoding="utf-8")
    assert "Run: `python benchmarks/defaults/study.py --report old` (rewritten" in old
    fresh = {**recorded, "commands": [study.this_command()]}
    rerun = {**recorded, "commands": ["python benchmarks/defaults/study.py --only LASVM"]}
    study.write_report(study.merged(fresh, rerun), "new")
    lines = (tmp_path / "new.md").read_text(encoding="utf-8").splitlines()
    assert lines[4] == ("Run: `python benchmarks/defaults/study.py --only Forgetron --output x`"
                        ", then merged in: `python benchmarks/defaults/study.py --only LASVM`")
    for name in ("old.md", "new.md"):
        assert _load().page_problem(tmp_path / name, ROOT) is None, name


# --------------------------------------------------------------------------- broken copies
def test_a_script_without_header_is_caught(tmp_path):
    root = _copy(tmp_path)
    script = root / "lasvm" / "bench_lasvm_adult.py"
    text = script.read_text(encoding="utf-8")
    script.write_text(text.replace("\nWrites: ", "\nWrote: ", 1).replace("\nRun: ", "\nRan: ", 1),
                      encoding="utf-8")
    problems = _load(root).check(root)
    assert any(p.startswith("benchmarks/lasvm/bench_lasvm_adult.py: no 'Writes:'")
               for p in problems)
    assert any(p.startswith("benchmarks/lasvm/bench_lasvm_adult.py: no 'Run:'")
               for p in problems)


def test_a_run_line_naming_another_script_is_caught(tmp_path):
    root = _copy(tmp_path)
    script = root / "budget" / "bench_tvm_beneficial.py"
    text = script.read_text(encoding="utf-8")
    script.write_text(text.replace("Run: python benchmarks/budget/", "Run: python benchmarks/", 1),
                      encoding="utf-8")
    problems = _load(root).check(root)
    assert ("benchmarks/budget/bench_tvm_beneficial.py: 'Run:' does not name 'python "
            "benchmarks/budget/bench_tvm_beneficial.py'") in problems


def test_an_unlisted_script_and_a_stale_table_are_caught(tmp_path):
    root = _copy(tmp_path)
    header = ('"""Checks a claim.\n\nWrites: benchmarks/results/x.md\n'
              'Run: python benchmarks/{}\n"""\n\nif __name__ == "__main__":\n    pass\n')
    (root / "lasvm" / "bench_new.py").write_text(header.format("lasvm/bench_new.py"))
    (root / "newfamily").mkdir()
    (root / "newfamily" / "bench_other.py").write_text(header.format("newfamily/bench_other.py"))
    problems = _load(root).check(root)
    assert any(p.startswith("README: no table for the family 'newfamily'") for p in problems)
    assert any(p.startswith("README: the index tables differ") for p in problems)


def test_an_edited_table_row_is_caught(tmp_path):
    root = _copy(tmp_path)
    readme = root / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if "bench_tvm_tables.py" in line
               and line.startswith("| "))
    del lines[row]
    readme.write_text("".join(lines), encoding="utf-8")
    module = _load(root)
    assert any(p.startswith("README: the index tables differ") for p in module.check(root))
    module.main([])  # rewrites the tables from the headers (its status counts other problems)
    assert "bench_tvm_tables.py" in readme.read_text(encoding="utf-8")
    assert not any(p.startswith("README:") for p in module.check(root))


def test_a_results_page_without_its_command_is_caught(tmp_path):
    root = _copy(tmp_path)
    page = root / "results" / "lasvm_adult.md"
    text = page.read_text(encoding="utf-8")
    page.write_text("\n".join(line for line in text.splitlines()
                              if not line.startswith("Run:")) + "\n", encoding="utf-8")
    moved = root / "threads" / "busy.md"
    moved.write_text(moved.read_text(encoding="utf-8").replace(
        "python benchmarks/threads/bench_busy.py", "python benchmarks/bench_busy.py"),
        encoding="utf-8")
    module = _load(root)
    assert module.page_problem(page, tmp_path) is not None
    assert "which does not exist" in module.page_problem(moved, tmp_path)
    problems = module.check(root)
    assert any(p.startswith("benchmarks/results/lasvm_adult.md: no line") for p in problems)
    assert any(p.startswith("benchmarks/threads/busy.md: its Run line") for p in problems)


def test_check_mode_exit_status_on_a_small_tree(tmp_path):
    root = tmp_path / "benchmarks"
    (root / "fam").mkdir(parents=True)
    (root / "results").mkdir()
    shutil.copy(BENCHMARKS / "index.py", root / "index.py")
    (root / "_helper.py").write_text('"""A helper."""\n')
    (root / "fam" / "bench_a.py").write_text(
        '"""A claim.\n\nWrites: benchmarks/results/a.md\nRun: python benchmarks/fam/bench_a.py'
        ' --fast\n"""\n\nif __name__ == "__main__":\n    pass\n')
    (root / "results" / "a.md").write_text("# A\n\nRun: `python benchmarks/fam/bench_a.py`\n")
    (root / "README.md").write_text("# B\n\n<!-- index: fam -->\n<!-- /index -->\n\n"
                                    "<!-- index: helpers -->\n<!-- /index -->\n")
    command = [sys.executable, str(root / "index.py")]
    stale = subprocess.run([*command, "--check"], capture_output=True, text=True)
    assert stale.returncode == 1 and "differ" in stale.stdout
    assert subprocess.run(command, capture_output=True, text=True).returncode == 0
    assert "`python benchmarks/fam/bench_a.py --fast`" in (root / "README.md").read_text()
    clean = subprocess.run([*command, "--check"], capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout
    (root / "results" / "b.md").write_text("# B\n\nmade somehow\n")
    broken = subprocess.run([*command, "--check"], capture_output=True, text=True)
    assert broken.returncode == 1 and "benchmarks/results/b.md: no line" in broken.stdout


def test_write_markdown_names_the_running_command(monkeypatch, tmp_path):
    """The pages of the scripts that leave their Run line to ``_common.write_markdown`` get
    the command they were run with, under the machine line; a page with its own keeps it."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import _common
    finally:
        sys.path.remove(str(BENCHMARKS))
    monkeypatch.setattr(_common, "RESULTS", tmp_path)
    script = BENCHMARKS / "streamsvm" / "bench_streamsvm_lookahead.py"
    monkeypatch.setattr(sys, "argv", [str(script), "--orders", "30"])
    lines = _common.write_markdown("a.md", "A", ["| x |", "|---|"]).read_text().splitlines()
    assert lines[4] == "Run: `python benchmarks/streamsvm/bench_streamsvm_lookahead.py --orders 30`"
    assert lines[6:] == ["| x |", "|---|"]
    assert _load().page_problem(tmp_path / "a.md", ROOT) is None
    own = _common.write_markdown("b.md", "B", ["Run: `python benchmarks/index.py`"]).read_text()
    assert own.count("Run:") == 1
