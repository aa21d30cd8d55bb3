"""How the shares of the partitions of a Dask trace combine into the pandas engine's
answers. A partition holds whole processes, so:

- per (group, process) sums (flat profile, load imbalance, the CCT's rows, idle time)
  come whole from the one partition that holds the process: they are placed, never
  added, and the final steps (sums over processes, sorting, means) are the pandas
  engine's own (:func:`glade.trace.profiles.flat_profile_table`, ...);
- per (function, bin) exclusive times of the time profile are int64 ns: added exactly;
- messages cross processes, but every send is recorded by its sender: each partition
  counts its sends per (sender, receiver) pair (integers), and the pairs of all
  partitions make the matrix;
- the CCT's nodes are call paths: a partition's nodes merge with the others' by
  (parent path, name), depth by depth, numbered in order of their first call (by
  time, then event id), as the pandas engine numbers them.

Labels (functions) follow the order of the ``Name`` categories of the Dask frame when
they are known, else sorted order, as the pandas engine orders a column's values.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from glade.graph import depth_from_parent
from glade.trace.cct import path_nodes
from glade.trace.engines.parts import PartSummary
from glade.trace.events import PROCESS, THREAD, TIMESTAMP

_NONE = np.iinfo(np.int64).max


def ordered_labels(pieces: Sequence[pd.Index], categories: pd.Index | None, name: str) -> pd.Index:
    """The union of the labels ``pieces`` in ``categories`` order (when known), else
    sorted, named ``name``."""
    present = pd.Index(
        np.concatenate([np.asarray(p) for p in pieces]) if pieces else np.zeros(0, dtype=object)
    ).unique()
    if categories is not None:
        values = np.asarray(categories)
        position = np.sort(categories.get_indexer(present))
        if position.size and position[0] < 0:
            raise ValueError("a partition holds a value missing from the categories")
        return pd.Index(values[position], name=name)
    return pd.Index(np.sort(np.asarray(present)), name=name)


def merge_cells(
    pieces: Sequence[tuple], metrics: Sequence[str], categories: pd.Index | None, name: str
) -> tuple[dict[str, np.ndarray], np.ndarray, pd.Index, np.ndarray]:
    """The (group, process) arrays of :func:`glade.trace.profiles.cell_sums` of the whole
    trace from those of its partitions (``pieces``)."""
    labels = ordered_labels([p[2] for p in pieces], categories, name)
    processes = np.sort(np.concatenate([p[3] for p in pieces])) if pieces else np.zeros(0, int)
    shape = (len(labels), len(processes))
    # numpy's bincount gives int64 for no rows: the pandas engine's type, kept
    sums = {
        m: np.zeros(shape, dtype=np.result_type(*[p[0][m].dtype for p in pieces])) for m in metrics
    }
    calls = np.zeros(shape, dtype=np.int64)
    for part_sums, part_calls, part_labels, part_processes in pieces:
        cell = np.ix_(labels.get_indexer(part_labels), np.searchsorted(processes, part_processes))
        for metric in metrics:
            sums[metric][cell] = part_sums[metric]
        calls[cell] = part_calls
    return sums, calls, labels, processes


def add_bins(
    pieces: Sequence[tuple[np.ndarray, pd.Index]], categories: pd.Index | None, num_bins: int
) -> tuple[np.ndarray, pd.Index]:
    """The exclusive time per (function, bin) of the whole trace from its partitions'
    (see :func:`glade.trace.profiles.exclusive_bins`)."""
    labels = ordered_labels([p[1] for p in pieces], categories, "Name")
    total = np.zeros((len(labels), num_bins), dtype=np.int64)
    for profile, part_labels in pieces:
        total[labels.get_indexer(part_labels)] += profile
    return total, labels


def histogram_of_counts(
    pieces: Sequence[tuple[np.ndarray, np.ndarray]], bins, **kwargs
) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.histogram`` of values given per partition as (distinct values, counts):
    the same bins and counts as the histogram of all the values."""
    values = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, np.int64)
    counts = np.concatenate([p[1] for p in pieces]) if pieces else np.zeros(0, np.int64)
    distinct, where = np.unique(values, return_inverse=True)
    weights = np.bincount(where, weights=counts, minlength=distinct.size)
    hist, edges = np.histogram(distinct, bins=bins, weights=weights, **kwargs)
    if not kwargs.get("density"):
        hist = np.rint(hist).astype(np.int64)
    return hist, edges


