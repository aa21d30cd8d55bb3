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
window. A summary is one compiled pass over the call forest's arrays (no Python loop
over calls, no per-call temporary arrays), filling a table of rows x cells.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from glade.errors import GladeError
from glade.query import anchor, parse
from glade.query.model import BaseQuery, CompoundQuery, Query
from glade.query.predicates import And, Compare, Or, Predicate, TimeValue
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
from glade.trace.timeline.waiting import forest_waiting
from glade.trace.waits import WAITING_TIME

#: What a window summary's rows can be: one per function, per process, or per both.
SUMMARY_BY = ("function", "process", "process-function")
#: The numeric columns of a window summary, in order.
SUMMARY_COLUMNS = (
    "time",
    "time (inc)",
    "share",
    "waiting time",
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


#: The cells a window's pass fills per row, in this order.
_CELLS = ("time", "time (inc)", "calls", "sent", "sent bytes", "received", "received bytes")
#: At most this many rows (processes x functions) a window summary counts in.
MAX_CELLS = 1 << 22


@njit(cache=True, nogil=True)
def _window_cells(
    start,
    end,
    call,
    code,
    location,
    groups,
    ordered,
    parent,
    row_of_location,
    width,
    num_rows,
    keep,
    caller,
    t0,
    t1,
    message,
    sizes,
    event,
):
    """One pass over the nodes of a call forest that overlap window [t0, t1]: its
    :data:`_CELLS` per row, a node's row being ``row_of_location[its location] * width + its
    function`` (``width`` 1: the location's row alone). A call counts when it overlaps
    the window on a location with a row (>= 0; and ``keep`` keeps it, an empty ``keep``
    keeping all): its clipped time goes to its own row, inclusive and exclusive, and is
    taken from its caller's exclusive time (the caller overlaps the window too, on the
    same location). A message instant (``message``: 1 send, 2 receive, 0 other, by
    function) inside the window counts for the call holding it (for itself outside
    every call), with its bytes (``sizes`` by event, none when empty; a negative or NaN
    size counts 0).

    The nodes are read in ``groups`` (bounds: group g is ``groups[g]:groups[g + 1]``).
    When ``ordered``, a group is one location's nodes in start order (``parent``: the
    forest's callers), and only its nodes that can overlap the window are read: those
    starting inside it, found by binary search, and the calls still open at ``t0``,
    the last node starting before it and its callers."""
    times = np.zeros((num_rows, 3), np.int64)
    messages = np.zeros((num_rows, 4))
    everything = keep.size == 0
    by_code = width > 1
    chain = np.empty(64, np.int64)  # the calls open at t0 on one location
    for g in range(groups.size - 1):
        first, last = groups[g], groups[g + 1]
        if first == last or (ordered and row_of_location[location[first]] < 0):
            continue
        opened = 0
        if ordered:
            inside = start[first:last]
            begin = first + np.searchsorted(inside, t0, side="left")
            last = first + np.searchsorted(inside, t1, side="right")
            node = begin - 1
            while node >= first:  # the node before the window and its callers
                if opened == chain.size:
                    chain = np.concatenate((chain, chain))
                chain[opened] = node
                opened += 1
                node = parent[node]
            first = begin
        for k in range(opened + last - first):
            i = chain[k] if k < opened else first + k - opened
            base = row_of_location[location[i]]
            if base < 0 or start[i] > t1 or end[i] < t0:
                continue
            if not everything and not keep[i]:
                continue
            above = caller[i]
            if call[i]:
                inside_time = max(min(end[i], t1) - max(start[i], t0), 0)
                row = base * width + code[i] if by_code else base
                times[row, 0] += inside_time
                times[row, 1] += inside_time
                times[row, 2] += 1
                if above >= 0:
                    times[base * width + code[above] if by_code else base, 0] -= inside_time
            elif message[code[i]] > 0:
                holder = code[above] if above >= 0 else code[i]
                row = base * width + holder if by_code else base
                column = 0 if message[code[i]] == 1 else 2
                messages[row, column] += 1
                if sizes.size:
                    size = sizes[event[i]]
                    if size > 0:
                        messages[row, column + 1] += size
    return times, messages


def _row_codes(forest: Forest, window: Window, by: str) -> tuple[np.ndarray, int, int]:
    """Where a window's summary counts each location: its row (-1 outside the window's
    processes; a node's row is that times ``width`` plus its function code when
    ``width`` > 1), ``width``, and the number of rows."""
    processes, process_code = np.unique(forest.processes, return_inverse=True)
    if window.processes is None:
        inside = np.ones(forest.processes.size, dtype=bool)
    else:
        inside = np.isin(forest.processes, np.asarray(window.processes, dtype=np.int64))
    num_names = max(len(forest.names), 1)
    rows = np.where(inside, 0 if by == "function" else process_code, -1).astype(np.int64)
    width = 1 if by == "process" else num_names
    count = (1 if by == "function" else processes.size) * width
    if count > MAX_CELLS:
        raise GladeError(
            f"a window summary per process and function of {processes.size:,} processes and "
            f"{num_names:,} functions counts more than {MAX_CELLS:,} rows: choose fewer "
            "processes, or summarize per function or per process"
        )
    return rows, width, count


def _waiting_cells(
    forest: Forest, window: Window, by: str, keep: np.ndarray | None, waiting: np.ndarray
) -> np.ndarray:
    """The waiting time inside ``window`` per row of its summary (``by``): a waiting
    node's wait (from its start, ``waiting`` ns by node) clipped to the window, for the
    row of its own function, over the nodes ``keep`` keeps (all for None)."""
    rows, width, count = _row_codes(forest, window, by)
    nodes = np.flatnonzero(waiting > 0)
    if keep is not None:
        nodes = nodes[np.asarray(keep, dtype=bool)[nodes]]
    base = rows[forest.location[nodes]]
    nodes, base = nodes[base >= 0], base[base >= 0]
    start = forest.start[nodes]
    inside = np.minimum(start + waiting[nodes], window.t1) - np.maximum(start, window.t0)
    row = base * width + forest.code[nodes] if width > 1 else base
    return np.bincount(row, weights=np.maximum(inside, 0), minlength=count)


def _cells(
    forest: Forest,
    window: Window,
    by: str,
    keep: np.ndarray | None,
    caller: np.ndarray,
    sizes: np.ndarray | None,
) -> np.ndarray:
    """The :data:`_CELLS` of ``window`` (float64, rows x cells) per function, per
    process (of ``np.unique(forest.processes)``) or per (process, function) (``by``)
    over the nodes ``keep`` keeps (all for None), their callers ``caller`` (node ids,
    -1 for none)."""
    rows, width, count = _row_codes(forest, window, by)
    names = np.asarray(forest.names, dtype=object)
    message = np.isin(names, SEND_NAMES).astype(np.int8) + 2 * np.isin(names, RECEIVE_NAMES)
    groups, ordered = forest.location_groups
    times, messages = _window_cells(
        forest.start,
        forest.end,
        forest.call,
        forest.code,
        forest.location,
        groups,
        ordered,
        np.asarray(forest.parent, dtype=np.int64),
        rows,
        width,
        count,
        np.zeros(0, dtype=np.bool_) if keep is None else np.asarray(keep, dtype=np.bool_),
        np.asarray(caller, dtype=np.int64),
        int(window.t0),
        int(window.t1),
        message.astype(np.int8),
        np.zeros(0) if sizes is None else sizes,
        np.asarray(forest.event, dtype=np.int64),
    )
    return np.concatenate([times.astype(np.float64), messages], axis=1)


def window_table(
    forest: Forest,
    window: Window,
    by: str = "function",
    *,
    keep: np.ndarray | None = None,
    caller: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
    waiting: np.ndarray | None = None,
) -> pd.DataFrame:
    """The counted rows of the summary of ``window`` over ``forest`` (see
    :func:`window_summary` for the arguments): its labels (``name``, ``Process``) and
    every column of :data:`SUMMARY_COLUMNS` but ``share``, in no order. Tables of
    forests of different processes add up (:func:`combine_window_tables`).

    Raises
    ------
    GladeError
        When ``by`` is not one of :data:`SUMMARY_BY`.
    """
    if by not in SUMMARY_BY:
        raise GladeError(f"a window summary is by one of {list(SUMMARY_BY)}, not {by!r}")
    cells = _cells(forest, window, by, keep, forest.parent if caller is None else caller, sizes)
    processes = np.unique(forest.processes)
    names = np.asarray(forest.names, dtype=object)
    columns = dict(zip(_CELLS, cells.T, strict=True))
    counted = columns["calls"] + columns["sent"] + columns["received"]
    rows = np.flatnonzero(counted)
    num_names = max(len(names), 1)
    labels: dict[str, np.ndarray] = {}
    if by == "function":
        labels["name"] = names[rows]
    elif by == "process":
        labels["Process"] = processes[rows]
    else:
        labels["Process"] = processes[rows // num_names]
        labels["name"] = names[rows % num_names]
    table = pd.DataFrame(labels)
    for name in _CELLS:
        values = columns[name][rows]
        table[name] = values if name in ("time", "time (inc)") else np.rint(values).astype(np.int64)
    if waiting is None:
        waited = np.zeros(rows.size, dtype=np.int64)
    else:
        waited = np.rint(_waiting_cells(forest, window, by, keep, waiting)[rows]).astype(np.int64)
    table[WAITING_TIME] = waited
    return table


def _summary_labels(by: str) -> list[str]:
    """The label columns of a window summary ``by``."""
    return {"function": ["name"], "process": ["Process"]}.get(by, ["Process", "name"])


def _summary_of(
    table: pd.DataFrame, window: Window, by: str, processes: np.ndarray
) -> pd.DataFrame:
    """The window summary of the counted rows ``table`` (:func:`window_table`) of a trace
    whose locations are those of ``processes`` (one process id per location): its
    shares of the window's capacity, columns in order, largest time first."""
    ids, locations = np.unique(np.asarray(processes, dtype=np.int64), return_counts=True)
    if window.processes is not None:
        locations = locations * np.isin(ids, np.asarray(window.processes, dtype=np.int64))
    labels = _summary_labels(by)
    # the capacity of a row: the window's length times the locations of its processes
    if by == "function":
        capacity = np.full(len(table), float(window.length) * locations.sum())
    else:
        at = np.searchsorted(ids, table["Process"].to_numpy(dtype=np.int64))
        capacity = float(window.length) * locations[np.minimum(at, max(ids.size - 1, 0))]
    table = table.copy()
    if by == "process":  # a process's calls nest: its inclusive time is its busy time
        table["time (inc)"] = table["time"]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(capacity > 0, table["time"].to_numpy() / capacity, 0.0)
    table["share"] = share
    table = table[[*labels, *SUMMARY_COLUMNS]]
    order = ["time", *labels]
    ascending = [False, *[True] * len(labels)]
    return table.sort_values(order, ascending=ascending, kind="stable").reset_index(drop=True)


def window_summary(
    forest: Forest,
    window: Window,
    by: str = "function",
    *,
    keep: np.ndarray | None = None,
    caller: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
    waiting: np.ndarray | None = None,
) -> pd.DataFrame:
    """The summary of ``window`` over the call forest ``forest``: one row per function,
    per process, or per process and function (``by``, one of :data:`SUMMARY_BY`), with
    the columns of :data:`SUMMARY_COLUMNS`:

    - ``time`` and ``time (inc)``: exclusive and inclusive time inside the window (ns,
      clipped at its edges; a recursive function's inclusive time counts nested calls
      once per level; a process's inclusive time is its busy time, its ``time``);
    - ``share``: ``time`` over the window's capacity (its length times the number of
      locations, i.e. process and thread, in the row's processes);
    - ``waiting time``: the time the row's calls spend inside the window waiting for
      another process (ns; their wait states, see :mod:`glade.trace.waits`, clipped
      at the window's edges; ``waiting`` by node, 0 everywhere when None);
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
    table = window_table(forest, window, by, keep=keep, caller=caller, sizes=sizes, waiting=waiting)
    return _summary_of(table, window, by, forest.processes)


def combine_window_tables(
    tables: list[pd.DataFrame], window: Window, by: str, processes: np.ndarray
) -> pd.DataFrame:
    """The window summary (:func:`window_summary`) of a trace from the
    :func:`window_table` of each of its parts (call forests of disjoint sets of
    processes, such as a Dask trace's partitions), ``processes`` holding the process
    of each of the trace's locations.

    Parameters
    ----------
    tables : list of pandas.DataFrame
        The parts' counted rows, all ``by``.
    window : Window
        The window they count.
    by : str
        One of :data:`SUMMARY_BY`.
    processes : numpy.ndarray
        One process id per location of the whole trace.

    Returns
    -------
    pandas.DataFrame
        The summary, as :func:`window_summary` gives it for the whole trace.

    Raises
    ------
    GladeError
        When ``by`` is not one of :data:`SUMMARY_BY`.

    Examples
    --------
    >>> import numpy as np
    >>> from glade.datasets import synthetic_trace
    >>> from glade.trace.windows import Window, trace_forest, window_table
    >>> trace = synthetic_trace(2, 3)
    >>> forest, window = trace_forest(trace), Window.of(0, 10**6)
    >>> whole = combine_window_tables([window_table(forest, window)], window, "function",
    ...                               forest.processes)
    >>> list(whole.columns[:3])
    ['name', 'time', 'time (inc)']
    """
    if by not in SUMMARY_BY:
        raise GladeError(f"a window summary is by one of {list(SUMMARY_BY)}, not {by!r}")
    labels = _summary_labels(by)
    columns = [*labels, *(c for c in SUMMARY_COLUMNS if c != "share")]
    joined = pd.concat([t[columns] for t in tables], ignore_index=True) if tables else None
    if joined is None or joined.empty:
        empty = pd.DataFrame(
            {c: pd.Series(dtype=np.int64 if c == PROCESS else object) for c in labels}
        )
        for c in columns[len(labels) :]:
            empty[c] = pd.Series(dtype=np.float64 if c.startswith("time") else np.int64)
        return _summary_of(empty, window, by, processes)
    summed = joined.groupby(labels, sort=False, dropna=False).sum().reset_index()
    return _summary_of(summed, window, by, processes)


def window_totals(
    forest: Forest, window: Window, keep: np.ndarray | None, caller: np.ndarray
) -> np.ndarray:
    """The exclusive time inside ``window`` of every function (by code) over the calls
    ``keep`` keeps (callers ``caller``), as the legend of a window shows it."""
    return _cells(forest, window, "function", keep, caller, None)[:, 0]


def trace_forest(trace: Trace) -> Forest:
    """The call forest arrays of ``trace`` (:meth:`Forest.of_trace`), built once per events
    table and shared by the timeline and window summaries."""
    return trace._memo("timeline forest", lambda: Forest.of_trace(trace))


def message_sizes(trace: Trace) -> np.ndarray | None:
    """The bytes of every event of ``trace`` (None when it records no sizes): the column
    itself when it holds numbers (no copy), else its values as numbers (NaN where none),
    read once per events table."""
    events = trace.events
    if MESSAGE_SIZE not in events.columns:
        return None
    column = events[MESSAGE_SIZE]
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "iuf":
        return column.to_numpy()
    return trace._memo(
        "message sizes",
        lambda: pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64),
    )


def trace_window_summary(trace: Trace, window: Window, by: str = "function") -> pd.DataFrame:
    """:func:`window_summary` of ``window`` over the whole call forest of ``trace``, with
    its wait states."""
    forest = trace_forest(trace)
    return window_summary(
        forest, window, by, sizes=message_sizes(trace), waiting=forest_waiting(trace, forest)
    )


# ---------------------------------------------------------------- windows of queries
def _window_terms(predicate: Predicate) -> tuple[int | None, int | None, tuple | None]:
    """(t0, t1, process ranges) of a window's condition (``end >= t0 AND start <= t1``,
    with a condition on ``Process`` made of ``=``, ``>=``/``<=`` ranges and OR) among
    the terms of an AND; None where a term is missing."""
    items = predicate.items if isinstance(predicate, And) else (predicate,)
    t0 = t1 = low = high = None
    processes = None
    for item in items:
        if isinstance(item, Compare) and item.column in ("end", "start"):
            time = _nanoseconds(item.value)
            if time is not None and item.column == "end" and item.op == ">=":
                t0 = time
            elif time is not None and item.column == "start" and item.op == "<=":
                t1 = time
        elif isinstance(item, Compare) and isinstance(item.value, int):
            if item.column == PROCESS and item.op == "==":
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


def _nanoseconds(value: object) -> int | None:
    """A window edge in ns: an integer, or an absolute time with a unit (rounded to the
    nanosecond); None for anything else (a time still counted from START)."""
    if isinstance(value, TimeValue):
        return None if value.from_start else round(value.ns)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


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


def window_of(
    query: str | BaseQuery, origin: int | float | None = None
) -> tuple[int, int, tuple | None] | None:
    """The window a call-level query keeps, as a timeline writes it (``MATCH (".", n)
    WHERE [processes AND] n.end >= t0 AND n.start <= t1 [AND ...]``, alone or in an
    AND of queries): ``(t0, t1, process ranges or None)`` in ns; None when it keeps no
    window. Times written from the trace's start (``START + 20 ms``) count from
    ``origin``, the ``START`` of the call forest the query runs on (its first start);
    without an origin such a window is not found."""
    parsed = parse(query) if isinstance(query, str) else query
    if origin is not None:
        parsed = anchor(parsed, origin)
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
