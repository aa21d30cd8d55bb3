"""The messages a comm matrix shows, as arrays: one entry per send event with a known
receiver (the sends :meth:`glade.trace.Trace.comm_matrix` counts), and the receive
events, with processes as positions ``0..n-1`` in :func:`communicating_processes` (so
index i is rank i for MPI ranks, as in ``trace.comm_matrix()``).

Pairing every send with its receive (the rule of :func:`glade.trace.comm.message_pairs`,
on the index's own channel codes: cell, tag, communicator) is a pass over every message:
it is done only when something needs the receive times (the latency metric, a time
window, a link restricting the view) and kept. A selection's messages pair
their own channels alone (:func:`glade.trace.comm.pair_messages`), which gives the same
pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numba import njit
from tqdm.auto import tqdm

from glade.errors import GladeError
from glade.trace.call_level import call_level
from glade.trace.comm import (
    channel_codes,
    communicating_processes,
    match_codes,
    message_rows,
    pair_messages,
    positions,
)
from glade.trace.events import (
    COMMUNICATOR,
    MESSAGE_SIZE,
    PARTNER,
    PROCESS,
    RECEIVE_NAMES,
    SEND_NAMES,
    TAG,
    TIMESTAMP,
)
from glade.trace.timeline.kernels import ALL, first_at_least

if TYPE_CHECKING:
    from glade.trace.model import Trace

#: Above this many cells (processes squared), cells are numbered by sorting their keys
#: instead of one pass over a dense table of every cell.
DENSE_CELLS = 1 << 26

#: The columns of :meth:`MessageIndex.table` (those of ``match_messages``, plus latency).
TABLE_COLUMNS = (
    "Send event",
    "Receive event",
    "Sender",
    "Receiver",
    "Tag",
    "Communicator",
    "Message Size",
    "Send time (ns)",
    "Receive time (ns)",
    "Latency (ns)",
)


@njit(cache=True, nogil=True)
def _between(owner, partner, from_s, to_r):
    """Indices of the entries whose ``owner`` is marked in ``from_s`` and ``partner`` in
    ``to_r`` (one pass)."""
    out = np.empty(owner.size, np.int64)
    k = 0
    for i in range(owner.size):
        if from_s[owner[i]] and to_r[partner[i]]:
            out[k] = i
            k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def _mark_runs(kept, nodes, order, out):
    """Mark in ``out`` the sends ``order[k]`` whose node ``nodes[k]`` (ascending) lies in
    one of the runs of consecutive ids of ``kept`` (ascending): one pass over ``kept``,
    two binary searches per run, each from where the last run's sends end."""
    j = 0
    lo = 0
    while j < kept.size:
        k = j + 1
        while k < kept.size and kept[k] == kept[k - 1] + 1:
            k += 1
        lo = first_at_least(nodes, nodes, ALL, lo, nodes.size, kept[j], False)
        hi = first_at_least(nodes, nodes, ALL, lo, nodes.size, kept[k - 1], True)
        for s in range(lo, hi):
            out[order[s]] = True
        lo = hi
        j = k


@njit(cache=True, nogil=True)
def _number_cells(sender, receiver, n, slot):
    """Per send: the number of its cell (sender * n + receiver), cells numbered in order
    of first message through ``slot`` (n * n, all -1); and the key of every cell."""
    cell = np.empty(sender.size, np.int32)
    keys = np.empty(min(sender.size, n * n), np.int64)
    count = 0
    for i in range(sender.size):
        k = np.int64(sender[i]) * n + receiver[i]
        if slot[k] < 0:
            slot[k] = count
            keys[count] = k
            count += 1
        cell[i] = slot[k]
    return cell, keys[:count]


