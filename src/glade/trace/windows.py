"""Windows of a trace as a *measure* (see DESIGN, "Windows"): the time of the calls
inside a time interval on some processes, clipped at its edges.

A call that crosses an edge of ``[t0, t1]`` contributes only the part of its interval
inside; its exclusive time inside is that part minus its callees' parts, so the exclusive
times of one location's calls add up to the time its outermost calls cover inside the
window (the window's length where the location is busy). Messages count in a window when
their send (or receive) instant lies inside it, on its processes.

:func:`window_summary` is the table behind ``trace.window_summary()`` and the timeline's
window summary; :func:`window_of` finds the window in a timeline's call-level query (the
link passes nothing else), and :func:`clip_trace` clamps the calls of a trace to a window
so that every analysis of the result (``to_graphframe()``, a supergraph) measures the
window. Everything is array work over the calls overlapping the window: no Python loop
over calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from glade.errors import GladeError
from glade.query import parse
from glade.query.model import BaseQuery, CompoundQuery, Query
from glade.query.predicates import And, Compare, Or, Predicate
from glade.trace.events import (
    INSTANT,
    MESSAGE_SIZE,
    PROCESS,
    RECEIVE_NAMES,
    SEND_NAMES,
    TIMESTAMP,
)
from glade.trace.model import Trace
from glade.trace.timeline.index import Forest

#: What a window summary's rows can be: one per function, per process, or per both.
SUMMARY_BY = ("function", "process", "process-function")
#: The numeric columns of a window summary, in order.
SUMMARY_COLUMNS = (
    "time",
    "time (inc)",
    "share",
    "calls",
    "sent",
    "sent bytes",
    "received",
    "received bytes",
)


@dataclass(frozen=True)
class Window:
    """The times ``[t0, t1]`` (ns, as the trace's timestamps) on ``processes`` (sorted
    process ids; None for all)."""

    t0: int
    t1: int
    processes: tuple[int, ...] | None = None

    @classmethod
    def of(cls, t0: int, t1: int, processes: Iterable[int] | None = None) -> Window:
        """A checked window (GladeError when it ends before it starts)."""
        t0, t1 = int(t0), int(t1)
        if t1 < t0:
            raise GladeError(f"a window ends before it starts: {t0} > {t1}")
        chosen = None if processes is None else tuple(sorted({int(p) for p in processes}))
        return cls(t0, t1, chosen)

    @classmethod
    def of_ranges(
        cls, t0: int, t1: int, ranges: Iterable[Iterable[int]] | None, processes: np.ndarray
    ) -> Window:
        """The window on the processes among ``processes`` (the trace's ids) that lie in
        one of the inclusive ``[first, last]`` ``ranges`` (None: all)."""
        if ranges is None:
            return cls.of(t0, t1)
        ids = np.asarray(processes, dtype=np.int64)
        inside = np.zeros(ids.size, dtype=bool)
        for first, last in ranges:  # a few ranges, not a loop over data
            inside |= (ids >= first) & (ids <= last)
        return cls.of(t0, t1, ids[inside].tolist())

    @property
    def length(self) -> int:
        """The window's length in ns."""
        return self.t1 - self.t0


def clipped_times(
    start: np.ndarray, end: np.ndarray, caller: np.ndarray, t0: int, t1: int
) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive and exclusive time (float64 ns) inside ``[t0, t1]`` of calls whose
    intervals are ``[start, end]``, and whose callers are at positions ``caller`` of
    the same arrays (-1 for none): a call's exclusive time is its clipped time minus
    the clipped time of the calls it calls directly."""
    inclusive = np.maximum(np.minimum(end, t1) - np.maximum(start, t0), 0).astype(np.float64)
    has = caller >= 0
    callees = np.bincount(caller[has], weights=inclusive[has], minlength=inclusive.size)
    return inclusive, inclusive - callees


@dataclass(frozen=True)
class _Overlap:
    """The nodes of a forest inside a window: calls (node ids, ascending) with their
    clipped times and the positions of their callers among them, and the message
    instants inside (node ids, sent or received, bytes, the position of the call
    holding each among the calls, -1 for none)."""

    calls: np.ndarray
    inclusive: np.ndarray
    exclusive: np.ndarray
    messages: np.ndarray
    sent: np.ndarray
    size: np.ndarray
    holder: np.ndarray


def _overlap(
    forest: Forest,
    window: Window,
    keep: np.ndarray | None,
    caller: np.ndarray,
    sizes: np.ndarray | None,
) -> _Overlap:
    """What of ``forest`` lies in ``window`` (see :class:`_Overlap`), among the nodes
    ``keep`` keeps (all for None) whose callers are ``caller`` (node ids, -1 for none:
    every kept ancestor of a kept call inside the window is inside too, so callers are
    found among the calls inside)."""
    inside = (forest.start <= window.t1) & (forest.end >= window.t0)
    if window.processes is not None:
        wanted = np.isin(forest.processes, np.asarray(window.processes, dtype=np.int64))
        inside &= wanted[forest.location]
    if keep is not None:
        inside &= keep
    nodes = np.flatnonzero(inside)
    is_call = forest.call[nodes]
    calls = nodes[is_call]
    above = caller[calls]
    position = np.where(above >= 0, np.searchsorted(calls, above), -1)
    inclusive, exclusive = clipped_times(
        forest.start[calls], forest.end[calls], position, window.t0, window.t1
    )
    instants = nodes[~is_call]
    codes = np.asarray(forest.names, dtype=object)
    sending = np.isin(codes, SEND_NAMES)
    receiving = np.isin(codes, RECEIVE_NAMES)
    messages = instants[(sending | receiving)[forest.code[instants]]]
    holder_node = caller[messages]
    holder = np.where(holder_node >= 0, np.searchsorted(calls, holder_node), -1)
    size = (
        np.zeros(messages.size)
        if sizes is None
        else np.nan_to_num(sizes[forest.event[messages]].astype(np.float64)).clip(0)
    )
    return _Overlap(
        calls, inclusive, exclusive, messages, sending[forest.code[messages]], size, holder
    )


def window_summary(
    forest: Forest,
    window: Window,
    by: str = "function",
    *,
    keep: np.ndarray | None = None,
    caller: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
) -> pd.DataFrame:
    """The summary of ``window`` over the call forest ``forest``: one row per function,
    per process, or per process and function (``by``, one of :data:`SUMMARY_BY`), with
    the columns of :data:`SUMMARY_COLUMNS`:

    - ``time`` and ``time (inc)``: exclusive and inclusive time inside the window (ns,
      clipped at its edges; a recursive function's inclusive time counts nested calls
      once per level; a process's inclusive time is its busy time, its ``time``);
    - ``share``: ``time`` over the window's capacity (its length times the number of
      locations, i.e. process and thread, in the row's processes);
    - ``calls``: the calls that overlap the window (those its selection keeps);
    - ``sent`` / ``received`` and their bytes: the message instants inside the window,
      counted for the call holding them (for their own name when outside every call).

    Only the nodes ``keep`` keeps count (all for None), a removed call's time going to
    its nearest kept caller (``caller``: node ids, default ``forest.parent``);
    ``sizes`` are the bytes of the trace's events (its ``Message Size`` column).
    Rows are sorted by ``time``, largest first (then by name or process).

    Raises
    ------
    GladeError
        When ``by`` is not one of :data:`SUMMARY_BY`.
    """
    if by not in SUMMARY_BY:
        raise GladeError(f"a window summary is by one of {list(SUMMARY_BY)}, not {by!r}")
    overlap = _overlap(forest, window, keep, forest.parent if caller is None else caller, sizes)
    num_names = max(len(forest.names), 1)
    process_code = np.searchsorted(np.unique(forest.processes), forest.processes)
    processes = np.unique(forest.processes)
    # the row of every call and message: its function, process, or both
    calls = overlap.calls
    message_code = np.where(
        overlap.holder >= 0,
        forest.code[calls[np.maximum(overlap.holder, 0)]] if calls.size else 0,
        forest.code[overlap.messages],
    )
    message_place = process_code[forest.location[overlap.messages]]
    call_place = process_code[forest.location[calls]]
    if by == "function":
        call_key, message_key, size = forest.code[calls], message_code, num_names
    elif by == "process":
        call_key, message_key, size = call_place, message_place, processes.size
    else:
        call_key = call_place.astype(np.int64) * num_names + forest.code[calls]
        message_key = message_place.astype(np.int64) * num_names + message_code
        size = processes.size * num_names

    def total(keys: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(keys, weights=weights, minlength=size)

    sent, received = overlap.sent, ~overlap.sent
    columns = {
        "time": total(call_key, overlap.exclusive),
        "time (inc)": total(call_key, overlap.inclusive),
        "calls": total(call_key).astype(np.int64),
        "sent": total(message_key[sent]).astype(np.int64),
        "sent bytes": np.rint(total(message_key[sent], overlap.size[sent])).astype(np.int64),
        "received": total(message_key[received]).astype(np.int64),
        "received bytes": np.rint(total(message_key[received], overlap.size[received])).astype(
            np.int64
        ),
    }
    if by == "process":  # a process's calls nest: its inclusive time is its busy time
        columns["time (inc)"] = columns["time"].copy()
    rows = np.flatnonzero(columns["calls"] + columns["sent"] + columns["received"])
    # the capacity of a row: the window's length times the locations of its processes
    in_window = (
        np.ones(processes.size, dtype=bool)
        if window.processes is None
        else np.isin(processes, np.asarray(window.processes, dtype=np.int64))
    )
    locations = np.bincount(process_code, minlength=processes.size) * in_window
    if by == "function":
        capacity = np.full(rows.size, float(window.length) * locations.sum())
    else:
        place = rows if by == "process" else rows // num_names
        capacity = float(window.length) * locations[place]
    labels: dict[str, object] = {}
    if by != "function":
        labels["Process"] = processes[rows if by == "process" else rows // num_names]
    if by != "process":
        names = np.asarray(forest.names, dtype=object)
        labels["name"] = names[rows % num_names if by != "function" else rows]
    table = pd.DataFrame({**labels, **{name: values[rows] for name, values in columns.items()}})
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(capacity > 0, table["time"].to_numpy() / capacity, 0.0)
    table.insert(len(labels) + 2, "share", share)
    order = ["time", *labels]
    ascending = [False, *[True] * len(labels)]
    return table.sort_values(order, ascending=ascending, kind="stable").reset_index(drop=True)


def window_totals(
    forest: Forest, window: Window, keep: np.ndarray | None, caller: np.ndarray
) -> np.ndarray:
    """The exclusive time inside ``window`` of every function (by code) over the calls
    ``keep`` keeps (callers ``caller``), as the legend of a window shows it."""
    overlap = _overlap(forest, window, keep, caller, None)
    return np.bincount(
        forest.code[overlap.calls], weights=overlap.exclusive, minlength=len(forest.names)
    )


def trace_forest(trace: Trace) -> Forest:
    """The call forest arrays of ``trace`` (:meth:`Forest.of_trace`), built once per events
    table and shared by the timeline and window summaries."""
    return trace._memo("timeline forest", lambda: Forest.of_trace(trace))


def message_sizes(trace: Trace) -> np.ndarray | None:
    """The bytes of every event of ``trace`` (None when it records no sizes), read once
    per events table."""
    events = trace.events
    if MESSAGE_SIZE not in events.columns:
        return None
    return trace._memo(
        "message sizes",
        lambda: pd.to_numeric(events[MESSAGE_SIZE], errors="coerce").to_numpy(dtype=np.float64),
    )


def trace_window_summary(trace: Trace, window: Window, by: str = "function") -> pd.DataFrame:
    """:func:`window_summary` of ``window`` over the whole call forest of ``trace``."""
    return window_summary(trace_forest(trace), window, by, sizes=message_sizes(trace))


# ---------------------------------------------------------------- windows of queries
def _window_terms(predicate: Predicate) -> tuple[int | None, int | None, tuple | None]:
    """(t0, t1, process ranges) of a window's condition (``end >= t0 AND start <= t1``,
    with a condition on ``Process`` made of ``=``, ``>=``/``<=`` ranges and OR) among
    the terms of an AND; None where a term is missing."""
    items = predicate.items if isinstance(predicate, And) else (predicate,)
    t0 = t1 = low = high = None
    processes = None
    for item in items:
        if isinstance(item, Compare) and isinstance(item.value, int):
            if item.column == "end" and item.op == ">=":
                t0 = item.value
            elif item.column == "start" and item.op == "<=":
                t1 = item.value
            elif item.column == PROCESS and item.op == "==":
                processes = ((item.value, item.value),)
            elif item.column == PROCESS and item.op == ">=":
                low = item.value
            elif item.column == PROCESS and item.op == "<=":
                high = item.value
        elif isinstance(item, Or) and processes is None:
            processes = _process_ranges(item)
    if low is not None and high is not None:
        processes = ((low, high),)
    return t0, t1, processes


def _process_ranges(predicate: Predicate) -> tuple | None:
    """The inclusive ranges of processes a condition made of comparisons of ``Process``
    (``=``, or ``>=`` AND ``<=``) joined by OR names (None for any other condition)."""
    if isinstance(predicate, Or):
        parts = [_process_ranges(item) for item in predicate.items]
        if any(part is None for part in parts):
            return None
        return tuple(r for part in parts for r in part)  # type: ignore[union-attr]
    if isinstance(predicate, Compare):
        if (
            predicate.column == PROCESS
            and predicate.op == "=="
            and isinstance(predicate.value, int)
        ):
            return ((predicate.value, predicate.value),)
        return None
    if isinstance(predicate, And) and len(predicate.items) == 2:
        low, high = predicate.items
        if (
            isinstance(low, Compare)
            and isinstance(high, Compare)
            and low.column == high.column == PROCESS
            and (low.op, high.op) == (">=", "<=")
            and isinstance(low.value, int)
            and isinstance(high.value, int)
        ):
            return ((low.value, high.value),)
    return None


def window_of(query: str | BaseQuery) -> tuple[int, int, tuple | None] | None:
    """The window a call-level query keeps, as a timeline writes it (``MATCH (".", n)
    WHERE [processes AND] n.end >= t0 AND n.start <= t1 [AND ...]``, alone or in an
    AND of queries): ``(t0, t1, process ranges or None)``; None when it keeps no
    window."""
    parsed = parse(query) if isinstance(query, str) else query
    parts = (
        list(parsed.queries)
        if isinstance(parsed, CompoundQuery) and parsed.op == "and"
        else [parsed]
    )
    for part in parts:
        if isinstance(part, Query) and len(part.nodes) == 1 and part.nodes[0].quantifier == ".":
            t0, t1, processes = _window_terms(part.nodes[0].predicate)
            if t0 is not None and t1 is not None:
                return t0, t1, processes
    return None


def clip_trace(trace: Trace, t0: int, t1: int) -> Trace:
    """A copy of ``trace`` whose Enter and Leave times are clamped to ``[t0, t1]``: a
    call that crosses an edge of the window keeps only its part inside, so every
    analysis of the copy (``to_graphframe()``, ``flat_profile()``) measures the window.
    Meant for a trace a window's selection kept (``trace.query(q, level="calls")``)."""
    events = trace.events.loc[:, trace.recorded_columns()].copy()
    stamps = events[TIMESTAMP].to_numpy()
    calls = trace.event_kinds() != INSTANT
    events[TIMESTAMP] = np.where(calls, np.clip(stamps, t0, t1), stamps)
    return Trace(events, trace.definitions, dict(trace.metadata), copy=False)
