"""The Nsight Systems reader.

There is no real Nsight Systems report in the shared data, so these tests build small
SQLite exports by hand with the tables and columns of NVIDIA's "SQLite Export Schema
Reference" (StringIds, NVTX_EVENTS, CUPTI_ACTIVITY_KIND_RUNTIME/KERNEL/MEMCPY,
TARGET_INFO_SESSION_START_TIME), and CSV files with the header that
``nsys stats --report nvtx_pushpop_trace --format csv`` writes. Every expected value
below follows from the rows written here.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from glade.errors import GladeError, ReaderError
from glade.readers.traces.nsight import detect, read_nsight, read_nsight_csv
from tests.readers.corruption import empty, garble, truncate
from tests.readers.traces.nsight_export import (
    DRAM_READ,
    HEADER,
    MAIN,
    PID,
    ROWS,
    SMS_ACTIVE,
    add_gpu_metrics,
    nvtx,
    write_csv,
    write_export,
)


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """The hand-made export of :func:`write_export`."""
    return write_export(tmp_path / "report.sqlite")


def _rows(trace, thread):
    events = trace.events[trace.events["Thread"] == thread]
    return [
        (int(t), str(k), str(n))
        for t, k, n in zip(
            events["Timestamp (ns)"], events["Event Type"], events["Name"], strict=True
        )
    ]


def test_events_of_each_thread_and_stream(export: Path):
    trace = read_nsight(export)
    assert len(trace.events) == 21  # 5 NVTX ranges, 1 mark, 2 API calls, 3 GPU activities
    assert set(trace.events["Process"]) == {PID}
    assert _rows(trace, 101) == [
        (0, "Enter", "step"),
        (100, "Enter", "forward"),
        (150, "Enter", "cudaLaunchKernel_v7000"),
        (200, "Leave", "cudaLaunchKernel_v7000"),
        (500, "Leave", "forward"),
        (500, "Enter", "backward"),
        (600, "Enter", "cudaMemcpyAsync_v3020"),
        (650, "Leave", "cudaMemcpyAsync_v3020"),
        (900, "Leave", "backward"),
        (950, "Instant", "checkpoint"),
        (1000, "Leave", "step"),
    ]
    assert _rows(trace, 102) == [
        (50, "Enter", "io"),
        (60, "Leave", "io"),
        (70, "Enter", "tick"),
        (70, "Leave", "tick"),
    ]
    stream7 = -(1 + 7)  # -(1 + 1,000,000 x device 0 + stream 7)
    assert _rows(trace, stream7) == [
        (210, "Enter", "gemm"),
        (400, "Leave", "gemm"),
        (400, "Enter", "relu"),
        (420, "Leave", "relu"),
    ]
    assert _rows(trace, -(1 + 8)) == [(660, "Enter", "Memcpy HtoD"), (700, "Leave", "Memcpy HtoD")]


def test_attribute_columns(export: Path):
    events = read_nsight(export).events
    gpu = events[events["Thread"] < 0]
    assert set(gpu["Device"]) == {0} and set(gpu["Stream"]) == {7, 8}
    cpu = events[events["Thread"] > 0]
    assert set(cpu["Device"]) == {-1} and set(cpu["Stream"]) == {-1}
    launch = events[events["Name"] == "cudaLaunchKernel_v7000"]
    gemm = events[events["Name"] == "gemm"]
    assert set(launch["Correlation"]) == set(gemm["Correlation"]) == {1}
    assert set(events.loc[events["Name"] == "Memcpy HtoD", "Bytes"]) == {4096}
    assert set(events.loc[events["Name"] == "gemm", "Bytes"]) == {-1}
    assert (np.diff(events["Timestamp (ns)"].to_numpy()) >= 0).all()


def test_metadata_counts_what_was_left_out(export: Path):
    meta = read_nsight(export).metadata
    assert meta["nvtx_start_end_ranges_left_out"] == 1
    assert meta["nvtx_unended_ranges_left_out"] == 1
    assert meta["session_start_utc_ns"] == 1700000000000000000


def test_sources(export: Path):
    nvtx = read_nsight(export, sources=("nvtx",)).events
    assert set(nvtx["Name"].astype(str)) == {
        "step",
        "forward",
        "backward",
        "checkpoint",
        "io",
        "tick",
    }
    gpu = read_nsight(export, sources=("gpu",)).events
    assert (gpu["Thread"] < 0).all()
    with pytest.raises(GladeError, match="sources"):
        read_nsight(export, sources=("kernels",))


def test_detect(export: Path, tmp_path: Path, pipit_data: Path):
    assert detect(export)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x INT)").connection.close()
    assert not detect(other)
    assert not detect(pipit_data / "foo-bar.csv")


def test_badly_nested_ranges_are_an_error(export: Path):
    db = sqlite3.connect(export)
    nvtx(db, 80, 120, 59, "straddle", MAIN)  # starts inside nothing, ends inside forward
    db.commit()
    db.close()
    with pytest.raises(ReaderError, match="does not match its Enter"):
        read_nsight(export)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (empty, "empty file"),
        (lambda p: truncate(p, 0.3), "malformed|not a readable|cannot read|lacks"),
        (lambda p: garble(p, 0, 16), "not an nvtx_pushpop_trace CSV"),
    ],
)
def test_corrupted_exports(export: Path, damage, message):
    damage(export)
    with pytest.raises(ReaderError, match=message) as info:
        read_nsight(export)
    assert "report.sqlite" in str(info.value)


def test_export_without_event_tables(tmp_path: Path):
    path = tmp_path / "empty.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    db.close()
    with pytest.raises(ReaderError, match="no Nsight Systems event table"):
        read_nsight(path)


def test_table_without_expected_columns(tmp_path: Path):
    path = tmp_path / "odd.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE NVTX_EVENTS (start INT, finish INT)")
    db.close()
    with pytest.raises(ReaderError, match="NVTX_EVENTS"):
        read_nsight(path)


def _csv(tmp_path: Path, lines: list[str], name="nvtx.csv") -> Path:
    return write_csv(tmp_path / name, lines)


def test_csv_ranges(tmp_path: Path):
    trace = read_nsight(_csv(tmp_path, [HEADER.format(unit="ns"), *ROWS]))
    assert _rows(trace, 54) == [
        (1000, "Enter", ":step"),
        (1500, "Enter", ":copy_in"),
        (2000, "Leave", ":copy_in"),
        (2000, "Enter", ":kernel, fused"),
        (4000, "Leave", ":kernel, fused"),
        (5000, "Leave", ":step"),
    ]
    assert _rows(trace, 55) == [(1200, "Enter", ":other"), (1300, "Leave", ":other")]
    assert set(trace.events["Process"]) == {53}
    assert trace.metadata["time_unit_ns"] == 1


def test_csv_printed_with_a_title_and_in_microseconds(tmp_path: Path):
    lines = [
        "",
        " ** NVTX Push/Pop Range Trace (nvtx_pushpop_trace):",
        "",
        HEADER.format(unit="us"),
        "1.5,2.25,0.75,0,0.75,:a,7,8,0,0,1,,:1,:a",
    ]
    path = _csv(tmp_path, lines)
    assert detect(path)
    trace = read_nsight_csv(path)
    assert trace.events["Timestamp (ns)"].tolist() == [1500, 2250]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["Start,End,Name", "1,2,a"], "no header"),
        ([HEADER.format(unit="ns"), "1000,5000,4000,2500,1500,:step,53"], "line 2 is cut short"),
        (
            [HEADER.format(unit="ns"), "1000,x,4000,0,0,:s,53,54,0,0,1,,:1,:s"],
            r"line 2: column 'End' holds 'x', not a time",
        ),
        (
            [HEADER.format(unit="ns"), "1000,inf,4000,0,0,:s,53,54,0,0,1,,:1,:s"],
            "column 'End' holds inf, not a time",
        ),
        (
            [HEADER.format(unit="ns"), "1e309,5000,4000,0,0,:s,53,54,0,0,1,,:1,:s"],
            "column 'Start' holds inf, not a time",
        ),
        (
            [HEADER.format(unit="s"), "1e10,2e10,4000,0,0,:s,53,54,0,0,1,,:1,:s"],
            r"column 'Start' holds 10000000000\.0, not a time in range",
        ),
        (
            [HEADER.format(unit="ns"), "1000,5000,4000,0,0,:s,53.5,54,0,0,1,,:1,:s"],
            r"column 'PID' holds 53\.5, not a whole number",
        ),
        ([HEADER.format(unit="ns"), "1000,500,4000,0,0,:back,53,54,0,0,1,,:1,:b"], "ends before"),
        ([HEADER.format(unit="ns")], "no NVTX range"),
    ],
)
def test_bad_csv(tmp_path: Path, lines, message):
    with pytest.raises(ReaderError, match=message) as info:
        read_nsight(_csv(tmp_path, lines))
    assert "nvtx.csv" in str(info.value)


def test_truncated_csv(tmp_path: Path):
    path = truncate(_csv(tmp_path, [HEADER.format(unit="ns"), *ROWS]), 0.8)
    with pytest.raises(ReaderError, match=r"nvtx\.csv: line \d is cut short"):
        read_nsight(path)


@pytest.mark.parametrize(
    ("table", "column", "value", "message"),
    [
        ("NVTX_EVENTS", "start", "'soon'", "column 'start' holds 'soon' in row"),
        ("NVTX_EVENTS", "start", "NULL", "column 'start' is NULL in row"),
        ("NVTX_EVENTS", "end", "1e309", "column 'end' holds inf in row"),
        ("NVTX_EVENTS", "eventType", "2.5", "column 'eventType' holds 2.5"),
        ("NVTX_EVENTS", "globalTid", "'main'", "column 'globalTid' holds 'main'"),
        ("NVTX_EVENTS", "text", "CAST(x'ff80' AS TEXT)", "cannot read table NVTX_EVENTS"),
        ("CUPTI_ACTIVITY_KIND_RUNTIME", "end", "x'fffe'", "column 'end' holds b'\\xff\\xfe'"),
        ("CUPTI_ACTIVITY_KIND_RUNTIME", "correlationId", "'x'", "column 'correlationId'"),
        ("CUPTI_ACTIVITY_KIND_KERNEL", "deviceId", "9223372036854775807", "names device"),
        ("CUPTI_ACTIVITY_KIND_KERNEL", "streamId", "-4", "names device 0, stream -4"),
        ("CUPTI_ACTIVITY_KIND_MEMCPY", "bytes", "'many'", "column 'bytes' holds 'many'"),
        ("TARGET_INFO_SESSION_START_TIME", "utcEpochNs", "'today'", "column 'utcEpochNs'"),
    ],
)
def test_hostile_cells_in_typed_columns(export: Path, table, column, value, message):
    # SQLite keeps any value in any column: text, NULL, blobs, infinities or non-UTF-8 text
    # where the schema says INT; each is an error naming the file, table, column and row
    db = sqlite3.connect(export)
    # a copy of the table without the schema's NOT NULL constraints
    db.executescript(
        f"CREATE TABLE copy AS SELECT * FROM {table}; DROP TABLE {table}; "
        f"ALTER TABLE copy RENAME TO {table};"
    )
    db.execute(f"UPDATE {table} SET {column} = {value} WHERE rowid = 1")
    db.commit()
    db.close()
    with pytest.raises(ReaderError, match=re.escape(message)) as info:
        read_nsight(export)
    assert str(export) in str(info.value)


def test_names_that_are_not_utf8(export: Path):
    # a table name in the schema that is not UTF-8: no table can be listed
    db = sqlite3.connect(export)
    db.execute("PRAGMA writable_schema = ON")
    db.execute("UPDATE sqlite_master SET name = CAST(x'4e56ff' AS TEXT) WHERE name = 'StringIds'")
    db.commit()
    db.close()
    assert not detect(export)
    with pytest.raises(ReaderError, match="not a readable SQLite database") as info:
        read_nsight(export)
    assert str(export) in str(info.value)


# ------------------------------------------------------------------ GPU metrics
@pytest.fixture
def metrics_export(export: Path) -> Path:
    """The hand-made export with the GPU metric samples of :func:`add_gpu_metrics`."""
    return add_gpu_metrics(export)


def test_gpu_metrics_are_counters_on_the_gpu_lane(metrics_export: Path):
    trace = read_nsight(metrics_export)
    # the 21 events of the export and the 7 samples of GPU 0, placed on the process
    # whose kernels ran there; GPU 3's two samples have no process
    assert len(trace.events) == 28
    assert trace.metadata["gpu_metric_samples_left_out"] == 2
    assert [c["name"] for c in trace.metadata["counters"]] == [DRAM_READ, SMS_ACTIVE, "metric 9"]
    counters = trace.counters
    assert set(counters["Process"]) == {PID}
    assert set(counters["Thread"]) == {-1_000_000}  # GPU 0's lane
    sms = counters[counters["Counter"] == SMS_ACTIVE]
    assert sms["Timestamp (ns)"].tolist() == [0, 400, 800]
    assert sms["Value"].tolist() == [0.0, 75.0, 20.0]
    # change per second: 75 in 400 ns, then -55 in 400 ns
    assert sms["Rate"].tolist()[1:] == pytest.approx([75 / 400e-9, -55 / 400e-9], rel=1e-12)
    dram = counters[counters["Counter"] == DRAM_READ]
    assert dram["Value"].tolist() == [5.0, 40.0, 10.0]
    unnamed = counters[counters["Counter"] == "metric 9"]
    assert unnamed[["Timestamp (ns)", "Value"]].values.tolist() == [[400, 3.0]]
    samples = trace.events[trace.events["GPU Metric"].notna()]
    assert set(samples["Event Type"]) == {"Instant"}
    assert set(samples["Device"]) == {0}
    # the calls on the other lanes are unchanged
    assert _rows(trace, -(1 + 7)) == [
        (210, "Enter", "gemm"),
        (400, "Leave", "gemm"),
        (400, "Enter", "relu"),
        (420, "Leave", "relu"),
    ]


def test_gpu_metrics_draw_as_timeline_counter_tracks(metrics_export: Path):
    from glade.views.timeline.counters import CounterTracks

    tracks = CounterTracks.of(read_nsight(metrics_export)).meta()
    assert sorted((t["counter"], t["process"], t["thread"]) for t in tracks) == [
        (DRAM_READ, PID, -1_000_000),
        (SMS_ACTIVE, PID, -1_000_000),
        ("metric 9", PID, -1_000_000),
    ]


def test_gpu_metrics_are_a_source(metrics_export: Path):
    trace = read_nsight(metrics_export, sources=("nvtx", "cuda_api", "gpu"))
    assert len(trace.events) == 21
    assert "counters" not in trace.metadata
    # without the GPU work as events, the samples still find the process that used GPU 0
    only = read_nsight(metrics_export, sources=("nvtx", "gpu_metrics"))
    assert len(only.counters) == 7
    assert set(only.counters["Process"]) == {PID}


@pytest.mark.parametrize("value", ["'busy'", "x'ff'", "1e309"])
def test_gpu_metric_value_that_is_not_a_number(metrics_export: Path, value: str):
    db = sqlite3.connect(metrics_export)
    db.execute(f"UPDATE GPU_METRICS SET value = {value} WHERE timestamp = 400 AND metricId = 2")
    db.commit()
    db.close()
    with pytest.raises(ReaderError, match=r"table GPU_METRICS: column 'value' holds .* in row 4"):
        read_nsight(metrics_export)


def test_time_beyond_what_a_trace_holds(export: Path):
    db = sqlite3.connect(export)
    db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 9223372036854775807 WHERE start = 400")
    db.commit()
    db.close()
    with pytest.raises(ReaderError, match="'relu' has the time 9223372036854775807 ns"):
        read_nsight(export)


def test_the_most_negative_time_is_refused(export: Path):
    # abs() of -2**63 wraps to itself in int64: the limit is checked on both sides
    db = sqlite3.connect(export)
    db.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET start = -9223372036854775808")
    db.commit()
    db.close()
    with pytest.raises(ReaderError, match="'Memcpy HtoD' has the time -9223372036854775808 ns"):
        read_nsight(export)
