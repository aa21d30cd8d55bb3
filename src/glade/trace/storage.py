"""Traces stored as Parquet, partitioned by process (``trace.to_parquet(dir)``,
``Trace.from_parquet(dir)``), lossless: every column, dtype, category, the definitions
and the metadata (with the matching repairs) come back equal.

Layout (format ``glade-trace``, version 1)::

    <dir>/
      glade.json                          the sidecar (JSON), written last
      events/Process=<p>/part-0.parquet   the events of process p, one file per process
      definitions.parquet                 trace.definitions, when the trace has them

``events/`` is a hive-partitioned Parquet dataset: ``dask.dataframe.read_parquet(
<dir>/events)`` (or ``pyarrow.dataset``) gets one partition per process. A partition
file holds the events of one process in trace order (so in time order) with every
column of ``trace.events`` except ``Process``, which its directory name gives
(hive style: dask reads it back as a categorical column, cast it to int64).
Categoricals are Arrow dictionaries holding all their categories, in order.

The sidecar holds ``events``: ``rows`` (all events), ``processes`` and ``counts``
(the process ids, ascending, and the events of each: a missing or truncated partition
is detected), ``columns`` (per column of ``trace.events``, in order: name, pandas dtype
and categories; see :func:`glade.parquet.column_spec`), ``arrow`` (the Arrow type of
every column of a partition file) and ``order``. The trace's events are the partitions
concatenated in process order, then stably sorted by timestamp (``order: "time"``:
events at the same time ordered by process); a trace whose equal timestamps are in
another order (``order: "row"``) also stores ``__glade_row__`` (int64), each event's
row in the trace. Beside them: ``definitions`` (the table's spec, or null) and
``metadata`` (lossless JSON, :func:`glade.parquet.encode_value`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.parquet import (
    arrow_types,
    check_schema,
    column_spec,
    decode_value,
    encode_value,
    field,
    new_directory,
    read_frame,
    read_sidecar,
    restore,
    write_frame,
    write_sidecar,
    write_table,
)
from glade.trace.events import PROCESS, TIMESTAMP

if TYPE_CHECKING:
    import pyarrow as pa

    from glade.trace.model import Trace

FORMAT = "glade-trace"
VERSION = 1
EVENTS = "events"
DEFINITIONS = "definitions.parquet"
ROW = "__glade_row__"


def partition_path(directory: Path, process: int) -> Path:
    """The file holding the events of ``process`` in the store at ``directory``."""
    return directory / EVENTS / f"{PROCESS}={process}" / "part-0.parquet"


def write_partition(directory: Path, process: int, table: pa.Table) -> None:
    """Write the events of one process (an Arrow table without ``Process``)."""
    path = partition_path(directory, process)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_table(table, path)


def in_time_then_process_order(stamps: np.ndarray, processes: np.ndarray) -> bool:
    """Whether events already sorted by time have equal timestamps ordered by process
    (then the partitions, merged stably by time, give them back in this order)."""
    tie = stamps[1:] == stamps[:-1]
    return not np.any(tie & (processes[1:] < processes[:-1]))


def events_entry(columns: list[dict], arrow: dict[str, str], processes: np.ndarray,
                 counts: np.ndarray, order: str) -> dict:
    """The sidecar's description of the events."""
    return {"rows": int(counts.sum()), "order": order, "columns": columns, "arrow": arrow,
            "processes": [int(p) for p in processes], "counts": [int(c) for c in counts]}


