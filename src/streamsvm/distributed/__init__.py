"""Distributed tracking of L2-SVMs over many sites by geometric monitoring (P. Chrysogelos,
"Streaming, High Performance Support Vector Methods", diploma thesis, Technical University of
Crete, 2016).

* :class:`Tracker` — the general protocol (chapters 2–3): min f over the hull of K sites'
  fully dynamic sets, exact or ε-approximate, update method 1 or 2;
* spaces/objectives — :class:`KernelSpace` (k̂ of the two-class / one-class L2-SVM),
  :class:`EuclideanSpace`, :class:`SquaredNorm`, :class:`ConvexFunction` (pluggable f);
* backends — in-process (:class:`LocalNetwork`, default) and Ray actors
  (:class:`~streamsvm.distributed.ray_backend.RayNetwork`), both behind the message layer of
  :mod:`.messages` (sequence numbers, acknowledgements, resends, checkpoints, restart of a
  crashed site); :mod:`.faults` injects lost, duplicated and reordered messages and crashes;
* :class:`DistributedL2SVM` — the public estimator; :mod:`.events` — the event-log format.
"""

from .estimator import DistributedL2SVM
from .events import Event, read_events, write_events
from .network import CommStats, LocalNetwork
from .objective import ConvexFunction, EuclideanSpace, KernelSpace, PointBlock, SquaredNorm
from .protocol import Tracker

__all__ = [
    "DistributedL2SVM",
    "Tracker",
    "KernelSpace",
    "EuclideanSpace",
    "SquaredNorm",
    "ConvexFunction",
    "PointBlock",
    "CommStats",
    "LocalNetwork",
    "Event",
    "read_events",
    "write_events",
]
