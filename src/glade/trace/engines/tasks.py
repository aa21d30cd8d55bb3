"""What a Dask trace computes on one partition: each function takes the pandas Trace
of the partition (:func:`glade.trace.engines.parts.local_trace`) and returns its share
of an analysis, computed by the pandas engine's own functions, small enough to send
back (arrays per function and process, per bin, per message pair, per CCT node).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.trace.calls import EVENT, call_forest
from glade.trace.cct import cct_tables
from glade.trace.comm import message_names, message_rows, message_weights, sent_sizes
from glade.trace.critical_path import add_forest_columns, calls_on_path, location_bounds
from glade.trace.engines.combine import first_calls
from glade.trace.engines.parts import call_structure_of, derive, in_time_order, local_trace
from glade.trace.events import (
    ENTER,
    PROCESS,
    RECEIVE_NAMES,
    SEND_NAMES,
    TIMESTAMP,
    is_derived,
)
from glade.trace.filter import events_of_nodes
from glade.trace.matching import (
    MATCHING_EVENT,
    MATCHING_TIMESTAMP,
    UnmatchedEventsWarning,
    group_order,
    integer_codes,
)
from glade.trace.model import Trace
from glade.trace.waits import wait_inputs


def repairs(trace: Trace, unmatched: str) -> dict[str, int]:
    """How many Leaves without an Enter and Enters never left matching repairs (a
    TraceError for the first with ``unmatched="error"``)."""
    structure = call_structure_of(trace, unmatched)
    return {
        "orphan_leaves": int(structure.orphan_leaves.size),
        "open_enters": int(structure.open_enters.size),
    }


def size_counts(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sizes of the partition's sent messages and how many have each."""
    return np.unique(sent_sizes(trace), return_counts=True)


def cct_share(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    waits: tuple[np.ndarray, np.ndarray],
) -> dict:
    """The CCT of partition ``part``: node ``names`` and ``parents`` (local ids), the
    timestamp and event id of each node's first call (``first_time``, ``first_id``),
    its (node, rank) ``rows`` (with the waiting time of the waiting calls ``waits``:
    event ids and waiting times, of the whole trace) and the ``repairs`` of its
    matching."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    at = pd.Index(part.index).get_indexer(waits[0])
    node, frames, parents, rows = cct_tables(trace, (at[at >= 0], waits[1][at >= 0]))
    calls = np.flatnonzero(trace.event_kinds() == ENTER)
    first = first_calls(node[calls], calls, len(frames))
    return {
        "names": frames["name"].to_numpy(dtype=object),
        "parents": parents,
        "first_time": trace.events[TIMESTAMP].to_numpy()[first],
        "first_id": part.index.to_numpy()[first],
        "rows": rows,
        "repairs": repairs(trace, "repair"),
    }


def cct_events(trace: Trace, keep: np.ndarray) -> np.ndarray:
    """Per event of the partition: whether its CCT node (local id) is kept by ``keep``."""
    from glade.trace.cct import cct_nodes

    return events_of_nodes(cct_nodes(trace)[0], keep)


def message_times(
    trace: Trace, output: str, message_type: str
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The distinct times of the partition's messages of ``message_type``, the weight
    (count or bytes) sent or received at each, how many sizes are unknown and how many
    messages there are."""
    rows = message_rows(trace, message_names(message_type))
    weights, unknown = message_weights(trace, rows, output)
    times, where = np.unique(trace.events[TIMESTAMP].to_numpy()[rows], return_inverse=True)
    return times, np.bincount(where, weights=weights, minlength=times.size), unknown, rows.size