def number_cells(sender: np.ndarray, receiver: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per send (positions ``sender`` to ``receiver`` of ``n`` processes): the number of
    its cell, cells numbered in ascending order of their key ``sender * n + receiver``;
    and those keys."""
    if n * n <= DENSE_CELLS:
        cell, keys = _number_cells(sender, receiver, n, np.full(n * n, -1, dtype=np.int32))
        order = np.argsort(keys, kind="stable")
        rank = np.empty(order.size, dtype=np.int32)
        rank[order] = np.arange(order.size, dtype=np.int32)
        return rank[cell], keys[order]
    keys, cell = np.unique(sender.astype(np.int64) * n + receiver, return_inverse=True)
    return cell.astype(np.int32), keys


def _locate(ids: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of ``values`` in the ascending ``ids``, and whether each is there."""
    if ids.size and ids[0] == 0 and ids[-1] == ids.size - 1:
        return values, (values >= 0) & (values < ids.size)
    at = np.minimum(np.searchsorted(ids, values), max(ids.size - 1, 0))
    return at, ids[at] == values if ids.size else np.zeros(values.size, dtype=bool)


def _values(trace: Trace, name: str, rows: np.ndarray, dtype: str = "int32") -> np.ndarray:
    """Column ``name`` at ``rows`` (-1 where the trace has no such column)."""
    if name not in trace.events.columns:
        return np.full(rows.size, -1, dtype=dtype)
    return trace.events[name].to_numpy()[rows].astype(dtype, copy=False)


@dataclass(frozen=True)
class MessageFilter:
    """Which messages a view counts: tags and communicators (None: all) and a time window
    ``(t0, t1)`` in ns (None: all time) in which they were sent (a message belongs to the
    window of its send, as in the forest's ``sent`` column)."""

    tags: tuple[int, ...] | None = None
    communicators: tuple[int, ...] | None = None
    window: tuple[int, int] | None = None

    @property
    def empty(self) -> bool:
        """True when it restricts nothing: every message passes."""
        return self.tags is None and self.communicators is None and self.window is None


class MessageIndex:
    """The sends and receives of a trace as arrays (see the module doc); build it with
    :meth:`of`, which keeps one per events table."""

    def __init__(self, trace: Trace):
        self.trace = trace
        with tqdm(
            total=2, desc="comm matrix: messages", unit="step", delay=1.0, leave=False
        ) as bar:
            send_row = message_rows(trace, SEND_NAMES)
            partner = _values(trace, PARTNER, send_row, "int64")
            self.ids = communicating_processes(trace, partner)
            self.send_row = send_row
            self.sender = positions(self.ids, _values(trace, PROCESS, send_row, "int64")).astype(
                np.int32
            )
            self.receiver = positions(self.ids, partner).astype(np.int32)
            self.tag = _values(trace, TAG, send_row)
            self.communicator = _values(trace, COMMUNICATOR, send_row)
            self.size = _values(trace, MESSAGE_SIZE, send_row, "int64")
            self.send_time = trace.events[TIMESTAMP].to_numpy()[send_row]
            self.cell, self.cell_keys = number_cells(self.sender, self.receiver, self.ids.size)
            bar.update()
            recv_row = message_rows(trace, RECEIVE_NAMES)
            partner_at, inside = _locate(self.ids, _values(trace, PARTNER, recv_row, "int64"))
            owner_at, present = _locate(self.ids, _values(trace, PROCESS, recv_row, "int64"))
            inside &= present
            self.recv_row = recv_row[inside]
            self.recv_owner = owner_at[inside].astype(np.int32)
            self.recv_partner = partner_at[inside].astype(np.int32)
            bar.update()
        self._receive_row: np.ndarray | None = None
        self._send_node: tuple[np.ndarray, np.ndarray] | None = None
        self.has_tags = TAG in trace.events.columns
        self.has_communicators = COMMUNICATOR in trace.events.columns

    @classmethod
    def of(cls, trace: Trace) -> MessageIndex:
        """The index of ``trace``'s messages, built once per events table."""
        return trace._memo("comm matrix messages", lambda: cls(trace))

    def __len__(self) -> int:
        return self.send_row.size

    @property
    def num_processes(self) -> int:
        """How many processes (rows and columns of the matrix) there are."""
        return self.ids.size

    # ------------------------------------------------------------ pairing
    @property
    def receive_row(self) -> np.ndarray:
        """Per send: the event row of its receive (-1 when unmatched); the whole trace's
        pairing, done on first use."""
        if self._receive_row is None:
            with tqdm(
                total=1, desc="comm matrix: pairing sends with receives", delay=1.0, leave=False
            ) as bar:
                trace = self.trace
                recv_cell = self._cell_of(self.recv_partner, self.recv_owner)
                send_code, recv_code = channel_codes(
                    [self.cell, self.tag, self.communicator],
                    [
                        recv_cell,
                        _values(trace, TAG, self.recv_row),
                        _values(trace, COMMUNICATOR, self.recv_row),
                    ],
                )
                recv_code[recv_cell < 0] = -1
                match = match_codes(send_code, recv_code)
                self._receive_row = np.where(match >= 0, self.recv_row[np.maximum(match, 0)], -1)
                bar.update()
        return self._receive_row

    def _cell_of(self, sender: np.ndarray, receiver: np.ndarray) -> np.ndarray:
        """The cell number of each (sender, receiver) pair of positions (-1 for a pair
        no send goes through)."""
        n = self.num_processes
        key = sender.astype(np.int64) * n + receiver
        if n * n <= DENSE_CELLS:
            slot = np.full(n * n, -1, dtype=np.int32)
            slot[self.cell_keys] = np.arange(self.cell_keys.size, dtype=np.int32)
            return slot[key]
        at = np.minimum(np.searchsorted(self.cell_keys, key), max(self.cell_keys.size - 1, 0))
        if not self.cell_keys.size:
            return np.full(key.size, -1, dtype=np.int32)
        return np.where(self.cell_keys[at] == key, at, -1).astype(np.int32)

    @property
    def paired(self) -> bool:
        """Whether the whole trace's pairing is done."""
        return self._receive_row is not None

    def receive_time(self) -> np.ndarray:
        """Per send: the time of its receive (ns, float; NaN when unmatched)."""
        rows = self.receive_row
        stamps = self.trace.events[TIMESTAMP].to_numpy()
        return np.where(rows >= 0, stamps[np.maximum(rows, 0)], np.nan)

    # ------------------------------------------------------------ filtering
    def check_filter(self, flt: MessageFilter) -> None:
        """GladeError when ``flt`` asks for envelope fields the trace does not record."""
        if flt.tags is not None and not self.has_tags:
            raise GladeError(f"the trace has no {TAG!r} column to filter messages by tag")
        if flt.communicators is not None and not self.has_communicators:
            raise GladeError(
                f"the trace has no {COMMUNICATOR!r} column to filter messages by communicator"
            )

    def mask(self, flt: MessageFilter) -> np.ndarray | None:
        """Per send: whether ``flt`` keeps its message (None: all are kept)."""
        if flt.empty:
            return None
        keep = np.ones(self.send_row.size, dtype=bool)
        if flt.tags is not None:
            keep &= np.isin(self.tag, flt.tags)
        if flt.communicators is not None:
            keep &= np.isin(self.communicator, flt.communicators)
        if flt.window is not None:
            t0, t1 = flt.window
            keep &= (self.send_time >= t0) & (self.send_time <= t1)
        return keep

    @property
    def send_node(self) -> tuple[np.ndarray, np.ndarray]:
        """The sends ordered by their node in the trace's call forest (a send instant is
        a node of its own): the order, and the nodes in that order (-1 first, for sends
        outside the forest); found on first use."""
        if self._send_node is None:
            node = call_level(self.trace).nodes_of(self.send_row)[0]
            order = np.argsort(node, kind="stable")
            self._send_node = (order, node[order])
        return self._send_node

    def kept_by_nodes(self, kept: np.ndarray) -> np.ndarray:
        """Per send: whether its send event is among the call forest's nodes ``kept``
        (ascending): the messages ``trace.query(q, level="calls").comm_matrix()`` counts
        when ``kept`` are the nodes query ``q`` keeps. The kept nodes come in runs of
        consecutive ids (a window keeps a run per location), and the sends of a run are
        found by two binary searches among the sends' nodes (one compiled pass), so a
        window reads only its own messages."""
        order, nodes = self.send_node
        out = np.zeros(self.send_row.size, dtype=bool)
        _mark_runs(kept, nodes, order, out)
        return out

    def touched_by_events(self, events: np.ndarray) -> np.ndarray:
        """Per send: whether its send event or its receive event is among ``events``."""
        rows = self.receive_row
        return events[self.send_row] | ((rows >= 0) & events[np.maximum(rows, 0)])

    # ------------------------------------------------------------ tables
    def _marks(self, senders: np.ndarray, receivers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per process position: whether it is among ``senders``, among ``receivers``."""
        from_s = np.zeros(self.num_processes, dtype=np.bool_)
        from_s[senders] = True
        to_r = np.zeros(self.num_processes, dtype=np.bool_)
        to_r[receivers] = True
        return from_s, to_r

    def _among(self, senders: np.ndarray, receivers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the sends from the process positions ``senders`` to ``receivers``,
        and of the receives on ``receivers`` from ``senders`` (both ascending)."""
        from_s, to_r = self._marks(senders, receivers)
        return (
            _between(self.sender, self.receiver, from_s, to_r),
            _between(self.recv_partner, self.recv_owner, from_s, to_r),
        )

    def sends_between(
        self, senders: np.ndarray, receivers: np.ndarray, keep: np.ndarray | None
    ) -> np.ndarray:
        """Indices (ascending) of the sends from the process positions ``senders`` to
        ``receivers`` that ``keep`` (a mask over sends, None for all) keeps."""
        sends = _between(self.sender, self.receiver, *self._marks(senders, receivers))
        return sends if keep is None else sends[keep[sends]]

    def messages(
        self, senders: np.ndarray, receivers: np.ndarray, keep: np.ndarray | None
    ) -> pd.DataFrame:
        """The messages from the process positions ``senders`` to ``receivers`` that
        ``keep`` (a mask over sends, None for all) keeps: one row per send, in send
        order, with its receive (``Receive event`` and ``Receive time (ns)`` -1, latency
        NaN, when unmatched); columns :data:`TABLE_COLUMNS`, processes as ids. Every
        channel between the two sets is paired whole, so the pairs are the trace's."""
        sends, recvs = self._among(senders, receivers)
        if self.paired:
            receive_row = self.receive_row[sends]
        else:
            receive_row = np.full(sends.size, -1, dtype=np.int64)
            pairs = pair_messages(self.trace, self.send_row[sends], self.recv_row[recvs])[0]
            at = np.searchsorted(self.send_row[sends], pairs["Send event"].to_numpy())
            receive_row[at] = pairs["Receive event"].to_numpy()
        if keep is not None:
            chosen = keep[sends]
            sends, receive_row = sends[chosen], receive_row[chosen]
        stamps = self.trace.events[TIMESTAMP].to_numpy()
        matched = receive_row >= 0
        receive_time = np.where(matched, stamps[np.maximum(receive_row, 0)], -1)
        send_time = self.send_time[sends]
        return pd.DataFrame(
            {
                "Send event": self.send_row[sends],
                "Receive event": receive_row,
                "Sender": self.ids[self.sender[sends]],
                "Receiver": self.ids[self.receiver[sends]],
                "Tag": self.tag[sends].astype(np.int64),
                "Communicator": self.communicator[sends].astype(np.int64),
                "Message Size": self.size[sends],
                "Send time (ns)": send_time,
                "Receive time (ns)": receive_time,
                "Latency (ns)": np.where(
                    matched, (receive_time - send_time).astype(np.float64), np.nan
                ),
            },
            columns=list(TABLE_COLUMNS),
        )
