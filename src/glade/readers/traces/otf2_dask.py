"""An OTF2 archive read on Dask (``read_trace(path, engine="dask")``): the definitions
are read once on the client; the locations are then read in parallel on the cluster's
workers, each task reading the event files of the locations of a run of whole
processes (all the threads of each) with the pandas reader's own code
(:func:`glade.readers.traces.otf2.event_table`), so every partition holds whole
processes, as the Dask engine needs.

1. The client groups the locations by process and cuts the processes into runs with
   about equal numbers of events (the counts the definitions declare).
2. One pass over the partitions checks the events (errors name the archive, as the
   pandas reader's do) and collects what makes the trace's columns and metadata: the
   function names used (the ``Name`` categories are their sorted union, as the pandas
   reader makes them), the metrics recorded (one float column per member, missing
   ones NaN) and the program names.
3. The events are then a lazy ``dask.dataframe``: each partition is read again on a
   worker when an analysis needs it, like a Parquet store.

Event ids: location index (in reference order) times 2^40 plus the record's position
in its location, so ordering by (timestamp, id) is the pandas reader's order (a stable
sort by time of the locations read one after the other) and ``compute()`` equals
``Trace.from_otf2(path)``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import TraceError
from glade.progress import progress
from glade.readers.traces.otf2 import (
    Records,
    archive_anchor,
    archive_metadata,
    declare_counters,
    definitions_table,
    event_table,
    metric_column_names,
    open_archive,
    process_numbers,
    program_names,
    sorted_locations,
)
from glade.trace.engines.parts import EVENT_ID, compute_all, process_partitions
from glade.trace.events import NAME

#: Event ids: the location's index shifted by this many bits, plus the record's position.
LOCATION_SHIFT = 40


def read_locations(anchor: str, indices: list[int]) -> tuple[dict[str, Any], np.ndarray, Any]:
    """The events of the locations at ``indices`` (positions in reference order) of the
    archive at ``anchor``: the columns of :func:`event_table`, their event ids, and the
    archive's definitions and what the records say of the run (``programs``, the
    ``metric_ids`` recorded)."""
    from glade.readers.traces import otf2_records

    path = Path(anchor)
    with open_archive(path) as (otf2, _otf2_mod, reader):
        defs = reader.definitions
        every = sorted_locations(defs)
        mine = [every[i] for i in indices]
        with progress(0, path.name) as bar:
            buffer, names, ends = otf2_records.read_records(
                _otf2_mod, reader.handle, mine, bar, path
            )
        rec = Records(buffer, otf2_records)
        table, order = event_table(otf2, path, defs, mine, rec, names, ends)
        starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
        where = np.searchsorted(np.asarray(ends, dtype=np.int64), order, side="right")
        ids = (np.asarray(indices, dtype=np.int64)[where] << LOCATION_SHIFT) + order - starts[where]
        found = {
            "programs": program_names(defs, rec),
            "metric_ids": np.unique(rec.code[rec.kind == rec.metric_kind]),
        }
        return table, ids, (defs, found)


def location_summary(anchor: str, indices: list[int]) -> dict[str, Any]:
    """What one partition's locations add to the trace's columns and metadata: the
    function ``names`` used, the ``metric_ids`` recorded and the ``programs`` named
    (reading them checks their events)."""
    table, _, (_, found) = read_locations(anchor, indices)
    names = table[NAME]
    return {**found, "names": np.asarray(names.categories[np.unique(names.codes)], dtype=object)}


def location_events(
    anchor: str, indices: list[int], categories: pd.Index, metrics: list[str]
) -> pd.DataFrame:
    """The events of the locations at ``indices`` as a partition of the Dask trace: in
    time order, indexed by event id, ``Name`` with the trace's ``categories`` and every
    metric column of ``metrics`` (NaN where these locations recorded none)."""
    table, ids, _ = read_locations(anchor, indices)
    table[NAME] = table[NAME].set_categories(categories)
    for column in metrics:
        if column not in table:
            table[column] = np.full(ids.size, np.nan)
    frame = pd.DataFrame(table, copy=False)
    frame.index = pd.Index(ids, name=EVENT_ID)
    return frame


def location_groups(
    locations: list, process: dict[int, int], npartitions: int | None
) -> list[list[int]]:
    """The location indices (reference order) of each partition: runs of consecutive
    processes with about equal numbers of declared events (default: one partition per
    :data:`~glade.trace.engines.dask_trace.PARTITION_EVENTS` events)."""
    from glade.trace.engines.dask_trace import PARTITION_EVENTS

    owner = np.array([process[loc._ref] for loc in locations], dtype=np.int64)
    declared = np.array([int(loc.number_of_events) for loc in locations], dtype=np.int64)
    processes = np.unique(owner)
    counts = np.bincount(
        np.searchsorted(processes, owner), weights=declared, minlength=processes.size
    ).astype(np.int64)
    if npartitions is None:
        npartitions = max(1, -(-int(counts.sum()) // PARTITION_EVENTS))
    if (
        isinstance(npartitions, bool)
        or not isinstance(npartitions, int | np.integer)
        or (npartitions < 1)
    ):
        raise TraceError(f"npartitions must be a positive integer, not {npartitions!r}")
    parts = process_partitions(counts, max(1, min(int(npartitions), processes.size)))
    of_location = parts[np.searchsorted(processes, owner)]
    return [np.flatnonzero(of_location == p).tolist() for p in np.unique(of_location)]


def read_otf2_dask(path: str | os.PathLike, npartitions: int | None = None):
    """The OTF2 archive ``path`` as a DaskTrace whose partitions the workers read (see
    the module doc); ReaderError naming the archive for what the pandas reader refuses."""
    import dask
    import dask.dataframe as dd

    from glade.trace.engines.dask_trace import DaskTrace

    anchor = archive_anchor(path)
    where = str(anchor.resolve())  # the workers may run in another directory
    with open_archive(anchor) as (otf2, _otf2_mod, reader):
        defs = reader.definitions
        locations = sorted_locations(defs)
        process, thread = process_numbers(otf2, defs, anchor)
        definitions = definitions_table(defs, process, thread)
        groups = location_groups(locations, process, npartitions)
        summaries = compute_all(
            [dask.delayed(location_summary)(where, g) for g in groups], f"checking {anchor.name}"
        )
        programs = set().union(*[s["programs"] for s in summaries])
        metadata = archive_metadata(_otf2_mod, reader.handle, defs, programs, len(locations))
        metric_ids = np.concatenate([s["metric_ids"] for s in summaries] or [np.zeros(0)])
        metrics = metric_column_names(defs, metric_ids)
        declare_counters(metadata, defs, metrics)
    names = np.concatenate([s["names"] for s in summaries] or [np.zeros(0, dtype=object)])
    categories = pd.Index(np.unique(names.astype(str)))
    meta = location_events_meta(categories, metrics)
    parts = [dask.delayed(location_events)(where, g, categories, metrics) for g in groups]
    events = (
        dd.from_delayed(parts, meta=meta, verify_meta=False)
        if parts
        else dd.from_pandas(meta, npartitions=1)
    )
    return DaskTrace(events, definitions, metadata)


def location_events_meta(categories: pd.Index, metrics: list[str]) -> pd.DataFrame:
    """The (empty) events table of an OTF2 trace on Dask: the pandas reader's columns
    and dtypes, ``Name`` with ``categories``, the ``metrics`` columns."""
    from glade.readers.traces.otf2 import REQUEST
    from glade.trace.events import (
        COMMUNICATOR,
        EVENT_TYPE,
        EVENT_TYPES,
        MESSAGE_SIZE,
        PARTNER,
        PROCESS,
        TAG,
        THREAD,
        TIMESTAMP,
    )

    none = np.zeros(0, dtype=np.int64)
    columns: dict[str, Any] = {
        TIMESTAMP: none,
        EVENT_TYPE: pd.Categorical([], categories=EVENT_TYPES),
        NAME: pd.Categorical([], categories=categories),
        PROCESS: none,
        THREAD: none,
    }
    columns.update({c: none for c in (PARTNER, TAG, COMMUNICATOR, MESSAGE_SIZE, REQUEST)})
    columns.update({c: np.zeros(0) for c in metrics})
    return pd.DataFrame(columns, index=pd.Index(none, name=EVENT_ID))
