"""Traces as CSV (Pipit's layout): one row per event with the columns
``Timestamp (s), Event Type, Name, Process`` and optionally ``Thread``, then any
attribute columns.

Reading (pyarrow's multithreaded CSV reader, columns typed in bulk): the timestamp
column may also be ``Timestamp (ms)``, ``(us)`` or ``(ns)``; timestamps become int64
nanoseconds (exactly, as long as the file writes them in plain decimal notation).
Extra columns keep their types: numbers stay numbers (``Partner``, ``Tag``,
``Communicator`` and ``Message Size`` become int64 with -1 where empty), text
(dates and times included) becomes categorical; other numeric columns are taken as
metrics (``trace.metric_columns``). When the header has spaces after its commas (as
Pipit's files do), spaces after every comma are skipped, cells of spaces only are
empty and a quoted cell after the spaces is unquoted (it may not hold a comma then).
Gzipped files are read as they are, large files show a progress bar.

Refused, with a :class:`~glade.errors.ReaderError` naming the file and the line (and
column) at fault: a row with another number of cells than the header; a timestamp
that is empty, NaN, infinite, not a number or beyond int64 nanoseconds (2**62 ns,
about 146 years, leaving room for differences); a process or thread id, or an
integer attribute, that is empty (ids), not an integer or beyond 64 bits; a
``Partner`` or ``Message Size`` below -1; an infinite metric value; text that is not
UTF-8; an unknown event type; a Leave that closes an Enter of another name. Kept as
they are: negative timestamps (times before the clock's origin). Repaired, with an
:class:`~glade.trace.matching.UnmatchedEventsWarning` and counts in
``metadata["repairs"]`` at read time: Leaves without an Enter and Enters never left
(see :mod:`glade.trace.matching`).

Writing: the recorded columns (not the derived ones), timestamps in exact decimal
seconds, so that reading the file back gives the same events.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from glade.errors import ReaderError, TraceError
from glade.readers.files import open_regular
from glade.readers.traces.text import (
    GZIP_MAGIC,
    PROGRESS_BYTES,
    category_text,
    check_file,
    decimal,
    exact_integers,
    float_text,
    head,
    int_text,
    open_output,
    open_text_source,
    read_content,
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
    TIME_LIMIT_NS,
    TIMESTAMP,
)
from glade.trace.model import Trace

#: Timestamp columns a CSV trace may have, and their number of decimals in ns.
TIME_COLUMNS = {"Timestamp (s)": 9, "Timestamp (ms)": 6, "Timestamp (us)": 3, "Timestamp (ns)": 0}
INTEGER_ATTRIBUTES = (PARTNER, TAG, COMMUNICATOR, MESSAGE_SIZE)
#: The longest header line read.
HEADER_BYTES = 1 << 16
#: Bytes pyarrow parses per block (each block is parsed by one thread).
BLOCK_BYTES = 4 << 20


def detect(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a file whose first line is a CSV trace header."""
    target = Path(path)
    if not target.is_file():
        return False
    first = head(target).split(b"\n", 1)[0].decode("utf-8", errors="replace")
    cells = [c.strip() for c in first.split(",")]
    return any(c in TIME_COLUMNS for c in cells) and EVENT_TYPE in cells and NAME in cells


def _header(path: Path) -> tuple[list[str], bool]:
    """The column names of the first line, checked; and whether they are spaced (a space
    after a comma)."""
    try:
        with open_text_source(path, False, "CSV header") as source:
            line = source.readline(HEADER_BYTES).decode("utf-8").rstrip("\r\n")
        cells = next(csv.reader([line], skipinitialspace=True), [])
    except (OSError, EOFError, UnicodeDecodeError, csv.Error) as exc:
        raise ReaderError(path, f"cannot read the header line: {exc}") from None
    names = [c.strip() for c in cells]
    times = [c for c in names if c in TIME_COLUMNS]
    if len(times) != 1:
        raise ReaderError(
            path,
            f"needs exactly one timestamp column, one of "
            f"{list(TIME_COLUMNS)}; found {times or 'none'}",
        )
    missing = [c for c in (EVENT_TYPE, NAME, PROCESS) if c not in names]
    if missing:
        raise ReaderError(path, f"lacks the column(s) {missing} (columns: {names})")
    if len(set(names)) != len(names):
        raise ReaderError(path, f"repeats column names: {names}")
    return names, ", " in line


