"""Reading a trace stored as Parquet (:mod:`glade.trace.storage`) onto Dask: one task
per partition reads the files of a run of whole processes (about ``partition_events``
events) on whatever worker runs it, gives every column the dtype the sidecar names,
checks them as :func:`glade.trace.storage.from_parquet` does (a damaged file fails
when its partition is computed), and numbers the events so that ``compute()`` equals
``Trace.from_parquet(dir)``.

Event ids: a store in ``"time"`` order gives the events of process p the ids
``offset(p) + 0 .. count(p) - 1`` (offset: the events of the processes before p), so
ordering by (timestamp, id) is the stored trace's order (events at the same time by
process); a store in ``"row"`` order has each event's row (``__glade_row__``) as id,
so its reference columns (rows) already name event ids.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.parquet import (
    decode_value,
    encode_value,
    field,
    new_directory,
    read_frame,
    read_sidecar,
    restore,
    write_frame,
    write_sidecar,
)
from glade.trace.engines.parts import EVENT_ID, in_time_order, process_partitions
from glade.trace.events import PROCESS, TIMESTAMP
from glade.trace.storage import (
    DEFINITIONS,
    EVENTS,
    FORMAT,
    REFERENCE_COLUMNS,
    ROW,
    VERSION,
    check_nesting_counts,
    concat_partitions,
    events_entry,
    partition_path,
    process_counts,
    read_partition,
)


def read_processes(
    directory: str, processes: np.ndarray, counts: np.ndarray, offsets: np.ndarray, entry: dict
) -> pd.DataFrame:
    """The events of ``processes`` (``counts`` each, first ids ``offsets``) of the store
    at ``directory``, typed as the sidecar's ``entry`` says, in time order, indexed by
    event id."""
    where = Path(directory)
    arrow = entry["arrow"]
    tables = [
        read_partition(where, int(p), int(c), arrow) for p, c in zip(processes, counts, strict=True)
    ]
    raw = concat_partitions(where, tables).to_pandas() if tables else pd.DataFrame()
    if entry.get("order") == "row":
        ids = raw[ROW].to_numpy().astype(np.int64)
    else:
        ids = np.concatenate(
            [o + np.arange(c, dtype=np.int64) for o, c in zip(offsets, counts, strict=True)]
        )
    columns = {}
    for spec in entry["columns"]:
        name = decode_value(spec.get("name"), where, "events.columns")
        values = pd.Series(np.repeat(processes, counts)) if name == PROCESS else raw.get(name)
        if values is None:
            raise ReaderError(where / EVENTS, f"lacks column {name!r}")
        columns[name] = restore(values.reset_index(drop=True), spec, where / EVENTS)
    frame = pd.DataFrame(columns)
    frame.index = pd.Index(ids, name=EVENT_ID)
    frame = in_time_order(frame)
    checked = frame
    if entry.get("order") == "row":  # events at one time in the trace's order (their rows)
        checked = frame.iloc[np.lexsort((frame.index.to_numpy(), frame[TIMESTAMP].to_numpy()))]
    check_nesting_counts(where, entry, checked)
    return frame


def empty_events(entry: dict, where: Path) -> pd.DataFrame:
    """The (empty) events table with the columns and dtypes of the sidecar's ``entry``."""
    columns = {}
    for spec in entry["columns"]:
        name = decode_value(spec.get("name"), where, "events.columns")
        columns[name] = restore(pd.Series([], dtype=object), spec, where)
    return pd.DataFrame(columns, index=pd.Index([], dtype=np.int64, name=EVENT_ID))


