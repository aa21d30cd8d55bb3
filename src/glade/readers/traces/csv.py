"""Traces as CSV (Pipit's layout): one row per event with the columns
``Timestamp (s), Event Type, Name, Process`` and optionally ``Thread``, then any
attribute columns.

Reading: the timestamp column may also be ``Timestamp (ms)``, ``(us)`` or ``(ns)``;
timestamps become int64 nanoseconds (exactly, as long as the file writes them in
plain decimal notation). Extra columns keep their types: numbers stay numbers
(``Partner``, ``Tag``, ``Communicator`` and ``Message Size`` become int64 with -1
where empty), text becomes categorical; other numeric columns are taken as metrics
(``trace.metric_columns``). Spaces after commas are ignored, gzipped files are read
as they are, large files show a progress bar. Any problem raises
:class:`~glade.errors.ReaderError` naming the file, and the line where it can.

Writing: the recorded columns (not the derived ones), timestamps in exact decimal
seconds, so that reading the file back gives the same events.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from glade.errors import ReaderError, TraceError
from glade.readers.traces.text import (
    category_text,
    check_file,
    decimal,
    exact_integers,
    float_text,
    head,
    int_text,
    open_output,
    open_text_source,
    write_chunks,
)
from glade.trace.events import (
    COMMUNICATOR,
    EVENT_TYPE,
    EVENT_TYPES,
    MESSAGE_SIZE,
    NAME,
    PARTNER,
    PROCESS,
    TAG,
    THREAD,
    TIMESTAMP,
)
from glade.trace.model import Trace

#: Timestamp columns a CSV trace may have, and their number of decimals in ns.
TIME_COLUMNS = {"Timestamp (s)": 9, "Timestamp (ms)": 6, "Timestamp (us)": 3, "Timestamp (ns)": 0}
INTEGER_ATTRIBUTES = (PARTNER, TAG, COMMUNICATOR, MESSAGE_SIZE)
_STRUCTURE = (EVENT_TYPE, NAME, PROCESS, THREAD)


def detect(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a file whose first line is a CSV trace header."""
    target = Path(path)
    if not target.is_file():
        return False
    first = head(target).split(b"\n", 1)[0].decode("utf-8", errors="replace")
    cells = [c.strip() for c in first.split(",")]
    return any(c in TIME_COLUMNS for c in cells) and EVENT_TYPE in cells and NAME in cells


def _line_of(row: int) -> int:
    """The file line of data row ``row`` (the header is line 1)."""
    return int(row) + 2


def _header(path: Path) -> list[str]:
    """The column names of the first line, checked."""
    try:
        with open_text_source(path, False, "CSV header") as source:
            line = source.readline().decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ReaderError(path, f"cannot read the header line: {exc}") from None
    names = [c.strip() for c in next(csv.reader([line.rstrip("\r\n")], skipinitialspace=True))]
    times = [c for c in names if c in TIME_COLUMNS]
    if len(times) != 1:
        raise ReaderError(path, f"needs exactly one timestamp column, one of "
                                f"{list(TIME_COLUMNS)}; found {times or 'none'}")
    missing = [c for c in (EVENT_TYPE, NAME, PROCESS) if c not in names]
    if missing:
        raise ReaderError(path, f"lacks the column(s) {missing} (columns: {names})")
    if len(set(names)) != len(names):
        raise ReaderError(path, f"repeats column names: {names}")
    return names


def _load(path: Path, names: list[str], progress: bool | None) -> pd.DataFrame:
    dtype = {EVENT_TYPE: "category", NAME: "category"}
    try:
        with open_text_source(path, progress, "CSV trace") as source:
            frame = pd.read_csv(source, skipinitialspace=True, dtype=dtype, low_memory=False,
                                encoding="utf-8")
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError, OSError, EOFError) as exc:
        raise ReaderError(path, f"malformed CSV: {exc}") from None
    if len(frame.columns) != len(names):
        raise ReaderError(path, f"the header names {len(names)} columns, the rows have "
                                f"{len(frame.columns)}")
    frame.columns = names
    return frame


