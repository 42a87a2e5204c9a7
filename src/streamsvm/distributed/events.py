"""A replayable event log for the distributed tracker: one event per line, plain text.

Format (version 1)::

    # comments start with '#'; blank lines are ignored
    add <site> <point_id> <label> <x_1> ... <x_d>
    delete <site> <point_id>
    query <site> <x_1> ... <x_d>

``site`` and ``point_id`` are integers ≥ 0, ``label`` a number (−1 / +1 for a two-class
model, anything for one-class, e.g. 1), features are numbers separated by white space; every
``add`` and ``query`` line has the same number d of features. A deletion names the site the
point was added at. :func:`read_events` checks every line and raises a ``ValueError`` naming
the first malformed line by number; it does not check that deletions refer to live points
(replaying does, see :meth:`DistributedL2SVM.run_events`).

>>> events = read_events(["add 0 7 +1 0.5 1.0", "# a comment", "query 1 0.0 0.0",
...                       "delete 0 7"])
>>> [(e.kind, e.site, e.point_id, e.line) for e in events]
[('add', 0, 7, 1), ('query', 1, None, 3), ('delete', 0, 7, 4)]
>>> read_events(["add 0 1 1 0.5", "add 0 2 1 0.5 0.7"])
Traceback (most recent call last):
...
ValueError: line 2: expected 1 features (as on earlier lines), got 2
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from typing import NamedTuple

import numpy as np

__all__ = ["Event", "iter_events", "read_events", "write_events", "format_event"]

KINDS = ("add", "delete", "query")


class Event(NamedTuple):
    """One line of an event log (``x`` and ``label`` are None where they do not apply)."""

    kind: str
    site: int
    point_id: int | None
    label: float | None
    x: np.ndarray | None
    line: int


def _int(text, what, lineno):
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"line {lineno}: {what} must be an integer, got {text!r}") from None
    if value < 0:
        raise ValueError(f"line {lineno}: {what} must be >= 0, got {value}")
    return value


def _floats(parts, lineno):
    try:
        x = np.array([float(p) for p in parts], dtype=np.float64)
    except ValueError:
        bad = next(p for p in parts if not _is_float(p))
        raise ValueError(f"line {lineno}: feature {bad!r} is not a number") from None
    if not np.all(np.isfinite(x)):
        raise ValueError(f"line {lineno}: features contain NaN or infinity")
    return x


def _is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _lines(source) -> Iterator[str]:
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8") as handle:
            yield from handle
    else:
        yield from source


def iter_events(source, n_features: int | None = None) -> Iterator[Event]:
    """Events of a log (a path, or an iterable of lines), checked line by line."""
    width = n_features
    for lineno, raw in enumerate(_lines(source), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        kind = parts[0].lower()
        if kind not in KINDS:
            raise ValueError(f"line {lineno}: unknown event {parts[0]!r}; expected one of "
                             f"{', '.join(KINDS)}")
        if kind == "delete":
            if len(parts) != 3:
                raise ValueError(f"line {lineno}: 'delete' takes <site> <point_id>, got "
                                 f"{len(parts) - 1} fields")
            yield Event(kind, _int(parts[1], "site", lineno), _int(parts[2], "point id", lineno),
                        None, None, lineno)
            continue
        head = 4 if kind == "add" else 2
        if len(parts) <= head:
            fields = "<site> <point_id> <label> <features...>" if kind == "add" \
                else "<site> <features...>"
            raise ValueError(f"line {lineno}: '{kind}' takes {fields}; got {len(parts) - 1} "
                             "fields")
        site = _int(parts[1], "site", lineno)
        point_id = label = None
        if kind == "add":
            point_id = _int(parts[2], "point id", lineno)
            try:
                label = float(parts[3])
            except ValueError:
                raise ValueError(f"line {lineno}: label must be a number, got "
                                 f"{parts[3]!r}") from None
            if not math.isfinite(label):
                raise ValueError(f"line {lineno}: label must be finite")
        x = _floats(parts[head:], lineno)
        if width is None:
            width = x.size
        elif x.size != width:
            raise ValueError(f"line {lineno}: expected {width} features (as on earlier lines), "
                             f"got {x.size}")
        yield Event(kind, site, point_id, label, x, lineno)


def read_events(source, n_features: int | None = None) -> list[Event]:
    """All events of a log, after checking every line (see the module docstring)."""
    return list(iter_events(source, n_features))


def format_event(kind, site, point_id=None, label=None, x=None) -> str:
    """One log line (floats written with ``repr`` precision, so replays are exact)."""
    if kind == "delete":
        return f"delete {int(site)} {int(point_id)}"
    feats = " ".join(repr(float(v)) for v in np.asarray(x, dtype=np.float64).ravel())
    if kind == "add":
        return f"add {int(site)} {int(point_id)} {float(label):+g} {feats}"
    if kind == "query":
        return f"query {int(site)} {feats}"
    raise ValueError(f"unknown event kind {kind!r}")


def write_events(path, events: Iterable, header: str | None = None) -> None:
    """Write events (:class:`Event` or tuples ``(kind, site, point_id, label, x)``)."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("# streamsvm distributed event log v1\n")
        if header:
            for line in header.splitlines():
                handle.write(f"# {line}\n")
        for event in events:
            kind, site, point_id, label, x = tuple(event)[:5]
            handle.write(format_event(kind, site, point_id, label, x) + "\n")
