"""Progress lines of long work: rows done of a total and rows/s, at most one line every few
seconds, written to standard error.

Used by the estimators' ``fit`` / ``partial_fit`` (``verbose=1``), ``streamsvm demo``,
``streamsvm bench`` and ``streamsvm warmup``. Time comes from :data:`clock` (a module
attribute read when a :class:`Progress` starts, or the ``clock`` argument), so tests give a
fake clock and never wait.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator

__all__ = ["HEARTBEAT", "INTERVAL", "Heartbeat", "Progress", "clock", "first_use",
           "first_use_notice", "say"]

#: seconds between two progress lines at most
INTERVAL = 5.0
#: seconds between two lines of a :class:`Heartbeat` (work that cannot count its rows)
HEARTBEAT = 15.0
#: rows of the first piece when work is cut into pieces (later pieces follow the rate)
FIRST_PIECE = 256
#: the clock progress reads (seconds); tests replace it with a fake one
clock: Callable[[], float] = time.perf_counter

_used: set[str] = set()


def say(line: str) -> None:
    """Write one line to standard error now (looked up at each call, so captures see it)."""
    print(line, file=sys.stderr, flush=True)


def first_use(name: str) -> bool:
    """True the first time ``name`` is asked about in this process."""
    if name in _used:
        return False
    _used.add(name)
    return True


def first_use_notice(name: str) -> str:
    """The line shown before an estimator's compiled code is first used in a process."""
    return (f"{name}: first use in this process: loading its numba code, or compiling it "
            "where not cached (minutes; `streamsvm warmup` does it ahead)")


class Heartbeat:
    """While work that cannot report its own progress runs (numba compiling an estimator's
    loops on its first use: minutes, inside one call), a line ``label: still at it, N s``
    every ``interval`` seconds from a daemon thread, until :meth:`stop` or the end of the
    ``with`` block; with ``enabled=False`` it does nothing.

    >>> lines = []
    >>> with Heartbeat("LASVM: first use", interval=3600, write=lines.append):
    ...     pass
    >>> lines
    []
    """

    def __init__(self, label: str, *, interval: float = HEARTBEAT,
                 write: Callable[[str], None] | None = None, enabled: bool = True):
        self.label = label
        self.interval = float(interval)
        self._write = write if write is not None else say
        self._stopped = threading.Event()
        self._thread = None
        if enabled:
            self._thread = threading.Thread(target=self._beat, daemon=True,
                                            name="streamsvm-heartbeat")

    def _beat(self) -> None:
        started = time.perf_counter()
        while not self._stopped.wait(self.interval):
            self._write(f"{self.label}: still at it, {time.perf_counter() - started:.0f} s")

    def stop(self) -> None:
        """No more lines (the work has reached a point where it reports progress itself)."""
        self._stopped.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join()

    def __enter__(self) -> Heartbeat:
        if self._thread is not None:
            self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.stop()


class Progress:
    """Counts rows done of ``total`` and writes ``label: done/total rows (pct), rate rows/s``
    whenever ``interval`` seconds have passed since the last line.

    ``write`` receives each line (default: :func:`say`); :meth:`close` writes a last line
    if any line was written before (or always, with ``always=True``).
    """

    def __init__(self, label: str, total: int | None = None, *, interval: float = INTERVAL,
                 clock: Callable[[], float] | None = None,
                 write: Callable[[str], None] | None = None, always: bool = False):
        self.label = label
        self.total = total
        self.interval = float(interval)
        self._clock = clock if clock is not None else _module_clock()
        self._write = write if write is not None else say
        self.always = always
        self.done = 0
        self.n_lines = 0
        self.started = self._clock()
        self._last_line = self.started

    def elapsed(self, now: float | None = None) -> float:
        return (self._clock() if now is None else now) - self.started

    def line(self, now: float) -> str:
        """The progress line at time ``now``."""
        seconds = now - self.started
        rate = self.done / seconds if seconds > 0 else 0.0
        if self.total:
            count = f"{self.done:,}/{self.total:,} rows ({100 * self.done / self.total:.0f}%)"
        else:
            count = f"{self.done:,} rows"
        return f"{self.label}: {count}, {rate:,.0f} rows/s, {seconds:.0f} s"

    def update(self, done: int, now: float | None = None) -> None:
        """Set the rows done; write a line if ``interval`` seconds passed since the last."""
        self.done = int(done)
        now = self._clock() if now is None else now
        if now - self._last_line >= self.interval:
            self._emit(now)

    def _emit(self, now: float) -> None:
        self._write(self.line(now))
        self.n_lines += 1
        self._last_line = now

    def close(self) -> None:
        """Write the final line if lines were written (or ``always``)."""
        if self.n_lines or self.always:
            now = self._clock()
            self._write(self.line(now) + " (done)")

    def __enter__(self) -> Progress:
        if self.always:
            self._write(f"{self.label}: started"
                        + (f" on {self.total:,} rows" if self.total else ""))
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()

    def pieces(self, n: int, *, offset: int = 0) -> Iterator[tuple[int, int]]:
        """Cut ``n`` rows into ``(start, stop)`` pieces, each sized from the rate measured
        so far to take about a fifth of ``interval``; after the caller's work on a piece,
        :meth:`update` counts it (``offset`` rows were done before)."""
        start, size = 0, min(FIRST_PIECE, n)
        while start < n:
            stop = min(n, start + size)
            before = self._clock()
            yield start, stop
            after = self._clock()
            self.update(offset + stop, now=after)
            took = after - before
            rate = (stop - start) / took if took > 0 else float("inf")
            size = int(min(max(16, round(rate * self.interval / 5)), n))
            start = stop


def _module_clock() -> Callable[[], float]:
    return clock