def _timestamps(path: Path, frame: pd.DataFrame, column: str, whole: bool = True
                ) -> np.ndarray:
    """The timestamp column in exact int64 ns (``whole``: ``frame`` is the whole file, so
    timestamps beyond 2**52 ns can be read again as text)."""
    digits = TIME_COLUMNS[column]
    values = frame[column]
    if values.isna().any():
        raise ReaderError(path, f"line {_line_of(np.flatnonzero(values.isna())[0])}: "
                                f"no value in column {column!r}")
    if pd.api.types.is_integer_dtype(values):
        return values.to_numpy(dtype=np.int64) * 10**digits
    if not pd.api.types.is_float_dtype(values):
        bad = pd.to_numeric(values, errors="coerce").isna().to_numpy()
        row = np.flatnonzero(bad)[0]
        raise ReaderError(path, f"line {_line_of(row)}: {values.iat[row]!r} in column "
                                f"{column!r} is not a number")
    scaled = values.to_numpy() * 10.0**digits
    if np.abs(scaled).max() < 2.0**52:
        return np.rint(scaled).astype(np.int64)
    if not whole:
        raise ReaderError(path, f"timestamps beyond 2**52 ns in column {column!r}: read the "
                                "file with engine='pandas', which reads them exactly")
    text = pd.read_csv(path, usecols=[frame.columns.get_loc(column)], dtype=str,
                       skipinitialspace=True).iloc[:, 0].to_numpy(dtype="U")
    exact = exact_integers(text, digits)
    if exact is None:
        raise ReaderError(path, f"timestamps beyond 2**52 ns need plain decimal notation with "
                                f"at most {digits} decimals in column {column!r}")
    return exact


def _check_event_types(path: Path, frame: pd.DataFrame) -> None:
    kinds = frame[EVENT_TYPE]
    if kinds.isna().any():
        raise ReaderError(path, f"line {_line_of(np.flatnonzero(kinds.isna())[0])}: "
                                f"no value in column {EVENT_TYPE!r}")
    known = np.isin(np.asarray(kinds.cat.categories, dtype=str), EVENT_TYPES)
    bad = ~known[kinds.cat.codes.to_numpy()]
    if bad.any():
        row = np.flatnonzero(bad)[0]
        raise ReaderError(path, f"line {_line_of(row)}: unknown event type {kinds.iat[row]!r} "
                                f"(expected one of {list(EVENT_TYPES)})")


