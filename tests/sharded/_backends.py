"""Test backends: the calling process, with results handed back in reverse order."""

from streamsvm.sharded.backends import SerialBackend
from streamsvm.sharded.worker import run_task


class ReversedBackend(SerialBackend):
    """Runs the tasks last first and reports them as they end: the driver sees the shards
    finish in the reverse of their order."""

    def __init__(self):
        super().__init__()
        self.kinds = []

    def _run_batch(self, tasks):
        self.kinds.extend(type(t).__name__ for t in tasks)
        for k in reversed(range(len(tasks))):
            yield k, True, run_task(tasks[k])
