"""The partitions of a trace on Dask, and the pandas Trace of one partition.

Every partition of a Dask trace's events holds *whole processes*: all the events of
each of its processes, in time order (ties in event-id order). Every call, every
call path and every instant lives on one process and thread, so the pandas engine's
own functions, run on the Trace of one partition, give that partition's share of any
analysis exactly; the engine then combines the shares with small reductions
(:mod:`glade.trace.engines.combine`).

The index of the events is the *event id*: for a trace made from a pandas Trace it is
the row of the event there, so the columns that name rows (``_matching_event``,
``_parent``) hold event ids on Dask and rows again after ``compute()``. Partitions
convert them to their own rows and back.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from glade.errors import TraceError
from glade.trace.events import (
    EVENT_TYPE,
    EVENT_TYPES,
    LEAVE,
    NAME,
    PROCESS,
    THREAD,
    TIMESTAMP,
    is_derived,
)
from glade.trace.matching import (
    UnmatchedEventsWarning,
    group_order,
    integer_codes,
    location_codes_of,
)
from glade.trace.model import Trace
from glade.trace.storage import REFERENCE_COLUMNS

#: The name of the index of a Dask trace's events.
EVENT_ID = "event"


def process_partitions(counts: np.ndarray, npartitions: int) -> np.ndarray:
    """Per process (``counts`` events each, in process order) the partition it goes to:
    runs of consecutive processes holding about equal numbers of events."""
    before = np.cumsum(counts) - counts
    total = max(int(counts.sum()), 1)
    return np.minimum(before * npartitions // total, npartitions - 1)


def split_by_process(events: pd.DataFrame, npartitions: int) -> list[pd.DataFrame]:
    """``events`` (a table in time order, indexed by event id) as at most
    ``npartitions`` tables of whole processes, each in time order."""
    codes, processes = integer_codes(events[PROCESS].to_numpy())
    npartitions = max(1, min(int(npartitions), max(len(processes), 1)))
    part = process_partitions(np.bincount(codes, minlength=len(processes)), npartitions)[codes]
    order = group_order(part, npartitions)
    bounds = np.searchsorted(part[order], np.arange(npartitions + 1))
    return [events.iloc[order[lo:hi]] for lo, hi in itertools.pairwise(bounds) if hi > lo]


def compute_all(tasks: list, description: str) -> list:
    """The results of ``tasks`` (dask delayed objects, one per partition) computed on the
    active scheduler; on a ``dask.distributed`` cluster with a progress bar when it takes
    more than a second."""
    import dask

    try:
        from distributed import as_completed, default_client

        client = default_client()
    except (ImportError, ValueError):
        return list(dask.compute(*tasks))
    futures = client.compute(tasks)
    with tqdm(total=len(futures), desc=description, unit="partition", delay=1.0) as bar:
        for _ in as_completed(futures):
            bar.update(1)
    return client.gather(futures)


def in_time_order(part: pd.DataFrame) -> pd.DataFrame:
    """``part`` in time order, ties in event-id order (as it is when already so)."""
    stamps = part[TIMESTAMP].to_numpy()
    if stamps.size < 2 or not np.any(stamps[1:] < stamps[:-1]):
        return part
    return part.iloc[np.lexsort((part.index.to_numpy(), stamps))]


def local_trace(part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None = None) -> Trace:
    """The pandas Trace of partition ``part`` (whole processes): row i is event
    ``part.index[i]``, the reference columns hold rows, and Enters never left are closed
    at ``t_end``, the end of the whole trace (the pandas engine closes them at the last
    timestamp of the trace it is given). Repairs are not announced here: the engine
    counts them over all partitions."""
    ids = part.index.to_numpy()
    events = part.reset_index(drop=True)
    present = [c for c in REFERENCE_COLUMNS if c in events.columns]
    if present:
        lookup = pd.Index(ids)
        for column in present:
            values = events[column].to_numpy()
            events[column] = np.where(values >= 0, lookup.get_indexer(values), -1)
    trace = Trace(events, metadata=metadata, copy=False)
    if t_end is not None:
        close_open_calls(trace, t_end)
    return trace


def close_open_calls(trace: Trace, t_end: int | None) -> None:
    """Find the call structure of ``trace`` (a partition's) now, without the repair
    warning, its Enters never left closed at ``t_end`` (at the partition's own last
    timestamp when None)."""
    structure = call_structure_of(trace)
    if t_end is not None:
        structure.matching_timestamp[structure.open_enters] = t_end


def call_structure_of(trace: Trace, unmatched: str = "repair"):
    """The call structure of a partition's Trace, without the repair warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        return trace._call_structure(unmatched)


def to_event_ids(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Rows of a partition (``values``, -1 for none) as the event ids ``ids`` of its rows."""
    return np.where(values >= 0, ids[np.maximum(values, 0)], -1)


def run_local(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    function: Callable[..., Any],
    *args: Any,
) -> Any:
    """``function(trace, *args)`` on the Trace of partition ``part`` (see
    :func:`local_trace`)."""
    return function(local_trace(in_time_order(part), metadata, t_end), *args)


def derive(
    part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None, method: str, args: tuple
) -> pd.DataFrame:
    """``part`` with the derived columns that ``Trace.<method>(*args)`` adds on its
    Trace (reference columns as event ids; a reference to an event of another partition,
    such as a message's matching event, which the partition's Trace cannot name, is
    kept)."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        getattr(trace, method)(*args)
    ids = part.index.to_numpy()
    added = {}
    for column in trace.events.columns:
        if not is_derived(column):
            continue
        values = trace.events[column].to_numpy()
        if column not in REFERENCE_COLUMNS:
            added[column] = values
            continue
        added[column] = to_event_ids(values, ids)
        if column in part.columns:
            before = part[column].to_numpy()
            elsewhere = (before >= 0) & (pd.Index(ids).get_indexer(before) < 0) & (values < 0)
            added[column][elsewhere] = before[elsewhere]
    return part.assign(**added)


def select(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    mask_of: Callable[..., np.ndarray],
    *args: Any,
) -> pd.DataFrame:
    """The recorded columns of the events of ``part`` that ``mask_of(trace, *args)`` keeps
    on the partition's Trace, with their event ids."""
    part = in_time_order(part)
    mask = mask_of(local_trace(part, metadata, t_end), *args)
    return part.loc[mask, [c for c in part.columns if not is_derived(c)]]


@dataclass(frozen=True)
class PartSummary:
    """What the engine needs to know of one partition before any analysis: its number
    of events, first and last timestamp, process ids, number of locations (process and
    thread pairs), the distinct values of ``Name`` and the first timestamp of a node of
    its call forest (``first_node``: an Enter or an Instant; a Leave without its Enter
    is none), where times written from ``START`` count from."""

    events: int
    start: int | None
    end: int | None
    processes: np.ndarray
    locations: int
    names: np.ndarray
    first_node: int | None


def summarize(part: pd.DataFrame, locations: int | None = None) -> PartSummary:
    """The :class:`PartSummary` of partition ``part`` (columns ``Timestamp (ns)``,
    ``Event Type``, ``Process``, ``Thread`` and ``Name`` suffice); ``locations``, its
    number of locations, when already known (counted here otherwise)."""
    stamps = part[TIMESTAMP].to_numpy()
    processes = part[PROCESS].to_numpy()
    if stamps.size and (processes.dtype.kind not in "iu" or stamps.dtype.kind not in "iu"):
        raise TraceError(f"a partition's {TIMESTAMP!r} and {PROCESS!r} columns must be integers")
    nodes = stamps[(part[EVENT_TYPE] != EVENT_TYPES[LEAVE]).to_numpy(dtype=bool)]
    names = part[NAME]
    if isinstance(names.dtype, pd.CategoricalDtype):
        codes = names.cat.codes.to_numpy()
        counts = np.bincount(codes[codes >= 0], minlength=len(names.cat.categories))
        used = names.cat.categories.to_numpy()[counts > 0]
    else:
        used = names.unique()
    if locations is None:
        threads = part[THREAD].to_numpy() if THREAD in part.columns else np.zeros_like(processes)
        locations = location_codes_of(processes, threads)[1] if stamps.size else 0
    return PartSummary(
        events=int(stamps.size),
        start=int(stamps.min()) if stamps.size else None,
        end=int(stamps.max()) if stamps.size else None,
        processes=np.unique(processes).astype(np.int64),
        locations=locations,
        names=np.asarray(used, dtype=object),
        first_node=int(nodes.min()) if nodes.size else None,
    )
