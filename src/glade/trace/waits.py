"""Wait states: the time a call spends waiting for another process, and who caused it
(Scalasca's patterns, on every trace format glade reads).

Patterns (the waiting call, its waiting time, its cause):

- ``late sender``: a call completing a receive (the call around an ``MpiRecv`` instant,
  e.g. ``MPI_Recv``, or around an ``MpiIrecv`` instant, e.g. the ``MPI_Wait`` that
  completes an ``MPI_Irecv``) entered before the call around the matching send was
  entered. It waits from its own enter until the send call's enter, at most its
  duration; the cause is the send call.
- ``late receiver``: a blocking send (the call around an ``MpiSend`` instant) entered
  before the call completing its receive, and still running when that call is
  entered (so the send could not finish without it: synchronous, or rendezvous). It
  waits from its own enter until the receive call's enter; the cause is that call.
  Non-blocking sends (``MpiIsend``) never wait here.
- ``wait at barrier`` (``MPI_Barrier``) and ``wait at N x N`` (``MPI_Allreduce``,
  ``MPI_Allgather[v]``, ``MPI_Alltoall[vw]``, ``MPI_Reduce_scatter[_block]``): every
  call of one collective instance waits from its own enter until the last call of the
  instance is entered (the cause), at most its duration.
- ``wait at N x 1`` (``MPI_Reduce``, ``MPI_Gather[v]``; Scalasca's *early reduce*):
  the root's call waits from its enter until the last other call is entered.
- ``wait at 1 x N`` (``MPI_Bcast``, ``MPI_Scatter[v]``; Scalasca's *late broadcast*):
  every call but the root's waits from its enter until the root's call is entered.

Collective instances are matched in call order: the k-th call of a collective on each
process, per communicator, is instance k. The communicator is the ``Communicator``
column on the call's Enter row where a trace records it (>= 0); else every process that
calls the collective takes part (``MPI_COMM_WORLD``). The root is the ``Root`` column
on the Enter row where recorded (a process id), else the lowest process of the instance.
``PMPI_`` names count as their ``MPI_`` names.

A call that could wait in several ways (``MPI_Sendrecv``: a late sender and a late
receiver; a ``MPI_Waitall`` completing several late receives) has one row: the
longest wait and its cause (first in message order on ties). Waiting times are int64
ns, never negative, never longer than the call.

The work is vectorized: the calls around message instants come from the call structure
and the message pairing; collective instances from one compiled pass in time order;
each call's longest wait from one compiled pass over the waiting candidates (at most one
per message and per collective call), the calls sorted once by time. Everything is
computed from two small tables (:func:`wait_inputs`) that a Dask trace gathers from its
partitions, so both engines run :func:`find_wait_states`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.compiled import kernel
from glade.errors import TraceError
from glade.trace.events import (
    COMMUNICATOR,
    ENTER,
    NAME,
    PROCESS,
    RECEIVE_NAMES,
    SEND_NAMES,
    THREAD,
    TIMESTAMP,
)
from glade.trace.matching import location_codes_of

if TYPE_CHECKING:
    from glade.trace.model import Trace

#: The wait-state patterns, in the order of their codes.
PATTERNS = (
    "late sender",
    "late receiver",
    "wait at barrier",
    "wait at N x N",
    "wait at N x 1",
    "wait at 1 x N",
)
LATE_SENDER, LATE_RECEIVER, BARRIER, N_TO_N, N_TO_ONE, ONE_TO_N = range(len(PATTERNS))
#: Blocking collectives by pattern code.
COLLECTIVES = {
    "MPI_Barrier": BARRIER,
    **dict.fromkeys(
        (
            "MPI_Allreduce",
            "MPI_Allgather",
            "MPI_Allgatherv",
            "MPI_Alltoall",
            "MPI_Alltoallv",
            "MPI_Alltoallw",
            "MPI_Reduce_scatter",
            "MPI_Reduce_scatter_block",
        ),
        N_TO_N,
    ),
    **dict.fromkeys(("MPI_Reduce", "MPI_Gather", "MPI_Gatherv"), N_TO_ONE),
    **dict.fromkeys(("MPI_Bcast", "MPI_Scatter", "MPI_Scatterv"), ONE_TO_N),
}
#: The instants of blocking sends (the only sends that can wait for their receive).
BLOCKING_SENDS = ("MpiSend",)
#: The column holding a root-based collective's root process, where a trace records it.
ROOT = "Root"
#: The column of the waiting time (ns) in the wait-state table, the CCT and the forest.
WAITING_TIME = "waiting time"
#: Columns of :func:`wait_states`.
WAIT_COLUMNS = (
    PROCESS,
    THREAD,
    "event",
    "name",
    "start",
    "end",
    "pattern",
    WAITING_TIME,
    "cause process",
    "cause thread",
    "cause event",
    "cause name",
    "cause start",
)


def collective_pattern(name: str) -> int:
    """The pattern code of collective ``name`` (``PMPI_`` as ``MPI_``), -1 for none."""
    return COLLECTIVES.get(name[1:] if name.startswith("PMPI_") else name, -1)


def _optional(trace: Trace, column: str, rows: np.ndarray) -> np.ndarray:
    """Integer values of ``column`` at ``rows``, -1 where the trace lacks the column."""
    if column not in trace.events.columns:
        return np.full(rows.size, -1, dtype=np.int64)
    return trace.events[column].to_numpy()[rows].astype(np.int64)


def _union(size: int, *rows: np.ndarray) -> np.ndarray:
    """The distinct values of the arrays of ``rows`` (rows of a table of ``size`` rows),
    ascending: one mask over the rows, no sort."""
    mask = np.zeros(size, dtype=bool)
    for values in rows:
        mask[values] = True
    return np.flatnonzero(mask)


def wait_inputs(trace: Trace, ids: np.ndarray | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What wait states need of ``trace`` (a whole trace, or a partition of whole
    processes), with events named by ``ids`` (default: rows): the message instants with
    a partner (``event``, the ``call`` around it, ``blocking`` for a blocking send),
    and the calls that matter (``call``, ``Process``, ``Thread``, ``name``, ``start``,
    ``end``, ``collective`` pattern code or -1, ``Communicator``, ``Root``): the calls
    around those instants and every blocking collective call."""
    from glade.trace.comm import message_rows

    events = trace.events
    structure = trace._call_structure()
    kinds = trace.event_kinds()
    names = events[NAME]
    codes = names.cat.codes.to_numpy()
    sends = message_rows(trace, SEND_NAMES)
    instants = _union(len(events), sends, message_rows(trace, RECEIVE_NAMES))
    around = structure.parent[instants]
    instants, around = instants[around >= 0], around[around >= 0]
    blocking_codes = np.isin(np.asarray(names.cat.categories, dtype=str), BLOCKING_SENDS)
    pattern_of_code = np.array(
        [collective_pattern(str(c)) for c in names.cat.categories] + [-1], dtype=np.int8
    )
    pattern = pattern_of_code[codes]  # code -1 (no name) reads the last entry, -1
    collective = np.flatnonzero((pattern >= 0) & (kinds == ENTER) & (structure.depth >= 0))
    calls = _union(len(events), around, collective)

    def name_of(rows: np.ndarray) -> np.ndarray:
        """The ids of the events at ``rows`` (no table of every event's id for rows)."""
        return rows if ids is None else ids[rows]

    messages = pd.DataFrame(
        {
            "event": name_of(instants),
            "call": name_of(around),
            "blocking": blocking_codes[codes[instants]] if instants.size else np.zeros(0, bool),
        },
        copy=False,  # no copy into blocks of one dtype: the arrays are new
    )
    table = pd.DataFrame(
        {
            "call": name_of(calls),
            PROCESS: events[PROCESS].to_numpy()[calls],
            THREAD: events[THREAD].to_numpy()[calls],
            "name": pd.Categorical.from_codes(codes[calls], names.cat.categories),
            "start": events[TIMESTAMP].to_numpy()[calls],
            "end": structure.matching_timestamp[calls],
            "collective": pattern[calls],
            COMMUNICATOR: _optional(trace, COMMUNICATOR, calls),
            ROOT: _optional(trace, ROOT, calls),
        },
        copy=False,  # no copy into blocks of one dtype: the arrays are new
    )
    return messages, table


