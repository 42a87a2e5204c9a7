"""Training over shards: one model from data split into parts, learnt by several workers
(spawned local processes or Ray), combined by what each model's maths allows — ball merge
(StreamSVM), cover union (the Blurred Ball SVM), averaging (Pegasos, Perceptron), the
Cascade SVM (LASVM, IncrementalSVM). See ``docs/sharded.md`` ("Beyond one machine")."""

from .backends import KillWorker, LocalBackend, RayBackend, SerialBackend, WorkerLostError
from .driver import fit_sharded, sharded_method
from .shards import ShardError

__all__ = ["fit_sharded", "sharded_method", "LocalBackend", "RayBackend", "SerialBackend",
           "KillWorker", "ShardError", "WorkerLostError"]
