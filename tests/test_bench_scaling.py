"""The scaling benchmark's arithmetic: growth exponent, flatness check, memory accounting."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import tracemalloc

import numpy as np
import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "library" / "bench_scaling.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH.parent))
    try:
        spec = importlib.util.spec_from_file_location("bench_scaling", BENCH)
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_scaling"] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_scaling", None)
        sys.path.remove(str(BENCH.parent))


def test_exponent_recovers_a_power_law(bench):
    ns = [10_000, 100_000, 1_000_000, 10_000_000]
    for k in (0.5, 1.0, 2.0):
        slope, span = bench.growth_exponent(ns, [3e-6 * n**k for n in ns])
        assert slope == pytest.approx(k, abs=1e-9)
        assert span == (10_000, 10_000_000)


def test_exponent_is_least_squares_over_sizes_from_ten_thousand(bench):
    # sizes below 10^4 are left out when two or more sizes >= 10^4 are measured
    ns = [1000, 2000, 10_000, 100_000, 1_000_000]
    seconds = [50.0, 1.0, 1e-2, 1e-1 * 2, 1.0]
    slope, span = bench.growth_exponent(ns, seconds)
    x, t = np.log(ns[2:]), np.log(seconds[2:])
    expected = np.sum((x - x.mean()) * (t - t.mean())) / np.sum((x - x.mean()) ** 2)
    assert slope == pytest.approx(expected)
    assert span == (10_000, 1_000_000)
    # with fewer than two sizes >= 10^4, every size counts
    slope, span = bench.growth_exponent([1000, 2000, 5000], [1.0, 4.0, 25.0])
    assert slope == pytest.approx(2.0)
    assert span == (1000, 5000)


def test_exponent_needs_two_usable_points(bench):
    assert bench.growth_exponent([10_000], [1.0]) == (None, None)
    assert bench.growth_exponent([10_000, 100_000], [1.0, None]) == (None, None)
    assert bench.growth_exponent([10_000, 100_000], [0.0, 1.0]) == (None, None)
    assert bench.growth_exponent([], []) == (None, None)


def test_flatness_is_ten_percent_growth_at_most(bench):
    assert bench.flatness(100.0, 109.0) == (True, pytest.approx(0.09))
    assert bench.flatness(100.0, 110.0)[0] is True
    assert bench.flatness(100.0, 111.0) == (False, pytest.approx(0.11))
    assert bench.flatness(100.0, 50.0) == (True, pytest.approx(-0.5))
    assert bench.flatness(None, 1.0) == (None, None)
    assert bench.flatness(0.0, 0.0) == (True, 0.0)
    assert bench.flatness(0.0, 1.0)[0] is False


def test_flat_check_needs_both_peaks_flat(bench):
    def entry(peaks, rss, kind="stream"):
        points = [{"n": n, "learn_peak_mb": p, "rss_mb": r, "model_bytes": 800}
                  for n, p, r in zip((1_000_000, 10_000_000), peaks, rss, strict=True)]
        return {"kind": kind, "points": points, "max_n": 10_000_000, "why_max": ""}

    assert bench.flat_check(entry((1.0, 1.05), (200, 205)), quick=False)["flat"] is True
    assert bench.flat_check(entry((1.0, 1.5), (200, 205)), quick=False)["flat"] is False
    assert bench.flat_check(entry((1.0, 1.0), (200, 260)), quick=False)["flat"] is False
    check = bench.flat_check(entry((1.0, 1.3), (200, 200)), quick=False)
    assert check["learn_growth"] == pytest.approx(0.3)
    assert check["model_bytes_growth"] == 0.0
    assert bench.flat_check(entry((1.0, 1.0), (1, 1), kind="batch"), quick=False) is None
    capped = {"kind": "stream", "points": [{"n": 5000}], "max_n": 5000, "why_max": "O(n^2)"}
    check = bench.flat_check(capped, quick=False)
    assert check["flat"] is None and "O(n^2)" in check["reason"]


def test_checkpoints(bench):
    assert bench.checkpoints(1000, 20_000) == [1000, 2000, 5000, 10_000, 20_000]
    assert bench.checkpoints(10_000, 10_000_000)[-1] == 10_000_000
    assert len(bench.checkpoints(10_000, 10_000_000)) == 10


class _Growing:
    """Keeps ``keep`` more bytes per call and uses ``temp`` bytes of temporaries."""

    def __init__(self, keep, temp):
        self.keep, self.temp, self.parts = keep, temp, []

    def partial_fit(self, X):
        scratch = np.ones(self.temp // 8)
        self.parts.append(np.zeros(self.keep // 8))
        return float(scratch.sum())


@pytest.mark.parametrize("keep", [0, 80_000])
def test_footprint_counts_the_model_not_the_chunks(bench, keep):
    temp, chunk_bytes = 400_000, 800_000
    tracemalloc.start()
    try:
        X = np.ones(chunk_bytes // 8)
        foot = bench.Footprint()
        model = foot.call(_Growing, keep, temp)
        peaks, currents = [], []
        for _ in range(6):
            foot.call(model.partial_fit, X)
            peaks.append(foot.peak)
            currents.append(foot.current)
            X = np.ones(chunk_bytes // 8)  # the next chunk: the harness, not the model
    finally:
        tracemalloc.stop()
    slack = 8_000  # Python objects: the list, array headers
    for calls, (peak, current) in enumerate(zip(peaks, currents, strict=True), start=1):
        assert abs(current - calls * keep) < slack
        assert abs(peak - (calls * keep + temp)) < slack


def test_kernel_stream_is_the_checkerboard(bench):
    X, y = next(bench.kernel_stream(2000, seed=3, noise=0.0))
    raw = X * (4.0 / np.sqrt(12.0)) + 2.0
    assert raw.min() >= 0.0 and raw.max() < 4.0
    cells = np.floor(raw).astype(int)
    np.testing.assert_array_equal(y, np.where(cells.sum(axis=1) % 2 == 0, 1, -1))
    _, noisy = next(bench.kernel_stream(20_000, seed=3))
    clean = np.where(np.floor(next(bench.kernel_stream(20_000, seed=3))[0] * (4.0 / np.sqrt(
        12.0)) + 2.0).astype(int).sum(axis=1) % 2 == 0, 1, -1)
    assert 0.13 < np.mean(noisy != clean) < 0.17
