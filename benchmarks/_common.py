"""Helpers shared by the benchmark scripts: timing, result files, dataset availability."""

from __future__ import annotations

import datetime
import os
import pathlib
import platform
import time

import numpy as np

RESULTS = pathlib.Path(__file__).parent / "results"


def timed(fn, *args, **kwargs):
    """``(result, seconds)`` of one call."""
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def mean_std(values) -> str:
    values = np.asarray(values, dtype=float)
    if values.size == 1:
        return f"{values[0]:.2f}"
    return f"{values.mean():.2f} ± {values.std(ddof=1):.2f}"


def machine_line() -> str:
    return (
        f"{datetime.date.today()} · {platform.processor() or platform.machine()} · "
        f"{os.cpu_count()} cores · Python {platform.python_version()}"
    )


def write_markdown(name: str, title: str, lines: list[str]) -> pathlib.Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(f"# {title}\n\n_{machine_line()}_\n\n" + "\n".join(lines) + "\n")
    return path
