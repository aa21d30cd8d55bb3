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
every column of a partition file), ``order`` and ``nesting`` (per process, in the order of
``processes``, how many ``orphan_leaves`` and ``open_enters`` matching the events repairs
(see :mod:`glade.trace.nesting`); null when a Leave closes an Enter of another name,
absent in stores of earlier glade). The trace's events are the partitions
concatenated in process order, then stably sorted by timestamp (``order: "time"``:
events at the same time ordered by process); a trace whose equal timestamps are in
another order, or that holds reference columns (``_matching_event``, ``_parent``: rows
of the trace), is stored in ``order: "row"`` with ``__glade_row__`` (int64), each
event's row in the trace (a reader on Dask takes these rows as event ids). Beside
them: ``definitions`` (the table's spec, or null) and ``metadata`` (lossless JSON,
:func:`glade.parquet.encode_value`).

Reading checks what the trace readers check of a file, so that a damaged store fails
at read with a :class:`~glade.errors.ReaderError` naming its file (and column and row),
never later: the sidecar's entries, every partition's Arrow types and number of rows,
its timestamps in time order and under 2**62 ns in magnitude (as the readers'; writing
refuses larger ones), ``__glade_row__`` a permutation in time order, the dtypes and
categories of the columns, and that the calls nest as the sidecar's ``nesting`` records,
per process (one vectorized pass over the events, :func:`glade.trace.nesting.nesting`).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.parquet import (
    MALFORMED,
    arrow_types,
    check_inside,
    check_schema,
    column_spec,
    decode_value,
    encode_value,
    field,
    integers,
    new_directory,
    read_frame,
    read_sidecar,
    restore,
    write_frame,
    write_sidecar,
    write_table,
)
from glade.trace.events import NAME, PROCESS, THREAD, TIME_LIMIT_NS, TIMESTAMP, beyond_time_limit
from glade.trace.matching import MATCHING_EVENT, PARENT, event_kinds, integer_codes
from glade.trace.nesting import nesting

if TYPE_CHECKING:
    import pyarrow as pa

    from glade.trace.model import Trace

FORMAT = "glade-trace"
VERSION = 1
EVENTS = "events"
DEFINITIONS = "definitions.parquet"
ROW = "__glade_row__"
#: Derived columns whose values are rows of the trace (event ids on Dask).
REFERENCE_COLUMNS = (MATCHING_EVENT, PARENT)


def partition_path(directory: Path, process: int) -> Path:
    """The file holding the events of ``process`` in the store at ``directory``."""
    return directory / EVENTS / f"{PROCESS}={process}" / "part-0.parquet"


def write_partition(directory: Path, process: int, table: pa.Table) -> int:
    """Write the events of one process (an Arrow table without ``Process``); returns
    how many."""
    path = partition_path(directory, process)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_table(table, path)
    return table.num_rows


class PartitionWriter:
    """Writes the partitions of a store on a few threads (pyarrow encodes and compresses
    without holding the GIL), with a few partitions in flight at most, so memory stays
    bounded; each finished partition advances the progress bar ``bar``. Use it as a
    context manager: leaving the block waits for every write (and raises its error)."""

    def __init__(self, directory: Path, bar: Any):
        self.directory, self.bar = directory, bar
        self.workers = max(1, min(4, os.cpu_count() or 1))
        self.pending: deque[Future] = deque()

    def __enter__(self) -> PartitionWriter:
        self.pool = ThreadPoolExecutor(self.workers)
        return self

    def write(self, process: int, table: pa.Table) -> None:
        """Write ``table`` as the partition of ``process``, waiting first when enough
        partitions are in flight."""
        if len(self.pending) >= 2 * self.workers:
            self._finish(self.pending.popleft())
        self.pending.append(self.pool.submit(write_partition, self.directory, process, table))

    def _finish(self, future: Future) -> None:
        self.bar.update(future.result())

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        try:
            while self.pending and kind is None:
                self._finish(self.pending.popleft())
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)


def arrow_events(events: pd.DataFrame) -> pa.Table:
    """The columns of an events table but ``Process`` as an Arrow table, built column by
    column (numeric columns without a copy; categoricals as dictionaries); GladeError
    naming a column that Parquet cannot hold."""
    import pyarrow as pa

    arrays = {}
    for name in events.columns:
        if not isinstance(name, str):
            raise GladeError(f"cannot store events column {name!r}: Parquet column names are text")
        if name == PROCESS:
            continue
        try:
            arrays[name] = pa.Array.from_pandas(events[name])
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise GladeError(
                f"cannot store events column {name!r}: one type per column is needed ({exc})"
            ) from exc
    return pa.table(arrays)