def to_parquet(trace: Trace, path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write ``trace`` into the new directory ``path`` (see the module docstring), with a
    progress bar for large traces; returns the directory. Nothing is left at ``path``
    when writing fails."""
    import pyarrow as pa

    from glade.readers.traces.events import progress

    events = trace.events
    if ROW in events.columns:
        raise GladeError(f"a trace with a column named {ROW!r} cannot be stored")
    metadata = encode_value(trace.metadata)
    codes, processes = trace.process_codes()
    counts = np.bincount(codes, minlength=processes.size)
    stamps = events[TIMESTAMP].to_numpy()
    order = "time" if in_time_then_process_order(stamps, events[PROCESS].to_numpy()) else "row"
    recorded = events.drop(columns=[PROCESS])
    table = pa.Table.from_pandas(recorded, preserve_index=False)
    if order == "row":
        table = table.append_column(ROW, pa.array(np.arange(len(events), dtype=np.int64)))
    by_process = np.argsort(codes, kind="stable")
    table = table.take(pa.array(by_process))
    starts = np.concatenate([[0], np.cumsum(counts)])
    columns = [column_spec(name, events[name]) for name in events.columns]
    with new_directory(path, overwrite) as scratch:
        with progress(len(events), "writing Parquet") as bar:
            for i, process in enumerate(processes):
                write_partition(scratch, int(process), table.slice(starts[i], counts[i]))
                bar.update(int(counts[i]))
        definitions = None
        if trace.definitions is not None:
            definitions = write_frame(trace.definitions, scratch / DEFINITIONS)
        entry = events_entry(columns, arrow_types(table.schema),
                             processes, counts, order)
        write_sidecar(scratch, FORMAT, VERSION, {"events": entry, "definitions": definitions,
                                                 "metadata": metadata})
    return Path(path)


def write_process_groups(path: str | os.PathLike, groups: Iterable[pd.DataFrame], rows: int,
                         metadata: dict, overwrite: bool = False) -> Path:
    """Store a trace given as a stream of event tables, one group of processes at a
    time, so that a trace larger than memory can be written: every table holds whole
    processes, in increasing process order across tables, each process's events in
    time order, all tables with the same columns and dtypes. ``rows`` (the events in
    all) sizes the progress bar. Nothing is left at ``path`` when writing fails."""
    import pyarrow as pa

    from glade.readers.traces.events import progress

    encoded = encode_value(metadata)
    processes, counts = [], []
    columns = arrow = None
    with new_directory(path, overwrite) as scratch, progress(rows, "writing Parquet") as bar:
        for frame in groups:
            specs = [column_spec(name, frame[name]) for name in frame.columns]
            if columns is not None and specs != columns:
                raise GladeError("the groups of a trace must have the same columns and dtypes")
            columns = specs
            ids = frame[PROCESS].to_numpy()
            starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
            if processes and ids.size and ids[0] <= processes[-1]:
                raise GladeError("the groups of a trace must come in increasing process order")
            table = pa.Table.from_pandas(frame.drop(columns=[PROCESS]), preserve_index=False)
            arrow = arrow_types(table.schema)
            ends = np.concatenate([starts[1:], [ids.size]])
            for first, end in zip(starts, ends, strict=True):
                write_partition(scratch, int(ids[first]), table.slice(first, end - first))
                processes.append(int(ids[first]))
                counts.append(int(end - first))
            bar.update(int(ids.size))
        if columns is None:
            raise GladeError("a trace written by process groups needs at least one group")
        entry = events_entry(columns, arrow, np.asarray(processes), np.asarray(counts), "time")
        write_sidecar(scratch, FORMAT, VERSION, {"events": entry, "definitions": None,
                                                 "metadata": encoded})
    return Path(path)


def _read_partitions(directory: Path, entry: dict) -> tuple[pa.Table | None, np.ndarray]:
    """The partitions concatenated in process order (None for a trace without events),
    and the process of every row."""
    import pyarrow as pa

    from glade.readers.traces.events import progress

    processes, counts = process_counts(directory, entry)
    arrow = field(entry, "arrow", dict, directory / "glade.json")
    tables = []
    with progress(int(counts.sum()), "reading Parquet") as bar:
        for process, count in zip(processes, counts, strict=True):
            tables.append(read_partition(directory, int(process), int(count), arrow))
            bar.update(int(count))
    if not tables:
        return None, processes[:0]
    return pa.concat_tables(tables), np.repeat(processes, counts)


def process_counts(directory: Path, entry: dict) -> tuple[np.ndarray, np.ndarray]:
    """The process ids of the sidecar's ``entry`` and the events of each, checked against
    its ``rows``."""
    sidecar = directory / "glade.json"
    processes = np.asarray(field(entry, "processes", list, sidecar), dtype=np.int64)
    counts = np.asarray(field(entry, "counts", list, sidecar), dtype=np.int64)
    if processes.size != counts.size or counts.sum() != field(entry, "rows", int, sidecar):
        raise ReaderError(sidecar, "sidecar entries 'processes', 'counts' and 'rows' disagree")
    return processes, counts


def read_partition(directory: Path, process: int, count: int, arrow: dict) -> pa.Table:
    """The events of ``process`` (``count`` of them, with the Arrow types ``arrow``) as
    stored; ReaderError naming the file when it is missing, damaged or of another size."""
    import pyarrow.parquet as pq

    path = partition_path(directory, process)
    if not path.is_file():
        raise ReaderError(path, f"is missing: the partition of process {process}")
    try:
        check_schema(pq.read_schema(path), arrow, path)
        table = pq.read_table(path)
    except ReaderError:
        raise
    except (OSError, ValueError) as exc:
        raise ReaderError(path, f"is not a readable Parquet file ({exc})") from exc
    if table.num_rows != count:
        raise ReaderError(path, f"holds {table.num_rows} events, the sidecar says {count}")
    return table


def _trace_order(directory: Path, table: pa.Table, entry: dict, stamps: np.ndarray
                 ) -> np.ndarray:
    """Which concatenated row is each event of the trace."""
    order = entry.get("order")
    if order == "time":
        return np.argsort(stamps, kind="stable")
    if order != "row" or ROW not in table.column_names:
        raise ReaderError(directory / "glade.json", f"sidecar entry 'order' is {order!r} "
                          f"without the {ROW} column it needs")
    rows = table.column(ROW).to_numpy()
    n = rows.size
    if n and (rows.min() < 0 or rows.max() >= n or np.bincount(rows, minlength=n).max() > 1):
        raise ReaderError(directory / EVENTS, f"column {ROW!r} is not a permutation of the "
                          "events' rows")
    position = np.empty(n, dtype=np.int64)
    position[rows] = np.arange(n)
    return position


def from_parquet(path: str | os.PathLike) -> Trace:
    """The Trace stored at ``path`` by :func:`to_parquet`; ReaderError naming the file
    when the directory is not one, is incomplete or damaged."""
    import pyarrow as pa

    from glade.trace.model import Trace

    directory = Path(path)
    body = read_sidecar(directory, FORMAT, VERSION)
    sidecar = directory / "glade.json"
    entry = field(body, "events", dict, sidecar)
    specs = field(entry, "columns", list, sidecar)
    table, processes = _read_partitions(directory, entry)
    if table is None:
        raw = pd.DataFrame({decode_value(spec.get("name")): pd.Series([], dtype=object)
                            for spec in specs})
        take = np.zeros(0, dtype=np.int64)
    else:
        if TIMESTAMP not in table.column_names:
            raise ReaderError(sidecar, f"the events have no {TIMESTAMP!r} column")
        take = _trace_order(directory, table, entry, table.column(TIMESTAMP).to_numpy())
        if ROW in table.column_names:
            table = table.drop_columns([ROW])
        raw = table.take(pa.array(take)).to_pandas()
    columns = {}
    for spec in specs:
        name = decode_value(spec.get("name"))
        values = pd.Series(processes[take]) if name == PROCESS else raw.get(name)
        if values is None:
            raise ReaderError(directory / EVENTS, f"lacks column {name!r}")
        columns[name] = restore(values, spec, directory / EVENTS)
    events = pd.DataFrame(columns)
    definitions = None
    if body.get("definitions") is not None:
        definitions = read_frame(directory / DEFINITIONS, body["definitions"])
    try:
        metadata = decode_value(body.get("metadata", {}))
    except (KeyError, TypeError, ValueError) as exc:
        raise ReaderError(sidecar, f"sidecar entry 'metadata' is malformed ({exc})") from exc
    try:
        return Trace(events, definitions, metadata, copy=False)
    except GladeError as exc:
        raise ReaderError(directory, f"does not hold a valid trace ({exc})") from exc


def detect(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory written by :func:`to_parquet` (never raises)."""
    from glade.parquet import sidecar_format

    return sidecar_format(path) == FORMAT


def read_parquet_trace(path: str | os.PathLike, engine: str = "pandas",
                       npartitions: int | None = None, **kwargs: Any):
    """Reader entry point of ``glade.read_trace`` for a stored trace (``engine="dask"``
    reads it onto Dask, see :meth:`glade.Trace.from_parquet`)."""
    from glade.trace.model import Trace

    if kwargs:
        raise GladeError(f"a glade Parquet trace takes no reading options, not {sorted(kwargs)}")
    return Trace.from_parquet(path, engine=engine, npartitions=npartitions)