def node_depths(parents: np.ndarray) -> np.ndarray:
    """The depth of every node of a forest whose ``parents`` (-1 for roots) precede
    their children (by pointer jumping: log2(depth) vectorized steps)."""
    return depth_from_parent(np.asarray(parents, dtype=np.int64))


def merge_cct(
    pieces: Sequence[dict],
) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, list[np.ndarray]]:
    """The CCT of the whole trace from its partitions' (each a dict of ``names``,
    ``parents``, ``first_time`` and ``first_id`` (of each node's first call) and
    ``rows``, see :func:`glade.trace.engines.tasks.cct_share`): node frames and parents
    numbered as :func:`glade.trace.cct.cct_nodes` numbers them (in the trace's order,
    by time then event id), the (node, rank) rows, and per partition the global id of
    each of its nodes."""
    sizes = [len(p["parents"]) for p in pieces]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    all_names = pd.Index(
        np.concatenate([p["names"] for p in pieces]) if pieces else np.zeros(0, dtype=object)
    ).unique()
    names = (
        np.concatenate([all_names.get_indexer(p["names"]) for p in pieces])
        if pieces
        else np.zeros(0, np.int64)
    )
    parents = (
        np.concatenate(
            [
                np.where(p["parents"] >= 0, p["parents"] + o, -1)
                for p, o in zip(pieces, offsets, strict=False)
            ]
        )
        if pieces
        else np.zeros(0, np.int64)
    )
    first_time, first_id = [
        np.concatenate([p[k] for p in pieces]) if pieces else np.zeros(0, np.int64)
        for k in ("first_time", "first_id")
    ]
    depth = node_depths(parents)

    # depth by depth, each depth by first call (time, then event id)
    order = np.lexsort((first_id, first_time, depth))
    node, global_parents, name_codes = path_nodes(
        order, parents, names, max(len(all_names), 1), parents.size
    )
    frames = pd.DataFrame(
        {"name": np.asarray(all_names, dtype=object)[name_codes], "type": "function"}
    )
    maps = [node[lo:hi] for lo, hi in itertools.pairwise(offsets)]
    rows = [
        p["rows"].assign(node=m[p["rows"]["node"].to_numpy()])
        for p, m in zip(pieces, maps, strict=True)
    ]
    table = (
        pd.concat(rows, ignore_index=True)
        if rows
        else pd.DataFrame({"node": [], "rank": [], "time": [], "time (inc)": [], "count": []})
    )
    return frames, global_parents, table, maps


def first_calls(node: np.ndarray, rows: np.ndarray, num_nodes: int) -> np.ndarray:
    """Per node (0..num_nodes-1) the smallest of the ``rows`` whose node is ``node``."""
    first = np.full(num_nodes, _NONE, dtype=np.int64)
    has = node >= 0
    np.minimum.at(first, node[has], rows[has])
    return first


def trace_span(summaries: Sequence[PartSummary]) -> tuple[int, int]:
    """The first and last timestamp of a trace from its partitions' summaries (0, 0
    when it has no events)."""
    starts = [s.start for s in summaries if s.start is not None]
    ends = [s.end for s in summaries if s.end is not None]
    return (min(starts), max(ends)) if starts else (0, 0)


def pair_message_events(
    pieces: Sequence[pd.DataFrame], meta: pd.DataFrame
) -> tuple[pd.DataFrame, int, int, np.ndarray, np.ndarray]:
    """The pairs of :func:`glade.trace.comm.message_pairs` among the message events of
    every partition (``pieces``, see :func:`glade.trace.engines.tasks.message_events`;
    ``meta`` when there are none), with event ids for rows; the numbers of sends and
    receives left unmatched; and the partition of each pair's send and receive. A
    channel's sends all live on the sender's process and its receives on the
    receiver's, so pairing them all at once, in the trace's order (time, then event
    id), pairs them as the pandas engine does."""
    from glade.trace.comm import message_pairs
    from glade.trace.model import Trace

    frame = pd.concat(pieces) if pieces else meta
    part = np.repeat(np.arange(len(pieces)), [len(p) for p in pieces])
    ids = frame.index.to_numpy()
    order = np.lexsort((ids, frame[TIMESTAMP].to_numpy()))
    ids, part = ids[order], part[order]
    table, lost_sends, lost_recvs = message_pairs(
        Trace(frame.iloc[order].reset_index(drop=True), copy=False)
    )
    send, recv = table["Send event"].to_numpy(), table["Receive event"].to_numpy()
    table["Send event"], table["Receive event"] = ids[send], ids[recv]
    return table, lost_sends, lost_recvs, part[send], part[recv]


