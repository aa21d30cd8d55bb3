"""Rare ``args`` keys do not cost a column each: a key gets its own column when 1 trace
event in 100 carries it (or the writer declared it), within 16 cells per event and per
member; every other member stays, as written, in one JSON text column ``args``. Memory
is linear in the file, and files glade writes (from the real traces too) read back
exactly."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from glade import Filter
from glade.readers.traces import chrome
from glade.trace import Trace

BASE = ["Timestamp (ns)", "Event Type", "Name", "Process", "Thread"]


def distinct_keys(path, n: int):
    """``n`` complete events, each with one ``args`` key no other event has."""
    events = [
        {
            "ph": "X",
            "name": "work",
            "pid": 0,
            "tid": 0,
            "ts": i,
            "dur": 1,
            "args": {f"distinct_key_{i:06d}": i},
        }
        for i in range(n)
    ]
    path.write_text(json.dumps(events))
    return path


def test_distinct_keys_stay_in_one_text_column_linear_in_the_file(tmp_path):
    used = {}
    for n in (2000, 4000):
        path = distinct_keys(tmp_path / f"keys{n}.json", n)
        trace = Trace.from_chrome(path)
        events = trace.events
        assert list(events.columns) == [*BASE, "args"]
        assert trace.metadata["args_column"] == "args"
        enters = events[events["Event Type"] == "Enter"]
        assert json.loads(enters["args"].iat[7]) == {"distinct_key_000007": 7}
        assert events.loc[events["Event Type"] == "Leave", "args"].isna().all()
        used[n] = int(events.memory_usage(deep=True).sum())
        # before: a float64 column per key, 2n rows each (2 * 4000^2 * 8 bytes = 256 MB)
        assert used[n] < 4 * path.stat().st_size
    assert used[4000] <= 2.2 * used[2000]


def test_keys_on_one_event_in_a_hundred_get_a_column(tmp_path):
    events = [{"ph": "i", "name": "a", "ts": i, "args": {"common": i}} for i in range(200)]
    events[3]["args"]["often"] = 1.5
    events[9]["args"]["often"] = 2.5
    events[5]["args"].update({"rare": "x", "nested": {"k": [1, 2]}})
    path = tmp_path / "share.json"
    path.write_text(json.dumps(events))
    trace = Trace.from_chrome(path)
    ev = trace.events
    assert list(ev.columns) == [*BASE, "common", "often", "args"]
    assert ev["often"].iat[3] == 1.5 and ev["often"].isna().sum() == 198
    assert json.loads(ev["args"].iat[5]) == {"rare": "x", "nested": {"k": [1, 2]}}
    assert ev["args"].notna().sum() == 1


def test_declared_columns_are_bounded_too(tmp_path):
    declared = {f"col{i}": "float64" for i in range(5000)}
    document = {
        "otherData": {"glade": {"time_offset_ns": 0, "columns": declared}},
        "traceEvents": [
            {"ph": "i", "name": "a", "ts": i, "args": {f"col{i}": 1}} for i in range(100)
        ],
    }
    path = tmp_path / "declared.json"
    path.write_text(json.dumps(document))
    ev = Trace.from_chrome(path).events
    room = chrome.COLUMN_CELLS * (100 + 100) // 100
    assert len(ev.columns) == len(BASE) + room + 1
    assert list(ev.columns[len(BASE) : -1]) == [f"col{i}" for i in range(room)]
    assert json.loads(ev["args"].iat[99]) == {"col99": 1}


def test_a_key_named_args_keeps_its_column_apart(tmp_path):
    path = tmp_path / "named.json"
    path.write_text(json.dumps([{"ph": "i", "name": "a", "ts": 0, "args": {"args": 3}}]))
    assert Trace.from_chrome(path).events["args.args"].tolist() == [3]


def test_text_args_round_trip_through_to_chrome(tmp_path):
    events = [
        {
            "ph": "X",
            "name": "w",
            "pid": 1,
            "tid": 2,
            "ts": i,
            "dur": 1,
            "args": {"n": i, f"k{i}": {"deep": [i, "é"]}},
        }
        for i in range(300)
    ]
    path = tmp_path / "in.json"
    path.write_text(json.dumps(events, ensure_ascii=False))
    trace = Trace.from_chrome(path)
    assert "args" in trace.events.columns and "n" in trace.events.columns
    trace.to_chrome(tmp_path / "out.json")
    back = Trace.from_chrome(tmp_path / "out.json")
    pd.testing.assert_frame_equal(back.events, trace.events)


def test_real_traces_round_trip_exactly(tmp_path, pipit_data):
    traces = {
        "csv": lambda: Trace.from_csv(pipit_data / "foo-bar.csv"),
        "hpctoolkit": lambda: Trace.from_hpctoolkit(pipit_data / "ping-pong-hpctoolkit"),
        "projections": lambda: Trace.from_projections(pipit_data / "ping-pong-projections"),
    }
    try:
        import otf2  # noqa: F401

        traces["otf2"] = lambda: Trace.from_otf2(pipit_data / "ping-pong-otf2")
    except ImportError:
        pass
    for name, read in traces.items():
        trace = read()
        trace.to_chrome(tmp_path / f"{name}.json")
        back = Trace.from_chrome(tmp_path / f"{name}.json")
        pd.testing.assert_frame_equal(back.events, trace.events, obj=name)


@pytest.mark.parametrize("n", [0, 1])
def test_no_args_no_text_column(tmp_path, n):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps([{"ph": "i", "name": "a", "ts": i} for i in range(n)]))
    trace = Trace.from_chrome(path)
    assert "args" not in trace.events.columns and "args_column" not in trace.metadata


def test_a_small_part_of_a_trace_with_text_args_round_trips(tmp_path):
    trace = Trace.from_chrome(distinct_keys(tmp_path / "keys.json", 1000))
    part = trace.filter(Filter("Timestamp (ns)", "<", 10_000))  # 10 calls: each key 1 in 20
    assert "args" in part.events.columns
    part.to_chrome(tmp_path / "part.json")
    back = Trace.from_chrome(tmp_path / "part.json")
    pd.testing.assert_frame_equal(back.events, part.events)


def test_keys_that_would_share_a_column_or_overwrite_one_do_not(tmp_path):
    document = {
        "otherData": {
            "glade": {"time_offset_ns": 0, "columns": {"Timestamp (ns)": "int64", "Gone": "int64"}}
        },
        "traceEvents": [{"ph": "i", "name": "a", "ts": 1, "args": {"Name": 1, "args.Name": 2}}],
    }
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(document))
    ev = Trace.from_chrome(path).events
    assert ev["Timestamp (ns)"].tolist() == [1000] and ev["Gone"].tolist() == [-1]
    assert ev["args.Name"].tolist() == [1]
    assert json.loads(ev["args"].iat[0]) == {"args.Name": 2}
