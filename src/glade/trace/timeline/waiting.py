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

from glade.trace.critical_path import location_bounds, path_segments
from glade.trace.model import Trace
from glade.trace.timeline.index import Forest, TimelineIndex
from glade.trace.waits import PATTERNS, WAITING_TIME

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
    ``cause`` node, ``cause_start``), the longest wait (``span``), and the segments of
    the critical path in time order (``path_from``, ``path_to``, and ``path_node``: a
    node on the segment's location, whose row is the segment's)."""

    node: np.ndarray
    start: np.ndarray
    end: np.ndarray
    pattern: np.ndarray
    cause: np.ndarray
    cause_start: np.ndarray
    span: int
    path_from: np.ndarray
    path_to: np.ndarray
    path_node: np.ndarray

    @classmethod
    def of_trace(cls, trace: Trace, forest: Forest) -> WaitLayer:
        """The layer of ``trace`` on ``forest`` (its call forest, nodes numbered as
        :func:`glade.trace.timeline.index.Forest.of_trace` numbers them)."""
        waits = trace.wait_states()
        nodes = node_of_events(forest)
        node = nodes[waits["event"].to_numpy()]
        cause = nodes[waits["cause event"].to_numpy()]
        start = waits["start"].to_numpy().astype(np.int64)
        wait = waits[WAITING_TIME].to_numpy().astype(np.int64)
        order = np.argsort(start, kind="stable")
        segments = path_segments(waits, location_bounds(trace))
        return cls(
            node=node[order],
            start=start[order],
            end=(start + wait)[order],
            pattern=waits["pattern"].cat.codes.to_numpy().astype(np.int8)[order],
            cause=cause[order],
            cause_start=waits["cause start"].to_numpy().astype(np.int64)[order],
            span=int(wait.max(initial=0)),
            path_from=segments["from"].to_numpy().astype(np.int64),
            path_to=segments["to"].to_numpy().astype(np.int64),
            path_node=_location_nodes(forest, segments["Process"], segments["Thread"]),
        )

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
        row0, row1, pool, bins = rows
        lo = int(np.searchsorted(self.start, t0 - self.span, side="left"))
        hi = int(np.searchsorted(self.start, t1, side="left"))
        at = np.arange(lo, hi)
        at = at[(self.end[at] > t0) & index.keep[self.node[at]]]
        row = _rows(index, self.node[at], depth_rows)
        inside = (row >= row0) & (row < row1)
        at, row = at[inside], row[inside]
        px = (t1 - t0) / width
        length = self.end[at] - self.start[at]
        exact = np.flatnonzero(length >= px)
        if exact.size > MAX_WAITS:
            exact = exact[np.argsort(-length[exact], kind="stable")[:MAX_WAITS]]
            exact.sort()
        small = np.ones(at.size, dtype=bool)
        small[exact] = False
        alpha, top = _wait_raster(
            self.start[at[small]],
            self.end[at[small]],
            self.pattern[at[small]],
            (row[small] - row0) // pool,
            t0,
            px,
            width,
            bins,
            pool,
        )
        shown = at[exact]
        cause = self.cause[shown]
        kept = (cause >= 0) & index.keep[np.maximum(cause, 0)]
        cause_row = np.where(kept, _rows(index, np.maximum(cause, 0), depth_rows), -1)
        return {
            "wait_start": self.start[shown].astype(np.float64),
            "wait_end": self.end[shown].astype(np.float64),
            "wait_row": row[exact].astype(np.int32),
            "wait_pattern": self.pattern[shown].astype(np.uint8),
            "wait_node": self.node[shown].astype(np.int32),
            "wait_cause_row": cause_row.astype(np.int32),
            "wait_cause_time": self.cause_start[shown].astype(np.float64),
            "wait_alpha": alpha,
            "wait_top": top,
        }

    def path_in_range(
        self, index: TimelineIndex, t0: float, t1: float, width: int, depth_rows: bool
    ) -> dict[str, np.ndarray]:
        """The arrays ``path_*`` of the range [t0, t1) over ``width`` pixel columns (see
        the module doc); a segment whose location the view does not show has row -1."""
        first = int(np.searchsorted(self.path_to, t0, side="left"))
        last = int(np.searchsorted(self.path_from, t1, side="left"))
        at = np.arange(max(first - 1, 0), min(last + 1, self.path_from.size))
        column = np.floor((np.clip(self.path_from[at], t0, t1) - t0) / ((t1 - t0) / width))
        # the first and the last segment of each pixel column
        keep = np.ones(at.size, dtype=bool)
        if at.size > 2:
            keep[1:-1] = (column[1:-1] != column[:-2]) | (column[1:-1] != column[2:])
        at = at[keep]
        node = self.path_node[at]
        located = node >= 0
        row = np.full(at.size, -1, dtype=np.int64)
        row[located] = _location_rows(index, node[located], depth_rows)
        return {
            "path_from": self.path_from[at].astype(np.float64),
            "path_to": self.path_to[at].astype(np.float64),
            "path_row": row.astype(np.int32),
        }


def _rows(index: TimelineIndex, nodes: np.ndarray, depth_rows: bool) -> np.ndarray:
    """The display row of every node of ``nodes`` (kept calls)."""
    return index.lanes.row_of_lane(index.node_lane[nodes], depth_rows)


def _location_rows(index: TimelineIndex, nodes: np.ndarray, depth_rows: bool) -> np.ndarray:
    """The first display row of the location of every node of ``nodes``."""
    return index.lanes.location_rows(depth_rows)[index.forest.location[nodes]]


def _location_nodes(forest: Forest, processes, threads) -> np.ndarray:
    """A node on each location (``processes[i]``, ``threads[i]``), -1 where the forest
    has none."""
    first = np.full(forest.processes.size, -1, dtype=np.int64)
    first[forest.location[::-1]] = np.arange(len(forest))[::-1]
    keys = forest.processes.astype(np.int64) * (1 << 32) + forest.threads.astype(np.int64)
    wanted = np.asarray(processes, dtype=np.int64) * (1 << 32) + np.asarray(threads, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    at = np.minimum(np.searchsorted(keys[order], wanted), max(keys.size - 1, 0))
    found = keys.size > 0 and wanted.size > 0
    location = order[at] if found else np.zeros(wanted.size, dtype=np.int64)
    hit = (keys[location] == wanted) if found else np.zeros(wanted.size, dtype=bool)
    return np.where(hit, first[location], -1)


def _wait_raster(
    start: np.ndarray,
    end: np.ndarray,
    pattern: np.ndarray,
    raster_row: np.ndarray,
    t0: float,
    px: float,
    width: int,
    bins: int,
    pool: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The raster of waits (``bins`` x ``width``, flattened): per pixel the waiting time
    over its capacity (its width times ``pool`` rows) as 0-255, and the pattern with the
    most waiting time plus one (0 for none); a wait counts in the pixel of its middle,
    clipped to the range."""
    cells = bins * width
    if not start.size:
        return np.zeros(cells, dtype=np.uint8), np.zeros(cells, dtype=np.uint8)
    t1 = t0 + px * width
    length = (np.minimum(end, t1) - np.maximum(start, t0)).astype(np.float64)
    middle = (np.maximum(start, t0) + np.minimum(end, t1)) / 2
    column = np.clip(((middle - t0) / px).astype(np.int64), 0, width - 1)
    cell = raster_row.astype(np.int64) * width + column
    per_pattern = np.bincount(
        pattern.astype(np.int64) * cells + cell, weights=length, minlength=len(PATTERNS) * cells
    ).reshape(len(PATTERNS), cells)
    total = per_pattern.sum(axis=0)
    alpha = np.rint(255 * np.clip(total / (px * pool), 0, 1)).astype(np.uint8)
    top = np.where(total > 0, per_pattern.argmax(axis=0) + 1, 0).astype(np.uint8)
    return alpha, top
