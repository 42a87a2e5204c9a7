"""Progress lines (streamsvm.utils.progress) and ``verbose`` in fit / partial_fit, on a fake
clock."""

import numpy as np
import pytest

from streamsvm.base import StreamClassifier
from streamsvm.registry import available_estimators
from streamsvm.utils import progress


class FakeClock:
    """A clock that moves only when told to (``advance``) or by ``tick`` per reading."""

    def __init__(self, tick=0.0):
        self.now = 0.0
        self.tick = tick

    def __call__(self):
        self.now += self.tick
        return self.now

    def advance(self, seconds):
        self.now += seconds


def test_lines_only_after_the_interval():
    clock, lines = FakeClock(), []
    bar = progress.Progress("job", 1000, interval=5.0, clock=clock, write=lines.append)
    for done, at in [(100, 1.0), (200, 4.9)]:
        clock.now = at
        bar.update(done)
    assert lines == []
    clock.now = 5.0
    bar.update(500)
    assert lines == ["job: 500/1,000 rows (50%), 100 rows/s, 5 s"]
    clock.now = 9.0  # 4 s after the last line: quiet
    bar.update(700)
    assert len(lines) == 1
    clock.now = 10.0
    bar.update(1000)
    assert lines[-1] == "job: 1,000/1,000 rows (100%), 100 rows/s, 10 s"
    bar.close()
    assert lines[-1].endswith("(done)") and len(lines) == 3


def test_short_work_says_nothing_unless_always():
    lines = []
    with progress.Progress("quick", 10, clock=FakeClock(), write=lines.append) as bar:
        bar.update(10)
    assert lines == []
    with progress.Progress("quick", 10, clock=FakeClock(), write=lines.append,
                           always=True) as bar:
        bar.update(10)
    assert lines == ["quick: started on 10 rows", "quick: 10/10 rows (100%), 0 rows/s, 0 s (done)"]


def test_without_total_counts_rows():
    clock, lines = FakeClock(), []
    bar = progress.Progress("stream", clock=clock, write=lines.append)
    clock.now = 6.0
    bar.update(600)
    assert lines == ["stream: 600 rows, 100 rows/s, 6 s"]


def test_pieces_follow_the_measured_rate():
    clock, lines = FakeClock(), []
    bar = progress.Progress("work", 10_000, clock=clock, write=lines.append)
    sizes, covered = [], []
    for start, stop in bar.pieces(10_000):
        sizes.append(stop - start)
        covered.extend(range(start, stop))
        clock.advance((stop - start) / 1000)  # the work runs at 1,000 rows/s
    assert covered == list(range(10_000))
    # first FIRST_PIECE rows, then about interval / 5 = 1 s of work per piece
    assert sizes[0] == progress.FIRST_PIECE
    assert sizes[1:-1] == [1000] * (len(sizes) - 2)
    # a line every 5 s of work: at 5,256 rows (5.256 s), then the closing one
    assert lines == ["work: 5,256/10,000 rows (53%), 1,000 rows/s, 5 s"]
    assert bar.done == 10_000


def test_first_use_once_per_name(monkeypatch):
    monkeypatch.setattr(progress, "_used", set())
    assert progress.first_use("X") and not progress.first_use("X")
    assert progress.first_use("Y")


def test_heartbeat_speaks_while_the_work_runs_and_stops_with_it():
    """Work that cannot count its rows (a first use compiling) still says it is alive: a
    line per interval from a thread, none after ``stop``."""
    import threading

    lines, spoke = [], threading.Event()

    def write(line):
        lines.append(line)
        spoke.set()

    with progress.Heartbeat("LASVM: first use", interval=0.001, write=write) as beat:
        assert spoke.wait(60)  # the work goes on until the heartbeat has spoken
        beat.stop()
        n = len(lines)
        assert not beat._thread.is_alive()
    assert len(lines) == n and lines[0].startswith("LASVM: first use: still at it, ")
    with progress.Heartbeat("quiet", interval=0.001, write=write, enabled=False) as beat:
        assert beat._thread is None


# --------------------------------------------------------------------------- estimators
STREAM_CLASSIFIERS = {name: cls for name, cls in available_estimators().items()
                      if issubclass(cls, StreamClassifier)}