def merge_forests(
    pieces: Sequence[tuple[pd.DataFrame, np.ndarray, dict]],
    categories: pd.Index | None,
    metadata: dict,
):
    """The call forest of the whole trace (a GraphFrame, see
    :func:`glade.trace.calls.call_forest`) from its partitions' (each: its table, the
    parent of each node and its repairs, see
    :func:`glade.trace.engines.calls.DaskCalls.compute`): a partition's forest is ordered
    by location (process, then thread) and a location lives in one partition, so a
    stable sort of all the nodes by location orders them as the pandas engine does."""
    from glade.profile.graphframe import GraphFrame
    from glade.trace.calls import NODE_TYPES, forest_graph

    sizes = [len(p[0]) for p in pieces]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    table = pd.concat([p[0] for p in pieces], ignore_index=True)
    parent = np.concatenate(
        [np.where(p[1] >= 0, p[1] + o, -1) for p, o in zip(pieces, offsets, strict=False)]
    )
    order = np.lexsort((table[THREAD].to_numpy(), table[PROCESS].to_numpy()))
    table = table.iloc[order].reset_index(drop=True)
    if categories is not None and not isinstance(table["name"].dtype, pd.CategoricalDtype):
        table["name"] = pd.Categorical(table["name"], categories=categories)
    table["type"] = pd.Categorical(table["type"], categories=list(NODE_TYPES))
    table.index = pd.RangeIndex(len(table), name="node")
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    moved = parent[order]
    graph = forest_graph(
        np.where(moved >= 0, position[np.maximum(moved, 0)], -1),
        table["depth"].to_numpy(),
        table["name"].array,
        table["type"].array,
    )
    return GraphFrame(
        graph,
        table,
        exc_metrics=["time.exc"],
        inc_metrics=["time.inc"],
        default_metric="time.inc",
        metadata={"source": "trace calls", "time unit": "ns", "trace": metadata},
    )


def sent_of_receives(
    events: np.ndarray, sent: np.ndarray, receives: np.ndarray, send_times: np.ndarray
) -> np.ndarray:
    """``sent`` (per forest node of event id ``events``) with the send times
    ``send_times`` of the receive events ``receives`` that are nodes."""
    order = np.argsort(events, kind="stable")
    at = np.minimum(np.searchsorted(events, receives, sorter=order), max(events.size - 1, 0))
    found = events[order[at]] == receives if events.size else np.zeros(0, dtype=bool)
    out = sent.copy()
    out[order[at[found]]] = send_times[found]
    return out


def ordered_pairs(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The message pairs of a whole trace from its partitions' (``tables``, see
    :func:`glade.trace.engines.messages.received_table`), in the pandas engine's order:
    send order (send time, then send event id)."""
    table = pd.concat(tables, ignore_index=True)
    order = np.lexsort((table["Send event"].to_numpy(), table["Send time (ns)"].to_numpy()))
    return table.iloc[order].reset_index(drop=True)


def wait_tables(
    shares: Sequence[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]],
    tables: Sequence[pd.DataFrame],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The wait states of a whole trace and the bounds of its locations, from every
    partition's :func:`glade.trace.engines.tasks.wait_share` and message pairs
    (``tables``)."""
    from glade.trace.waits import find_wait_states

    messages, calls, bounds = (
        pd.concat([s[k] for s in shares], ignore_index=True) for k in range(3)
    )
    pairs = ordered_pairs(tables)
    waits = find_wait_states(
        messages, calls, pairs["Send event"].to_numpy(), pairs["Receive event"].to_numpy()
    )
    return waits, bounds


def numbered_segments(waits: pd.DataFrame, bounds: pd.DataFrame) -> pd.DataFrame:
    """The segments of the critical path (see
    :func:`glade.trace.critical_path.path_segments`), numbered in time order."""
    from glade.trace.critical_path import path_segments

    segments = path_segments(waits, bounds)
    segments["segment"] = np.arange(len(segments), dtype=np.int64)
    return segments
