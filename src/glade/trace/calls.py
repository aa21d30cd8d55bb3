"""A trace as its call forest: every call (an Enter with its Leave) is a node whose
parent is the call that encloses it on the same process and thread, and every Instant
(a message record, a marker) is a leaf under its enclosing call.

The forest is a GraphFrame with one row per node, so the query language runs on it
unchanged and one dialect selects calls, call paths, time windows, processes and
messages. Its columns:

- ``name``, ``type`` (``"call"`` or ``"instant"``), ``Process``, ``Thread``;
- ``start``, ``end`` (ns; an instant starts and ends at its timestamp, a call never
  left ends at the end of the trace), ``time.inc``, ``time.exc`` (ns), ``depth``
  (0 for a root call);
- ``event``: the row of the node's Enter (or Instant) event in ``trace.events``;
- ``sent`` (ns): for a message instant, the time its message was sent: a send's own
  time, a receive's matched send's time (pairs as in
  :func:`glade.trace.comm.message_pairs`); -1 for every other node and an unmatched
  receive. ``sent`` in a window selects both events of every message sent in it, where
  ``start`` would cut the messages crossing an edge in two;
- the event's recorded attribute columns (``Partner``, ``Message Size``, ...).

Nodes are numbered in depth-first pre-order: the events of one location (a process
and thread) are already in pre-order, since a call's Enter precedes everything it
encloses, so grouping them by location with one stable counting pass orders the
forest; there is no sort by time. A Leave without its Enter (see
:mod:`glade.trace.matching`) belongs to no call and has no node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numba import njit

from glade.graph import Graph
from glade.profile.graphframe import GraphFrame
from glade.trace.events import (
    INSTANT,
    LEAVE,
    NAME,
    PROCESS,
    SEND_NAMES,
    THREAD,
    TIMESTAMP,
    is_derived,
)
from glade.trace.matching import DEPTH, MATCHING_EVENT, PARENT

if TYPE_CHECKING:
    from glade.trace.model import Trace

#: The column of the forest holding each node's event row in ``trace.events``.
EVENT = "event"
#: The column of the forest holding the send time of each message instant's message.
SENT = "sent"
NODE_TYPES = ("call", "instant")
LEVELS = ("cct", "calls")


def _with_structure(trace: Trace) -> pd.DataFrame:
    """The trace's events with the derived columns the forest needs (computed through
    the trace's own analyses when missing)."""
    trace.ensure_metric("time.exc")
    if PARENT not in trace.events.columns or DEPTH not in trace.events.columns:
        trace.match_caller_callee()
    return trace.events


@njit(cache=True, nogil=True)
def _children(parent):
    """CSR arrays (ptr, idx) of the children of every node, in id order, for nodes whose
    ``parent`` (-1 for roots) precedes them: one counting pass, no sort."""
    n = parent.size
    ptr = np.zeros(n + 1, np.int64)
    for c in range(n):
        if parent[c] >= 0:
            ptr[parent[c] + 1] += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    cursor = ptr[:-1].copy()
    idx = np.empty(ptr[n], np.int64)
    for c in range(n):
        p = parent[c]
        if p >= 0:
            idx[cursor[p]] = c
            cursor[p] += 1
    return ptr, idx


@dataclass(frozen=True)
class ForestNodes:
    """The nodes of a trace's call forest as arrays over them, in node order (grouped
    by location, in time order inside each): ``rows`` (the event row of each),
    ``instant`` (False for calls), ``start`` and ``end`` (ns), ``parent`` (node id, -1
    for a root) and ``depth``; the nodes of the location of code c (of
    ``trace.location_codes()``) are ``ptr[c]:ptr[c + 1]``."""

    rows: np.ndarray
    instant: np.ndarray
    start: np.ndarray
    end: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    ptr: np.ndarray


