"""A trace as a call tree: the calling context tree (CCT) of its calls, aggregated
over time, as a GraphFrame, so that the query language and the CCT view work on
traces.

A CCT node is a call path (the chain of function names from a root call). Nodes
are numbered depth by depth: the calls at depth d get the node of the pair
(caller's node, name), numbered in order of first appearance, so siblings keep the
order of their first call. One compiled pass numbers them, whatever the depth.

Nothing here changes the trace: the call structure and the call times come from the
trace's cached analyses, not from columns added to its events.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numba import types
from numba.typed import Dict

from glade.compiled import kernel
from glade.graph import Graph
from glade.profile.graphframe import GraphFrame
from glade.trace.events import ENTER, INSTANT, LEAVE, NAME, TIMESTAMP
from glade.trace.matching import group_order
from glade.trace.metrics import exclusive, inclusive
from glade.trace.waits import WAITING_TIME

if TYPE_CHECKING:
    from glade.trace.model import Trace


@kernel
def _path_nodes_pass(order, parent, codes, num_names, size):
    """:func:`path_nodes` in one pass over ``order`` (parents before children)."""
    node = np.full(size, -1, dtype=np.int64)
    node_parent = np.empty(order.size, dtype=np.int64)
    node_name = np.empty(order.size, dtype=np.int64)
    known = Dict.empty(key_type=types.int64, value_type=types.int64)
    count = 0
    for item in order:
        p = parent[item]
        above = node[p] if p >= 0 else -1
        key = (above + 1) * num_names + codes[item]
        found = known.get(key, -1)
        if found < 0:
            found = count
            known[key] = found
            node_parent[found] = above
            node_name[found] = codes[item]
            count += 1
        node[item] = found
    return node, node_parent[:count].copy(), node_name[:count].copy()


def path_nodes(
    order: np.ndarray, parent: np.ndarray, codes: np.ndarray, num_names: int, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Call-path nodes of items (of ``size``) numbered depth by depth: ``order`` holds
    the items sorted by depth (from depth 0), within a depth in the order whose first
    occurrences number the nodes; an item's node is that of its parent item ``parent``
    with its own name code ``codes`` (of ``num_names``). Returns per item its node (-1
    for an item not in ``order``), and per node its parent node (-1 for a root) and its
    name code. One compiled pass over the items, whatever the depth."""
    order = np.asarray(order, dtype=np.int64)
    return _path_nodes_pass(
        order,
        np.asarray(parent, dtype=np.int64),
        np.asarray(codes, dtype=np.int64),
        int(num_names),
        int(size),
    )


def cct_nodes(trace: Trace) -> tuple[np.ndarray, pd.DataFrame, np.ndarray]:
    """The CCT of the trace's calls: per event the id of its node (Enter and Leave rows:
    their call's node; Instant rows: the node of the call they occur in; -1 for none),
    the node frames (``name``) and the parent of every node (-1 for roots). Ids
    number nodes depth by depth, in order of first call."""
    structure = trace._call_structure()
    events = trace.events
    kind = trace.event_kinds()
    depth = structure.depth
    parent = structure.parent
    names = events[NAME]
    codes = names.cat.codes.to_numpy().astype(np.int64)
    num_names = max(len(names.cat.categories), 1)
    calls = np.flatnonzero((kind == ENTER) & (depth >= 0))
    max_depth = int(depth[calls].max()) if calls.size else -1
    by_depth = calls[group_order(depth[calls], max_depth + 1)] if calls.size else calls
    node, parents, name_codes = path_nodes(by_depth, parent, codes, num_names, len(events))
    leave = np.flatnonzero(kind == LEAVE)
    partner = structure.matching[leave]
    node[leave[partner >= 0]] = node[partner[partner >= 0]]
    instant = np.flatnonzero((kind == INSTANT) & (parent >= 0))
    node[instant] = node[parent[instant]]
    frames = pd.DataFrame(
        {
            "name": np.asarray(names.cat.categories, dtype=object)[name_codes],
            "type": "function",
        }
    )
    return node, frames, parents


def to_graphframe(trace: Trace) -> GraphFrame:
    """The CCT of the trace aggregated over time: a GraphFrame indexed ``(node, rank)``
    (rank = process) with ``time`` (exclusive ns), ``time (inc)`` (inclusive ns),
    ``count`` (calls), ``waiting time`` (ns the node's own calls wait, see
    :mod:`glade.trace.waits`) and ``waiting time (inc)`` (the waiting time of the calls
    and their callees), summed over the calls of each node and process. Nodes are in
    depth-first pre-order, siblings in order of first call."""
    return cct_graphframe(trace)[0]


