"""The version of streamsvm (a module of its own, so that any module can read it without
importing the package ``__init__``, which imports every family)."""

__version__ = "0.1.0"
