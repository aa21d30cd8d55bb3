"""One answer's passes split across the machine's cores.

The passes over the runs of a range request are numba kernels that release the GIL, so
threads run them side by side. A request's lanes are cut into contiguous blocks of
about equal work, each boundary between two raster rows: no two blocks write the same
pixel, and the blocks' boxes, concatenated in block order, come in the order one pass
would give. The first block runs in the calling thread, the others in a pool shared
by every view of the process (a thread per further core).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

#: Below this much work (calls in the runs) an answer is not split: starting threads
#: would cost more than they save.
SPLIT_ABOVE = 20_000

T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_in_pool = threading.local()


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _workers() -> ThreadPoolExecutor:
    """The pool that runs all blocks but the first (made on first use)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(cores() - 1, 1), thread_name_prefix="glade-answer")
        return _pool


def blocks(
    work: np.ndarray, raster_rows: np.ndarray | None = None, parts: int | None = None
) -> list[tuple[int, int]]:
    """Positions ``0..n`` of ``work`` (per segment, the work it takes) cut into at most
    ``parts`` (the cores) contiguous blocks ``(a, b)`` of about equal work, a boundary
    only where ``raster_rows`` (non-decreasing, per segment) changes; one block when
    the work is small."""
    n = work.size
    parts = cores() if parts is None else parts
    cumulative = np.cumsum(work, dtype=np.float64)
    total = float(cumulative[-1]) if n else 0.0
    if parts <= 1 or total <= SPLIT_ABOVE:
        return [(0, n)]
    cuts = np.searchsorted(cumulative, total * np.arange(1, parts) / parts, side="right")
    cuts = np.minimum(cuts, n - 1)
    if raster_rows is not None:  # back to the first segment of its raster row
        cuts = np.searchsorted(raster_rows, raster_rows[cuts], side="left")
    bounds = np.unique(np.concatenate([[0], cuts, [n]]))
    return [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]


def run_blocks(task: Callable[[int, int], T], bounds: list[tuple[int, int]]) -> list[T]:
    """``task(a, b)`` for every block of ``bounds``, side by side; the results in block
    order (an exception in any block is raised here). In a thread of the pool (a block
    that splits its own work) the blocks run one after the other: waiting there for the
    pool's other tasks could wait forever."""
    if len(bounds) == 1 or getattr(_in_pool, "active", False):
        return [task(a, b) for a, b in bounds]
    futures = [_workers().submit(_pooled, task, a, b) for a, b in bounds[1:]]
    try:
        first = task(*bounds[0])
    finally:
        rest = [future.result() for future in futures]
    return [first, *rest]


def _pooled(task: Callable[[int, int], T], a: int, b: int) -> T:
    """``task(a, b)`` in a thread of the pool, marked as such (see :func:`run_blocks`)."""
    _in_pool.active = True
    try:
        return task(a, b)
    finally:
        _in_pool.active = False
