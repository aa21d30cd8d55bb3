"""Point-to-point communication in a trace: communication matrix, message size
histogram, volume per process and over time, and the pairing of sends with
receives.

Messages are Instant events: sends are named ``MpiSend`` / ``MpiIsend``, receives
``MpiRecv`` / ``MpiIrecv``; the ``Partner`` column holds the other process, ``Tag``
and ``Communicator`` the MPI envelope and ``Message Size`` the bytes (-1 where
unknown). Volumes by size skip messages of unknown size, with a warning; volumes by
count include them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numba import njit

from glade.errors import TraceError
from glade.trace.events import (
    COMMUNICATOR,
    INSTANT,
    MESSAGE_SIZE,
    NAME,
    PARTNER,
    PROCESS,
    RECEIVE_NAMES,
    SEND_NAMES,
    TAG,
    TIMESTAMP,
)
from glade.trace.matching import MATCHING_EVENT, MATCHING_TIMESTAMP

if TYPE_CHECKING:
    from glade.trace.engines.dask_trace import DaskTrace
    from glade.trace.model import Trace

OUTPUTS = ("size", "count")
MESSAGE_TYPES = ("send", "receive")


class UnknownMessageSizeWarning(UserWarning):
    """Some messages have no recorded size; volumes by size leave them out."""


def message_rows(trace: Trace, names: tuple[str, ...]) -> np.ndarray:
    """Rows (ascending) of the Instant events named one of ``names`` whose partner is
    known (a broadcast, or a message whose partner the tracer did not record, has
    ``Partner`` -1 and no place in a process-to-process analysis); found once per events
    table and ``names`` (read-only)."""

    def compute() -> np.ndarray:
        events = trace.events
        column = events[NAME]
        if isinstance(column.dtype, pd.CategoricalDtype):
            wanted = np.isin(np.asarray(column.cat.categories, dtype=str), names)
            codes = column.cat.codes.to_numpy()
            named = (codes >= 0) & wanted[np.maximum(codes, 0)]
        else:
            named = np.isin(column.to_numpy().astype(str), names)
        rows = np.flatnonzero(named & (trace.event_kinds() == INSTANT))
        if PARTNER in events.columns:
            rows = rows[events[PARTNER].to_numpy()[rows] >= 0]
        rows.flags.writeable = False
        return rows

    return trace._memo(f"message rows {names}", compute)


def _column(trace: Trace, name: str, rows: np.ndarray, default: int = -1) -> np.ndarray:
    """Integer values of column ``name`` at ``rows``; ``default`` when the trace has no such
    column."""
    events = trace.events
    if name not in events.columns:
        return np.full(rows.size, default, dtype=np.int64)
    return events[name].to_numpy()[rows].astype(np.int64)


def check_output(output: str) -> None:
    """A TraceError unless ``output`` is one of ``OUTPUTS``."""
    if output not in OUTPUTS:
        raise TraceError(f"output must be one of {OUTPUTS}, not {output!r}")


def message_weights(trace: Trace, rows: np.ndarray, output: str) -> tuple[np.ndarray, int]:
    """What each message at ``rows`` weighs: 1, or its size (0 where unknown); and how
    many sizes are unknown."""
    if output == "count":
        return np.ones(rows.size, dtype=np.int64), 0
    size = _column(trace, MESSAGE_SIZE, rows, default=-1)
    unknown = size < 0
    return np.where(unknown, 0, size), int(unknown.sum())


def _volume(trace: Trace, rows: np.ndarray, output: str) -> np.ndarray:
    """:func:`message_weights`, with a warning when sizes are unknown."""
    weights, unknown = message_weights(trace, rows, output)
    warn_unknown_sizes(unknown, rows.size)
    return weights


def warn_unknown_sizes(unknown: int, total: int) -> None:
    """Warn that ``unknown`` of ``total`` messages have no size (nothing when none)."""
    if unknown:
        warnings.warn(
            UnknownMessageSizeWarning(
                f"{unknown} of {total} messages have no recorded size "
                "and add nothing to volumes by size"
            ),
            stacklevel=5,
        )


def sent_messages(trace: Trace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, senders and receivers of the sends with a known receiver (others are left
    out with a warning)."""
    rows = message_rows(trace, SEND_NAMES)
    receivers = _column(trace, PARTNER, rows, default=-1)
    known = receivers >= 0
    if not known.all():
        warnings.warn(
            UserWarning(
                f"{int((~known).sum())} sends have no receiver (Partner -1) and are left out"
            ),
            stacklevel=4,
        )
    rows = rows[known]
    return rows, _column(trace, PROCESS, rows), receivers[known]


