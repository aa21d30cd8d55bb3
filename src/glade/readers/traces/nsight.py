"""NVIDIA Nsight Systems traces: the SQLite export (``nsys export --type sqlite``) and
the CSV of NVTX push/pop ranges (``nsys stats --report nvtx_pushpop_trace --format csv``).

From the SQLite export (tables as in NVIDIA's "SQLite Export Schema Reference";
each is optional):

- ``NVTX_EVENTS``: push/pop ranges (``eventType`` 59) become Enter/Leave events on
  their thread, marks (34) Instant events; the name is ``text`` or, where that is
  NULL, the ``StringIds`` entry of ``textId``. Start/end ranges (60) may overlap
  without nesting, so they are left out (counted in ``metadata``), as are ranges
  that never ended.
- ``CUPTI_ACTIVITY_KIND_RUNTIME``: CUDA API calls, Enter/Leave on their thread,
  named from ``StringIds``.
- ``CUPTI_ACTIVITY_KIND_KERNEL``, ``..._MEMCPY``, ``..._MEMSET``: GPU work, Enter/Leave
  on a lane per GPU stream: kernels named by ``shortName``, copies ``Memcpy <kind>``,
  fills ``Memset``, with ``Bytes``.
- ``GPU_METRICS`` with ``TARGET_INFO_GPU_METRICS`` (``nsys profile
  --gpu-metrics-devices``): every sample (``timestamp``, ``typeId``, ``metricId``,
  ``value``) becomes an Instant named by its metric's ``metricName`` (the row of
  ``TARGET_INFO_GPU_METRICS`` with its ``typeId`` and ``metricId``) with the value in
  the ``GPU Metric`` column, and each metric a counter of ``trace.counters``
  (``metadata["counters"]``, see :mod:`glade.trace.counters`), so that a timeline draws
  it as a line track. A GPU is not a process: the samples of GPU ``d`` (the low byte of
  ``typeId``) go to the lane ``Thread`` = -(1,000,000 x (d + 1)) of every process whose
  kernels, copies or fills ran on device ``d``, beside its stream lanes; samples of a
  GPU where no process of the export ran work are left out (counted in ``metadata``).
  NVIDIA's schema reference for these tables could not be consulted when this was
  written: the columns are those of the User Guide's example query (GPU Metrics,
  "Exporting and Querying Data": ``GPU_METRICS`` joined with ``TARGET_INFO_GPU_METRICS``
  on ``metricId``, selected by ``metricName``); the GPU in the low byte of ``typeId``
  follows BSC's ``nsys2prv`` converter, not NVIDIA's text.

``Process`` and ``Thread`` are the OS process and thread ids decoded from
``globalTid``/``globalPid`` (pid = bits 24-47, tid = bits 0-23). A GPU stream's lane
is ``Thread`` = -(1 + 1,000,000 x device + stream) of the launching process, with
``Device`` and ``Stream`` columns (-1 on CPU events). ``Correlation`` links a CUDA API
call to the GPU work it launched. Timestamps are the export's nanoseconds.
"""

from __future__ import annotations

import io
import os
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError, shown
from glade.readers.files import open_regular, read_head
from glade.readers.traces.events import (
    build_trace,
    categorical,
    event_types,
    ranges_to_events,
)
from glade.trace.events import (
    ENTER,
    EVENT_TYPE,
    INSTANT,
    NAME,
    PROCESS,
    THREAD,
    TIME_LIMIT_NS,
    TIMESTAMP,
    beyond_time_limit,
)
from glade.trace.model import Trace
from glade.trace.nesting import check_nesting

DEVICE, STREAM, CORRELATION, BYTES = "Device", "Stream", "Correlation", "Bytes"
GPU_METRIC = "GPU Metric"
NVTX_MARK, NVTX_PUSH_POP, NVTX_START_END = 34, 59, 60
SOURCES = ("nvtx", "cuda_api", "gpu", "gpu_metrics")
_GPU_TABLES = (
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
)
_SQLITE_MAGIC = b"SQLite format 3\x00"
_CSV_COLUMNS = ("Start", "End", "Name", "PID", "TID")
_UNITS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}
# ENUM_CUDA_MEMCPY_OPER, for exports that lack the table
_COPY_KINDS = {
    1: "HtoD",
    2: "DtoH",
    3: "HtoA",
    4: "AtoH",
    5: "AtoA",
    6: "AtoD",
    7: "DtoA",
    8: "DtoD",
    9: "HtoH",
    10: "PtoP",
}