def wait_share(
    part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """What the wait states and the critical path need of partition ``part``: its
    :func:`glade.trace.waits.wait_inputs` and the bounds of its locations
    (:func:`glade.trace.critical_path.location_bounds`), with event ids."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    ids = part.index.to_numpy()
    return (*wait_inputs(trace, ids), location_bounds(trace, ids))


def path_share(
    part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None, segments: pd.DataFrame
) -> pd.DataFrame:
    """The calls of partition ``part`` on the critical path ``segments`` (see
    :func:`glade.trace.critical_path.calls_on_path`), with event ids."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    return calls_on_path(trace, segments, part.index.to_numpy())


def message_events(
    part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None
) -> pd.DataFrame:
    """The partition's sends and receives with a partner (the events
    :func:`glade.trace.comm.message_pairs` pairs), indexed by event id, in time order."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    rows = np.union1d(message_rows(trace, SEND_NAMES), message_rows(trace, RECEIVE_NAMES))
    return part.iloc[rows][[c for c in part.columns if not is_derived(c)]]


def set_matches(part: pd.DataFrame, received: pd.DataFrame, *sent: pd.DataFrame) -> pd.DataFrame:
    """``part`` whose messages match as the pairs say: its receives as the pairs it
    received say (``received``, see :func:`glade.trace.engines.messages.received_table`),
    its sends as the pairs of the other partitions say (``sent``: their pairs whose
    sender ``part`` holds). ``_matching_event`` (event ids) and ``_matching_timestamp``
    are set there (-1 elsewhere when the columns are new), as
    :func:`glade.trace.comm.match_messages` sets them."""
    sends = pd.concat([received.iloc[:0], *sent], ignore_index=True)
    ids, matching, times = (
        np.concatenate([received[a].to_numpy(), sends[b].to_numpy()])
        for a, b in (
            ("Receive event", "Send event"),
            ("Send event", "Receive event"),
            ("Send time (ns)", "Receive time (ns)"),
        )
    )
    at = pd.Index(part.index).get_indexer(ids)
    columns = {}
    for column, values in ((MATCHING_EVENT, matching), (MATCHING_TIMESTAMP, times)):
        full = (
            part[column].to_numpy().copy()
            if column in part.columns
            else np.full(len(part), -1, dtype=np.int64)
        )
        full[at] = values
        columns[column] = full
    return part.assign(**columns)


def process_pattern(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    window_size: int,
    iterations: int,
    metric: str,
    process: int,
    thread: int | None,
) -> pd.DataFrame:
    """:func:`glade.trace.patterns.detect_pattern` on the events of ``process`` in the
    partition (``metric`` and the matching columns derived on the whole partition, see
    :func:`glade.trace.engines.parts.derive`), ``First event`` and ``Last event`` as
    event ids."""
    from glade.trace.patterns import detect_pattern

    part = derive(part, metadata, t_end, "ensure_metric", (metric,))
    events = part[part[PROCESS].to_numpy() == process]
    found = detect_pattern(
        local_trace(events, metadata), window_size, iterations, metric, process, thread
    )
    ids = events.index.to_numpy()
    for column in ("First event", "Last event"):
        found[column] = ids[found[column].to_numpy()]
    return found


def write_share(
    part: pd.DataFrame, directory: str, rows: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, list[dict], dict[str, str], dict | None]:
    """Write the partition's events into the store being made at ``directory``, one
    file per process (see :mod:`glade.trace.storage`), every column with the reference
    columns as rows of the trace and each event's row (``rows``: see
    :func:`glade.trace.engines.rows.partition_rows`): its processes, their numbers of
    events, the columns' specs, the files' Arrow types and how its calls nest
    (:func:`glade.trace.storage.nesting_counts`)."""
    import pyarrow as pa

    from glade.parquet import arrow_types, column_spec
    from glade.trace.engines.rows import as_rows
    from glade.trace.storage import (
        ROW,
        arrow_events,
        check_time_limit,
        nesting_counts,
        write_partition,
    )

    part = as_rows(in_time_order(part), *rows)
    events = part.reset_index(drop=True)
    check_time_limit(events[TIMESTAMP].to_numpy())
    codes, processes = integer_codes(events[PROCESS].to_numpy())
    counts = np.bincount(codes, minlength=processes.size)
    order = group_order(codes, processes.size)
    starts = np.concatenate([[0], np.cumsum(counts)])
    table = arrow_events(events).append_column(ROW, pa.array(rows[0], type=pa.int64()))
    for i, process in enumerate(processes):
        write_partition(Path(directory), int(process), table.take(order[starts[i] : starts[i + 1]]))
    specs = [column_spec(name, events[name]) for name in events.columns]
    # the trace's order (its rows), which may order events at one time otherwise
    nested = nesting_counts(events.iloc[np.argsort(rows[0], kind="stable")])
    return processes.astype(np.int64), counts, specs, arrow_types(table.schema), nested


def send_times_of(received: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray]:
    """The receive event ids and the times of their sends in a partition's received
    pairs (see :func:`glade.trace.engines.messages.received_table`; None: none)."""
    if received is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return received["Receive event"].to_numpy(), received["Send time (ns)"].to_numpy()


def forest_with_sends(trace: Trace, ids: np.ndarray, received: tuple[np.ndarray, np.ndarray]):
    """The call forest of a partition's Trace (rows of event ids ``ids``) whose ``sent``
    of a receive comes from the pairing of the whole trace's messages (``received``:
    receive event ids and the times of their sends, see :func:`send_times_of`), since
    its send may lie in another partition."""
    from glade.trace.calls import SENT
    from glade.trace.engines.combine import sent_of_receives

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        forest = call_forest(trace)
    frame = forest.dataframe
    if SENT in frame.columns and received[0].size:
        events = ids[frame[EVENT].to_numpy()]
        frame[SENT] = sent_of_receives(events, frame[SENT].to_numpy(), *received)
    return forest


def select_calls(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    query: Any,
    rank_mode: str,
    received: pd.DataFrame | None,
    waits: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """The recorded columns of the events of ``part`` that call-level ``query`` (any
    form) keeps (see :func:`glade.trace.calls.calls_query_mask`), ``sent`` from the
    partition's received pairs ``received`` (see :func:`send_times_of`), and with
    ``waits`` (the whole trace's wait states and critical path) the forest's ``waiting
    time`` and ``critical path``."""
    from glade.query import parse, query_mask
    from glade.query.engine import RowTable
    from glade.trace.calls import calls_mask

    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    forest = forest_with_sends(trace, part.index.to_numpy(), send_times_of(received))
    if waits is not None:
        frame = forest.dataframe
        add_forest_columns(frame, *waits, events=part.index.to_numpy()[frame[EVENT].to_numpy()])
    keep = query_mask(RowTable(forest.graph, forest.dataframe), parse(query), rank_mode)
    mask = calls_mask(trace, forest, keep)
    return part.loc[mask, [c for c in part.columns if not is_derived(c)]]
