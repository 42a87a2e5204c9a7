"""The documentation site's sources hold together, checked without building it.

The site (``docs/conf.py``: Sphinx, numpydoc, MyST) is built in CI with warnings as errors
(``python -m sphinx -W -b html docs docs/_build/html``, about half a minute). These checks catch
cheaply what would break it or leave a hole in it:

* every estimator of :data:`streamsvm.registry.ESTIMATORS` and every name of
  ``streamsvm.__all__`` has a reference page (an entry of an ``autosummary`` table of
  ``docs/api/``), and every entry there names an object that exists;
* every Markdown page of ``docs/`` is in the site's table of contents (a ``toctree``), and
  every ``toctree`` entry is a page;
* every estimator's docstring parses as numpydoc with a Parameters section naming each
  constructor parameter, an Attributes section and an example (needs numpydoc, from the
  ``docs`` extra: the test skips, saying so, without it).
"""

from __future__ import annotations

import importlib
import inspect
import re
import warnings
from pathlib import Path

import pytest

import streamsvm
from streamsvm.registry import ESTIMATORS

DOCS = Path(__file__).resolve().parents[1] / "docs"
API = DOCS / "api"
#: folders of docs/ that are not source pages: the build output and the generated stubs
NOT_SOURCES = ("_build", "api/generated", "_templates")


def _source_pages() -> list[Path]:
    return sorted(
        path for path in DOCS.rglob("*.md")
        if not any(path.relative_to(DOCS).as_posix().startswith(p) for p in NOT_SOURCES)
    )


def _fenced_blocks(text: str, opener: str) -> list[list[str]]:
    """The lines of each fenced block that starts with ``opener`` (e.g. ```` ```{toctree} ````)."""
    blocks, current = [], None
    for line in text.splitlines():
        if current is None:
            if line.strip().startswith(opener):
                current = []
        elif line.strip() == "```":
            blocks.append(current)
            current = None
        else:
            current.append(line)
    return blocks


def reference_entries() -> dict[str, Path]:
    """Dotted name -> the page of docs/api/ whose autosummary table lists it."""
    entries = {}
    for page in sorted(API.glob("*.md")):
        for block in _fenced_blocks(page.read_text(encoding="utf-8"), "```{eval-rst}"):
            module, in_table = None, False
            for line in block:
                found = re.match(r"\.\. currentmodule:: (\S+)", line.strip())
                if found:
                    module = found.group(1)
                if line.startswith(".. autosummary::"):
                    in_table = True
                elif in_table and line.startswith("   ") and not line.strip().startswith(":"):
                    assert module, f"{page.name}: an autosummary table before currentmodule"
                    entries[f"{module}.{line.strip()}"] = page
                elif line.strip() and not line.startswith("   "):
                    in_table = False
    return entries


def toctree_entries() -> dict[Path, Path]:
    """Page listed in a toctree -> the page whose toctree lists it."""
    listed = {}
    for page in _source_pages():
        for block in _fenced_blocks(page.read_text(encoding="utf-8"), "```{toctree}"):
            for line in block:
                entry = line.strip()
                if entry and not entry.startswith(":"):
                    listed[(page.parent / f"{entry}.md").resolve()] = page
    return listed


def test_every_public_name_and_estimator_has_a_reference_page():
    entries = reference_entries()
    assert len(entries) > 50, f"the autosummary tables of docs/api/ were not read: {entries}"
    public = [name for name in streamsvm.__all__ if name != "__version__"]
    missing = [name for name in public if f"streamsvm.{name}" not in entries]
    assert not missing, f"no reference page in docs/api/ for streamsvm.{missing}"
    unlisted = [name for name in ESTIMATORS if f"streamsvm.{name}" not in entries]
    assert not unlisted, f"estimators of the registry without a reference page: {unlisted}"


def test_every_reference_entry_names_an_object():
    wrong = []
    for dotted, page in reference_entries().items():
        module, _, name = dotted.rpartition(".")
        try:
            getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as error:
            wrong.append(f"{page.relative_to(DOCS)}: {dotted} ({error})")
    assert not wrong, "reference entries that name nothing:\n" + "\n".join(wrong)


def test_every_page_is_in_the_table_of_contents():
    listed = toctree_entries()
    pages = _source_pages()
    assert DOCS / "index.md" in pages and len(pages) > 10
    orphans = [p.relative_to(DOCS).as_posix() for p in pages
               if p.resolve() not in listed and p != DOCS / "index.md"]
    assert not orphans, f"pages of docs/ in no toctree (add them to docs/index.md): {orphans}"
    dangling = [f"{where.relative_to(DOCS)} lists {entry.relative_to(DOCS.resolve())}"
                for entry, where in listed.items() if not entry.is_file()]
    assert not dangling, f"toctree entries that are no page: {dangling}"


def _sections(cls) -> tuple[dict, list[str]]:
    """The numpydoc sections of ``cls``'s docstring, and what numpydoc warned while parsing."""
    docscrape = pytest.importorskip(
        "numpydoc.docscrape",
        reason="numpydoc (the docs extra: pip install -e '.[docs]') is not installed",
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = docscrape.NumpyDocString(inspect.getdoc(cls) or "")
    return doc, [str(w.message) for w in caught]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimator_docstring_lists_parameters_attributes_and_an_example(name):
    cls = getattr(streamsvm, name)
    doc, complaints = _sections(cls)
    assert not complaints, f"numpydoc cannot parse {name}'s docstring: {complaints}"
    absent = {section for section in ("Parameters", "Attributes", "Examples")
              if not doc[section]}
    assert absent == set(), f"{name}: sections missing: {absent}"
    documented = {part.strip() for entry in doc["Parameters"] for part in entry.name.split(",")}
    undocumented = set(inspect.signature(cls).parameters) - documented
    assert undocumented == set(), (
        f"{name}: constructor parameters with no entry in Parameters: {sorted(undocumented)}"
    )
    assert any(">>>" in line for line in doc["Examples"]), f"{name}: no doctest example"
