"""pytest runs the examples of the Markdown pages here (``--doctest-glob=*.md``); it leaves out
the Sphinx configuration and the built site, whose ``_downloads/`` holds copies of pages."""

collect_ignore = ["conf.py", "_build"]