def cct_graphframe(trace: Trace) -> tuple[GraphFrame, np.ndarray]:
    """:func:`to_graphframe` of the trace, and per event the id of its node in that
    GraphFrame (-1 for none; see :func:`cct_nodes`)."""
    waits = trace.wait_states()
    node, frames, parents, rows = cct_tables(
        trace, (waits["event"].to_numpy(), waits[WAITING_TIME].to_numpy())
    )
    gf, pre = cct_frame(frames, parents, rows, cct_metadata(trace.metadata, trace.repairs()))
    node = node.copy()
    node[node >= 0] = pre[node[node >= 0]]
    return gf, node


@kernel
def _waiting_sums(rows, waits, parent, node, code, num_codes, size):
    """Per (node, process code) cell: the waiting time ``waits`` of the calls at
    ``rows`` summed on their own node (exclusive) and on theirs and their callers'
    (inclusive), walking up ``parent`` from each waiting call."""
    own = np.zeros(size, np.float64)
    inc = np.zeros(size, np.float64)
    for i in range(rows.size):
        r = rows[i]
        own[node[r] * num_codes + code[r]] += waits[i]
        while r >= 0:
            inc[node[r] * num_codes + code[r]] += waits[i]
            r = parent[r]
    return own, inc


def cct_tables(
    trace: Trace, waits: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, pd.DataFrame, np.ndarray, pd.DataFrame]:
    """The CCT of the trace's calls as tables: per event its node (see
    :func:`cct_nodes`), the node frames and parents, and one row per (node, rank) with
    calls: ``node``, ``rank`` (process), ``time``, ``time (inc)`` (ns) and ``count``,
    summed over the calls, ordered by node then rank; with ``waits`` (the Enter rows of
    waiting calls and their waiting times) also ``waiting time`` and ``waiting time
    (inc)``."""
    structure = trace._call_structure()
    kinds = trace.event_kinds()
    time_inc = inclusive(trace.events, structure, TIMESTAMP, kinds)
    time_exc = exclusive(time_inc, structure.parent, kinds)
    node, frames, parents = cct_nodes(trace)
    calls = np.flatnonzero((kinds == ENTER) & (node >= 0))
    codes, processes = trace.process_codes()
    cell = node[calls] * len(processes) + codes[calls]
    size = len(frames) * len(processes)
    time_exc = np.bincount(cell, weights=time_exc[calls], minlength=size)
    time_inc = np.bincount(cell, weights=time_inc[calls], minlength=size)
    count = np.bincount(cell, minlength=size)
    present = np.flatnonzero(count)
    rows = pd.DataFrame(
        {
            "node": present // len(processes),
            "rank": processes[present % len(processes)],
            "time": time_exc[present],
            "time (inc)": time_inc[present],
            "count": count[present].astype(np.int64),
        }
    )
    if waits is not None:
        own, inc = _waiting_sums(
            np.asarray(waits[0], dtype=np.int64),
            np.asarray(waits[1], dtype=np.float64),
            structure.parent,
            node,
            codes,
            len(processes),
            size,
        )
        rows[WAITING_TIME] = own[present]
        rows[WAITING_TIME + " (inc)"] = inc[present]
    return node, frames, parents, rows


def cct_metadata(metadata: dict, repairs: dict[str, int]) -> dict:
    """The metadata of the CCT of a trace with ``metadata`` whose matching needed
    ``repairs``."""
    return {
        "source": "trace",
        "units": {
            "time": "ns",
            "time (inc)": "ns",
            WAITING_TIME: "ns",
            WAITING_TIME + " (inc)": "ns",
        },
        "trace": {**copy.deepcopy(metadata), "repairs": repairs},
    }


def cct_frame(
    frames: pd.DataFrame, parents: np.ndarray, rows: pd.DataFrame, metadata: dict
) -> tuple[GraphFrame, np.ndarray]:
    """The GraphFrame of a CCT given by its node ``frames`` and ``parents`` (-1 for
    roots; siblings in id order) and its (node, rank) ``rows`` (see
    :func:`cct_tables`), and the pre-order id of every node."""
    child = np.flatnonzero(parents >= 0)
    _, pre = Graph.from_edges(frames, parents[child], child, roots=np.flatnonzero(parents < 0))
    inverse = np.argsort(pre)
    ordered = frames.iloc[inverse].reset_index(drop=True)
    src, dst = pre[parents[child]], pre[child]
    by_child = np.argsort(dst, kind="stable")
    src, dst = src[by_child], dst[by_child]
    rows = rows.assign(node=pre[rows["node"].to_numpy()])
    rows = rows.iloc[np.lexsort((rows["rank"].to_numpy(), rows["node"].to_numpy()))]
    waiting = WAITING_TIME in rows.columns
    gf = GraphFrame.from_tables(
        ordered,
        src,
        dst,
        rows.reset_index(drop=True),
        exc_metrics=["time", "count", *([WAITING_TIME] if waiting else [])],
        inc_metrics=["time (inc)", *([WAITING_TIME + " (inc)"] if waiting else [])],
        roots=np.flatnonzero(np.bincount(dst, minlength=len(frames)) == 0),
        index=("node", "rank"),
        default_metric="time (inc)",
        metadata=metadata,
    )
    return gf, pre