@kernel
def _occurrences(group, num_groups):
    """Per item the number of earlier items of its ``group`` (codes 0..num_groups-1)."""
    seen = np.zeros(num_groups, np.int64)
    out = np.empty(group.size, np.int64)
    for i in range(group.size):
        out[i] = seen[group[i]]
        seen[group[i]] += 1
    return out


@kernel
def _collective_waits(instance, num_instances, proc, root, pattern, start, end):
    """Per collective call (items in time order) its waiting time and the item that
    caused it (-1 for none), in three passes: the last arrival, the root and the last
    arrival among the others of every instance, then each call's wait (see the module
    doc for the patterns)."""
    n = instance.size
    last = np.full(num_instances, -1, np.int64)
    lowest = np.full(num_instances, np.iinfo(np.int64).max, np.int64)
    root_process = np.full(num_instances, -1, np.int64)
    for i in range(n):
        k = instance[i]
        if last[k] < 0 or start[i] > start[last[k]]:
            last[k] = i
        lowest[k] = min(lowest[k], proc[i])
        if root_process[k] < 0 and root[i] >= 0:
            root_process[k] = root[i]
    for k in range(num_instances):
        if root_process[k] < 0:
            root_process[k] = lowest[k]
    root_call = np.full(num_instances, -1, np.int64)
    last_other = np.full(num_instances, -1, np.int64)
    for i in range(n):
        k = instance[i]
        if proc[i] == root_process[k]:
            if root_call[k] < 0:
                root_call[k] = i
        elif last_other[k] < 0 or start[i] > start[last_other[k]]:
            last_other[k] = i
    wait = np.zeros(n, np.int64)
    cause = np.full(n, -1, np.int64)
    for i in range(n):
        k = instance[i]
        p = pattern[i]
        c = -1
        if BARRIER <= p <= N_TO_N:
            c = last[k]
        elif p == N_TO_ONE:
            if i == root_call[k]:
                c = last_other[k]
        elif proc[i] != root_process[k]:
            c = root_call[k]
        if c >= 0 and c != i:
            w = min(start[c] - start[i], end[i] - start[i])
            if w > 0:
                wait[i] = w
                cause[i] = c
    return wait, cause


