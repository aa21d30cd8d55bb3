"""Levels of detail for wide ranges: the time small calls cover, pre-aggregated per row
and bin, so that a request spanning millions of calls reads a few records
per pixel instead of every call.

Level k cuts the trace into 2^k bins of ``size`` ns. Calls shorter than two bins
become records: one per row and bin, holding the time they cover there and the
function of the largest (see :func:`glade.trace.timeline.kernels._level_pass`, one pass
over the calls in start order); longer calls stay calls, kept as their positions in
the index's call arrays, lane by lane. A request whose pixels are at least two bins
wide reads level k: its long calls give boxes and exact raster shares as usual, and
every record adds its time at its bin's centre, less than half a pixel from where it
was spent. A request whose box threshold (raised by the box budget) is at least two
bins of level k - 1 reads that level instead: its records hold only calls the raster
draws anyway, and its bins are at most a pixel. So a wide request reads at most a
record per row and bin, however many calls the bins hold. Levels are built on first
use (or ahead, in a background thread) and kept (where the index keeps its arrays:
see ``store`` of :class:`~glade.trace.timeline.index.TimelineIndex`).
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable
from typing import overload

import numpy as np

from glade.trace.timeline import kernels, parallel

#: The records of a level's layout: (pointer per row, bin, weights, code).
Records = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
#: Requests over fewer calls than this read the calls themselves.
EXACT_LIMIT = 250_000
#: Calls per block of a level's build (a builder working ahead pauses between blocks).
BLOCK_CALLS = 200_000
#: The coarsest level: 2^COARSEST bins over the trace (pixels narrower than
#: span / 2^(COARSEST - 1) never need a coarser one).
COARSEST = 9


class Level:
    """Level ``k`` of an index (see the module doc); ``records(depth_rows)`` are built
    for a layout the first time it asks."""

    def __init__(self, index, k: int):
        self.index = index
        self.k = k
        origin, last = index.forest.duration
        self.origin = float(origin)
        self.size = bin_size(float(last - origin), k)
        long, long_ptr = kernels.long_calls(
            index.call_ptr, index.call_start, index.call_end, 2 * self.size
        )
        self.long, self.long_ptr = index.store(long), index.store(long_ptr)
        self._records: dict[bool, Records] = {}
        self._builds: dict[bool, RecordsBuild] = {}
        self._lock = threading.Lock()
        self._awaited = 0
        self._awaited_lock = threading.Lock()

    @property
    def awaited(self) -> bool:
        """Whether a thread waits for (or builds) records of this level to answer a
        request."""
        return self._awaited > 0

    def built(self, depth_rows: bool) -> bool:
        """Whether the records of the layout are built."""
        return depth_rows in self._records

    @overload
    def records(self, depth_rows: bool, go_on: None = None) -> Records: ...

    @overload
    def records(self, depth_rows: bool, go_on: Callable[[], bool]) -> Records | None: ...

    def records(self, depth_rows: bool, go_on: Callable[[], bool] | None = None) -> Records | None:
        """(pointer per row, bin, weights, code) of the layout's rows (see
        :func:`~glade.trace.timeline.kernels._level_pass`): per location (all its
        depths, weighed by exclusive share) or per lane. A builder working ahead gives
        ``go_on``, asked before every block of the work (:class:`RecordsBuild`): when it
        says no, the build stops there (None is returned) and the next caller goes on
        from there; any other caller needs the records now."""
        built = self._records.get(depth_rows)
        if built is not None:  # no lock: blocks of an answer read it side by side
            return built
        if go_on is None:
            with self._awaited_lock:
                self._awaited += 1
        try:
            with self._lock:
                if depth_rows not in self._records:
                    build = self._builds.get(depth_rows)
                    if build is None:
                        index = self.index
                        ptr, nodes = index.lane_groups if depth_rows else index.location_groups
                        forest = index.forest
                        build = self._builds[depth_rows] = RecordsBuild(
                            ptr,
                            nodes,
                            forest.start,
                            forest.end,
                            forest.code,
                            index.share,
                            not depth_rows,
                            self.origin,
                            self.size,
                        )
                    if not build.run(go_on):
                        return None
                    store = self.index.store
                    ptr, bins, weights, codes = build.records()
                    self._records[depth_rows] = (
                        store(ptr),
                        store(bins),
                        store(weights),
                        store(codes),
                    )
                    del self._builds[depth_rows]
                return self._records[depth_rows]
        finally:
            if go_on is None:
                with self._awaited_lock:
                    self._awaited -= 1

    def rasterize(
        self,
        rows: np.ndarray,
        shown: np.ndarray,
        t0: float,
        t1: float,
        px: float,
        depth_rows: bool,
        row0: int,
        pool: int,
        raster: tuple[np.ndarray, np.ndarray, np.ndarray],
        recode: np.ndarray = kernels.ALL,
    ) -> None:
        """Add the records of ``rows`` (on the display rows ``shown``) with bin centres in
        [t0, t1) to ``raster`` (cover, busy and key per pixel, see
        :func:`~glade.trace.timeline.kernels.raster_records`; their codes as ``recode``
        gives them)."""
        ptr, bin_, weight, code = self.records(depth_rows)
        first = math.ceil((t0 - self.origin) / self.size - 0.5)
        last = math.ceil((t1 - self.origin) / self.size - 0.5)
        kernels.raster_records(
            ptr,
            bin_,
            weight,
            code,
            recode,
            rows,
            shown,
            first,
            last,
            self.origin,
            self.size,
            float(t0),
            px,
            row0,
            pool,
            *raster,
        )


class RecordsBuild:
    """The records of the calls shorter than two bins of ``size`` ns from ``origin``, per
    segment (:func:`~glade.trace.timeline.kernels._level_pass`), built in blocks of
    about BLOCK_CALLS calls: one pass counts them, a second writes them. Bins are int32
    (a level has at most 2^31 bins), since the levels of a large trace hold millions of
    records. A build can stop between blocks and go on later, in another thread."""

    def __init__(
        self,
        ptr: np.ndarray,
        nodes: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        code: np.ndarray,
        share: np.ndarray,
        exclusive: bool,
        origin: float,
        size: float,
    ):
        self._calls = (nodes, start, end, code, share, exclusive, origin, size, 2 * size)
        self._ptr = ptr
        cuts = np.searchsorted(ptr, np.arange(BLOCK_CALLS, ptr[-1], BLOCK_CALLS))
        edges = np.unique(np.concatenate([[0], cuts, [ptr.size - 1]]))
        self._bounds = [(int(a), int(b)) for a, b in itertools.pairwise(edges)]
        self._counts: list[int] = []
        self._filled = 0
        self._out_ptr = np.zeros(ptr.size, np.int64)
        self._out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._offsets = np.zeros(0, np.int64)

    def run(self, go_on: Callable[[], bool] | None = None) -> bool:
        """Build the blocks left, asking ``go_on()`` (when given) before each: stop when it
        says no. Whether the build is complete. Without ``go_on`` (a request needs the
        records now) the blocks left run side by side on every core
        (:mod:`~glade.trace.timeline.parallel`)."""
        while len(self._counts) < len(self._bounds):
            if go_on is not None and not go_on():
                return False
            self._counts += self._each(len(self._counts), go_on, self._count)
        if self._out is None:
            total = sum(self._counts)
            self._out = (np.empty(total, np.int32), np.empty((total, 3)), np.empty(total, np.int32))
            self._offsets = np.concatenate([[0], np.cumsum(self._counts, dtype=np.int64)])
        while self._filled < len(self._bounds):
            if go_on is not None and not go_on():
                return False
            self._filled += len(self._each(self._filled, go_on, self._fill))
        return True

    def _each(
        self, first: int, go_on: Callable[[], bool] | None, task: Callable[[int], int]
    ) -> list[int]:
        """``task(j)`` for block ``first`` alone when working ahead (``go_on`` given), else
        for every block from ``first`` on, side by side; the results in block order."""
        if go_on is not None:
            return [task(first)]
        calls = np.asarray([self._ptr[b] - self._ptr[a] for a, b in self._bounds[first:]])
        parts = parallel.run_blocks(
            lambda a, b: [task(j) for j in range(first + a, first + b)], parallel.blocks(calls)
        )
        return [result for part in parts for result in part]

    def _count(self, j: int) -> int:
        """How many records block ``j`` makes."""
        a, b = self._bounds[j]
        return int(kernels.count_level(self._ptr[a : b + 1], *self._calls))

    def _fill(self, j: int) -> int:
        """Write the records of block ``j`` (after every block is counted)."""
        (a, b), part = self._bounds[j], slice(int(self._offsets[j]), int(self._offsets[j + 1]))
        assert self._out is not None  # run() allocates it before the first fill
        kernels.fill_level(
            self._ptr[a : b + 1],
            *self._calls,
            self._out_ptr[a : b + 1],
            *(out[part] for out in self._out),
        )
        self._out_ptr[a + 1 : b + 1] += self._offsets[j]
        return j

    def records(self) -> Records:
        """(pointer per segment, bin, weights, code) of a complete build."""
        assert self._out is not None
        return (self._out_ptr, *self._out)


def bin_size(span: float, k: int) -> float:
    """The width in ns of the bins of level ``k`` over a trace of ``span`` ns."""
    return max(span, 1.0) / 2**k


def level_for(px: float, span: float, finest: int) -> int | None:
    """The level whose bins are at most half a pixel of ``px`` ns and more than a
    quarter (none when pixels are narrower than two bins of the finest level)."""
    if span <= 0 or px <= 0:
        return None
    k = max(math.ceil(math.log2(2 * span / px)), COARSEST)
    return k if k <= finest else None


def finest_level(num_calls: int, width: int = 2048) -> int:
    """The finest level worth building for ``num_calls`` calls: past it, a range
    ``width`` pixels wide spans fewer than EXACT_LIMIT calls on average (with a margin
    of two for uneven traces)."""
    if num_calls <= EXACT_LIMIT:
        return COARSEST - 1
    return max(math.ceil(math.log2(4 * width * num_calls / EXACT_LIMIT)), COARSEST)
