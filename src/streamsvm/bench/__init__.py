"""The benchmark suite: every streamsvm estimator against the peers users pick instead, on the
papers' datasets, in one process (``streamsvm bench``; ``--quick`` for a few-minute smoke run).

>>> from streamsvm.bench import contenders, get_tasks, run_suite
>>> task = get_tasks(["checkerboard"], quick=True)[0]
>>> chosen = contenders(["Perceptron", "SGDClassifier, 1 epoch"])
>>> results = run_suite([task], chosen, measure_memory=False)
>>> [r.contender for r in results]
['Perceptron', 'sklearn SGDClassifier, 1 epoch']
>>> all(0.0 <= r.accuracy <= 1.0 and r.train_seconds > 0 for r in results)
True
"""

from .contenders import OUR_SETTINGS, Contender, contenders
from .report import default_results_dir, load_results, merge_results, to_markdown, write_results
from .runner import Result, run_pair, run_suite
from .tasks import QUICK_TASKS, TASKS, Task, get_tasks

__all__ = [
    "Contender",
    "OUR_SETTINGS",
    "QUICK_TASKS",
    "Result",
    "TASKS",
    "Task",
    "contenders",
    "default_results_dir",
    "get_tasks",
    "load_results",
    "merge_results",
    "run_pair",
    "run_suite",
    "to_markdown",
    "write_results",
]