def in_time_then_process_order(stamps: np.ndarray, processes: np.ndarray) -> bool:
    """Whether events already sorted by time have equal timestamps ordered by process
    (then the partitions, merged stably by time, give them back in this order)."""
    tie = stamps[1:] == stamps[:-1]
    return not np.any(tie & (processes[1:] < processes[:-1]))


def events_entry(
    columns: list[dict],
    arrow: dict[str, str],
    processes: np.ndarray,
    counts: np.ndarray,
    order: str,
    nested: dict | None,
) -> dict:
    """The sidecar's description of the events (``nested``: see :func:`nesting_counts`)."""
    return {
        "rows": int(counts.sum()),
        "order": order,
        "columns": columns,
        "arrow": arrow,
        "processes": [int(p) for p in processes],
        "counts": [int(c) for c in counts],
        "nesting": nested,
    }


def nesting_counts(events: pd.DataFrame, kinds: np.ndarray | None = None) -> dict | None:
    """Per process of ``events`` (ascending ids) how many ``orphan_leaves`` and
    ``open_enters`` matching repairs, as the sidecar's ``nesting`` holds them; None when a
    Leave closes an Enter of another name (then nothing is recorded to check)."""
    found = _nesting_of(events, event_kinds(events) if kinds is None else kinds)
    if found.mismatch >= 0:
        return None
    codes, processes = integer_codes(events[PROCESS].to_numpy())
    return {
        key: np.bincount(codes[rows], minlength=processes.size).tolist()
        for key, rows in (
            ("orphan_leaves", found.orphan_leaves),
            ("open_enters", found.open_enters),
        )
    }


def _nesting_of(events: pd.DataFrame, kinds: np.ndarray):
    names = events[NAME]
    column = names.array if isinstance(names.dtype, pd.CategoricalDtype) else pd.Categorical(names)
    return nesting(kinds, column, events[PROCESS].to_numpy(), events[THREAD].to_numpy())


def check_nesting_counts(directory: Path, entry: dict, events: pd.DataFrame) -> None:
    """ReaderError naming the partition file, the row and the columns when the calls of
    ``events`` (whole processes of the store at ``directory``, in trace order) do not
    nest as the sidecar's ``entry`` records (nothing to check when it records nothing)."""
    recorded = entry.get("nesting")
    if recorded is None or not len(events):
        return
    sidecar = directory / "glade.json"
    stored = integers(entry, "processes", sidecar)
    lists = [field(recorded, k, list, sidecar) for k in ("orphan_leaves", "open_enters")]
    if any(len(v) != stored.size for v in lists):
        raise ReaderError(sidecar, "sidecar entry 'nesting' does not list every process")
    found = _nesting_of(events, event_kinds(events))
    processes = events[PROCESS].to_numpy()

    def where(event: int) -> tuple[Path, str]:
        process = int(processes[event])
        row = int(np.count_nonzero(processes[:event] == process))
        return partition_path(directory, process), f"row {row}"

    if found.mismatch >= 0:
        path, row = where(found.mismatch)
        raise ReaderError(
            path,
            f"{row}: the Leave of {events[NAME].iat[found.mismatch]!r} closes an Enter of "
            "another name (columns 'Event Type', 'Name'): the calls stored nested",
        )
    codes, present = integer_codes(processes)
    at = np.searchsorted(stored, present)
    for key, rows, want in zip(
        ("orphan_leaves", "open_enters"),
        (found.orphan_leaves, found.open_enters),
        lists,
        strict=True,
    ):
        got = np.bincount(codes[rows], minlength=present.size)
        expected = integers({key: want}, key, sidecar)[at]
        differ = np.flatnonzero(got != expected)
        if differ.size:
            process = int(present[differ[0]])
            mine = rows[processes[rows] == process]
            path, row = (
                where(int(mine[0])) if mine.size else (partition_path(directory, process), "")
            )
            what = "Leaves without an Enter" if key == "orphan_leaves" else "Enters never left"
            raise ReaderError(
                path,
                f"{row + ': ' if row else ''}holds {int(got[differ[0]])} {what} (column "
                f"'Event Type'), the sidecar records {int(expected[differ[0]])}",
            )