def _arrow_table(path: Path, names: list[str], spaced: bool, progress: bool | None) -> pa.Table:
    """The rows of the CSV file as an Arrow table (pyarrow's multithreaded reader),
    ``Event Type`` and ``Name`` dictionary-encoded, empty cells null (in a spaced file,
    cells of spaces too); text is not checked for UTF-8 here (:func:`_categorical`
    does). The columns of a well-formed trace are read with their types (timestamps
    float64, or int64 in ns; ids and integer attributes int64), which spares pyarrow's
    type inference; when a cell does not convert, the file is read again with inferred
    types, so that the checks can name the line at fault."""
    text = pa.dictionary(pa.int32(), pa.string())
    known = {EVENT_TYPE: text, NAME: text}
    typed = dict(known)
    for name in names:
        if name in TIME_COLUMNS:
            typed[name] = pa.int64() if TIME_COLUMNS[name] == 0 else pa.float64()
        elif name in (PROCESS, THREAD, *INTEGER_ATTRIBUTES):
            typed[name] = pa.int64()
    try:
        return _read_table(path, names, spaced, progress, typed)
    except pa.ArrowInvalid as exc:
        if "conversion error" not in str(exc):
            raise ReaderError(path, f"malformed CSV: {exc}") from None
    return _read_table(path, names, spaced, progress, known)


def _read_table(
    path: Path, names: list[str], spaced: bool, progress: bool | None, types: dict[str, pa.DataType]
) -> pa.Table:
    """The rows of the CSV file read with the column ``types`` (others inferred); a
    conversion error of a typed column is raised as ArrowInvalid."""
    bad_rows: list[str] = []

    def invalid(row) -> str:
        bad_rows.append(row.text)
        return "skip"

    try:
        with _source(path, progress) as source:
            table = pacsv.read_csv(
                source,
                read_options=pacsv.ReadOptions(
                    skip_rows=1, column_names=names, block_size=BLOCK_BYTES
                ),
                parse_options=pacsv.ParseOptions(invalid_row_handler=invalid),
                convert_options=pacsv.ConvertOptions(
                    column_types=types,
                    strings_can_be_null=True,
                    null_values=["", *(" " * k for k in range(1, 9))] if spaced else [""],
                    check_utf8=False,
                    timestamp_parsers=[],
                ),
            )
    except pa.ArrowInvalid as exc:
        if "conversion error" in str(exc):
            raise
        raise ReaderError(path, f"malformed CSV: {exc}") from None
    except (pa.ArrowException, OSError, EOFError) as exc:
        raise ReaderError(path, f"malformed CSV: {exc}") from None
    if bad_rows:
        raise ReaderError(
            path,
            f"malformed CSV: line {_line_of_text(path, bad_rows[0])} "
            f"does not have the header's {len(names)} cells: "
            f"{bad_rows[0][:80]!r}",
        )
    return table.unify_dictionaries()


@contextlib.contextmanager
def _source(path: Path, progress: bool | None) -> Iterator[Any]:
    """The (decompressed) bytes of ``path`` for pyarrow: a Python stream counting them in
    a progress bar when one is shown, else Arrow's own file reading and decompression
    (faster: it reads ahead while other threads parse)."""
    show = path.stat().st_size > PROGRESS_BYTES if progress is None else progress
    if show:
        with open_text_source(path, True, "CSV trace") as source:
            yield source
        return
    with open_regular(path) as raw:
        gzipped = raw.read(2) == GZIP_MAGIC
    with pa.input_stream(str(path), compression="gzip" if gzipped else None) as source:
        yield source


def _line_of_text(path: Path, text: str) -> str:
    """The file line holding the row ``text`` (only on the way to an error: a row that
    pyarrow refused, whose number its parallel parser does not know)."""
    content = bytes(read_content(path, False, "CSV trace"))
    at = content.find(b"\n" + text.encode("utf-8", "surrogateescape") + b"\n")
    return "?" if at < 0 else str(content.count(b"\n", 0, at) + 2)


def _line_of(row: int, order: np.ndarray | None = None) -> int:
    """The file line of data row ``row`` (the header is line 1); with ``order``, ``row``
    is a row of the events sorted by time and ``order`` the sorting permutation."""
    return int(row if order is None else order[row]) + 2


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _numbers(column: pa.ChunkedArray) -> np.ndarray:
    """A numeric Arrow column as numpy (float64 NaN where empty)."""
    if column.null_count:
        return (
            column.to_numpy().astype(np.float64)
            if pa.types.is_integer(column.type)
            else column.fill_null(np.nan).to_numpy()
        )
    return column.to_numpy()


