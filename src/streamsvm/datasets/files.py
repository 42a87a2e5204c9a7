"""Opening text data files: decompression, blocks of whole lines, and the error they raise.

A file is decompressed when its name ends in ``.gz``, ``.bz2`` or ``.xz``; its first bytes
must then be that format's signature. Damage found while decompressing (a truncated or
corrupt stream) is raised as :class:`DataFileError` naming the file and the line being
read, after the complete lines before it have been handed over.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib

import numpy as np

from . import _core

__all__ = ["DataFileError", "data_file_name", "open_data_file", "line_blocks"]

# suffix -> (format name, opener, signature the file must start with)
COMPRESSIONS = {
    ".gz": ("gzip", gzip.open, b"\x1f\x8b"),
    ".bz2": ("bzip2", bz2.open, b"BZh"),
    ".xz": ("xz", lzma.open, b"\xfd7zXZ\x00"),
}
_READ_SIZE = 1 << 16  # bytes asked of the file at a time
# what the decompressors raise on damaged data (BadGzipFile and bz2's errors are OSErrors)
_DAMAGE = (OSError, EOFError, lzma.LZMAError, zlib.error)


class DataFileError(ValueError):
    """A data file that cannot be read: ``str(error)`` is ``"file:line: problem (hint)"``.

    ``path``, ``line`` (counted from 1), ``problem`` and ``hint`` (how a reader's caller can
    get past it, or ``None``) are kept as attributes, so that a caller with other remedies
    (the command line) can say its own.
    """

    def __init__(self, path, line, problem, hint=None):
        self.path = os.fspath(path)
        self.line = int(line)
        self.problem = problem
        self.hint = hint
        suffix = f" ({hint})" if hint else ""
        super().__init__(f"{self.path}:{self.line}: {problem}{suffix}")

    def __reduce__(self):  # pickled whole, e.g. from a worker process
        return type(self), (self.path, self.line, self.problem, self.hint)


def compression_of(path):
    """``(format, opener, signature)`` the name of ``path`` claims, or ``None`` for plain."""
    lowered = os.fspath(path).lower()
    for suffix, spec in COMPRESSIONS.items():
        if lowered.endswith(suffix):
            return spec
    return None


def data_file_name(path) -> str:
    """``path`` as a string, once it names a file: ``FileNotFoundError`` when nothing is
    there, ``IsADirectoryError`` for a folder, ``OSError`` for something that is not a
    regular file (``/dev/null``, a named pipe: stream it through standard input)."""
    name = os.fspath(path)
    if os.path.isdir(name):
        raise IsADirectoryError(f"{name} is a folder, not a data file")
    if os.path.exists(name) and not os.path.isfile(name):
        raise OSError(f"{name} is not a regular file (a device, pipe or socket); give a data "
                      "file, or send the data through standard input ('-')")
    if not os.path.isfile(name):
        raise FileNotFoundError(f"no such data file: {name}")
    return name


def open_data_file(path):
    """Open ``path`` for binary reading, decompressing it when its name says so.

    Raises ``FileNotFoundError`` for a missing file and :class:`DataFileError` when the
    name claims a compression the file's first bytes lack.
    """
    name = data_file_name(path)
    spec = compression_of(name)
    if spec is None:
        return open(name, "rb")
    fmt, opener, signature = spec
    with open(name, "rb") as f:
        head = f.read(len(signature))
    if head != signature:
        if not head:
            raise DataFileError(name, 1, f"the file is empty, but its name says it is {fmt}")
        raise DataFileError(name, 1, f"not a {fmt} file, though its name says so "
                                     f"(it starts with {head!r})")
    return opener(name, "rb")


def _fill(f, buf, start):
    """Read into ``buf[start:]`` until it is full or the stream ends.

    Returns ``(bytes read, damage)``: ``damage`` is the decompressor's exception when the
    data is damaged (else ``None``); the bytes read before it are kept.
    """
    view = memoryview(buf)
    # readinto1 takes what one read of the decompressor gave, so a failing read loses nothing
    read = getattr(f, "readinto1", f.readinto)
    total = 0
    while start + total < buf.shape[0]:
        piece = view[start + total:min(buf.shape[0], start + total + _READ_SIZE)]
        try:
            n = read(piece)
        except _DAMAGE as exc:
            return total, exc
        if not n:
            break
        total += n
    return total, None


def _damage_error(name, line, exc):
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, EOFError):
        what = f"the compressed data ends too early (truncated file?): {detail}"
    else:
        what = f"the compressed data is damaged: {detail}"
    return DataFileError(name, line, what)


def line_blocks(f, block_size, name):
    """Yield ``(buf, stop)`` where ``buf[:stop]`` holds complete lines of ``f``.

    ``buf`` is reused: it is only valid until the next block is asked for. A line longer
    than the block makes the block grow. The tail of the stream after its last newline is
    handed over last. Damaged compressed data raises :class:`DataFileError` naming
    ``name`` and the line it was found in, once the lines before it were handed over.
    """
    buf = np.empty(block_size, dtype=np.uint8)
    carry = 0
    line = 1  # the line that starts buf[0]
    while True:
        got, damage = _fill(f, buf, carry)
        end = carry + got
        at_eof = end < buf.shape[0] or damage is not None
        stop = end if damage is None else _core.last_newline(buf, end) + 1
        if not at_eof:
            stop = _core.last_newline(buf, end) + 1
            if stop == 0:  # one line fills the whole block: read on into a larger block
                bigger = np.empty(2 * buf.shape[0], dtype=np.uint8)
                bigger[:end] = buf[:end]
                buf, carry = bigger, end
                continue
        if stop:
            yield buf, stop
            line += int(np.count_nonzero(buf[:stop] == 10))
        if damage is not None:
            raise _damage_error(name, line, damage) from damage
        if at_eof:
            return
        carry = end - stop
        buf[:carry] = buf[stop:end].copy()
