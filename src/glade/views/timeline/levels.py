"""Levels of detail for wide ranges: the time small calls cover, pre-aggregated per row,
function and bin, so that a request spanning millions of calls reads a few records
per pixel instead of every call.

Level k cuts the trace into 2^k bins of ``size`` ns. Calls shorter than two bins
become records (row, bin, function, covered time, see
:func:`glade.views.timeline.kernels.bin_records`); longer calls stay calls, indexed by
lane like the index's. A request whose pixels are at least two bins wide reads level
k: its long calls give boxes and exact raster points as usual, and every record adds
its time at its bin's centre, less than half a pixel from where it was spent. Levels
are built on first use (or ahead, in a background thread) and kept.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from glade.views.timeline import kernels

#: Requests over fewer calls than this read the calls themselves.
EXACT_LIMIT = 250_000
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
        self.size = max(float(last - origin), 1.0) / 2**k
        long = index.call_end - index.call_start >= 2 * self.size
        self.long = np.flatnonzero(long)
        lane = np.repeat(np.arange(index.lanes.num_lanes), np.diff(index.call_ptr))
        self.long_ptr = np.zeros(index.lanes.num_lanes + 1, dtype=np.int64)
        np.cumsum(np.bincount(lane[self.long], minlength=index.lanes.num_lanes),
                  out=self.long_ptr[1:])
        self.long_start = index.call_start[self.long]
        self.long_end = index.call_end[self.long]
        self.long_code = index.call_code[self.long]
        self.long_share = index.call_share[self.long]
        self._records: dict[bool, tuple[np.ndarray, ...]] = {}
        self._lock = threading.Lock()

    def records(self, depth_rows: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray]:
        """(pointer per row, bin, code, weights) of the layout's rows (see
        :func:`~glade.views.timeline.kernels.bin_records`)."""
        with self._lock:
            if depth_rows not in self._records:
                self._records[depth_rows] = self._build(depth_rows)
            return self._records[depth_rows]

    def _build(self, depth_rows: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The records of a layout: per location (all its depths) or per lane."""
        index = self.index
        ptr, start, end, code, share = (index.lane_calls if depth_rows
                                        else index.location_calls)
        return _sorted_within(*kernels.bin_records(ptr, start, end, code, share, self.origin,
                                                   self.size, 2 * self.size))

    def points(self, rows: np.ndarray, t0: float, t1: float, px: float, depth_rows: bool,
               points: np.ndarray, offset: int, fill: bool) -> int:
        """How many raster points the records of ``rows`` with bin centres in [t0, t1)
        make; written (when ``fill``) to columns ``offset:`` of ``points`` (see
        :func:`~glade.views.timeline.kernels.record_points`)."""
        ptr, bin_, code, weight = self.records(depth_rows)
        first = math.ceil((t0 - self.origin) / self.size - 0.5)
        last = math.ceil((t1 - self.origin) / self.size - 0.5)
        return kernels.record_points(ptr, bin_, code, weight, rows, rows, first, last,
                                     self.origin, self.size, px, not depth_rows, points,
                                     offset, fill)


def _sorted_within(ptr: np.ndarray, bin_: np.ndarray, code: np.ndarray, weight: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Records with bins ascending inside every row (a bin of more than 32 functions can
    leave some out of order)."""
    row = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    out_of_order = (np.diff(bin_) < 0) & (row[1:] == row[:-1])
    if out_of_order.any():
        order = np.lexsort((bin_, row))
        bin_, code, weight = bin_[order], code[order], weight[order]
    return ptr, bin_, code, weight


def level_for(px: float, span: float, finest: int) -> int | None:
    """The level whose bins are at most half a pixel of ``px`` ns and more than a
    quarter (none when pixels are narrower than two bins of the finest level)."""
    if span <= 0 or px <= 0:
        return None
    k = max(math.ceil(math.log2(2 * span / px)), COARSEST)
    return k if k <= finest else None


def finest_level(num_calls: int) -> int:
    """The finest level worth building for ``num_calls`` calls: past it, a range two
    thousand pixels wide spans fewer than EXACT_LIMIT calls on average."""
    if num_calls <= EXACT_LIMIT:
        return COARSEST - 1
    return max(math.ceil(math.log2(4 * 2048 * num_calls / EXACT_LIMIT)), COARSEST)