def _text(path: Path, column: pa.ChunkedArray, name: str) -> pa.Array:
    """A text column dictionary-encoded (one dictionary), its dictionary checked as UTF-8;
    ReaderError naming the line of the first value that is not UTF-8."""
    encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
    encoded = encoded.unify_dictionaries() if isinstance(encoded, pa.ChunkedArray) else encoded
    array = encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded
    raw = array.dictionary.cast(pa.binary())
    try:
        raw.cast(pa.string())
    except pa.ArrowInvalid:
        offsets = np.frombuffer(raw.buffers()[1], dtype=np.int32)[: len(raw) + 1]
        data = bytes(raw.buffers()[2])[offsets[0] : offsets[-1]]
        try:
            data.decode("utf-8")
            value = 0
        except UnicodeDecodeError as exc:
            value = int(np.searchsorted(offsets, offsets[0] + exc.start, side="right")) - 1
        row = _first(array.indices.fill_null(-1).to_numpy() == value)
        raise ReaderError(
            path,
            f"line {_line_of(row)}: the value {raw[value].as_py()!r} "
            f"in column {name!r} is not UTF-8 text",
        ) from None
    return array


def _categorical(path: Path, column: pa.ChunkedArray, name: str, spaced: bool) -> pd.Categorical:
    """A text column as a Categorical with sorted categories, empty cells missing. In a
    ``spaced`` file (spaces after the header's commas) leading spaces are skipped and a
    quoted value after them unquoted, as ``skipinitialspace`` does."""
    array = _text(path, column, name)
    values = array.dictionary.cast(pa.string())
    if spaced:
        values = pc.utf8_ltrim(values, characters=" ")
        quoted = pc.and_(
            pc.and_(pc.starts_with(values, '"'), pc.ends_with(values, '"')),
            pc.greater_equal(pc.utf8_length(values), 2),
        )
        inner = pc.replace_substring(pc.utf8_slice_codeunits(values, 1, -1), '""', '"')
        values = pc.if_else(quoted, inner, values)
    labels = np.asarray(values.to_pylist(), dtype=object)
    categories, inverse = np.unique(labels, return_inverse=True)
    table = np.append(inverse.reshape(-1), -1)  # -1: missing (code -1 looks up the end)
    if categories.size and categories[0] == "":  # a cell of spaces only is empty
        table = np.where(table == 0, -1, table - 1)
        categories = categories[1:]
    codes = array.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return pd.Categorical.from_codes(table[codes], categories=categories.astype(str))


def _timestamps(path: Path, table: pa.Table, column: str, whole: bool = True) -> np.ndarray:
    """The timestamp column in exact int64 ns: NaN, infinite and empty cells, and times
    beyond int64 nanoseconds (about 292 years), are ReaderErrors naming the line.
    ``whole``: ``table`` holds the whole file, so timestamps beyond 2**52 ns can be read
    again as text (a block of the file cannot)."""
    digits = TIME_COLUMNS[column]
    values = table.column(column)
    if values.null_count:
        missing = values.is_null().to_numpy(zero_copy_only=False)
        raise ReaderError(path, f"line {_line_of(_first(missing))}: no value in column {column!r}")
    kind = values.type
    if pa.types.is_integer(kind):
        ints = values.to_numpy()
        limit = TIME_LIMIT_NS // 10**digits
        if np.abs(ints).max(initial=0) > limit:
            row = _first(np.abs(ints) > limit)
            raise ReaderError(
                path,
                f"line {_line_of(row)}: {ints[row]} in column {column!r} "
                f"is beyond the int64 nanoseconds glade stores",
            )
        ints = ints.astype(np.int64, copy=False)
        return ints if digits == 0 else ints * 10**digits
    if not pa.types.is_floating(kind):
        _not_numbers(path, values, column, "a number")
    scaled = values.to_numpy() * 10.0**digits
    bad = ~np.isfinite(scaled) | (np.abs(scaled) > TIME_LIMIT_NS)
    if bad.any():
        row = _first(bad)
        raise ReaderError(
            path,
            f"line {_line_of(row)}: {values[row].as_py()} in column "
            f"{column!r} is not a time glade can store (NaN, infinite, "
            f"or beyond int64 nanoseconds)",
        )
    if np.abs(scaled).max(initial=0) < 2.0**52:
        return np.rint(scaled).astype(np.int64)
    if not whole:
        raise ReaderError(
            path,
            f"timestamps beyond 2**52 ns in column {column!r}: read the "
            "file with engine='pandas', which reads them exactly",
        )
    text = _column_text(path, table.column_names.index(column))
    exact = exact_integers(text, digits)
    if exact is None:
        raise ReaderError(
            path,
            f"timestamps beyond 2**52 ns need plain decimal notation with "
            f"at most {digits} decimals in column {column!r}",
        )
    return exact