def read_dask_store(path: str | os.PathLike, npartitions: int | None = None):
    """The trace stored at ``path`` as a DaskTrace of ``npartitions`` partitions of whole
    processes (default: one per :data:`~glade.trace.engines.dask_trace.PARTITION_EVENTS`
    events); ReaderError naming the file when the store is incomplete (every partition
    file is checked to exist first; damaged ones fail when read)."""
    import dask.dataframe as dd

    from glade.trace.engines.dask_trace import PARTITION_EVENTS, DaskTrace

    directory = Path(path)
    body = read_sidecar(directory, FORMAT, VERSION)
    sidecar = directory / "glade.json"
    entry = field(body, "events", dict, sidecar)
    field(entry, "columns", list, sidecar)
    field(entry, "arrow", dict, sidecar)
    processes, counts = process_counts(directory, entry)
    stored = {
        decode_value(spec.get("name"), sidecar, "events.columns")
        for spec in entry["columns"]
        if isinstance(spec, dict)
    }
    if entry.get("order") != "row" and stored.intersection(REFERENCE_COLUMNS):
        raise ReaderError(
            sidecar,
            "holds reference columns (rows of the trace) without "
            f"each event's row ({ROW}): stored by an earlier glade, it reads "
            "on the pandas engine only (store it again to read it on Dask)",
        )
    for process in processes:
        if not partition_path(directory, int(process)).is_file():
            raise ReaderError(
                partition_path(directory, int(process)),
                f"is missing: the partition of process {process}",
            )
    total = int(counts.sum())
    if npartitions is None:
        npartitions = max(1, -(-total // PARTITION_EVENTS))
    npartitions = max(1, min(int(npartitions), max(processes.size, 1)))
    part = process_partitions(counts, npartitions)
    offsets = np.cumsum(counts) - counts
    bounds = np.searchsorted(part, np.arange(npartitions + 1))
    groups = [
        (processes[lo:hi], counts[lo:hi], offsets[lo:hi])
        for lo, hi in itertools.pairwise(bounds)
        if hi > lo
    ]
    meta = empty_events(entry, directory / EVENTS)
    if groups:
        # an absolute path: the workers may run in another directory
        events = dd.from_map(
            read_processes,
            [str(directory.resolve())] * len(groups),
            *[list(g) for g in zip(*groups, strict=True)],
            [entry] * len(groups),
            meta=meta,
            enforce_metadata=False,
        )
    else:
        events = dd.from_pandas(meta, npartitions=1)
    definitions = None
    if body.get("definitions") is not None:
        definitions = read_frame(directory / DEFINITIONS, body["definitions"])
    try:
        metadata = decode_value(body.get("metadata", {}), sidecar, "metadata")
    except ReaderError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ReaderError(sidecar, f"sidecar entry 'metadata' is malformed ({exc})") from exc
    return DaskTrace(events, definitions, metadata)


def write_dask_store(trace, path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write the DaskTrace ``trace`` into the new directory ``path`` in the layout of
    :mod:`glade.trace.storage`, losslessly (``"row"`` order: the rows of ``compute()``,
    derived columns included, reference columns as rows): the rows are found on the
    cluster (:func:`glade.trace.engines.rows.event_rows`), every partition writes the
    files of its processes on the worker that holds it
    (:func:`glade.trace.engines.tasks.write_share`), then the client writes the
    definitions and the sidecar. Nothing is left at ``path`` when writing fails."""
    import dask

    from glade.trace.engines.parts import compute_all
    from glade.trace.engines.rows import event_rows
    from glade.trace.engines.tasks import write_share

    metadata = encode_value(trace.metadata)
    rows = event_rows(trace)
    with new_directory(path, overwrite) as scratch:
        shares = compute_all(
            [
                dask.delayed(write_share)(p, str(scratch.resolve()), r)
                for p, r in zip(trace.events.to_delayed(), rows, strict=True)
            ],
            "writing Parquet",
        )
        written = [s for s in shares if s[0].size] or shares
        specs, arrow = written[0][2], written[0][3]
        if any(s[2] != specs or s[3] != arrow for s in written):
            raise GladeError(
                "the partitions of the trace have different columns or dtypes: "
                "it cannot be stored as one table"
            )
        processes = np.concatenate([s[0] for s in shares])
        counts = np.concatenate([s[1] for s in shares])
        order = np.argsort(processes, kind="stable")
        nested = None
        if all(s[4] is not None for s in shares):
            nested = {
                k: np.concatenate([np.asarray(s[4][k], dtype=np.int64) for s in shares])[
                    order
                ].tolist()
                for k in ("orphan_leaves", "open_enters")
            }
        definitions = None
        if trace.definitions is not None:
            definitions = write_frame(trace.definitions, scratch / DEFINITIONS)
        entry = events_entry(specs, arrow, processes[order], counts[order], "row", nested)
        write_sidecar(
            scratch,
            FORMAT,
            VERSION,
            {"events": entry, "definitions": definitions, "metadata": metadata},
        )
    return Path(path)