def _problem(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    return X, y


@pytest.fixture
def fake_clock(monkeypatch):
    """Every reading of the clock is one second later; small first pieces."""
    clock = FakeClock(tick=1.0)
    monkeypatch.setattr(progress, "clock", clock)
    monkeypatch.setattr(progress, "FIRST_PIECE", 20)
    return clock


def _seeded(cls):
    """``cls`` with ``random_state=0`` where it has one (so two fits draw the same)."""
    def make(**params):
        if "random_state" in cls().get_params():
            params.setdefault("random_state", 0)
        return cls(**params)
    return make


@pytest.mark.parametrize("name", list(STREAM_CLASSIFIERS))
def test_verbose_reports_and_learns_the_same_model(name, fake_clock, monkeypatch, capsys):
    cls = _seeded(STREAM_CLASSIFIERS[name])
    X, y = _problem()
    quiet = cls().fit(X, y)
    monkeypatch.setattr(progress, "_used", set())
    talking = cls(verbose=1).fit(X, y)
    err = capsys.readouterr().err
    np.testing.assert_array_equal(talking.decision_function(X), quiet.decision_function(X))
    assert progress.first_use_notice(name) in err
    if f"{name}.fit: 240 rows in one compiled pass" not in err:
        assert f"{name}.fit: " in err and "/240 rows (" in err and "rows/s" in err
        assert "(done)" in err

    # partial_fit over two chunks: the same stream, quiet or not
    quiet, talking = cls(), cls(verbose=2)
    for part in (slice(0, 120), slice(120, 240)):
        quiet.partial_fit(X[part], y[part], classes=[-1, 1])
        talking.partial_fit(X[part], y[part], classes=[-1, 1])
    quiet.finish()
    talking.finish()
    np.testing.assert_array_equal(talking.decision_function(X), quiet.decision_function(X))
    assert progress.first_use_notice(name) not in capsys.readouterr().err


@pytest.mark.parametrize(("name", "compiles"), [("LASVM", True), ("ActiveSVM", True),
                                               ("Pegasos", False)])
def test_a_compiled_finishing_step_announces_its_first_use(name, compiles, monkeypatch,
                                                           capsys):
    """``finish()`` after a stream of ``partial_fit`` runs compiled code of its own (LASVM's
    finishing step), which may compile for minutes: announced once, as ``fit`` is; an
    estimator whose finish compiles nothing says nothing."""
    X, y = _problem()
    monkeypatch.setattr(progress, "_used", set())
    model = STREAM_CLASSIFIERS[name](verbose=1)
    model.partial_fit(X, y, classes=[-1, 1])
    capsys.readouterr()
    model.finish()
    notice = progress.first_use_notice(f"{name}.finish")
    assert (notice in capsys.readouterr().err) == compiles
    model.finish()
    assert notice not in capsys.readouterr().err
    # fit runs the finishing step inside its own announced first use
    monkeypatch.setattr(progress, "_used", set())
    STREAM_CLASSIFIERS[name](verbose=1).fit(X, y)
    STREAM_CLASSIFIERS[name](verbose=1).fit(X, y).finish()
    assert notice not in capsys.readouterr().err


def test_the_chunk_invariant_families_report_inside_fit(fake_clock, capsys):
    X, y = _problem()
    in_pieces = set()
    for name, cls in STREAM_CLASSIFIERS.items():
        cls(verbose=1).fit(X, y)
        if "in one compiled pass" not in capsys.readouterr().err:
            in_pieces.add(name)
    # the families whose result depends on the chunking (or whose fit is more than one pass
    # then finish) never do: the LASVM family, ActiveSVM, RandomBudgetSVM, IncrementalSVM
    assert in_pieces == {"Pegasos", "Perceptron", "StreamSVM", "BlurredBallSVM",
                         "TwinVectorMachine", "Forgetron", "BudgetPerceptron"}


def test_multiclass_sparse_fit_in_pieces_is_exact(fake_clock, capsys):
    import scipy.sparse as sp

    from streamsvm import Pegasos

    rng = np.random.default_rng(1)
    X = sp.random(300, 6, density=0.4, random_state=2, format="csr")
    y = rng.integers(0, 3, size=300)
    quiet = Pegasos(block_size=4).fit(X, y)
    talking = Pegasos(block_size=4, verbose=1).fit(X, y)
    np.testing.assert_array_equal(talking.decision_function(X), quiet.decision_function(X))
    assert "Pegasos.fit: " in capsys.readouterr().err


def test_verbose_is_checked():
    from streamsvm import Perceptron

    with pytest.raises(ValueError, match="verbose=-1 is invalid"):
        Perceptron(verbose=-1).fit(*_problem())


def test_distributed_reports_its_protocol_events(monkeypatch, capsys):
    from streamsvm import DistributedL2SVM

    clock = FakeClock(tick=5.0)
    monkeypatch.setattr(progress, "clock", clock)
    X, y = _problem(n=300)
    quiet = DistributedL2SVM(n_sites=3, gamma=1.0).fit(X, y)
    talking = DistributedL2SVM(n_sites=3, gamma=1.0, verbose=1).fit(X, y)
    np.testing.assert_array_equal(talking.decision_function(X), quiet.decision_function(X))
    err = capsys.readouterr().err
    assert "DistributedL2SVM.add: 256/300 rows (85%)" in err
    assert "DistributedL2SVM.add: 300/300 rows (100%)" in err and "(done)" in err