def _collective_candidates(calls: pd.DataFrame, at: np.ndarray) -> tuple[np.ndarray, ...]:
    """Waiting collective calls: (waiter, cause, pattern, wait), positions in ``calls``;
    ``at`` are the positions of its collective calls in time order."""
    empty = np.zeros(0, dtype=np.int64)
    if not at.size:
        return empty, empty, empty, empty

    def column(name: str) -> np.ndarray:
        """Column ``name`` of the collective calls, int64 (no copy of the whole table)."""
        return calls[name].to_numpy()[at].astype(np.int64, copy=False)

    names = pd.factorize(calls["name"].take(at))[0]
    key, _ = location_codes_of(names, column(COMMUNICATOR))
    processes = column(PROCESS)
    group, num_groups = location_codes_of(key, processes)
    occurrence = _occurrences(group, num_groups)
    instance, num_instances = location_codes_of(key, occurrence)
    pattern = column("collective")
    wait, cause = _collective_waits(
        instance,
        num_instances,
        processes,
        column(ROOT),
        pattern,
        column("start"),
        column("end"),
    )
    waiting = np.flatnonzero(wait > 0)
    return at[waiting], at[cause[waiting]], pattern[waiting], wait[waiting]


@kernel
def _find(keys, order, value):
    """The position of ``value`` among ``keys`` (ascending, distinct), read through
    ``order`` (sorted position -> wanted position; empty for none), -1 where absent."""
    i = np.searchsorted(keys, value)
    if i == keys.size or keys[i] != value:
        return -1
    return order[i] if order.size else i