@njit(cache=True, nogil=True)
def _node_arrays(location, num_locations, kind, depth_of, stamps, matching, parent_row):
    """The arrays of :class:`ForestNodes` from the events' columns, in two passes over
    the events in row (time) order, reading them in sequence: the first counts the
    nodes (Enter and Instant events in a call structure, depth >= 0) per location, the
    second places each at the next free position of its location. A node's parent is
    the call open at the depth above it on its location (an open call per location
    and depth is kept); failing that it is found by binary search among the earlier
    nodes of its location (-1 when none is its parent's event)."""
    ptr = np.zeros(num_locations + 1, np.int64)
    deepest = 0
    for r in range(location.size):
        if depth_of[r] >= 0 and kind[r] != LEAVE:
            ptr[location[r] + 1] += 1
            deepest = max(deepest, depth_of[r])
    for c in range(num_locations):
        ptr[c + 1] += ptr[c]
    n = ptr[num_locations]
    rows = np.empty(n, np.int64)
    instant = np.empty(n, np.bool_)
    start = np.empty(n, np.int64)
    end = np.empty(n, np.int64)
    parent = np.empty(n, np.int64)
    depth = np.empty(n, np.int64)
    cursor = ptr[:-1].copy()
    open_call = np.full((num_locations, deepest + 1), -1, np.int64)
    for r in range(location.size):
        d = depth_of[r]
        if d < 0 or kind[r] == LEAVE:
            continue
        c = location[r]
        j = cursor[c]
        cursor[c] += 1
        rows[j] = r
        instant[j] = kind[r] == INSTANT
        start[j] = stamps[r]
        end[j] = stamps[r] if instant[j] else matching[r]
        depth[j] = d
        p = parent_row[r]
        if p < 0:
            parent[j] = -1
        elif d >= 1 and open_call[c, d - 1] >= 0 and rows[open_call[c, d - 1]] == p:
            parent[j] = open_call[c, d - 1]
        else:
            at = ptr[c] + np.searchsorted(rows[ptr[c] : j], p)
            parent[j] = at if at < j and rows[at] == p else -1
        if not instant[j]:
            open_call[c, d] = j
    return rows, instant, start, end, parent, depth, ptr


def forest_nodes(trace: Trace) -> ForestNodes:
    """The arrays of the call forest of ``trace`` (see :class:`ForestNodes`): what a
    timeline reads, without the GraphFrame and its attribute columns."""
    events = _with_structure(trace)
    location, count = trace.location_codes()
    return ForestNodes(
        *_node_arrays(
            location,
            count,
            trace.event_kinds(),
            events[DEPTH].to_numpy(),
            events[TIMESTAMP].to_numpy(),
            trace._call_structure().matching_timestamp,
            events[PARENT].to_numpy(),
        )
    )


def forest_graph(
    parent: np.ndarray, depth: np.ndarray, names: pd.Categorical, types: pd.Categorical
) -> Graph:
    """The Graph of forest nodes whose parents are the nodes ``parent`` (-1 for a root),
    at ``depth``, named ``names``, of ``types``."""
    has_parent = parent >= 0
    child_ptr, child_idx = _children(parent)
    parent_ptr = np.zeros(parent.size + 1, dtype=np.int64)
    np.cumsum(has_parent, out=parent_ptr[1:])
    frames = pd.DataFrame({"name": names, "type": types})
    return Graph(
        frames,
        child_ptr,
        child_idx,
        parent_ptr,
        parent[has_parent],
        np.flatnonzero(~has_parent),
        parent,
        depth.copy(),
    )


def sent_times(trace: Trace, rows: np.ndarray) -> np.ndarray:
    """Per event row of ``rows``: the time its message was sent (the ``sent`` column of
    the forest, see the module doc; -1 where none)."""
    from glade.trace.comm import message_pairs, message_rows

    send_rows = message_rows(trace, SEND_NAMES)
    if not send_rows.size:
        return np.full(rows.size, -1, dtype=np.int64)
    pairs = message_pairs(trace)[0]
    sent = np.full(len(trace.events), -1, dtype=np.int64)
    sent[send_rows] = trace.events[TIMESTAMP].to_numpy()[send_rows]
    sent[pairs["Receive event"].to_numpy()] = pairs["Send time (ns)"].to_numpy()
    return sent[rows]