def distinct_ids(ids: np.ndarray) -> np.ndarray:
    """The distinct values of non-negative integer ids, ascending: one counting pass when
    they are dense enough (ranks), a sort otherwise."""
    if ids.size and int(ids.max()) < 4 * ids.size + 1024:
        return np.flatnonzero(np.bincount(ids))
    return np.unique(ids)


def positions(ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The index of every value in the ascending ``ids`` that hold them all (the values
    themselves when ids are ``0..n-1``)."""
    if ids.size and ids[0] == 0 and ids[-1] == ids.size - 1:
        return values
    return np.searchsorted(ids, values)


def send_pairs(trace: Trace) -> pd.DataFrame:
    """The sends with a known receiver aggregated per (``sender``, ``receiver``) pair:
    ``count`` (messages), ``size`` (bytes of those of known size) and ``unknown``
    (messages of unknown size); integers, so pairs from parts of a trace add up
    exactly."""
    rows, senders, receivers = sent_messages(trace)
    size = _column(trace, MESSAGE_SIZE, rows, default=-1)
    table = pd.DataFrame(
        {
            "sender": senders,
            "receiver": receivers,
            "count": 1,
            "size": np.maximum(size, 0),
            "unknown": (size < 0).astype(np.int64),
        }
    )
    return table.groupby(["sender", "receiver"], sort=True).sum().reset_index()


def communicating_processes(trace: Trace, partners: np.ndarray | None = None) -> np.ndarray:
    """The process ids that label the rows and columns of the communication matrix
    (see :func:`process_ids`); ``partners`` are the partners of the sends (-1 where
    unknown) when the caller already has them."""
    if partners is None:
        partners = _column(trace, PARTNER, message_rows(trace, SEND_NAMES), default=-1)
    return process_ids(trace.processes, partners)


def process_ids(processes: np.ndarray, partners: np.ndarray) -> np.ndarray:
    """The labels of the communication matrix of a trace of ``processes`` whose sends go
    to ``partners`` (-1 where unknown): ``0..max`` when the ids of the processes and of
    the partners look like ranks (non-negative, at most 4 times as many slots as ids),
    so that index i is rank i even for a silent rank; else the sorted distinct ids."""
    ids = np.union1d(processes, distinct_ids(partners[partners >= 0]))
    if ids.size and ids[0] >= 0 and ids[-1] + 1 <= 4 * ids.size:
        return np.arange(ids[-1] + 1, dtype=np.int64)
    return ids


#: The forms :func:`comm_matrix` returns.
FORMS = ("auto", "dense", "sparse")
#: ``form="auto"`` gives the dense matrix up to this many cells (2048 x 2048 processes,
#: 32 MiB of int64), the sparse table beyond.
AUTO_DENSE_CELLS = 2**22
#: ``form="dense"`` refuses a matrix of more bytes than this (1 GiB: 11,585 processes).
DENSE_LIMIT_BYTES = 2**30


def comm_matrix(
    trace: Trace, output: str = "size", as_frame: bool = False, form: str = "auto"
) -> np.ndarray | pd.DataFrame:
    """Bytes (``output="size"``) or number of messages (``"count"``) sent by each
    process (rows) to each process (columns), from the send events.

    Rows and columns follow :func:`communicating_processes` (for MPI ranks, index
    i is rank i, as in Pipit). ``as_frame=True`` returns a DataFrame labelled with
    the process ids instead of an int64 array.

    The dense matrix has a cell for every pair of processes, so its memory grows with
    the square of their number. ``form="auto"`` (the default) returns it up to
    :data:`AUTO_DENSE_CELLS` cells (2048 processes) and the sparse table beyond;
    ``form="sparse"`` always returns the sparse table: one row per (``Sender``,
    ``Receiver``) pair that exchanged at least one message, sorted, with the volume in
    a column named ``output`` (``attrs["processes"]`` holds the labels the dense
    matrix would have); its memory grows with the number of pairs. ``form="dense"``
    always returns the matrix, and raises TraceError when it would take more than
    :data:`DENSE_LIMIT_BYTES`.
    """
    check_output(output)
    check_form(form)
    rows, senders, receivers = sent_messages(trace)
    ids = communicating_processes(trace, receivers)
    return matrix_of(senders, receivers, _volume(trace, rows, output), ids, as_frame, form, output)


def check_form(form: str) -> None:
    """A TraceError unless ``form`` is one of ``FORMS``."""
    if form not in FORMS:
        raise TraceError(f"form must be one of {FORMS}, not {form!r}")


def matrix_of(
    senders: np.ndarray,
    receivers: np.ndarray,
    weights: np.ndarray,
    ids: np.ndarray,
    as_frame: bool,
    form: str = "auto",
    output: str = "size",
) -> np.ndarray | pd.DataFrame:
    """The communication matrix of messages from ``senders`` to ``receivers`` weighing
    ``weights`` (integers), rows and columns labelled by ``ids``, dense or as the sparse
    table (see :func:`comm_matrix`)."""
    size = len(ids)
    cells = size * size
    if form == "dense" and cells * 8 > DENSE_LIMIT_BYTES:
        raise TraceError(
            f"a dense communication matrix of {size} x {size} processes takes "
            f"{cells * 8 / 2**30:.3g} GiB, over the bound of {DENSE_LIMIT_BYTES / 2**30:g} "
            f'GiB ({int(np.sqrt(DENSE_LIMIT_BYTES / 8))} processes): use form="sparse"'
        )
    if form == "sparse" or (form == "auto" and cells > AUTO_DENSE_CELLS):
        return _pair_table(senders, receivers, weights, ids, output)
    cell = positions(ids, senders) * size + positions(ids, receivers)
    matrix: np.ndarray = np.zeros(cells, dtype=np.int64)
    np.add.at(matrix, cell, np.asarray(weights, dtype=np.int64))
    matrix = matrix.reshape(size, size)
    if as_frame:
        return pd.DataFrame(
            matrix, index=pd.Index(ids, name="Sender"), columns=pd.Index(ids, name="Receiver")
        )
    return matrix


def _pair_table(
    senders: np.ndarray, receivers: np.ndarray, weights: np.ndarray, ids: np.ndarray, output: str
) -> pd.DataFrame:
    """The sparse communication matrix: the summed ``weights`` per (Sender, Receiver)
    pair that has messages, sorted (integer sums, exact)."""
    table = pd.DataFrame(
        {
            "Sender": np.asarray(senders, dtype=np.int64),
            "Receiver": np.asarray(receivers, dtype=np.int64),
            output: np.asarray(weights, dtype=np.int64),
        }
    )
    table = table.groupby(["Sender", "Receiver"], sort=True).sum().reset_index()
    table.attrs["processes"] = np.asarray(ids, dtype=np.int64)
    return table


def comm_by_process(trace: Trace | DaskTrace, output: str = "size") -> pd.DataFrame:
    """Bytes or messages sent and received by each process (``Sent``, ``Received``),
    indexed by ``Process`` (from the sparse matrix: memory grows with the pairs that
    communicate, not with the square of the processes)."""
    check_output(output)
    table = trace.comm_matrix(output, form="sparse")
    ids = pd.Index(table.attrs["processes"], name=PROCESS)
    sums = [
        table.groupby(side, sort=False)[output].sum().reindex(ids, fill_value=0)
        for side in ("Sender", "Receiver")
    ]
    return pd.DataFrame(
        {"Sent": sums[0].to_numpy(dtype=np.int64), "Received": sums[1].to_numpy(dtype=np.int64)},
        index=ids,
    )


def message_histogram(trace: Trace, bins: Any = 20, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.histogram`` of the sizes of the sent messages of known size:
    ``(counts, edges)``; ``kwargs`` go to ``numpy.histogram``."""
    return np.histogram(sent_sizes(trace), bins=bins, **kwargs)


def sent_sizes(trace: Trace) -> np.ndarray:
    """The sizes (bytes) of the sent messages of known size, in event order."""
    sizes = _column(trace, MESSAGE_SIZE, message_rows(trace, SEND_NAMES), default=-1)
    return sizes[sizes >= 0]


def message_names(message_type: str) -> tuple[str, ...]:
    """The names of the instants of ``message_type`` (``"send"`` or ``"receive"``)."""
    if message_type not in MESSAGE_TYPES:
        raise TraceError(f"message_type must be one of {MESSAGE_TYPES}, not {message_type!r}")
    return SEND_NAMES if message_type == "send" else RECEIVE_NAMES


def comm_over_time(
    trace: Trace, output: str = "size", message_type: str = "send", bins: Any = 50, **kwargs: Any
) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.histogram`` of the messages sent (``message_type="send"``) or received
    (``"receive"``) over the time span of the trace, weighted by size or counted:
    ``(volume, edges)`` with edges in ns."""
    check_output(output)
    rows = message_rows(trace, message_names(message_type))
    stamps = trace.events[TIMESTAMP].to_numpy()
    span = (stamps.min(), stamps.max()) if stamps.size else (0, 1)
    weights = _volume(trace, rows, output) if output == "size" else None
    return np.histogram(stamps[rows], bins=bins, range=span, weights=weights, **kwargs)


def channel_codes(
    sends: list[np.ndarray], recvs: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """One int64 code per send and per receive such that two codes are equal exactly when
    their envelopes (the columns in ``sends`` and ``recvs``, in the same order) are: a
    mixed-radix number of the columns, each offset to start at 0 when its values are
    dense enough, else replaced by its rank among the distinct values."""
    num_sends = sends[0].size
    code = np.zeros(num_sends + recvs[0].size, dtype=np.int64)
    radix = 1
    for send_values, recv_values in zip(sends, recvs, strict=True):
        values = np.concatenate([send_values, recv_values]).astype(np.int64)
        if not values.size:
            break
        low, high = int(values.min()), int(values.max())
        if high - low < 4 * values.size + 1024:
            digit, span = values - low, high - low + 1
        else:
            distinct, digit = np.unique(values, return_inverse=True)
            span = distinct.size
        if radix * span >= 2**62:
            distinct, code = np.unique(code, return_inverse=True)
            radix = distinct.size
        code = code * span + digit
        radix *= span
    return code[:num_sends], code[num_sends:]


@njit(cache=True, nogil=True)
def _match_counting(send_code, recv_code, codes):
    """:func:`match_codes` for codes in ``0..codes-1`` (-1: no channel): the receives
    grouped by code with one counting pass, then the sends ranked in one pass."""
    count = np.zeros(codes + 1, np.int64)
    for c in recv_code:
        if c >= 0:
            count[c + 1] += 1
    start = np.cumsum(count)
    filled = np.zeros(codes, np.int64)
    table = np.empty(recv_code.size, np.int64)
    for i in range(recv_code.size):
        c = recv_code[i]
        if c >= 0:
            table[start[c] + filled[c]] = i
            filled[c] += 1
    taken = np.zeros(codes, np.int64)
    match = np.full(send_code.size, -1, np.int64)
    for i in range(send_code.size):
        c = send_code[i]
        if c >= 0:
            rank = taken[c]
            taken[c] += 1
            if rank < filled[c]:
                match[i] = table[start[c] + rank]
    return match


def match_codes(send_code: np.ndarray, recv_code: np.ndarray) -> np.ndarray:
    """Per send: the index of the receive it matches (-1 for none) when the k-th send with
    a channel code matches the k-th receive with the same code, both in the order given
    (codes >= 0; -1 marks an event of no channel). Counting passes when the codes are
    dense, sorts otherwise."""
    high = max(int(send_code.max(initial=-1)), int(recv_code.max(initial=-1)))
    if high < 4 * (send_code.size + recv_code.size) + 1024:
        return _match_counting(send_code.astype(np.int64), recv_code.astype(np.int64), high + 1)
    send_order = np.argsort(send_code, kind="stable")
    recv_order = np.argsort(recv_code, kind="stable")
    sent, received = send_code[send_order], recv_code[recv_order]
    first = np.flatnonzero(np.r_[True, sent[1:] != sent[:-1]]) if sent.size else sent
    rank = np.arange(sent.size) - np.repeat(first, np.diff(np.r_[first, sent.size]))
    low = np.searchsorted(received, sent, side="left")
    high_at = np.searchsorted(received, sent, side="right")
    ok = (rank < high_at - low) & (sent >= 0)
    match = np.full(send_code.size, -1, dtype=np.int64)
    match[send_order[ok]] = recv_order[low[ok] + rank[ok]]
    return match


def message_pairs(trace: Trace) -> tuple[pd.DataFrame, int, int]:
    """The matched messages of ``trace`` without changing it: one row per message
    (columns of :func:`match_messages`), in send order; and the numbers of sends and
    receives left unmatched. The pairing is computed once per events table (it reads
    recorded columns only); every call gets its own copy of the table."""
    table, lost_sends, lost_recvs = _pairing(trace)
    return table.copy(), lost_sends, lost_recvs


def _pairing(trace: Trace) -> tuple[pd.DataFrame, int, int]:
    """:func:`message_pairs`, computed once per events table (the memo itself: never
    handed out but as copies or read-only views)."""
    return trace._memo(
        "message pairs",
        lambda: pair_messages(
            trace, message_rows(trace, SEND_NAMES), message_rows(trace, RECEIVE_NAMES)
        ),
    )


def pair_columns(trace: Trace, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """Columns of :func:`message_pairs` (one value per matched message, in send order)
    as read-only views of the pairing computed once per events table: no copy of the
    table, for readers that only read.

    Parameters
    ----------
    trace : Trace
        Any trace.
    columns : sequence of str
        Columns of :func:`message_pairs`' table.

    Returns
    -------
    dict of str to numpy.ndarray
        Each column's values, not writeable.

    Examples
    --------
    >>> pairs = pair_columns(trace, ["Send event", "Receive event"])  # doctest: +SKIP
    >>> pairs["Send event"].flags.writeable  # doctest: +SKIP
    False
    """
    table = _pairing(trace)[0]
    views = {}
    for column in columns:
        view = table[column].to_numpy().view()
        view.flags.writeable = False
        views[column] = view
    return views


def paired_events(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """The send and receive event rows of the matched messages of ``trace``:
    :func:`pair_columns` ``Send event`` and ``Receive event`` (``sends[i]`` was received
    by ``receives[i]``; int64 rows, not writeable)."""
    pairs = pair_columns(trace, ["Send event", "Receive event"])
    return pairs["Send event"], pairs["Receive event"]


def pair_messages(
    trace: Trace, send_rows: np.ndarray, recv_rows: np.ndarray
) -> tuple[pd.DataFrame, int, int]:
    """:func:`message_pairs` among the send events at ``send_rows`` and the receive events
    at ``recv_rows`` only (ascending rows, e.g. those of a few channels: a channel's
    messages pair among themselves, so pairing a channel's sends and receives alone
    gives the pairs the whole trace gives)."""
    senders = [_column(trace, PROCESS, send_rows), _column(trace, PARTNER, send_rows, default=-1)]
    receivers = [_column(trace, PARTNER, recv_rows, default=-1), _column(trace, PROCESS, recv_rows)]
    send_ok, recv_ok = np.flatnonzero(senders[1] >= 0), np.flatnonzero(receivers[0] >= 0)
    send_code, recv_code = channel_codes(
        [
            senders[0][send_ok],
            senders[1][send_ok],
            _column(trace, TAG, send_rows[send_ok]),
            _column(trace, COMMUNICATOR, send_rows[send_ok]),
        ],
        [
            receivers[0][recv_ok],
            receivers[1][recv_ok],
            _column(trace, TAG, recv_rows[recv_ok]),
            _column(trace, COMMUNICATOR, recv_rows[recv_ok]),
        ],
    )
    match = match_codes(send_code, recv_code)
    paired = np.flatnonzero(match >= 0)
    send_idx, recv_idx = send_ok[paired], recv_ok[match[paired]]
    send_at, recv_at = send_rows[send_idx], recv_rows[recv_idx]
    stamps = trace.events[TIMESTAMP].to_numpy()
    sizes = _column(trace, MESSAGE_SIZE, send_at, default=-1)
    table = pd.DataFrame(
        {
            "Send event": send_at,
            "Receive event": recv_at,
            "Sender": senders[0][send_idx],
            "Receiver": senders[1][send_idx],
            "Tag": _column(trace, TAG, send_at, default=-1),
            "Communicator": _column(trace, COMMUNICATOR, send_at, default=-1),
            "Message Size": sizes,
            "Send time (ns)": stamps[send_at],
            "Receive time (ns)": stamps[recv_at],
        }
    )
    return table, send_rows.size - send_at.size, recv_rows.size - recv_at.size


def match_messages(trace: Trace) -> pd.DataFrame:
    """Pair every send with its receive: the k-th send from process a to process b
    with a given tag and communicator matches the k-th receive on b from a with the
    same tag and communicator (MPI's non-overtaking order; ``Tag`` and
    ``Communicator`` count as -1 where the trace lacks them).

    Sets ``_matching_event`` and ``_matching_timestamp`` of the matched message
    instants (other rows are kept as they are, -1 when new), counts unmatched
    messages in ``metadata["unmatched_messages"]``, and returns one row per matched
    message: its send and receive rows, sender, receiver, tag, communicator, size
    and both times.
    """
    events = trace.events
    table, lost_sends, lost_recvs = message_pairs(trace)
    send_at, recv_at = table["Send event"].to_numpy(), table["Receive event"].to_numpy()
    n = len(events)
    matching = (
        events[MATCHING_EVENT].to_numpy().copy()
        if MATCHING_EVENT in events.columns
        else np.full(n, -1, dtype=np.int64)
    )
    matching_ts = (
        events[MATCHING_TIMESTAMP].to_numpy().copy()
        if MATCHING_TIMESTAMP in events.columns
        else np.full(n, -1, dtype=np.int64)
    )
    matching[send_at], matching[recv_at] = recv_at, send_at
    matching_ts[send_at] = table["Receive time (ns)"].to_numpy()
    matching_ts[recv_at] = table["Send time (ns)"].to_numpy()
    events[MATCHING_EVENT] = matching
    events[MATCHING_TIMESTAMP] = matching_ts
    trace.metadata["unmatched_messages"] = {"sends": int(lost_sends), "receives": int(lost_recvs)}
    return table
