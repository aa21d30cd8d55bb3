"""Trace readers on Dask: a CSV trace read by blocks on the cluster, then partitioned
by process.

1. ``dask.dataframe.read_csv`` cuts the file into blocks; every block gets the types of
   a trace's events from the pandas reader's own code
   (:func:`glade.readers.traces.csv.typed_events`) and event ids that follow the file's
   order (block number, then row), so ordering by (timestamp, id) is the order the
   pandas reader gives.
2. One pass counts the events of every process and collects the values of the text
   columns (their categories, sorted, as the pandas reader makes them).
3. A shuffle with explicit divisions sends every process to its partition (runs of
   consecutive processes with about equal numbers of events); each partition is then
   put in time order.

Errors name the file and the block (the line in a block counts from the block's first
data row). A gzipped file is one block.
"""

from __future__ import annotations

from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from glade.errors import ReaderError, TraceError
from glade.readers.traces.csv import typed_events
from glade.readers.traces.text import GZIP_MAGIC
from glade.trace.engines.parts import EVENT_ID, compute_all, in_time_order, process_partitions
from glade.trace.events import EVENT_TYPE, NAME, PROCESS, THREAD

#: Bytes of CSV per block.
BLOCK_BYTES = 64 * 1024 * 1024
_ID = "__glade_event__"
_PART = "__glade_partition__"
_BLOCK_SHIFT = 40


def typed_block(
    block: pd.DataFrame, target: str, names: list[str], partition_info: dict | None = None
) -> pd.DataFrame:
    """Block ``partition_info["number"]`` of the CSV trace ``target`` with the types of a
    trace's events (``Name`` and text attributes as plain values) and its event ids."""
    number = partition_info["number"] if partition_info else 0
    try:
        typed, _ = typed_events(Path(target), block.reset_index(drop=True), names, whole=False)
    except ReaderError as exc:
        raise ReaderError(target, f"block {number}: {exc.reason}") from None
    for column in typed.columns:
        if isinstance(typed[column].dtype, pd.CategoricalDtype) and column != EVENT_TYPE:
            typed[column] = typed[column].astype(object)
    typed[_ID] = (np.int64(number) << _BLOCK_SHIFT) + np.arange(len(typed), dtype=np.int64)
    return typed


def block_summary(block: pd.DataFrame, text: list[str]) -> tuple[pd.Series, dict]:
    """The events per process of a typed block and the distinct values of its ``text``
    columns."""
    values = {c: pd.unique(block[c].dropna()) for c in text}
    return block[PROCESS].value_counts(), values


def place(block: pd.DataFrame, processes: np.ndarray, parts: np.ndarray) -> pd.DataFrame:
    """``block`` with the partition of every event's process."""
    return block.assign(**{_PART: parts[np.searchsorted(processes, block[PROCESS].to_numpy())]})


def finish(part: pd.DataFrame, categories: dict[str, pd.Index]) -> pd.DataFrame:
    """A partition of events: text columns as categories (``categories``), ``Thread``
    added when the file has none, indexed by event id, in time order."""
    part = part.reset_index(drop=True)
    ids = part.pop(_ID).to_numpy()
    for column, values in categories.items():
        part[column] = pd.Categorical(part[column], categories=values)
    if THREAD not in part.columns:
        part[THREAD] = np.zeros(len(part), dtype=np.int64)
    part.index = pd.Index(ids, name=EVENT_ID)
    return in_time_order(part)


def read_csv_dask(
    target: Path, names: list[str], npartitions: int | None = None, blocksize: int = BLOCK_BYTES
):
    """The CSV trace ``target`` (whose header names ``names``, checked) as a DaskTrace of
    ``npartitions`` partitions of whole processes (see the module doc)."""
    from glade.trace.engines.dask_trace import PARTITION_EVENTS, DaskTrace

    with target.open("rb") as raw:
        gzipped = raw.read(2) == GZIP_MAGIC
    options = {"compression": "gzip", "blocksize": None} if gzipped else {"blocksize": blocksize}
    try:
        blocks = dd.read_csv(
            str(target),
            header=0,
            names=names,
            skipinitialspace=True,
            dtype={EVENT_TYPE: "category", NAME: object},
            **options,
        )
        head = blocks.head(1000, npartitions=1)
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError, OSError) as exc:
        raise ReaderError(target, f"malformed CSV: {exc}") from None
    first = typed_block(head, str(target), names)
    _, metrics = typed_events(target, head.reset_index(drop=True), names, whole=False)
    typed = blocks.map_partitions(typed_block, str(target), names, meta=first.iloc[:0])
    text = [NAME] + [c for c in first.columns if first[c].dtype == object and c not in (NAME, _ID)]
    summaries = compute_all(
        [dask.delayed(block_summary)(b, text) for b in typed.to_delayed()], "reading CSV blocks"
    )
    counts = pd.concat([s[0] for s in summaries]).groupby(level=0).sum().sort_index()
    categories = {
        c: pd.Index(
            np.sort(
                pd.unique(np.concatenate([s[1][c] for s in summaries]).astype(object)).astype(str)
            )
        )
        for c in text
    }
    processes = counts.index.to_numpy().astype(np.int64)
    total = int(counts.sum())
    if npartitions is None:
        npartitions = -(-total // PARTITION_EVENTS)
    npartitions = max(1, min(int(npartitions), max(processes.size, 1)))
    parts = process_partitions(counts.to_numpy(), npartitions)
    placed = typed.map_partitions(
        place, processes, parts, meta=first.iloc[:0].assign(**{_PART: np.int64(0)})
    )
    divisions = [*range(npartitions), npartitions - 1]
    shuffled = placed.set_index(_PART, divisions=divisions)
    meta = finish(first.iloc[:0].set_index(pd.Index([], dtype=np.int64)), categories)
    events = shuffled.map_partitions(finish, categories, meta=meta)
    metadata = {"format": "csv", "source": str(target), "metric_columns": metrics}
    trace = DaskTrace(events, metadata=metadata)
    try:  # as the pandas reader: repairs counted (and said) at read time, a bad Leave refused
        trace.metadata["repairs"] = trace.repairs("repair")
    except TraceError as exc:
        raise ReaderError(target, str(exc).removeprefix(f"{target}: ")) from None
    return trace