@kernel
def _message_waits(
    send_events, recv_events, instants, instant_order, call_at, blocking, start, end
):
    """Per message (``send_events[i]`` received by ``recv_events[i]``) its late sender
    and late receiver waits, in one pass over the messages: the position of each instant
    among ``instants`` (ascending, read through ``instant_order``), then of its call
    among the calls (``call_at``, -1 for a call absent), whose ``start`` and ``end`` give
    the waits; a second pass writes the waiting ones (their calls kept by the first).
    Returns (waiter, cause, pattern, wait) in message order, a late sender before a late
    receiver of the same message."""
    n = send_events.size
    flags = np.zeros(n, np.uint8)
    send_call = np.empty(n, call_at.dtype)
    recv_call = np.empty(n, call_at.dtype)
    count = 0
    for i in range(n):
        s = _find(instants, instant_order, send_events[i])
        r = _find(instants, instant_order, recv_events[i])
        if s < 0 or r < 0 or call_at[s] < 0 or call_at[r] < 0:
            continue
        sc, rc = call_at[s], call_at[r]
        send_call[i], recv_call[i] = sc, rc
        if min(start[sc] - start[rc], end[rc] - start[rc]) > 0:
            flags[i] |= 1
            count += 1
        if blocking[s] and start[rc] < end[sc] and start[rc] > start[sc]:
            flags[i] |= 2
            count += 1
    waiter = np.empty(count, np.int64)
    cause = np.empty(count, np.int64)
    pattern = np.empty(count, np.int64)
    wait = np.empty(count, np.int64)
    k = 0
    for i in range(n):
        if flags[i] == 0:
            continue
        sc, rc = send_call[i], recv_call[i]
        if flags[i] & 1:
            waiter[k], cause[k], pattern[k] = rc, sc, LATE_SENDER
            wait[k] = min(start[sc] - start[rc], end[rc] - start[rc])
            k += 1
        if flags[i] & 2:
            waiter[k], cause[k], pattern[k] = sc, rc, LATE_RECEIVER
            wait[k] = start[rc] - start[sc]
            k += 1
    return waiter, cause, pattern, wait


@kernel
def _positions_of(keys, order, values, out):
    """:func:`_find` of every value of ``values``, into ``out``."""
    for j in range(values.size):
        out[j] = _find(keys, order, values[j])
    return out