def check_time_limit(stamps: np.ndarray) -> None:
    """GladeError when a timestamp is beyond what the readers accept (a store holds only
    what it can read back)."""
    if stamps.size and (stamps.max() >= TIME_LIMIT_NS or stamps.min() <= -TIME_LIMIT_NS):
        raise GladeError(
            f"a trace with timestamps of {TIME_LIMIT_NS} ns or more in magnitude cannot be "
            "stored (no reader accepts them)"
        )


def to_parquet(trace: Trace, path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write ``trace`` into the new directory ``path`` (see the module docstring), with a
    progress bar for large traces; returns the directory. Nothing is left at ``path``
    when writing fails."""
    import pyarrow as pa

    from glade.progress import progress

    events = trace.events
    if ROW in events.columns:
        raise GladeError(f"a trace with a column named {ROW!r} cannot be stored")
    metadata = encode_value(trace.metadata)
    check_time_limit(events[TIMESTAMP].to_numpy())
    codes, processes = trace.process_codes()
    counts = np.bincount(codes, minlength=processes.size)
    stamps = events[TIMESTAMP].to_numpy()
    # rows named by reference columns: kept as they are, with each event's row (so a
    # reader on Dask, whose event ids are then these rows, needs no global sort)
    refers = any(c in events.columns for c in REFERENCE_COLUMNS)
    order = (
        "time"
        if not refers and in_time_then_process_order(stamps, events[PROCESS].to_numpy())
        else "row"
    )
    nested = nesting_counts(events, trace.event_kinds())
    table = arrow_events(events)
    if order == "row":
        table = table.append_column(ROW, pa.array(np.arange(len(events), dtype=np.int64)))
    # a stable sort of small integers is a radix sort: linear in the events
    small = codes.astype(np.int16) if processes.size < 2**15 else codes
    by_process = np.argsort(small, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    columns = [column_spec(name, events[name]) for name in events.columns]
    with new_directory(path, overwrite) as scratch:
        with (
            progress(len(events), "writing Parquet") as bar,
            PartitionWriter(scratch, bar) as writer,
        ):
            for i, process in enumerate(processes):
                rows = pa.array(by_process[starts[i] : starts[i + 1]])
                writer.write(int(process), table.take(rows))
        definitions = None
        if trace.definitions is not None:
            definitions = write_frame(trace.definitions, scratch / DEFINITIONS)
        entry = events_entry(columns, arrow_types(table.schema), processes, counts, order, nested)
        write_sidecar(
            scratch,
            FORMAT,
            VERSION,
            {"events": entry, "definitions": definitions, "metadata": metadata},
        )
    return Path(path)


def write_process_groups(
    path: str | os.PathLike,
    groups: Iterable[pd.DataFrame],
    rows: int,
    metadata: dict,
    overwrite: bool = False,
) -> Path:
    """Store a trace given as a stream of event tables, one group of processes at a
    time, so that a trace larger than memory can be written: every table holds whole
    processes, in increasing process order across tables, each process's events in
    time order, all tables with the same columns and dtypes. ``rows`` (the events in
    all) sizes the progress bar. Nothing is left at ``path`` when writing fails."""
    from glade.progress import progress

    encoded = encode_value(metadata)
    processes: list[int] = []
    counts: list[int] = []
    nested: dict | None = {"orphan_leaves": [], "open_enters": []}
    columns = arrow = None
    with new_directory(path, overwrite) as scratch, progress(rows, "writing Parquet") as bar:
        with PartitionWriter(scratch, bar) as writer:
            for frame in groups:
                specs = [column_spec(name, frame[name]) for name in frame.columns]
                if columns is not None and specs != columns:
                    raise GladeError("the groups of a trace must have the same columns and dtypes")
                columns = specs
                ids = frame[PROCESS].to_numpy()
                starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
                if processes and ids.size and ids[0] <= processes[-1]:
                    raise GladeError("the groups of a trace must come in increasing process order")
                stamps = frame[TIMESTAMP].to_numpy()
                check_time_limit(stamps)
                if np.any((stamps[1:] < stamps[:-1]) & (ids[1:] == ids[:-1])):
                    raise GladeError("the events of each process must come in time order")
                group = nesting_counts(frame)
                nested = (
                    None
                    if group is None or nested is None
                    else {k: nested[k] + group[k] for k in nested}
                )
                table = arrow_events(frame)
                arrow = arrow_types(table.schema)
                ends = np.concatenate([starts[1:], [ids.size]])
                for first, end in zip(starts, ends, strict=True):
                    writer.write(int(ids[first]), table.slice(first, end - first))
                    processes.append(int(ids[first]))
                    counts.append(int(end - first))
        if columns is None:
            raise GladeError("a trace written by process groups needs at least one group")
        assert arrow is not None  # set with columns
        entry = events_entry(
            columns, arrow, np.asarray(processes), np.asarray(counts), "time", nested
        )
        write_sidecar(
            scratch, FORMAT, VERSION, {"events": entry, "definitions": None, "metadata": encoded}
        )
    return Path(path)


def _read_partitions(directory: Path, entry: dict) -> tuple[pa.Table | None, np.ndarray]:
    """The partitions concatenated in process order (None for a trace without events),
    and the process of every row."""
    from glade.progress import progress

    processes, counts = process_counts(directory, entry)
    arrow = field(entry, "arrow", dict, directory / "glade.json")
    tables = []
    with progress(int(counts.sum()), "reading Parquet") as bar:
        for process, count in zip(processes, counts, strict=True):
            tables.append(read_partition(directory, int(process), int(count), arrow))
            bar.update(int(count))
    if not tables:
        return None, processes[:0]
    return concat_partitions(directory, tables), np.repeat(processes, counts)


def concat_partitions(directory: Path, tables: list[pa.Table]) -> pa.Table:
    """The partitions ``tables`` (checked by :func:`read_partition`) as one table: a
    categorical column stored as a dictionary in one file and as plain values in
    another, or columns in another order, are read by value; ReaderError naming the
    store's events otherwise."""
    import pyarrow as pa

    try:
        return pa.concat_tables(tables)
    except pa.ArrowInvalid:
        names = tables[0].column_names
        plain = [
            pa.table(
                {
                    n: (c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c)
                    for n, c in zip(names, t.select(names).columns, strict=True)
                }
            )
            for t in tables
        ]
    try:
        return pa.concat_tables(plain)
    except pa.ArrowInvalid as exc:
        raise ReaderError(
            directory / EVENTS, f"partitions hold columns of different types ({exc})"
        ) from exc


def process_counts(directory: Path, entry: dict) -> tuple[np.ndarray, np.ndarray]:
    """The process ids of the sidecar's ``entry`` and the events of each, checked against
    its ``rows``."""
    sidecar = directory / "glade.json"
    processes = integers(entry, "processes", sidecar)
    counts = integers(entry, "counts", sidecar)
    if (
        processes.size != counts.size
        or (counts < 0).any()
        or counts.sum() != field(entry, "rows", int, sidecar)
    ):
        raise ReaderError(sidecar, "sidecar entries 'processes', 'counts' and 'rows' disagree")
    return processes, counts


def read_partition(directory: Path, process: int, count: int, arrow: dict) -> pa.Table:
    """The events of ``process`` (``count`` of them, with the Arrow types ``arrow``) as
    stored; ReaderError naming the file when it is missing, damaged or of another size."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = partition_path(directory, process)
    if not path.is_file():
        raise ReaderError(path, f"is missing: the partition of process {process}")
    check_inside(path, directory)
    try:
        # one open, without the dataset machinery of pq.read_table: a third of the CPU
        # of reading a process's file
        with pq.ParquetFile(path) as file:
            check_schema(file.schema_arrow, arrow, path)
            table = file.read()
    except ReaderError:
        raise
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise ReaderError(path, f"is not a readable Parquet file ({exc})") from exc
    if table.num_rows != count:
        raise ReaderError(path, f"holds {table.num_rows} events, the sidecar says {count}")
    if TIMESTAMP in table.column_names:
        stamps = table.column(TIMESTAMP).to_numpy()
        wild = beyond_time_limit(stamps)
        if wild.any():
            row = int(np.argmax(wild))
            raise ReaderError(
                path,
                f"row {row}: column {TIMESTAMP!r} holds {int(stamps[row])}, beyond the "
                f"{TIME_LIMIT_NS} ns a trace may hold",
            )
        back = stamps[1:] < stamps[:-1]
        if back.any():
            row = int(np.argmax(back)) + 1
            raise ReaderError(
                path,
                f"row {row}: column {TIMESTAMP!r} holds {int(stamps[row])} after "
                f"{int(stamps[row - 1])}: a partition holds its events in time order",
            )
    return table


def _trace_order(directory: Path, table: pa.Table, entry: dict, stamps: np.ndarray) -> np.ndarray:
    """Which concatenated row is each event of the trace."""
    order = entry.get("order")
    if order == "time":
        return np.argsort(stamps, kind="stable")
    if order != "row" or ROW not in table.column_names:
        raise ReaderError(
            directory / "glade.json",
            f"sidecar entry 'order' is {order!r} without the {ROW} column it needs",
        )
    rows = table.column(ROW).to_numpy()
    n = rows.size
    if n and (rows.min() < 0 or rows.max() >= n or np.bincount(rows, minlength=n).max() > 1):
        raise ReaderError(
            directory / EVENTS, f"column {ROW!r} is not a permutation of the events' rows"
        )
    position = np.empty(n, dtype=np.int64)
    position[rows] = np.arange(n)
    ordered = stamps[position]
    back = ordered[1:] < ordered[:-1]
    if back.any():
        row = int(np.argmax(back)) + 1
        raise ReaderError(
            directory / EVENTS,
            f"column {ROW!r} puts the event at {int(ordered[row])} ns after one at "
            f"{int(ordered[row - 1])} ns (row {row} of the trace): events are in time order",
        )
    return position


def _in_trace_order(values: pd.Series, take: np.ndarray) -> np.ndarray | Any:
    """The values of a column, read in partition order, in the trace's order."""
    if isinstance(values.dtype, np.dtype):
        return values.to_numpy()[take]
    return values.array.take(take)


def from_parquet(path: str | os.PathLike) -> Trace:
    """The Trace stored at ``path`` by :func:`to_parquet`; ReaderError naming the file
    when the directory is not one, is incomplete or damaged."""
    from glade.trace.model import Trace

    directory = Path(path)
    body = read_sidecar(directory, FORMAT, VERSION)
    sidecar = directory / "glade.json"
    entry = field(body, "events", dict, sidecar)
    specs = field(entry, "columns", list, sidecar)
    for spec in specs:  # events columns are named by text
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise ReaderError(
                sidecar, f"sidecar entry 'columns' holds {spec!r}, not a column's description"
            )
    names = [spec["name"] for spec in specs]
    for key in ("definitions", "metadata"):
        if key not in body:
            raise ReaderError(sidecar, f"sidecar entry {key!r} is missing")
    table, processes = _read_partitions(directory, entry)
    if table is None:
        raw = pd.DataFrame({name: pd.Series([], dtype=object) for name in names})
        take = np.zeros(0, dtype=np.int64)
    else:
        if TIMESTAMP not in table.column_names:
            raise ReaderError(sidecar, f"the events have no {TIMESTAMP!r} column")
        take = _trace_order(directory, table, entry, table.column(TIMESTAMP).to_numpy())
        if ROW in table.column_names:
            table = table.drop_columns([ROW])
        raw = table.to_pandas(split_blocks=True, self_destruct=True)
        del table
    columns = {}
    for name, spec in zip(names, specs, strict=True):
        values = pd.Series(processes, copy=False) if name == PROCESS else raw.get(name)
        if values is None:
            raise ReaderError(directory / EVENTS, f"lacks column {name!r}")
        columns[name] = _in_trace_order(restore(values, spec, directory / EVENTS), take)
    del raw
    events = pd.DataFrame(columns, copy=False)
    definitions = None
    if body.get("definitions") is not None:
        definitions = read_frame(directory / DEFINITIONS, body["definitions"])
    try:
        metadata = decode_value(body.get("metadata", {}), sidecar, "metadata")
    except ReaderError:
        raise
    except MALFORMED as exc:
        raise ReaderError(sidecar, f"sidecar entry 'metadata' is malformed ({exc})") from exc
    try:
        trace = Trace(events, definitions, metadata, copy=False)
        check_nesting_counts(directory, entry, trace.events)
    except ReaderError:
        raise
    except GladeError as exc:
        raise ReaderError(directory, f"does not hold a valid trace ({exc})") from exc
    return trace


def detect(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory written by :func:`to_parquet` (never raises)."""
    from glade.parquet import sidecar_format

    return sidecar_format(path) == FORMAT


def read_parquet_trace(
    path: str | os.PathLike, engine: str = "pandas", npartitions: int | None = None, **kwargs: Any
):
    """Reader entry point of ``glade.read_trace`` for a stored trace (``engine="dask"``
    reads it onto Dask, see :meth:`glade.Trace.from_parquet`)."""
    from glade.trace.model import Trace

    if kwargs:
        raise GladeError(f"a glade Parquet trace takes no reading options, not {sorted(kwargs)}")
    return Trace.from_parquet(path, engine=engine, npartitions=npartitions)
