"""Message arrows of a timeline: every matched send and receive (as
:meth:`glade.trace.Trace.match_messages` pairs them) drawn from the sending instant to
the receiving one, and bundled per pair of rows and time bucket when a range holds
too many.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit

from glade.errors import GladeError
from glade.trace.timeline.index import Forest, TimelineIndex
from glade.trace.timeline.kernels import ALL, first_at_least

#: More messages than this in a range are drawn as bundles: one per pair of rows and
#: time bucket (BUNDLE_BUCKETS across the range, fewer when that still makes too many).
MAX_ARROWS = 2_000
BUNDLE_BUCKETS = 64
#: Pairs of row bins are numbered by counting up to this many, by sorting past it.
DENSE_GROUPS = 1 << 22


@dataclass(frozen=True)
class Arrows:
    """Messages in a range: one per message (``count`` all 1) or one bundle per pair of
    rows and time bucket (``count`` messages, ``size`` their total bytes, times their
    means). Single messages may carry their envelope (``tag``, ``communicator``, -1
    where the trace has none) and the call-forest nodes of their send and receive
    instants (``envelope``: those four arrays; empty when unknown)."""

    send_time: np.ndarray
    receive_time: np.ndarray
    send_row: np.ndarray
    receive_row: np.ndarray
    size: np.ndarray
    count: np.ndarray
    bundled: bool
    envelope: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def empty(cls) -> Arrows:
        none = np.zeros(0)
        return cls(
            none,
            none,
            none.astype(np.int64),
            none.astype(np.int64),
            none,
            none.astype(np.int64),
            False,
        )


@njit(cache=True, nogil=True)
def _window(
    lo, hi, kept, send_time, receive_time, send_at, receive_at, lane, t0, row_of_lane, row0, row1
):
    """The messages at kept positions [lo, hi) (of ``kept``) that end at ``t0`` or
    after and have an end on rows ``row0:row1`` (the lanes ``lane`` gives ``send_at`` and
    ``receive_at``, mapped to rows by ``row_of_lane``), in one pass: their positions in
    the message arrays, send rows and receive rows."""
    position = np.empty(hi - lo, np.int64)
    send_row = np.empty(hi - lo, np.int64)
    receive_row = np.empty(hi - lo, np.int64)
    n = 0
    for j in range(lo, hi):
        i = kept[j]
        if max(send_time[i], receive_time[i]) < t0:
            continue
        send = row_of_lane[lane[send_at[i]]]
        receive = row_of_lane[lane[receive_at[i]]]
        if row0 <= send < row1 or row0 <= receive < row1:
            position[n] = i
            send_row[n] = send
            receive_row[n] = receive
            n += 1
    return position[:n].copy(), send_row[:n].copy(), receive_row[:n].copy()


@njit(cache=True, nogil=True)
def _on_marks(nodes, times, call, sample, start):
    """Whether the ends ``nodes`` (-1: none) of messages at ``times`` are instants of a
    call forest (not ``call``) that are not counter samples (``sample``, when not
    empty), at those times (``start``)."""
    for i in range(nodes.size):
        node = nodes[i]
        if node < 0:
            continue
        if call[node] or (sample.size and sample[node]) or start[node] != times[i]:
            return False
    return True


@njit(cache=True, nogil=True)
def _kept(send_node, receive_node, keep, send_time, receive_time, first, last, index):
    """The positions (ascending, of ``index``'s dtype) of the messages whose send and
    receive nodes (-1: none) ``keep`` keeps, among those whose earlier time is in
    [first, last] (found by binary search: the messages are sorted by it), in one pass
    over those; and the longest time between the two ends of a kept message (0 for
    none). The positions are the start of an array as long as that search's result."""
    lo = first_at_least(send_time, receive_time, ALL, 0, send_time.size, first, False)
    hi = first_at_least(send_time, receive_time, ALL, lo, send_time.size, last, True)
    out = np.empty(max(hi - lo, 0), index.dtype)
    n = 0
    span = 0.0
    for i in range(lo, hi):
        s = send_node[i]
        r = receive_node[i]
        if s >= 0 and r >= 0 and keep[s] and keep[r]:
            out[n] = i
            n += 1
            span = max(span, abs(receive_time[i] - send_time[i]))
    return out[:n], span


@njit(cache=True, nogil=True)
def _bundles(
    send_row,
    receive_row,
    row0,
    shift,
    position,
    send_time,
    t0,
    t1,
    max_arrows,
    max_buckets,
    dense_pairs,
):
    """Bundles of the messages at ``position`` (sent from ``send_row`` to
    ``receive_row``): one per pair of row bins (2^``shift`` rows each from ``row0``) and
    time bucket of their send times (``max_buckets`` buckets across [t0, t1), a quarter
    as many while that makes more than ``max_arrows`` bundles, one when the pairs alone
    are more). Pairs are numbered by counting when there are at most ``dense_pairs``
    possible ones, by sorting otherwise. Returns each message's bundle, and per bundle
    (ascending pair, then bucket) the first rows of its send and receive row bins."""
    n = send_row.size
    send_bin = np.empty(n, np.int64)
    receive_bin = np.empty(n, np.int64)
    low = np.iinfo(np.int64).max
    high = np.iinfo(np.int64).min
    for k in range(n):
        send_bin[k] = (send_row[k] - row0) >> shift  # floor division by 2^shift
        receive_bin[k] = (receive_row[k] - row0) >> shift
        low = min(low, send_bin[k], receive_bin[k])
        high = max(high, send_bin[k], receive_bin[k])
    span = high - low + 1
    pair = np.empty(n, np.int64)
    for k in range(n):
        pair[k] = (send_bin[k] - low) * span + (receive_bin[k] - low)
    pairs = span * span
    values = np.empty(0, np.int64)
    if pairs > dense_pairs:
        values = np.unique(pair)
        pair = np.searchsorted(values, pair)
        pairs = values.size
    rank = np.zeros(pairs + 1, np.int64)
    for k in range(n):
        rank[pair[k] + 1] = 1
    for p in range(pairs):
        rank[p + 1] += rank[p]
    used = rank[pairs]
    buckets = max_buckets if used <= max_arrows else 1
    key = np.empty(n, np.int64)
    while True:
        seen = np.zeros(used * buckets + 1, np.int64)
        for k in range(n):
            bucket = 0
            if buckets > 1:
                bucket = int((send_time[position[k]] - t0) / (t1 - t0) * buckets)
                bucket = min(max(bucket, 0), buckets - 1)
            key[k] = rank[pair[k]] * buckets + bucket
            seen[key[k] + 1] = 1
        for g in range(used * buckets):
            seen[g + 1] += seen[g]
        if buckets == 1 or seen[used * buckets] <= max_arrows:
            break
        buckets //= 4
    groups = seen[used * buckets]
    bundle_pair = np.empty(groups, np.int64)
    for k in range(n):
        key[k] = seen[key[k]]
        bundle_pair[key[k]] = values[pair[k]] if values.size else pair[k]
    first_send = np.empty(groups, np.int64)
    first_receive = np.empty(groups, np.int64)
    for g in range(groups):
        first_send[g] = ((bundle_pair[g] // span + low) << shift) + row0
        first_receive[g] = ((bundle_pair[g] % span + low) << shift) + row0
    return key, first_send, first_receive


@njit(cache=True, nogil=True)
def _bundle_sums(which, groups, position, send_time, receive_time, size):
    """Per group (message k of ``position`` is in group ``which[k]`` of ``groups``) the
    mean send and receive times, the total size (negative sizes count as 0) and the
    number of messages."""
    send = np.zeros(groups)
    receive = np.zeros(groups)
    total = np.zeros(groups)
    count = np.zeros(groups, np.int64)
    for k in range(position.size):
        g = which[k]
        i = position[k]
        send[g] += send_time[i]
        receive[g] += receive_time[i]
        total[g] += max(size[i], 0.0)
        count[g] += 1
    for g in range(groups):
        send[g] /= max(count[g], 1)
        receive[g] /= max(count[g], 1)
    return send, receive, total, count


#: The columns of ``message_pairs`` that :class:`Messages` reads.
MESSAGE_COLUMNS = (
    "Send event",
    "Receive event",
    "Send time (ns)",
    "Receive time (ns)",
    "Message Size",
    "Tag",
    "Communicator",
)


class Messages:
    """The messages of a trace (the table of ``message_pairs``, or its columns from
    ``pair_columns``), mapped onto the nodes of its call forest, sorted by the earlier
    of their two times (ties in the table's order), so that the messages a view keeps
    are a list of positions in that order (:meth:`kept`), not copies of their
    columns."""

    def __init__(self, table: pd.DataFrame | Mapping[str, np.ndarray], forest: Forest):
        send_time = np.asarray(table["Send time (ns)"]).astype(np.float64)
        receive_time = np.asarray(table["Receive time (ns)"]).astype(np.float64)
        order = np.argsort(np.minimum(send_time, receive_time), kind="stable")
        index = np.int32 if order.size < 2**31 else np.int64
        self.order = order.astype(index)
        # int32 (a forest has fewer than 2^31 nodes): half the memory to fill and scatter
        node_of_event = np.full(
            int(forest.event.max()) + 1 if len(forest) else 0, -1, dtype=np.int32
        )
        node_of_event[forest.event] = np.arange(len(forest), dtype=np.int32)
        self.send_node = node_of_event[np.asarray(table["Send event"])[order]]
        self.receive_node = node_of_event[np.asarray(table["Receive event"])[order]]
        del node_of_event
        self.send_time = send_time[order]
        del send_time
        self.receive_time = receive_time[order]
        del receive_time
        # whether every message's ends are instants that an index draws as marks, at
        # the message's times: then the messages of an index lie between its first and
        # last marks, and the search for them reads only those
        samples = np.zeros(0, dtype=bool) if forest.sample is None else forest.sample
        self._on_marks = all(
            _on_marks(nodes, times, forest.call, samples, forest.start)
            for nodes, times in (
                (self.send_node, self.send_time),
                (self.receive_node, self.receive_time),
            )
        )
        self.size = np.asarray(table["Message Size"]).astype(np.float64)[order]
        # read as they are (int64), in the table's order: read-only views of the
        # pairing, no copy (only the arrows drawn one by one read them, through order)
        self.tag = np.asarray(table["Tag"]).astype(np.int64, copy=False)
        self.communicator = np.asarray(table["Communicator"]).astype(np.int64, copy=False)

    def __len__(self) -> int:
        return self.send_node.size

    def kept(self, index: TimelineIndex) -> KeptMessages:
        """The messages whose send and receive instants ``index`` keeps."""
        first, last = -np.inf, np.inf
        if index.kept is not None and self._on_marks:
            times = index.instant_time
            first, last = (
                (float(times.min()), float(times.max())) if times.size else (np.inf, -np.inf)
            )
        kept, span = _kept(
            self.send_node,
            self.receive_node,
            index.keep,
            self.send_time,
            self.receive_time,
            first,
            last,
            self.order,
        )
        return KeptMessages(
            self.send_time,
            self.receive_time,
            self.send_node,
            self.receive_node,
            self.size,
            index.node_lane,
            kept,
            span,
            {"tag": self.tag, "communicator": self.communicator},
            self.order,
        )


@dataclass(eq=False)
class KeptMessages:
    """Messages sorted by the earlier of their two times, for range requests: the
    messages at positions ``kept`` (ascending) of arrays sorted so (read, not copied):
    their times, ends (``send_at`` and ``receive_at``, on lanes ``lane[send_at]`` and
    ``lane[receive_at]``; their nodes in the envelope) and sizes; ``span`` the longest
    time between the two ends of a kept message; ``envelope`` fields when known (see
    :class:`Arrows`) in the order ``order`` sorts (the sorted message i is message
    ``order[i]`` of those arrays). :meth:`sorting` makes them from messages in any
    order, whose ends are lanes (``at_nodes`` False)."""

    send_time: np.ndarray
    receive_time: np.ndarray
    send_at: np.ndarray
    receive_at: np.ndarray
    size: np.ndarray
    lane: np.ndarray
    kept: np.ndarray
    span: float
    envelope: dict[str, np.ndarray]
    order: np.ndarray
    #: Whether ``send_at`` and ``receive_at`` are the ends' nodes (not their lanes).
    at_nodes: bool = True

    @classmethod
    def sorting(
        cls,
        send_time: np.ndarray,
        receive_time: np.ndarray,
        send_lane: np.ndarray,
        receive_lane: np.ndarray,
        size: np.ndarray,
        envelope: dict[str, np.ndarray],
    ) -> KeptMessages:
        """All the messages of arrays in any order (sorted here), whose ends are on lanes
        ``send_lane`` and ``receive_lane``, with their ``envelope`` fields (in the
        arrays' order; the arrows carry no nodes)."""
        order = np.argsort(np.minimum(send_time, receive_time), kind="stable")
        lanes = max(int(send_lane.max(initial=-1)), int(receive_lane.max(initial=-1))) + 1
        return cls(
            send_time[order],
            receive_time[order],
            send_lane[order],
            receive_lane[order],
            size[order],
            np.arange(lanes, dtype=np.int64),
            np.arange(order.size),
            float((np.abs(receive_time - send_time)).max()) if order.size else 0.0,
            envelope,
            order,
            at_nodes=False,
        )

    def __len__(self) -> int:
        return self.kept.size

    def in_range(
        self, t0: float, t1: float, row_of_lane: np.ndarray, row0: int, row1: int, pool: int
    ) -> Arrows:
        """The messages that overlap [t0, t1) with an end on rows ``row0:row1``; bundled
        per pair of row bins (``pool`` rows each) and time bucket when there are more
        than MAX_ARROWS."""
        times = (self.kept, self.send_time, self.receive_time)
        # the first kept messages whose earlier time is at least t0 - span, and t1
        ends = (self.send_time, self.receive_time, self.kept, 0, self.kept.size)
        lo = int(first_at_least(*ends, float(t0 - self.span), False))
        hi = int(first_at_least(*ends, float(t1), False))
        window, send_row, receive_row = _window(
            lo,
            hi,
            *times,
            self.send_at,
            self.receive_at,
            self.lane,
            float(t0),
            np.asarray(row_of_lane, dtype=np.int64),
            int(row0),
            int(row1),
        )
        if window.size <= MAX_ARROWS:
            return Arrows(
                self.send_time[window],
                self.receive_time[window],
                send_row,
                receive_row,
                self.size[window],
                np.ones(window.size, np.int64),
                False,
                self._envelope(window),
            )
        shift = int(pool).bit_length() - 1
        if pool < 1 or 1 << shift != pool:
            raise GladeError(f"rows are pooled by powers of two, not {pool}")
        which, send_bin, receive_bin = _bundles(
            send_row,
            receive_row,
            int(row0),
            shift,
            window,
            self.send_time,
            float(t0),
            float(t1),
            MAX_ARROWS,
            BUNDLE_BUCKETS,
            DENSE_GROUPS,
        )
        send, receive, size, count = _bundle_sums(
            which, send_bin.size, window, self.send_time, self.receive_time, self.size
        )
        return Arrows(send, receive, send_bin, receive_bin, size, count, True)

    def _envelope(self, window: np.ndarray) -> dict[str, np.ndarray]:
        """The envelope of the messages at positions ``window`` (none when unknown):
        its fields, then (when the ends are nodes) the nodes of their sends and
        receives."""
        if not self.envelope:
            return {}
        table_rows = self.order[window]
        fields = {name: values[table_rows] for name, values in self.envelope.items()}
        if not self.at_nodes:
            return fields
        return {
            **fields,
            "send_node": self.send_at[window],
            "receive_node": self.receive_at[window],
        }