def detect(path: Path) -> bool:
    """Whether ``path`` is an SQLite file with Nsight Systems tables, or a CSV of NVTX
    push/pop ranges."""
    try:
        head = read_head(path, 4096)
        if head is None:
            return False
        if head.startswith(_SQLITE_MAGIC):
            with _connect(Path(path)) as db:
                return bool(
                    _tables(db)
                    & {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL"}
                )
        return _csv_header(head.decode("utf-8", "replace").splitlines()) is not None
    except (OSError, sqlite3.Error, UnicodeDecodeError):
        return False


def read_nsight(path: str | os.PathLike, sources: tuple[str, ...] = SOURCES) -> Trace:
    """The trace of an Nsight Systems SQLite export or NVTX push/pop CSV at ``path``;
    ``sources`` picks what an SQLite export contributes (see the module docstring)."""
    unknown = sorted(set(sources) - set(SOURCES))
    if unknown or not sources:
        raise GladeError(f"sources must be some of {list(SOURCES)}, not {unknown}")
    target = Path(path)
    with open_regular(target) as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    if not head:
        raise ReaderError(target, "empty file")
    if head == _SQLITE_MAGIC:
        return _read_sqlite(target, sources)
    return read_nsight_csv(target)


# ------------------------------------------------------------------ ranges -> trace
def _trace(path: Path, ranges: pd.DataFrame, marks: pd.DataFrame, metadata: dict) -> Trace:
    """The Trace of ranges (start, end, name, process, thread and attribute columns)
    and marks (time, name, process, thread, ...)."""
    starts, ends = ranges["start"].to_numpy(np.int64), ranges["end"].to_numpy(np.int64)
    which, kinds = ranges_to_events(starts, ends)
    stamps = np.where(kinds == ENTER, starts[which], ends[which])
    events = ranges.iloc[which].reset_index(drop=True)
    events["time"] = stamps
    events["kind"] = kinds
    if len(marks):
        marks = marks.assign(kind=np.int8(INSTANT))
        events = pd.concat([events, marks], ignore_index=True)
    order = np.argsort(events["time"].to_numpy(np.int64), kind="stable")
    events = events.iloc[order].reset_index(drop=True)
    codes, labels = pd.factorize(events["name"].astype(str))
    name_col = categorical(codes, list(labels))
    stamps = events["time"].to_numpy(np.int64)
    wild = beyond_time_limit(stamps)
    if wild.any():
        at = int(np.argmax(wild))
        raise ReaderError(
            path,
            f"{events['name'].iat[at]!r} has the time {int(stamps[at])} ns, beyond the "
            f"{TIME_LIMIT_NS} ns a trace may hold",
        )
    kinds = events["kind"].to_numpy(np.int8)
    procs = events["process"].to_numpy(np.int64)
    threads = events["thread"].to_numpy(np.int64)
    check_nesting(path, stamps, kinds, name_col, procs, threads)
    columns: dict[str, Any] = {
        TIMESTAMP: stamps,
        EVENT_TYPE: event_types(kinds),
        NAME: name_col,
        PROCESS: procs,
        THREAD: threads,
    }
    for column in (DEVICE, STREAM, CORRELATION, BYTES):
        if column in events.columns:
            columns[column] = events[column].fillna(-1).to_numpy(np.int64)
    if GPU_METRIC in events.columns:
        columns[GPU_METRIC] = events[GPU_METRIC].to_numpy(np.float64)
    return build_trace(path, columns, None, metadata)


# ------------------------------------------------------------------ SQLite
def _connect(path: Path) -> sqlite3.Connection:
    """The SQLite database ``path``, opened read-only."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _query(path: Path, db: sqlite3.Connection, sql: str, table: str) -> pd.DataFrame:
    try:
        return pd.read_sql_query(sql, db)
    except (sqlite3.Error, pd.errors.DatabaseError) as exc:
        raise ReaderError(
            path, f"cannot read table {table}: expected columns missing or a text not UTF-8 ({exc})"
        ) from exc


def _integers(
    path: Path, table: str, frame: pd.DataFrame, column: str, missing: int | None = None
) -> np.ndarray:
    """Column ``column`` of a query on ``table`` as int64 values. NULL becomes
    ``missing`` (a ReaderError when None); text, fractions and numbers beyond int64 are a
    ReaderError naming the table, the column and the row."""
    values = frame[column]
    if values.dtype.kind == "i":
        return values.to_numpy(np.int64)
    absent = values.isna().to_numpy()
    if absent.any() and missing is None:
        row = int(np.argmax(absent))
        raise ReaderError(path, f"table {table}: column {column!r} is NULL in row {row + 1}")
    numbers = pd.to_numeric(values.where(~absent, missing), errors="coerce")
    floats = numbers.to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(floats) | (floats != np.round(floats)) | (np.abs(floats) >= 2**63)
    if bad.any():
        row = int(np.argmax(bad))
        raise ReaderError(
            path,
            f"table {table}: column {column!r} holds "
            f"{shown(values.iat[row])} in row {row + 1}, not an integer",
        )
    return numbers.to_numpy(np.int64) if numbers.dtype.kind == "i" else floats.astype(np.int64)


def _split_tid(
    path: Path, table: str, frame: pd.DataFrame, column: str
) -> tuple[np.ndarray, np.ndarray]:
    """(pid, tid) of the serialized Nsight global thread ids in ``column``."""
    ids = _integers(path, table, frame, column, missing=0)
    return (ids >> 24) & 0xFFFFFF, ids & 0xFFFFFF


def _read_sqlite(path: Path, sources: tuple[str, ...]) -> Trace:
    try:
        db = _connect(path)
        tables = _tables(db)
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        raise ReaderError(path, f"not a readable SQLite database ({exc})") from exc
    try:
        wanted = {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", *_GPU_TABLES}
        if not tables & wanted:
            raise ReaderError(
                path,
                "has no Nsight Systems event table (NVTX_EVENTS, "
                "CUPTI_ACTIVITY_KIND_*): not an nsys SQLite export",
            )
        metadata: dict[str, Any] = {"format": "nsight sqlite"}
        parts, marks = [], []
        if "nvtx" in sources and "NVTX_EVENTS" in tables:
            ranges, mark, skipped = _nvtx(path, db, tables)
            parts.append(ranges)
            marks.append(mark)
            metadata.update(skipped)
        if "cuda_api" in sources and "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
            parts.append(_runtime(path, db, tables))
        if "gpu" in sources:
            parts.extend(_gpu(path, db, tables))
        if "gpu_metrics" in sources and {"GPU_METRICS", "TARGET_INFO_GPU_METRICS"} <= tables:
            samples, counters, left_out = _gpu_metrics(path, db, tables)
            marks.append(samples)
            if counters:
                metadata["counters"] = counters
            metadata["gpu_metric_samples_left_out"] = left_out
        metadata.update(_session(path, db, tables))
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        raise ReaderError(path, f"cannot read the database ({exc})") from exc
    finally:
        db.close()
    ranges = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    mark = pd.concat(marks, ignore_index=True) if marks else pd.DataFrame()
    if not len(ranges) and not len(mark):
        raise ReaderError(path, f"holds no events of the sources {list(sources)}")
    if not len(ranges):
        ranges = pd.DataFrame(
            {
                c: pd.Series(dtype=t)
                for c, t in (
                    ("start", np.int64),
                    ("end", np.int64),
                    ("name", object),
                    ("process", np.int64),
                    ("thread", np.int64),
                )
            }
        )
    return _trace(path, ranges, mark, metadata)


def _string_join(tables: set[str], column: str, alias: str) -> tuple[str, str]:
    """SQL for a name from ``StringIds`` by id ``column`` (NULL without the table)."""
    if "StringIds" in tables:
        return f"s.value AS {alias}", f"LEFT JOIN StringIds AS s ON s.id = e.{column}"
    return f"NULL AS {alias}", ""


def _nvtx(path: Path, db, tables: set[str]) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """NVTX push/pop ranges and marks, and how many ranges were left out."""
    cols = _columns(db, "NVTX_EVENTS")
    text = "e.text" if "text" in cols else "NULL"
    if "textId" in cols:
        name_sql, join = _string_join(tables, "textId", "registered")
    else:
        name_sql, join = "NULL AS registered", ""
    table = _query(
        path,
        db,
        (
            f"SELECT e.start, e.end, e.eventType, e.globalTid, {text} AS text, {name_sql} "
            f"FROM NVTX_EVENTS AS e {join}"
        ),
        "NVTX_EVENTS",
    )
    names = table["text"].where(table["text"].notna(), table["registered"]).fillna("<unnamed>")
    pid, tid = _split_tid(path, "NVTX_EVENTS", table, "globalTid")
    base = pd.DataFrame({"name": names.astype(str), "process": pid, "thread": tid})
    kind = _integers(path, "NVTX_EVENTS", table, "eventType")
    start = _integers(path, "NVTX_EVENTS", table, "start")
    ended = table["end"].notna().to_numpy()
    end = _integers(path, "NVTX_EVENTS", table, "end", missing=0)
    push = (kind == NVTX_PUSH_POP) & ended
    mark = kind == NVTX_MARK
    ranges = base[push].assign(start=start[push], end=end[push])
    marks = base[mark].assign(time=start[mark])
    skipped = {
        "nvtx_start_end_ranges_left_out": int(np.count_nonzero(kind == NVTX_START_END)),
        "nvtx_unended_ranges_left_out": int(np.count_nonzero((kind == NVTX_PUSH_POP) & ~ended)),
    }
    return ranges, marks, skipped


def _runtime(path: Path, db, tables: set[str]) -> pd.DataFrame:
    """CUDA API calls as ranges on their thread."""
    name_sql, join = _string_join(tables, "nameId", "name")
    table = _query(
        path,
        db,
        (
            f"SELECT e.start, e.end, e.globalTid, e.correlationId, {name_sql} "
            f"FROM CUPTI_ACTIVITY_KIND_RUNTIME AS e {join}"
        ),
        "CUPTI_ACTIVITY_KIND_RUNTIME",
    )
    name = "CUPTI_ACTIVITY_KIND_RUNTIME"
    pid, tid = _split_tid(path, name, table, "globalTid")
    return pd.DataFrame(
        {
            "start": _integers(path, name, table, "start"),
            "end": _integers(path, name, table, "end"),
            "name": table["name"].fillna("<unnamed CUDA call>").astype(str),
            "process": pid,
            "thread": tid,
            CORRELATION: _integers(path, name, table, "correlationId", missing=-1),
        }
    )


def _gpu(path: Path, db, tables: set[str]) -> list[pd.DataFrame]:
    """Kernels, copies and fills as ranges on one lane per (device, stream)."""
    parts = []
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        name_sql, join = _string_join(tables, "shortName", "name")
        parts.append(
            (
                "CUPTI_ACTIVITY_KIND_KERNEL",
                _query(
                    path,
                    db,
                    (
                        "SELECT e.start, e.end, e.deviceId, e.streamId, e.globalPid, "
                        f"e.correlationId, {name_sql}, NULL AS bytes "
                        f"FROM CUPTI_ACTIVITY_KIND_KERNEL AS e {join}"
                    ),
                    "CUPTI_ACTIVITY_KIND_KERNEL",
                ),
            )
        )
    for table, label in (
        ("CUPTI_ACTIVITY_KIND_MEMCPY", "Memcpy"),
        ("CUPTI_ACTIVITY_KIND_MEMSET", "Memset"),
    ):
        if table not in tables:
            continue
        kind = "e.copyKind" if label == "Memcpy" else "NULL"
        part = _query(
            path,
            db,
            (
                f"SELECT e.start, e.end, e.deviceId, e.streamId, e.globalPid, e.correlationId, "
                f"{kind} AS copyKind, e.bytes FROM {table} AS e"
            ),
            table,
        )
        if label == "Memcpy":
            copy = part["copyKind"].map(_COPY_KINDS).fillna(part["copyKind"].astype(str))
            part["name"] = "Memcpy " + copy.astype(str)
        else:
            part["name"] = label
        parts.append((table, part.drop(columns="copyKind")))
    out = []
    for table, part in parts:
        pid, _ = _split_tid(path, table, part, "globalPid")
        device = _integers(path, table, part, "deviceId", missing=0)
        stream = _integers(path, table, part, "streamId", missing=0)
        lane_ok = (device >= 0) & (device < 2**40) & (stream >= 0) & (stream < 1_000_000)
        if not lane_ok.all():
            row = int(np.argmax(~lane_ok))
            raise ReaderError(
                path,
                f"table {table}: row {row + 1} names device "
                f"{int(device[row])}, stream {int(stream[row])}: devices are "
                "numbered from 0, streams from 0 to 999999",
            )
        out.append(
            pd.DataFrame(
                {
                    "start": _integers(path, table, part, "start"),
                    "end": _integers(path, table, part, "end"),
                    "name": part["name"].fillna("<unnamed kernel>").astype(str),
                    "process": pid,
                    "thread": -(1 + 1_000_000 * device + stream),
                    DEVICE: device,
                    STREAM: stream,
                    CORRELATION: _integers(path, table, part, "correlationId", missing=-1),
                    BYTES: _integers(path, table, part, "bytes", missing=-1),
                }
            )
        )
    return out


def _device_processes(path: Path, db, tables: set[str]) -> pd.DataFrame:
    """The (device, process) pairs of the GPU work in the export."""
    pairs = [pd.DataFrame({"device": np.zeros(0, np.int64), "process": np.zeros(0, np.int64)})]
    for table in _GPU_TABLES:
        if table not in tables:
            continue
        part = _query(path, db, f"SELECT DISTINCT deviceId, globalPid FROM {table}", table)
        pid, _ = _split_tid(path, table, part, "globalPid")
        device = _integers(path, table, part, "deviceId", missing=0)
        pairs.append(pd.DataFrame({"device": device, "process": pid}))
    return pd.concat(pairs, ignore_index=True).drop_duplicates()


def _gpu_metrics(path: Path, db, tables: set[str]) -> tuple[pd.DataFrame, list[dict], int]:
    """GPU metric samples as marks on the GPU lane of the processes that used each GPU,
    their counter series, and how many samples no process could take."""
    table = "GPU_METRICS"
    names = _columns(db, "TARGET_INFO_GPU_METRICS")
    by_type = "typeId" in names
    key = "typeId, metricId" if by_type else "metricId"
    on = "n.metricId = m.metricId" + (" AND n.typeId = m.typeId" if by_type else "")
    part = _query(
        path,
        db,
        (
            "SELECT m.timestamp, m.typeId, m.metricId, m.value, n.metricName FROM GPU_METRICS "
            f"AS m LEFT JOIN (SELECT {key}, MIN(metricName) AS metricName FROM "
            f"TARGET_INFO_GPU_METRICS GROUP BY {key}) AS n ON {on}"
        ),
        table,
    )
    stamps = _integers(path, table, part, "timestamp")
    device = _integers(path, table, part, "typeId") & 0xFF
    metric = _integers(path, table, part, "metricId")
    values = pd.to_numeric(part["value"], errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise ReaderError(
            path,
            f"table {table}: column 'value' holds {shown(part['value'].iat[row])} in row "
            f"{row + 1}, not a finite number",
        )
    label = part["metricName"].astype(object)
    unnamed = label.isna().to_numpy()
    label = label.where(~unnamed, pd.Series([f"metric {m}" for m in metric], dtype=object))
    samples = pd.DataFrame(
        {"time": stamps, "name": label.astype(str), DEVICE: device, GPU_METRIC: values}
    )
    users = _device_processes(path, db, tables).rename(columns={"device": DEVICE})
    placed = samples.merge(users, on=DEVICE, how="inner", sort=False)
    placed["thread"] = -1_000_000 * (placed[DEVICE].to_numpy(np.int64) + 1)
    left_out = int(len(samples) - np.count_nonzero(np.isin(device, users[DEVICE].to_numpy())))
    counters = [
        {"name": n, "column": GPU_METRIC, "event": n} for n in sorted(placed["name"].unique())
    ]
    return placed, counters, left_out


def _session(path: Path, db, tables: set[str]) -> dict[str, Any]:
    """What the export tells about the session: its start time and the host."""
    out: dict[str, Any] = {}
    if "TARGET_INFO_SESSION_START_TIME" in tables and "utcEpochNs" in _columns(
        db, "TARGET_INFO_SESSION_START_TIME"
    ):
        start = _query(
            path,
            db,
            "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
            "TARGET_INFO_SESSION_START_TIME",
        )
        if len(start):
            out["session_start_utc_ns"] = int(
                _integers(path, "TARGET_INFO_SESSION_START_TIME", start.iloc[:1], "utcEpochNs")[0]
            )
    if "TARGET_INFO_SYSTEM_ENV" in tables and {"name", "value"} <= _columns(
        db, "TARGET_INFO_SYSTEM_ENV"
    ):
        env = dict(db.execute("SELECT name, value FROM TARGET_INFO_SYSTEM_ENV").fetchall())
        out["system"] = {str(k): str(v) for k, v in env.items()}
    return out


# ------------------------------------------------------------------ CSV
def _csv_header(lines: list[str]) -> tuple[int, int] | None:
    """(line index, nanoseconds per unit) of an nvtx_pushpop_trace CSV header, if any."""
    for number, line in enumerate(lines[:20]):
        fields = [f.strip().strip('"') for f in line.split(",")]
        if len(fields) < len(_CSV_COLUMNS) or not fields[0].startswith("Start ("):
            continue
        unit = fields[0][len("Start (") : -1]
        bare = {f.split(" (")[0] for f in fields}
        if unit in _UNITS and set(_CSV_COLUMNS) <= bare:
            return number, _UNITS[unit]
    return None


def read_nsight_csv(path: str | os.PathLike) -> Trace:
    """The NVTX push/pop ranges of an ``nsys stats --report nvtx_pushpop_trace
    --format csv`` file as Enter/Leave events on their (PID, TID)."""
    target = Path(path)
    with (
        open_regular(target) as raw,
        io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as text,
    ):
        head = [text.readline(4096) for _ in range(20)]
    found = _csv_header(head)
    if found is None:
        raise ReaderError(
            target, f"not an nvtx_pushpop_trace CSV: no header with {', '.join(_CSV_COLUMNS)}"
        )
    skip, scale = found
    try:
        table = pd.read_csv(target, skiprows=skip, skipinitialspace=True)
    except (ValueError, pd.errors.ParserError) as exc:
        raise ReaderError(target, f"malformed CSV ({exc})") from exc
    table.columns = [str(c).split(" (")[0].strip() for c in table.columns]
    if table.columns[-1] == "NameTree" and table["NameTree"].isna().any():
        row = int(np.flatnonzero(table["NameTree"].isna().to_numpy())[0]) + skip + 2
        raise ReaderError(target, f"line {row} is cut short (truncated file?)")
    numeric = {}
    for column, factor in (("Start", scale), ("End", scale), ("PID", 0), ("TID", 0)):
        values = pd.to_numeric(table[column], errors="coerce").to_numpy(np.float64)
        values = values * factor if factor else values
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(values) | (np.abs(values) >= 2**63)
            if not factor:
                bad |= values != np.round(values)
        if bad.any():
            at = int(np.argmax(bad))
            what = "a time in range" if factor else "a whole number"
            raise ReaderError(
                target,
                f"line {at + skip + 2}: column {column!r} holds "
                f"{shown(table[column].iat[at])}, not {what}",
            )
        numeric[column] = np.rint(values).astype(np.int64)
    if not len(table):
        raise ReaderError(target, "holds no NVTX range")
    ranges = pd.DataFrame(
        {
            "start": numeric["Start"],
            "end": numeric["End"],
            "name": table["Name"].fillna("<unnamed>").astype(str).to_numpy(),
            "process": numeric["PID"],
            "thread": numeric["TID"],
        }
    )
    backwards = np.flatnonzero(ranges["end"].to_numpy() < ranges["start"].to_numpy())
    if backwards.size:
        raise ReaderError(
            target, f"line {int(backwards[0]) + skip + 2}: a range ends before it starts"
        )
    metadata = {"format": "nsight nvtx_pushpop_trace csv", "time_unit_ns": scale}
    return _trace(target, ranges, pd.DataFrame(), metadata)
