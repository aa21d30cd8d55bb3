"""Message arrows of a timeline: every matched send and receive (as
:meth:`glade.trace.Trace.match_messages` pairs them) drawn from the sending instant to
the receiving one, and bundled per pair of rows and time bucket when a range holds
too many.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from glade.views.timeline.index import Forest, TimelineIndex

#: More messages than this in a range are drawn as bundles: one per pair of rows and
#: time bucket (BUNDLE_BUCKETS across the range, fewer when that still makes too many).
MAX_ARROWS = 2_000
BUNDLE_BUCKETS = 64
#: Bundle keys below this are grouped by counting, not by sorting.
DENSE_GROUPS = 1 << 22


@dataclass(frozen=True)
class Arrows:
    """Messages in a range: one per message (``count`` all 1) or one bundle per pair of
    rows and time bucket (``count`` messages, ``size`` their total bytes, times their
    means)."""

    send_time: np.ndarray
    receive_time: np.ndarray
    send_row: np.ndarray
    receive_row: np.ndarray
    size: np.ndarray
    count: np.ndarray
    bundled: bool

    @classmethod
    def empty(cls) -> Arrows:
        none = np.zeros(0)
        return cls(none, none, none.astype(np.int64), none.astype(np.int64), none,
                   none.astype(np.int64), False)


def _groups(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct values of ``codes`` (in [0, size)) ascending, the position of each
    code's value among them, and how many codes hold each: ``np.unique(codes,
    return_inverse=True, return_counts=True)``, by counting when ``size`` is small."""
    if size > DENSE_GROUPS:
        return np.unique(codes, return_inverse=True, return_counts=True)
    counts = np.bincount(codes, minlength=size)
    present = counts > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[codes], counts[present]


class Messages:
    """The messages of a trace (the table of ``message_pairs``), mapped onto the nodes
    of its call forest."""

    def __init__(self, table: pd.DataFrame, forest: Forest):
        node_of_event = np.full(int(forest.event.max()) + 1 if len(forest) else 0, -1,
                                dtype=np.int64)
        node_of_event[forest.event] = np.arange(len(forest))
        send_event = table["Send event"].to_numpy()
        receive_event = table["Receive event"].to_numpy()
        self.send_node = node_of_event[send_event]
        self.receive_node = node_of_event[receive_event]
        self.send_time = table["Send time (ns)"].to_numpy().astype(np.float64)
        self.receive_time = table["Receive time (ns)"].to_numpy().astype(np.float64)
        self.size = table["Message Size"].to_numpy().astype(np.float64)

    def __len__(self) -> int:
        return self.send_node.size

    def kept(self, index: TimelineIndex) -> KeptMessages:
        """The messages whose send and receive instants ``index`` keeps."""
        ok = (self.send_node >= 0) & (self.receive_node >= 0)
        ok[ok] = index.keep[self.send_node[ok]] & index.keep[self.receive_node[ok]]
        rows = np.flatnonzero(ok)
        lane = index.node_lane
        return KeptMessages(self.send_time[rows], self.receive_time[rows],
                            lane[self.send_node[rows]], lane[self.receive_node[rows]],
                            self.size[rows])


class KeptMessages:
    """Messages sorted by the earlier of their two times, for range requests."""

    def __init__(self, send_time: np.ndarray, receive_time: np.ndarray, send_lane: np.ndarray,
                 receive_lane: np.ndarray, size: np.ndarray):
        first = np.minimum(send_time, receive_time)
        order = np.argsort(first, kind="stable")
        self.first = first[order]
        self.span = float((np.abs(receive_time - send_time)).max()) if order.size else 0.0
        self.send_time = send_time[order]
        self.receive_time = receive_time[order]
        self.send_lane = send_lane[order]
        self.receive_lane = receive_lane[order]
        self.size = size[order]

    def __len__(self) -> int:
        return self.first.size

    def in_range(self, t0: float, t1: float, row_of_lane: np.ndarray, row0: int, row1: int,
                 pool: int) -> Arrows:
        """The messages that overlap [t0, t1) with an end on rows ``row0:row1``; bundled
        per pair of row bins (``pool`` rows each) and time bucket when there are more
        than MAX_ARROWS."""
        lo = np.searchsorted(self.first, t0 - self.span, side="left")
        hi = np.searchsorted(self.first, t1, side="left")
        window = np.arange(lo, hi)
        last = np.maximum(self.send_time[window], self.receive_time[window])
        window = window[last >= t0]
        send_row = row_of_lane[self.send_lane[window]]
        receive_row = row_of_lane[self.receive_lane[window]]
        shown = ((send_row >= row0) & (send_row < row1)) | (
            (receive_row >= row0) & (receive_row < row1))
        window, send_row, receive_row = window[shown], send_row[shown], receive_row[shown]
        if window.size <= MAX_ARROWS:
            return Arrows(self.send_time[window], self.receive_time[window], send_row,
                          receive_row, self.size[window], np.ones(window.size, np.int64), False)
        send_bin = (send_row - row0) // pool
        receive_bin = (receive_row - row0) // pool
        low = int(min(send_bin.min(), receive_bin.min()))
        span = int(max(send_bin.max(), receive_bin.max())) - low + 1
        pair = (send_bin - low) * span + (receive_bin - low)
        send_time = self.send_time[window]
        # a pair's bundles number at least one and at most `buckets`: with more pairs
        # than MAX_ARROWS only one bucket fits; with few enough, all do
        pairs, which, count = _groups(pair, span * span)
        keys = np.arange(pairs.size)
        buckets = BUNDLE_BUCKETS if pairs.size <= MAX_ARROWS else 1
        pair_of = which
        while buckets > 1:
            bucket = np.clip(((send_time - t0) / (t1 - t0) * buckets).astype(np.int64), 0,
                             buckets - 1)
            bundles = _groups(pair_of * buckets + bucket, pairs.size * buckets)
            if bundles[0].size <= MAX_ARROWS:
                keys, which, count = bundles
                break
            buckets //= 4

        def mean(values: np.ndarray) -> np.ndarray:
            return np.bincount(which, weights=values) / count

        ends = pairs[keys // buckets]
        return Arrows(mean(send_time), mean(self.receive_time[window]),
                      (ends // span + low) * pool + row0, (ends % span + low) * pool + row0,
                      np.bincount(which, weights=np.maximum(self.size[window], 0.0)),
                      count.astype(np.int64), True)