def _column_text(path: Path, index: int) -> np.ndarray:
    """The cells of column ``index`` as text, read again (for exact decimal timestamps
    and for cells pyarrow would read as dates or times)."""
    with open_text_source(path, False, "CSV trace") as source:
        table = pacsv.read_csv(
            source,
            convert_options=pacsv.ConvertOptions(
                include_columns=[f"f{index}"],
                column_types={f"f{index}": pa.string()},
                check_utf8=False,
                strings_can_be_null=True,
                null_values=[""],
            ),
            read_options=pacsv.ReadOptions(skip_rows=1, autogenerate_column_names=True),
        )
    return np.asarray(table.column(0).to_pylist(), dtype=object)


def _not_numbers(path: Path, column: pa.ChunkedArray, name: str, what: str) -> None:
    """ReaderError naming the first cell of a column read as text (not as numbers) that is
    not a number."""
    text = _categorical(
        path,
        column.cast(pa.string()) if not pa.types.is_dictionary(column.type) else column,
        name,
        spaced=True,
    )
    numbers = (
        pd.to_numeric(pd.Series(np.asarray(text.categories, dtype=object)), errors="coerce")
        .isna()
        .to_numpy()
    )
    bad = np.append(numbers, False)[text.codes]
    row = _first(bad) if bad.any() else 0
    raise ReaderError(path, f"line {_line_of(row)}: {text[row]!r} in column {name!r} is not {what}")


def _integers(path: Path, values: np.ndarray, name: str, fill: int | None) -> np.ndarray:
    """Numbers of a column that holds integers, as int64 (``fill`` where empty; without
    it an empty cell is an error); ReaderError naming the line of a value that is not an
    integer or does not fit 64 bits."""
    if values.dtype.kind in "iu":
        return values.astype(np.int64, copy=False)
    missing = np.isnan(values)
    if missing.any() and fill is None:
        raise ReaderError(path, f"line {_line_of(_first(missing))}: no value in column {name!r}")
    filled = np.where(missing, fill if fill is not None else 0, values)
    bad = ~np.isfinite(filled) | (np.abs(filled) >= 2.0**63) | (filled != np.round(filled))
    if bad.any():
        row = _first(bad)
        raise ReaderError(
            path,
            f"line {_line_of(row)}: {values[row]} in column {name!r} is "
            f"not an integer (column {name!r} holds non-integer values)",
        )
    return filled.astype(np.int64)


def _attribute(path: Path, table: pa.Table, name: str, spaced: bool) -> tuple[object, bool]:
    """An attribute column with its type (see the module doc), and whether it is a
    metric column."""
    column = table.column(name)
    kind = column.type
    if pa.types.is_null(kind):
        return np.full(len(column), np.nan), True
    if pa.types.is_boolean(kind) and not column.null_count:
        return column.to_numpy(), False
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        values = _numbers(column)
        if name in INTEGER_ATTRIBUTES:
            whole = _integers(path, values, name, -1)
            if (whole < -1).any() and name in (PARTNER, MESSAGE_SIZE):
                row = _first(whole < -1)
                raise ReaderError(
                    path, f"line {_line_of(row)}: {whole[row]} in column {name!r} is negative"
                )
            return whole, False
        if values.dtype.kind == "f" and np.isinf(values).any():
            row = _first(np.isinf(values))
            raise ReaderError(
                path, f"line {_line_of(row)}: {values[row]} in metric column {name!r} is infinite"
            )
        return values, True
    if pa.types.is_string(kind) or pa.types.is_dictionary(kind) or pa.types.is_binary(kind):
        return _categorical(path, column, name, spaced), False
    text = pa.chunked_array(
        [pa.array(_column_text(path, table.column_names.index(name)), type=pa.string())]
    )
    return _categorical(path, text, name, spaced), False


