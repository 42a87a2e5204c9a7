"""The index of ``benchmarks/README.md``, built from the scripts' headers.

Every benchmark script (a ``.py`` file under ``benchmarks/`` with a ``__main__`` block) starts
its module docstring with a header::

    <One sentence: the claim this script checks>.

    Writes: benchmarks/results/<name>.md[, <name>.json, <name>.png]
    Run: python benchmarks/<family>/<script>.py [the options of the committed results]

A name without a ``/`` in ``Writes:`` lies in the folder of the name before it; a field may
continue on the following lines. Modules without a ``__main__`` block are helpers. The README
holds one generated table per family between ``<!-- index: FAMILY -->`` and
``<!-- /index -->``; the prose around the tables is written by hand and left alone.

Run: ``python benchmarks/index.py`` rewrites the tables; ``python benchmarks/index.py --check``
exits with status 1 and says what is wrong when a script lacks its header, a family has no
table in the README, a table differs from what the headers give, or a results page (any other
``.md`` under ``benchmarks/``) has no line ``Run: `python benchmarks/...``` naming the command
that made it (``Run: by hand ...`` for a page no script writes).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent
README = BENCHMARKS / "README.md"
#: Tools of this folder that are run as scripts but measure nothing.
TOOLS = {"index.py"}
FIELD = re.compile(r"^(Writes|Run):\s*(.*)$")
BEGIN = re.compile(r"^<!-- index: ([a-z_]+) -->$")
END = "<!-- /index -->"
#: A results page names the command that made it on a line like these.
RUN_LINE = re.compile(r"^[\s_*>-]*Run:\s*(.*)$")
COMMAND = re.compile(r"python (?:-m )?(benchmarks/[\w/]+\.py)|streamsvm bench\b")


@dataclass
class Script:
    """One benchmark script and its header (``problems`` lists what is missing)."""

    path: str
    family: str
    claim: str = ""
    writes: tuple[str, ...] = ()
    run: str = ""
    problems: tuple[str, ...] = ()


def _has_main(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return True
    return False


def family_of(relative: Path) -> str:
    """The family of a script: its folder under benchmarks/ (``library`` for a top-level one)."""
    if len(relative.parts) > 1:
        return relative.parts[0]
    return "library"


def python_files(root: Path = BENCHMARKS) -> list[Path]:
    """Every ``.py`` file under ``root``, results and scratch folders excluded, sorted."""
    skip = {"results", ".scratch", "__pycache__"}
    return sorted(p for p in root.rglob("*.py")
                  if not skip & set(p.relative_to(root).parts[:-1]))


def parse_header(doc: str) -> tuple[str, tuple[str, ...], str, list[str]]:
    """``(claim, writes, run, problems)`` of a module docstring."""
    problems = []
    paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", doc.strip())]
    claim = " ".join(paragraphs[0].split()) if paragraphs else ""
    if not claim.endswith("."):
        problems.append("the first paragraph (the claim) is not one sentence ending in '.'")
    fields: dict[str, str] = {}
    current = None
    for line in (paragraphs[1].splitlines() if len(paragraphs) > 1 else []):
        match = FIELD.match(line.strip())
        if match:
            current = match.group(1)
            fields[current] = match.group(2).strip()
        elif current and line.strip():
            fields[current] += " " + line.strip()
    writes: list[str] = []
    folder = ""
    for name in filter(None, (n.strip() for n in fields.get("Writes", "").split(","))):
        if "/" in name:
            folder = name.rsplit("/", 1)[0]
            writes.append(name)
        else:
            writes.append(f"{folder}/{name}" if folder else name)
    if not writes:
        problems.append("no 'Writes:' line in the second paragraph")
    run = fields.get("Run", "")
    if not run:
        problems.append("no 'Run:' line in the second paragraph")
    return claim, tuple(writes), run, problems


def collect(root: Path = BENCHMARKS) -> tuple[list[Script], list[Path]]:
    """``(scripts, helpers)`` under ``root``, each script with its parsed header."""
    scripts, helpers = [], []
    for path in python_files(root):
        relative = path.relative_to(root)
        if relative.as_posix() in TOOLS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not _has_main(tree):
            helpers.append(relative)
            continue
        doc = ast.get_docstring(tree) or ""
        claim, writes, run, problems = parse_header(doc)
        name = f"benchmarks/{relative.as_posix()}"
        if run and f"python {name}" not in run:
            problems.append(f"'Run:' does not name 'python {name}'")
        scripts.append(Script(name, family_of(relative), claim, writes, run, tuple(problems)))
    return scripts, helpers


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _link(path: str) -> str:
    target = Path(path)
    try:
        href = target.relative_to("benchmarks").as_posix()
    except ValueError:
        href = "../" + target.as_posix()
    return f"[{target.name}]({href})"


def table(scripts: list[Script]) -> list[str]:
    """The Markdown table of one family's scripts."""
    lines = ["| claim | run | writes |", "|---|---|---|"]
    for s in sorted(scripts, key=lambda s: s.path):
        lines.append(f"| {_cell(s.claim)} | `{_cell(s.run or s.path)}` | "
                     f"{', '.join(_link(w) for w in s.writes)} |")
    return lines


