"""Wait states and the critical path on a timeline: the waiting part of every waiting call
(see :mod:`glade.trace.waits`), the call that caused it, and the segments of the
critical path (see :mod:`glade.trace.critical_path`), on the nodes of the call forest a
timeline shows, answered per range request at the zoom's level of detail.

A range request's answer gains, when the view shows wait states:

- ``wait_*``: the waits at least a pixel long in the range (at most ``MAX_WAITS``, the
  longest), each the interval from its call's enter to the end of its wait on the
  call's row, its pattern (a code of :data:`glade.trace.waits.PATTERNS`), its call
  (``wait_node``) and where the arrow to its cause ends: the cause's row and enter
  (``wait_cause_row`` -1 when the view does not show the cause);
- ``wait_alpha`` / ``wait_top``: the shorter waits (and those past the cap) as a raster
  of the picture's pixels: the share of each pixel's time spent waiting (0-255) and the
  pattern with the most waiting time there (its code plus one, 0 for none), each wait
  counted in the pixel of its middle;

and, when it shows the critical path, ``path_from`` / ``path_to`` / ``path_row``: the
segments of the path in the range, with the one before and the one after so that the
chain's jumps across processes are drawn; at most two per pixel column (the first and
the last of the column), which draws the same chain at any zoom.

Everything is selected with one binary search on arrays sorted by time and numpy masks
over the candidates: no Python loop over waits or segments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from glade.trace.critical_path import location_bounds, path_segments
from glade.trace.model import Trace
from glade.trace.timeline.index import Forest, TimelineIndex
from glade.trace.timeline.lanes import Lanes
from glade.trace.timeline.render import displayed
from glade.trace.waits import PATTERNS, WAITING_TIME

#: The columns of the critical path's segments a layer reads.
SEGMENT_COLUMNS = ("Process", "Thread", "from", "to")
#: At most this many waits of a range are sent exactly (the longest); the others join
#: the raster of waiting time.
MAX_WAITS = 20_000


def node_of_events(forest: Forest) -> np.ndarray:
    """The forest node of every event row that is one (-1 for the others: Leaves)."""
    nodes = np.full(int(forest.event.max()) + 1 if len(forest) else 0, -1, dtype=np.int64)
    nodes[forest.event] = np.arange(len(forest), dtype=np.int64)
    return nodes


def forest_waiting(trace: Trace, forest: Forest) -> np.ndarray:
    """The waiting time (ns) of every node of ``forest`` (the call forest of ``trace``,
    nodes numbered as :meth:`Forest.of_trace` numbers them), 0 where it does not wait;
    computed once per events table (read-only)."""

    def compute() -> np.ndarray:
        waits = trace.wait_states()
        out = np.zeros(len(forest), dtype=np.int64)
        out[node_of_events(forest)[waits["event"].to_numpy()]] = waits[WAITING_TIME].to_numpy()
        out.flags.writeable = False
        return out

    return trace._memo("forest waiting", compute)


@dataclass(frozen=True)
class WaitLayer:
    """The waits of a trace on its call forest's nodes, sorted by the enter of the
    waiting call (``node``, ``start``, ``end``: the end of the wait, ``pattern`` code,
    ``cause``, ``cause_start``), the longest wait (``span``), and the segments of the
    critical path in time order (``path_from``, ``path_to``, on the location
    ``path_process``, ``path_thread``). ``cause`` is the cause's node on a whole trace's
    forest, its event id on a partition's (see :meth:`of_waits`)."""

    node: np.ndarray
    start: np.ndarray
    end: np.ndarray
    pattern: np.ndarray
    cause: np.ndarray
    cause_start: np.ndarray
    span: int
    path_from: np.ndarray
    path_to: np.ndarray
    path_process: np.ndarray
    path_thread: np.ndarray

    @classmethod
    def of_trace(cls, trace: Trace, forest: Forest) -> WaitLayer:
        """The layer of ``trace`` on ``forest`` (its call forest, nodes numbered as
        :func:`glade.trace.timeline.index.Forest.of_trace` numbers them)."""
        waits = by_enter(trace.wait_states())
        nodes = node_of_events(forest)
        return cls.of_waits(
            waits,
            nodes[waits["event"].to_numpy()],
            nodes[waits["cause event"].to_numpy()],
            path_segments(waits, location_bounds(trace)),
        )

    @classmethod
    def of_waits(
        cls,
        waits: pd.DataFrame,
        node: np.ndarray,
        cause: np.ndarray,
        segments: pd.DataFrame | None = None,
    ) -> WaitLayer:
        """The layer of the wait states ``waits`` (rows of
        :func:`glade.trace.waits.wait_states` in the order of :func:`by_enter`) whose
        calls are the nodes ``node`` and causes ``cause``, with the critical path's
        ``segments`` (see :func:`glade.trace.critical_path.path_segments`; none when
        not given)."""
        start = waits["start"].to_numpy().astype(np.int64)
        wait = waits[WAITING_TIME].to_numpy().astype(np.int64)
        if segments is None:
            segments = pd.DataFrame({c: np.zeros(0, np.int64) for c in SEGMENT_COLUMNS})
        return cls(
            node=np.asarray(node, dtype=np.int64),
            start=start,
            end=start + wait,
            pattern=waits["pattern"].cat.codes.to_numpy().astype(np.int8),
            cause=np.asarray(cause, dtype=np.int64),
            cause_start=waits["cause start"].to_numpy().astype(np.int64),
            span=int(wait.max(initial=0)),
            path_from=segments["from"].to_numpy().astype(np.int64),
            path_to=segments["to"].to_numpy().astype(np.int64),
            path_process=segments["Process"].to_numpy().astype(np.int64),
            path_thread=segments["Thread"].to_numpy().astype(np.int64),
        )

    def visible(
        self,
        index: TimelineIndex,
        t0: float,
        t1: float,
        rows: tuple[int, int],
        depth_rows: bool,
        display: int | np.ndarray = 0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The positions (ascending) of the waits of calls ``index`` keeps that overlap
        [t0, t1) on the display rows ``rows`` (``row0, row1``; the index's rows shown
        on those :func:`~glade.trace.timeline.render.displayed` gives), and their
        display rows."""
        lo = int(np.searchsorted(self.start, t0 - self.span, side="left"))
        hi = int(np.searchsorted(self.start, t1, side="left"))
        at = np.arange(lo, hi)
        at = at[(self.end[at] > t0) & index.keep[self.node[at]]]
        row = displayed(_rows(index, self.node[at], depth_rows), display)
        inside = (row >= rows[0]) & (row < rows[1])
        return at[inside], row[inside]

    def wait_of(self, node: int) -> tuple[int, int, int] | None:
        """The wait of the call ``node``: its pattern code, its waiting time (ns) and its
        ``cause``; None when it does not wait."""
        at = np.flatnonzero(self.node == node)
        if not at.size:
            return None
        k = int(at[0])
        return int(self.pattern[k]), int(self.end[k] - self.start[k]), int(self.cause[k])

    def split(
        self,
        index: TimelineIndex,
        t0: float,
        t1: float,
        width: int,
        rows: tuple[int, int, int, int],
        depth_rows: bool,
        display: int | np.ndarray = 0,
    ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The waits of the calls ``index`` keeps in the range [t0, t1) over ``width``
        pixel columns and the picture's ``rows`` (``row0, row1, pool, bins``; the
        index's rows shown on ``display``, see :meth:`visible`): the positions of those drawn
        exactly (:func:`exact_waits`) and their display rows, and the raster sums of
        the others (:func:`wait_sums`)."""
        row0, row1, pool, bins = rows
        at, row = self.visible(index, t0, t1, (row0, row1), depth_rows, display)
        px = (t1 - t0) / width
        exact = exact_waits(self.end[at] - self.start[at], px)
        small = np.ones(at.size, dtype=bool)
        small[exact] = False
        sums = wait_sums(
            self.start[at[small]],
            self.end[at[small]],
            self.pattern[at[small]],
            (row[small] - row0) // pool,
            t0,
            px,
            width,
            bins,
        )
        return at[exact], row[exact], sums

    def waits_in_range(
        self,
        index: TimelineIndex,
        t0: float,
        t1: float,
        width: int,
        rows: tuple[int, int, int, int],
        depth_rows: bool,
    ) -> dict[str, np.ndarray]:
        """The arrays ``wait_*`` of the range [t0, t1) over ``width`` pixel columns and
        the picture's ``rows`` (``row0, row1, pool, bins``), over the calls ``index``
        keeps (see the module doc)."""
        shown, row, sums = self.split(index, t0, t1, width, rows, depth_rows)
        cause = self.cause[shown]
        kept = (cause >= 0) & index.keep[np.maximum(cause, 0)]
        cause_row = np.where(kept, _rows(index, np.maximum(cause, 0), depth_rows), -1)
        return wait_arrays(
            {
                "start": self.start[shown],
                "end": self.end[shown],
                "row": row,
                "pattern": self.pattern[shown],
                "node": self.node[shown],
                "cause_row": cause_row,
                "cause_time": self.cause_start[shown],
            },
            wait_pixels(*sums, (t1 - t0) / width * rows[2], rows[3] * width),
        )

    def path_in_range(
        self, index: TimelineIndex, t0: float, t1: float, width: int, depth_rows: bool
    ) -> dict[str, np.ndarray]:
        """The arrays ``path_*`` of the range [t0, t1) over ``width`` pixel columns (see
        the module doc); a segment whose location the view does not show has row -1."""
        at = path_positions(self.path_from, self.path_to, t0, t1, width)
        return path_arrays(
            index.lanes,
            self.path_from[at],
            self.path_to[at],
            self.path_process[at],
            self.path_thread[at],
            depth_rows,
        )


def by_enter(waits: pd.DataFrame) -> pd.DataFrame:
    """The wait states ``waits`` in the order of :class:`WaitLayer`: by the enter of the
    waiting call, ties in the table's order."""
    return waits.iloc[np.argsort(waits["start"].to_numpy(), kind="stable")]


def exact_waits(length: np.ndarray, px: float) -> np.ndarray:
    """The positions (ascending) of the waits of ``length`` drawn exactly: those at least
    a pixel (``px``) long, at most :data:`MAX_WAITS` of them (the longest, ties in
    order); the others join the raster."""
    exact = np.flatnonzero(length >= px)
    if exact.size > MAX_WAITS:
        exact = exact[np.argsort(-length[exact], kind="stable")[:MAX_WAITS]]
        exact.sort()
    return exact


def wait_sums(
    start: np.ndarray,
    end: np.ndarray,
    pattern: np.ndarray,
    raster_row: np.ndarray,
    t0: float,
    px: float,
    width: int,
    bins: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The waiting time of the waits [start, end) per pattern and pixel of a raster of
    ``bins`` x ``width`` pixels (``px`` wide from ``t0``), each wait counted in the pixel
    of its middle, clipped to the range: the (pattern, pixel) keys that have some
    (``pattern * bins * width + pixel``, ascending) and their sums, which add up
    across parts of a trace (see :func:`wait_pixels`)."""
    t1 = t0 + px * width
    length = (np.minimum(end, t1) - np.maximum(start, t0)).astype(np.float64)
    middle = (np.maximum(start, t0) + np.minimum(end, t1)) / 2
    column = np.clip(((middle - t0) / px).astype(np.int64), 0, width - 1)
    cell = raster_row.astype(np.int64) * width + column
    keys, which = np.unique(pattern.astype(np.int64) * (bins * width) + cell, return_inverse=True)
    return keys, np.bincount(which.ravel(), weights=length, minlength=keys.size)


def wait_pixels(
    keys: np.ndarray, sums: np.ndarray, capacity: float, cells: int
) -> tuple[np.ndarray, np.ndarray]:
    """The raster of waits (``cells`` pixels) from their sums per (pattern, pixel)
    ``keys`` (see :func:`wait_sums`; a key may repeat): per pixel the waiting time over
    its ``capacity`` (its width times its rows) as 0-255, and the pattern with the most
    waiting time plus one (0 for none)."""
    per_pattern = np.bincount(keys, weights=sums, minlength=len(PATTERNS) * cells).reshape(
        len(PATTERNS), cells
    )
    total = per_pattern.sum(axis=0)
    alpha = np.rint(255 * np.clip(total / capacity, 0, 1)).astype(np.uint8)
    top = np.where(total > 0, per_pattern.argmax(axis=0) + 1, 0).astype(np.uint8)
    return alpha, top


def wait_arrays(
    waits: dict[str, np.ndarray], raster: tuple[np.ndarray, np.ndarray]
) -> dict[str, np.ndarray]:
    """The arrays ``wait_*`` of a picture (see the module doc) from its exact ``waits``
    (``start``, ``end``, ``row``, ``pattern``, ``node``, ``cause_row``,
    ``cause_time``) and the ``raster`` of the others (see :func:`wait_pixels`)."""
    return {
        "wait_start": waits["start"].astype(np.float64),
        "wait_end": waits["end"].astype(np.float64),
        "wait_row": waits["row"].astype(np.int32),
        "wait_pattern": waits["pattern"].astype(np.uint8),
        "wait_node": waits["node"].astype(np.int32),
        "wait_cause_row": waits["cause_row"].astype(np.int32),
        "wait_cause_time": waits["cause_time"].astype(np.float64),
        "wait_alpha": raster[0],
        "wait_top": raster[1],
    }


def path_positions(
    path_from: np.ndarray, path_to: np.ndarray, t0: float, t1: float, width: int
) -> np.ndarray:
    """The positions of the segments of the critical path (``path_from``, ``path_to``,
    in time order) that a range [t0, t1) over ``width`` pixel columns draws: those in
    the range, with the one before and the one after, at most the first and the last
    of each pixel column."""
    first = int(np.searchsorted(path_to, t0, side="left"))
    last = int(np.searchsorted(path_from, t1, side="left"))
    at = np.arange(max(first - 1, 0), min(last + 1, path_from.size))
    column = np.floor((np.clip(path_from[at], t0, t1) - t0) / ((t1 - t0) / width))
    keep = np.ones(at.size, dtype=bool)
    if at.size > 2:
        keep[1:-1] = (column[1:-1] != column[:-2]) | (column[1:-1] != column[2:])
    return at[keep]


def path_arrays(
    lanes: Lanes,
    path_from: np.ndarray,
    path_to: np.ndarray,
    processes: np.ndarray,
    threads: np.ndarray,
    depth_rows: bool,
) -> dict[str, np.ndarray]:
    """The arrays ``path_*`` of the segments [path_from, path_to) on the locations
    (``processes``, ``threads``), on the first display row of their location among
    ``lanes`` (-1 where the view does not show it)."""
    location = lanes.location_of(processes, threads)
    located = location >= 0
    row = np.full(location.size, -1, dtype=np.int64)
    row[located] = lanes.location_rows(depth_rows)[location[located]]
    return {
        "path_from": path_from.astype(np.float64),
        "path_to": path_to.astype(np.float64),
        "path_row": row.astype(np.int32),
    }


def _rows(index: TimelineIndex, nodes: np.ndarray, depth_rows: bool) -> np.ndarray:
    """The display row of every node of ``nodes`` (kept calls)."""
    return index.lanes.row_of_lane(index.node_lane[nodes], depth_rows)