def _events(
    path: Path, table: pa.Table, time_column: str, spaced: bool, whole: bool = True
) -> tuple[dict, list[str]]:
    """The event columns of the table, typed and checked, and the metric columns
    (``whole``: the table holds the whole file, see :func:`_timestamps`)."""
    columns: dict[str, Any] = {TIMESTAMP: _timestamps(path, table, time_column, whole)}
    for name in (EVENT_TYPE, NAME):
        values = _categorical(path, table.column(name), name, spaced)
        if (values.codes < 0).any():
            raise ReaderError(
                path, f"line {_line_of(_first(values.codes < 0))}: no value in column {name!r}"
            )
        columns[name] = values
    unknown = ~np.isin(np.asarray(columns[EVENT_TYPE].categories, dtype=str), EVENT_TYPES)
    bad = unknown[columns[EVENT_TYPE].codes]
    if bad.any():
        row = _first(bad)
        raise ReaderError(
            path,
            f"line {_line_of(row)}: unknown event type "
            f"{columns[EVENT_TYPE][row]!r} (expected one of "
            f"{list(EVENT_TYPES)})",
        )
    for name in (PROCESS, THREAD):
        if name in table.column_names:
            column = table.column(name)
            if not (
                pa.types.is_integer(column.type)
                or pa.types.is_floating(column.type)
                or pa.types.is_null(column.type)
            ):
                _not_numbers(path, column, name, "an integer")
            numbers = (
                np.full(len(column), np.nan) if pa.types.is_null(column.type) else _numbers(column)
            )
            columns[name] = _integers(path, numbers, name, None)
    metrics = []
    for name in table.column_names:
        if name not in columns and name != time_column:
            columns[name], is_metric = _attribute(path, table, name, spaced)
            if is_metric:
                metrics.append(name)
    return columns, metrics


def read_csv(
    path: str | os.PathLike,
    progress: bool | None = None,
    engine: str = "pandas",
    npartitions: int | None = None,
):
    """Read a CSV trace (see the module doc); ``progress`` forces the progress bar on or
    off (default: on for files over 64 MiB). ``engine="dask"`` (needs ``glade[dask]``)
    reads the file by blocks on the cluster and partitions the events by process into
    ``npartitions`` partitions: a :class:`~glade.trace.engines.dask_trace.DaskTrace`
    (see :mod:`glade.readers.traces.csv_dask`)."""
    from glade.trace.engines import check_engine, dask_trace_class

    target = check_file(path)
    names, spaced = _header(target)
    if check_engine(engine) == "dask":
        dask_trace_class()
        from glade.readers.traces.csv_dask import read_csv_dask

        return read_csv_dask(target, names, npartitions)
    table = _arrow_table(target, names, spaced, progress)
    time_column = next(c for c in names if c in TIME_COLUMNS)
    columns, metrics = _events(target, table, time_column, spaced)
    del table
    # numbers pyarrow handed over without a copy are read-only: the events are the user's
    columns = {
        k: v.copy() if isinstance(v, np.ndarray) and not v.flags.writeable else v
        for k, v in columns.items()
    }
    stamps = columns[TIMESTAMP]
    order = None
    if stamps.size > 1 and np.any(stamps[1:] < stamps[:-1]):
        order = np.argsort(stamps, kind="stable")
        columns = {k: v[order] for k, v in columns.items()}
    frame = pd.DataFrame(columns, copy=False)
    metadata = {"format": "csv", "source": str(target), "metric_columns": metrics}
    try:
        trace = Trace(frame, metadata=metadata, copy=False)
    except TraceError as exc:
        raise ReaderError(target, str(exc)) from None
    try:
        trace.metadata["repairs"] = trace.repairs()
    except TraceError as exc:
        row = getattr(exc, "row", None)
        where = "" if row is None else f"line {_line_of(row, order)}: "
        raise ReaderError(target, where + str(exc).removeprefix(f"{target}: ")) from None
    return trace


def typed_events(
    target: Path, frame: pd.DataFrame, names: list[str], whole: bool = True
) -> tuple[pd.DataFrame, list[str]]:
    """The rows of the CSV trace ``target`` read by pandas (``frame``, with the header's
    ``names``; a block of the file unless ``whole``) with the types and checks of a
    trace's events, as :func:`read_csv` gives them; and the metric columns. Line numbers
    in errors count from the first row of ``frame``."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    time_column = next(c for c in names if c in TIME_COLUMNS)
    columns, metrics = _events(target, table, time_column, False, whole)
    return pd.DataFrame(columns, copy=False), metrics


def _csv_cell(text: str) -> bytes:
    """``text`` as one CSV cell, quoted where needed (commas, quotes, line breaks, and
    leading spaces, which readers skip after a comma)."""
    if "\x00" in text:
        raise TraceError(f"cannot write the NUL character of {text!r} to CSV")
    buffer = io.StringIO()
    quoting: Literal[0, 1] = csv.QUOTE_ALL if text[:1].isspace() else csv.QUOTE_MINIMAL
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