def call_forest(trace: Trace) -> GraphFrame:
    """The call forest of ``trace`` as a GraphFrame indexed by ``node`` (see the module
    doc for its columns); ``default_metric`` is ``time.inc``."""
    nodes = forest_nodes(trace)
    rows, instant = nodes.rows, nodes.instant
    events = trace.events
    names = events[NAME].array.take(rows)
    types = pd.Categorical.from_codes(instant.astype(np.int8), categories=list(NODE_TYPES))
    graph = forest_graph(nodes.parent, nodes.depth, names, types)
    time_inc = np.where(instant, 0.0, events["time.inc"].to_numpy()[rows])
    time_exc = np.where(instant, 0.0, events["time.exc"].to_numpy()[rows])
    columns: dict[str, Any] = {
        "name": names,
        "type": types,
        PROCESS: events[PROCESS].to_numpy()[rows],
        THREAD: events[THREAD].to_numpy()[rows],
        "start": nodes.start,
        "end": nodes.end,
        "time.inc": time_inc,
        "time.exc": time_exc,
        "depth": nodes.depth,
        EVENT: rows,
        SENT: sent_times(trace, rows),
    }
    core = {TIMESTAMP, "Event Type", NAME, PROCESS, THREAD}
    for column in events.columns:
        if column in core or is_derived(column) or column in columns:
            continue
        columns[column] = events[column].array.take(rows)
    dataframe = pd.DataFrame(columns, index=pd.RangeIndex(rows.size, name="node"), copy=False)
    metadata = {"source": "trace calls", "time unit": "ns", "trace": dict(trace.metadata)}
    return GraphFrame(
        graph,
        dataframe,
        exc_metrics=["time.exc"],
        inc_metrics=["time.inc"],
        default_metric="time.inc",
        metadata=metadata,
    )


def calls_mask(trace: Trace, forest: GraphFrame, keep: np.ndarray) -> np.ndarray:
    """Per event of ``trace``: whether it belongs to a node of ``forest`` (the trace's
    call forest) that ``keep`` (a node mask) keeps: the Enter and Leave of a kept call,
    a kept instant."""
    rows = forest.dataframe[EVENT].to_numpy()[keep]
    mask = np.zeros(len(trace.events), dtype=bool)
    mask[rows] = True
    partner = trace.events[MATCHING_EVENT].to_numpy()[rows]
    leaves = partner[(partner >= 0) & (trace.event_kinds()[np.maximum(partner, 0)] == LEAVE)]
    mask[leaves] = True
    return mask


def check_query_arguments(query: Any, fold: bool, level: str) -> None:
    """What ``Trace.query`` refuses in every engine: ``fold=False`` (a trace keeps the
    inclusive time its events measure), a Filter (``Trace.filter`` takes those) and a
    level other than :data:`LEVELS`."""
    from glade.errors import GladeError, QueryError
    from glade.trace.filter import BaseFilter

    if not fold:
        raise GladeError(
            "a trace keeps the inclusive time its events measure: "
            "Trace.query only folds (fold=True)"
        )
    if isinstance(query, BaseFilter):
        raise QueryError("Trace.query takes a call-path query; Trace.filter takes a Filter")
    if level not in LEVELS:
        raise QueryError(f"level must be one of {LEVELS}, not {level!r}")


def query_calls(trace: Trace, query: Any, rank_mode: str = "any") -> Trace:
    """A new Trace with the events of the nodes of the call forest that ``query`` (any
    form) matches: the Enter and Leave of every matched call and every matched instant.
    A removed call's time counts for its caller, as everywhere on traces."""
    from glade.trace.filter import subset

    return subset(trace, calls_query_mask(trace, query, rank_mode))


def query_columns(query: Any) -> set[str]:
    """The columns a parsed query (simple or compound) reads."""
    from glade.query.model import CompoundQuery

    if isinstance(query, CompoundQuery):
        return set().union(*(query_columns(q) for q in query.queries))
    return set().union(*(node.predicate.columns() for node in query.nodes))


def reads_wait_columns(query: Any) -> bool:
    """Whether parsed ``query`` may read a column the forest of :meth:`Trace.calls` has
    beyond :func:`call_forest`'s: ``waiting time`` or ``critical path``, which need the
    whole trace's wait states (so that other queries do not compute them). A query with
    a Python callable may read any column."""
    return not query.serializable or bool(query_columns(query) & {"waiting time", "critical path"})


def calls_query_mask(trace: Trace, query: Any, rank_mode: str = "any") -> np.ndarray:
    """Per event: whether it belongs to a node of the call forest that ``query`` (any
    form) matches (see :func:`query_calls`)."""
    from glade.query import parse, query_mask
    from glade.query.engine import RowTable

    parsed = parse(query)
    forest = trace.calls() if reads_wait_columns(parsed) else call_forest(trace)
    keep = query_mask(RowTable(forest.graph, forest.dataframe), parsed, rank_mode)
    return calls_mask(trace, forest, keep)