def _typed_columns(path: Path, frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Attribute columns with their types: integer attributes as int64 (-1 where empty),
    text as categorical; and the names of the numeric metric columns."""
    metrics = []
    for name in frame.columns:
        if name in _STRUCTURE or name == TIMESTAMP:
            continue
        values = frame[name]
        if name in INTEGER_ATTRIBUTES and pd.api.types.is_numeric_dtype(values):
            filled = values.fillna(-1).to_numpy()
            whole = filled.astype(np.int64)
            if not np.array_equal(whole, filled):
                row = np.flatnonzero(whole != filled)[0]
                raise ReaderError(path, f"line {_line_of(row)}: {values.iat[row]} in column "
                                        f"{name!r} is not an integer")
            frame[name] = whole
        elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            metrics.append(name)
        elif not pd.api.types.is_bool_dtype(values):
            frame[name] = values.astype("category")
    return frame, metrics


def read_csv(path: str | os.PathLike, progress: bool | None = None, engine: str = "pandas",
             npartitions: int | None = None):
    """Read a CSV trace (see the module doc); ``progress`` forces the progress bar on or
    off (default: on for files over 64 MiB). ``engine="dask"`` (needs ``glade[dask]``)
    reads the file by blocks on the cluster and partitions the events by process into
    ``npartitions`` partitions: a :class:`~glade.trace.engines.dask_trace.DaskTrace`
    (see :mod:`glade.trace.engines.readers`)."""
    from glade.trace.engines import check_engine, dask_trace_class

    target = check_file(path)
    names = _header(target)
    if check_engine(engine) == "dask":
        dask_trace_class()
        from glade.trace.engines.readers import read_csv_dask

        return read_csv_dask(target, names, npartitions)
    frame = _load(target, names, progress)
    frame, metrics = typed_events(target, frame, names)
    metadata = {"format": "csv", "source": str(target), "metric_columns": metrics}
    try:
        return Trace(frame, metadata=metadata, copy=False)
    except TraceError as exc:
        raise ReaderError(target, str(exc)) from None


def typed_events(target: Path, frame: pd.DataFrame, names: list[str], whole: bool = True
                 ) -> tuple[pd.DataFrame, list[str]]:
    """The rows of the CSV trace ``target`` (``frame``, with the header's ``names``) with
    the types of a trace's events: timestamps in int64 ns first, event types and
    processes checked, attribute columns typed; and the metric columns. ``whole``:
    ``frame`` holds the whole file (else a block of it)."""
    time_column = next(c for c in names if c in TIME_COLUMNS)
    stamps = _timestamps(target, frame, time_column, whole)
    frame = frame.drop(columns=[time_column])
    frame.insert(0, TIMESTAMP, stamps)
    _check_event_types(target, frame)
    for name in (PROCESS, THREAD):
        if name in frame.columns and frame[name].isna().any():
            row = np.flatnonzero(frame[name].isna())[0]
            raise ReaderError(target, f"line {_line_of(row)}: no value in column {name!r}")
    return _typed_columns(target, frame)


def _csv_cell(text: str) -> bytes:
    """``text`` as one CSV cell, quoted where needed (commas, quotes, line breaks, and
    leading spaces, which readers skip after a comma)."""
    if "\x00" in text:
        raise TraceError(f"cannot write the NUL character of {text!r} to CSV")
    buffer = io.StringIO()
    quoting = csv.QUOTE_ALL if text[:1].isspace() else csv.QUOTE_MINIMAL
    csv.writer(buffer, quoting=quoting, lineterminator="").writerow([text])
    return buffer.getvalue().encode()


def _cells(column: pd.Series, rows: slice) -> np.ndarray:
    """The CSV cells of ``column`` at ``rows``."""
    part = column.iloc[rows]
    if isinstance(part.dtype, pd.CategoricalDtype):
        return category_text(part, _csv_cell, b"")
    values = part.to_numpy()
    if values.dtype.kind in "iu":
        return int_text(values)
    if values.dtype.kind == "f":
        return float_text(values)
    if values.dtype.kind == "b":
        return np.where(values, b"True", b"False")
    as_text = part.astype("category")
    return category_text(as_text, _csv_cell, b"")


def write_csv(trace: Trace, path: str | os.PathLike, unit: str = "s") -> None:
    """Write the recorded columns of ``trace`` as CSV (gzipped when ``path`` ends in
    ``.gz``), timestamps in exact decimal ``unit`` (``"s"``, ``"ms"``, ``"us"`` or
    ``"ns"``)."""
    header = f"Timestamp ({unit})"
    if header not in TIME_COLUMNS:
        raise TraceError(f"unit must be one of s, ms, us, ns, not {unit!r}")
    digits = TIME_COLUMNS[header]
    events = trace.events
    columns = [c for c in trace.recorded_columns() if c != TIMESTAMP]
    first = [c for c in (EVENT_TYPE, NAME, PROCESS, THREAD) if c in columns]
    columns = first + [c for c in columns if c not in first]
    stamps = events[TIMESTAMP].to_numpy()

    def render(rows: slice) -> list[np.ndarray | bytes]:
        pieces: list[np.ndarray | bytes] = [decimal(stamps[rows], digits)]
        for name in columns:
            pieces += [b",", _cells(events[name], rows)]
        return pieces

    with open_output(path) as out:
        out.write(b",".join(_csv_cell(c) for c in [header, *columns]) + b"\n")
        write_chunks(out, len(events), render, "CSV trace")
