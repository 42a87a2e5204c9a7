"""Sphinx configuration of the documentation site (the guide pages and the API reference).

Build: ``pip install -e ".[docs]"`` then ``python -m sphinx -W -b html docs docs/_build/html``.
The guide pages are Markdown (MyST); the reference pages are generated from the numpydoc
docstrings by autosummary into ``docs/api/generated/`` (not committed: rebuilt each time).
Only the standard library is imported here: pytest imports this file (``--doctest-modules``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

project = "streamsvm"
author = "The streamsvm developers"
copyright = "The streamsvm developers"  # noqa: A001

extensions = [
    "myst_parser",  # the Markdown guide pages
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",  # one reference page per public object
    "numpydoc",  # Parameters / Attributes / Examples sections of the docstrings
    "sphinx.ext.mathjax",  # :math: in docstrings, $...$ in the guide pages
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
templates_path = ["_templates"]

# ---------------------------------------------------------------- the Markdown pages
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3  # links to a section of another page: [text](design.md#layers)

# ---------------------------------------------------------------- the API reference
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"  # the docstrings give the types, numpydoc-style
autodoc_member_order = "groupwise"
add_module_names = False
# no numpydoc table of methods: it would list scikit-learn's too (the page's contents list
# the methods documented below it)
numpydoc_show_class_members = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# ---------------------------------------------------------------- the page
html_theme = "furo"
html_title = "streamsvm"
html_static_path: list[str] = []

# Every warning fails the build (-W): none is suppressed. A suppression, if one is ever
# needed while a docstring is being fixed, goes here, narrow and commented.
suppress_warnings: list[str] = []


def _skip_foreign_member(app, what, name, obj, skip, options):
    """Leave out the members an estimator inherits from scikit-learn and River
    (``get_params``, ``score``, ``set_*_request``, ``clone``, ...): their docstrings belong to
    those libraries' sites and cross-reference labels that exist only there."""
    module = getattr(obj, "__module__", None) or ""
    if module.partition(".")[0] in ("sklearn", "river"):
        return True
    return None


#: a Markdown link whose target is a relative path, e.g. ``[results](../benchmarks/x.md)``
_RELATIVE_LINK = re.compile(r"\]\((?!\w+:)([^)\s#]+)")


def _links_out_of_docs(app, docname: str, source: list[str]) -> None:
    """Serve a page's links to repository files outside ``docs/`` (the benchmark results) as
    downloads: MyST would take ``../benchmarks/results/x.md`` for a missing page. A target
    that does not exist still fails the build (Sphinx warns that it cannot read it)."""
    srcdir = Path(app.srcdir).resolve()
    folder = (srcdir / docname).parent

    def to_path(match: re.Match) -> str:
        target = (folder / match.group(1)).resolve()
        if target.is_relative_to(srcdir):
            return match.group(0)
        return "](path:" + match.group(1)

    source[0] = _RELATIVE_LINK.sub(to_path, source[0])


def _fresh_generated_pages(app) -> None:
    """Delete the reference pages of an earlier build, so that a renamed or removed object
    leaves no orphaned page behind (autosummary writes them again right after this)."""
    shutil.rmtree(Path(app.srcdir) / "api" / "generated", ignore_errors=True)


def setup(app):
    # before autosummary's own builder-inited handler (priority 500), which writes the pages
    app.connect("builder-inited", _fresh_generated_pages, priority=100)
    app.connect("autodoc-skip-member", _skip_foreign_member)
    app.connect("source-read", _links_out_of_docs)