def helper_table(helpers: list[Path], root: Path = BENCHMARKS) -> list[str]:
    lines = ["| helper | what |", "|---|---|"]
    for relative in helpers:
        doc = ast.get_docstring(ast.parse((root / relative).read_text(encoding="utf-8"))) or ""
        first = " ".join(re.split(r"\n\s*\n", doc.strip())[0].split())
        lines.append(f"| `{relative.as_posix()}` | {_cell(first)} |")
    return lines


def build(text: str, scripts: list[Script], helpers: list[Path],
          root: Path = BENCHMARKS) -> tuple[str, list[str]]:
    """``(README text with every table regenerated, problems)``."""
    families: dict[str, list[Script]] = {}
    for s in scripts:
        families.setdefault(s.family, []).append(s)
    out, problems, seen = [], [], set()
    lines = iter(text.splitlines())
    for line in lines:
        out.append(line)
        match = BEGIN.match(line.strip())
        if not match:
            continue
        family = match.group(1)
        seen.add(family)
        for inner in lines:
            if inner.strip() == END:
                break
        else:
            problems.append(f"README: '<!-- index: {family} -->' has no '{END}'")
        if family == "helpers":
            out += helper_table(helpers, root)
        elif family in families:
            out += table(families[family])
        else:
            problems.append(f"README: the table '{family}' has no script (remove its markers)")
        out.append(END)
    for family in sorted(set(families) - seen):
        problems.append(f"README: no table for the family '{family}' (add a section with "
                        f"'<!-- index: {family} -->' and '{END}'): "
                        + ", ".join(s.path for s in families[family]))
    if helpers and "helpers" not in seen:
        problems.append("README: no table for the helpers ('<!-- index: helpers -->')")
    return "\n".join(out) + "\n", problems


def results_pages(root: Path = BENCHMARKS) -> list[Path]:
    """Every results page: the ``.md`` files under ``root`` except its README."""
    return sorted(p for p in root.rglob("*.md") if p != root / "README.md")


def page_problem(page: Path, repo: Path = ROOT) -> str | None:
    """Why ``page`` does not name the command that made it, or None when it does.

    It must hold a line ``Run: `...``` whose command is ``python benchmarks/<script>.py`` of a
    script that exists, or ``streamsvm bench``; or ``Run: by hand`` and where from.
    """
    for line in page.read_text(encoding="utf-8").splitlines():
        match = RUN_LINE.match(line)
        if not match:
            continue
        rest = match.group(1)
        if rest.startswith("by hand"):
            return None
        command = COMMAND.search(rest)
        if command and (command.group(1) is None or (repo / command.group(1)).is_file()):
            return None
        if command:
            return f"its Run line names {command.group(1)}, which does not exist"
    return "no line 'Run: `python benchmarks/...`' naming the command that made it"


def check(root: Path = BENCHMARKS) -> list[str]:
    """Everything wrong with the headers and the README's tables under ``root``."""
    scripts, helpers = collect(root)
    problems = [f"{s.path}: {p}" for s in scripts for p in s.problems]
    text = (root / "README.md").read_text(encoding="utf-8")
    built, found = build(text, scripts, helpers, root)
    problems += found
    if built != text:
        problems.append("README: the index tables differ from the scripts' headers "
                        "(run python benchmarks/index.py)")
    for page in results_pages(root):
        why = page_problem(page, root.parent)
        if why:
            problems.append(f"{page.relative_to(root.parent).as_posix()}: {why}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only check; exit 1 when a header or a table is wrong")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for p in problems:
            print(p)
        return 1 if problems else 0
    scripts, helpers = collect()
    text, problems = build(README.read_text(encoding="utf-8"), scripts, helpers)
    problems = [f"{s.path}: {p}" for s in scripts for p in s.problems] + problems
    README.write_text(text, encoding="utf-8")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