def _ascending(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ids`` (distinct) ascending, and per sorted position the row of ``ids`` it
    holds (empty where that is the sorted position): the keys and order :func:`_find`
    reads. No copy when ``ids`` is ascending already."""
    if ids.size < 2 or bool((ids[1:] > ids[:-1]).all()):
        return ids, np.zeros(0, dtype=np.int64)
    rows = np.argsort(ids, kind="stable")
    return ids[rows], rows


def _message_candidates(
    calls: pd.DataFrame,
    messages: pd.DataFrame,
    send_events: np.ndarray,
    recv_events: np.ndarray,
    call_keys: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, ...]:
    """Late senders and late receivers among the messages from ``send_events`` to
    ``recv_events`` (paired event ids): (waiter, cause, pattern, wait), positions in
    ``calls``, in message order. ``call_keys`` are :func:`_ascending` of the call ids.
    One compiled pass: no temporaries as long as the messages."""
    instants, instant_order = _ascending(messages["event"].to_numpy())
    keys, order = call_keys
    compact = np.int32 if keys.size < 2**31 else np.int64
    call_at = _positions_of(
        keys, order, messages["call"].to_numpy(), np.empty(len(messages), compact)
    )
    return _message_waits(
        np.asarray(send_events, dtype=np.int64),
        np.asarray(recv_events, dtype=np.int64),
        instants,
        instant_order,
        call_at,
        messages["blocking"].to_numpy(),
        calls["start"].to_numpy().astype(np.int64, copy=False),
        calls["end"].to_numpy().astype(np.int64, copy=False),
    )


@kernel
def _longest(waiter, wait, num_calls):
    """Per call (``0..num_calls - 1``) the candidate (position in ``waiter``) of its
    longest ``wait``, the first on ties; -1 for a call that does not wait."""
    best = np.full(num_calls, -1, np.int64)
    for i in range(waiter.size):
        w = waiter[i]
        if best[w] < 0 or wait[i] > wait[best[w]]:
            best[w] = i
    return best


def find_wait_states(
    messages: pd.DataFrame, calls: pd.DataFrame, send_events: np.ndarray, recv_events: np.ndarray
) -> pd.DataFrame:
    """The wait-state table (see :func:`wait_states`) from :func:`wait_inputs` of the
    whole trace (``messages``, ``calls``; the concatenated tables of its partitions on
    Dask) and its message pairs (``send_events[i]`` was received by ``recv_events[i]``,
    event ids)."""
    ids = calls["call"].to_numpy()
    order = np.lexsort((ids, calls["start"].to_numpy()))  # the calls in time order
    # candidates name calls by their rows in ``calls``: no copy of the table in time order
    parts = [
        _message_candidates(calls, messages, send_events, recv_events, _ascending(ids)),
        _collective_candidates(calls, order[calls["collective"].to_numpy()[order] >= 0]),
    ]
    waiter, cause, pattern, wait = (np.concatenate(p) for p in zip(*parts, strict=True))
    # one row per waiting call, in time order: its longest wait, the first candidate on ties
    keep = _longest(waiter, wait, len(calls))[order]
    keep = keep[keep >= 0]
    waiter, cause, pattern, wait = waiter[keep], cause[keep], pattern[keep], wait[keep]
    # name codes numbered in time order, as the categories of the table's names
    time_codes, labels = pd.factorize(calls["name"].take(order))
    name_codes = np.empty_like(time_codes)
    name_codes[order] = time_codes
    labels = np.asarray(labels, dtype=str)
    return pd.DataFrame(
        {
            PROCESS: calls[PROCESS].to_numpy()[waiter],
            THREAD: calls[THREAD].to_numpy()[waiter],
            "event": calls["call"].to_numpy()[waiter],
            "name": pd.Categorical.from_codes(name_codes[waiter], labels),
            "start": calls["start"].to_numpy()[waiter],
            "end": calls["end"].to_numpy()[waiter],
            "pattern": pd.Categorical.from_codes(pattern, categories=list(PATTERNS)),
            WAITING_TIME: wait.astype(np.int64),
            "cause process": calls[PROCESS].to_numpy()[cause],
            "cause thread": calls[THREAD].to_numpy()[cause],
            "cause event": calls["call"].to_numpy()[cause],
            "cause name": pd.Categorical.from_codes(name_codes[cause], labels),
            "cause start": calls["start"].to_numpy()[cause],
        },
        copy=False,  # no copy into blocks of one dtype: the arrays are new
    )


def wait_states(trace: Trace) -> pd.DataFrame:
    """One row per waiting call of ``trace``, in time order: where it is (``Process``,
    ``Thread``), which call (``event``: the row of its Enter; ``name``, ``start``,
    ``end`` in ns), its ``pattern`` (one of :data:`PATTERNS`), its ``waiting time`` (ns)
    and the call that caused the wait (``cause process``, ``cause thread``, ``cause
    event``, ``cause name``, ``cause start``). See the module doc for the patterns.
    Computed once per events table; every call gets its own copy."""
    table = trace._memo("wait states", lambda: _wait_states(trace))
    return table.copy()


def _wait_states(trace: Trace) -> pd.DataFrame:
    """:func:`wait_states`, computed."""
    from glade.trace.comm import paired_events

    messages, calls = wait_inputs(trace)
    return find_wait_states(messages, calls, *paired_events(trace))


#: What :func:`wait_summary` groups by.
SUMMARY_KEYS = ("name", PROCESS, "pattern")


def wait_summary(waits: pd.DataFrame, by: str | list[str] = "name") -> pd.DataFrame:
    """The wait-state table ``waits`` summed per value of ``by`` (``"name"``,
    ``"Process"``, ``"pattern"`` or a list of them): ``waiting time`` (ns), ``waiting
    calls`` and, unless ``by`` holds ``"pattern"``, the waiting time of each pattern
    (one column per pattern, ns); largest waiting time first (ties in key order)."""
    keys = [by] if isinstance(by, str) else list(by)
    if not keys or any(k not in SUMMARY_KEYS for k in keys):
        raise TraceError(f"wait_summary groups by some of {SUMMARY_KEYS}, not {by!r}")
    grouped = waits.groupby(keys, sort=True, observed=True)
    table = pd.DataFrame(
        {
            WAITING_TIME: grouped[WAITING_TIME].sum().astype(np.int64),
            "waiting calls": grouped.size().astype(np.int64),
        }
    )
    if "pattern" not in keys:
        per_pattern = (
            waits.groupby([*keys, "pattern"], sort=True, observed=True)[WAITING_TIME]
            .sum()
            .unstack("pattern", fill_value=0)
        )
        per_pattern = per_pattern.reindex(columns=list(PATTERNS), fill_value=0)
        per_pattern = per_pattern.reindex(table.index, fill_value=0).astype(np.int64)
        table = table.join(per_pattern.rename_axis(columns=None))
    return table.sort_values(WAITING_TIME, ascending=False, kind="stable")
