"""The Chrome / Perfetto trace-event JSON reader and writer: exact round trips, the
mapping of every phase, parsing in chunks, and a clear ReaderError for every way a
file can be wrong."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from glade.datasets import synthetic_trace
from glade.errors import ReaderError
from glade.readers.traces import chrome as trace_chrome
from glade.readers.traces import chrome_events
from glade.trace import Trace
from tests.trace.helpers import make_trace


def write_events(tmp_path, events, wrap: bool = False, name: str = "t.json"):
    path = tmp_path / name
    document = {"traceEvents": events, "displayTimeUnit": "ms"} if wrap else events
    path.write_text(json.dumps(document))
    return path


def test_round_trips(tmp_path, foo_bar):
    traces = [
        foo_bar,
        synthetic_trace(4, 3, exchange="halo"),
        synthetic_trace(2, 3, exchange="pingpong"),
    ]
    for i, trace in enumerate(traces):
        path = tmp_path / f"out{i}.json"
        trace.to_chrome(path)
        back = Trace.from_chrome(path)
        pd.testing.assert_frame_equal(back.events, trace.events)
    gz = tmp_path / "out.json.gz"
    traces[1].to_chrome(gz)
    pd.testing.assert_frame_equal(Trace.from_chrome(gz, progress=True).events, traces[1].events)


def test_round_trip_of_attributes_metrics_and_epoch_times(tmp_path):
    base = 1_700_000_000_123_456_789
    trace = make_trace(
        [
            (base, "Enter", 'say "hi"', 3, 2),
            (base + 7, "Instant", "mark", 3, 2),
            (base + 9, "Leave", 'say "hi"', 3, 2),
        ],
        Cycles=[1.5, np.nan, 4.25],
        Label=["x", None, "é"],
        Flag=[True, False, True],
        Tag=[-1, 4, -1],
    )
    trace.metadata["metric_columns"] = ["Cycles"]
    path = tmp_path / "attrs.json"
    trace.to_chrome(path)
    back = Trace.from_chrome(path)
    pd.testing.assert_frame_equal(back.events, trace.events)
    assert back.metric_columns == ["Cycles"]
    document = json.loads(path.read_text())
    assert document["displayTimeUnit"] == "ns"
    assert document["traceEvents"][1] == {
        "ph": "i",
        "name": "mark",
        "pid": 3,
        "tid": 2,
        "ts": 0.007,
        "s": "t",
        "args": {"Tag": 4, "Flag": False},
    }


def test_messages_become_flows(tmp_path):
    trace = synthetic_trace(3, 2)
    path = tmp_path / "ring.json"
    trace.to_chrome(path)
    events = json.loads(path.read_text())["traceEvents"]
    starts = [e for e in events if e["ph"] == "s"]
    finishes = [e for e in events if e["ph"] == "f"]
    assert len(starts) == len(finishes) == 6
    assert {e["bp"] for e in starts + finishes} == {"e"}
    by_id = {e["id"]: e for e in starts}
    for finish in finishes:
        assert (by_id[finish["id"]]["pid"] + 1) % 3 == finish["pid"]


def test_foreign_phases(tmp_path):
    events = [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "renderer"}},
        {"ph": "X", "name": "outer", "pid": 1, "tid": 5, "ts": 10, "dur": 10},
        {"ph": "X", "name": "inner", "pid": 1, "tid": 5, "ts": 10, "dur": 4},
        {"ph": "X", "name": "after", "pid": 1, "tid": 5, "ts": 20, "dur": 0},
        {"ph": "B", "name": "task", "pid": 2, "tid": 1, "ts": 1.0005, "args": {"n": 3}},
        {"ph": "E", "pid": 2, "tid": 1, "ts": 3},
        {"ph": "i", "name": "tick", "pid": 2, "tid": 1, "ts": 2, "s": "g"},
        {"ph": "C", "name": "memory", "pid": 2, "ts": 2.5, "args": {"bytes": 10}},
        {"ph": "s", "name": "flow", "cat": "c", "id": "0x1", "pid": 1, "tid": 5, "ts": 12},
        {
            "ph": "f",
            "name": "flow",
            "cat": "c",
            "id": "0x1",
            "pid": 2,
            "tid": 1,
            "ts": 2.2,
            "bp": "e",
        },
        {"ph": "b", "name": "async", "pid": 2, "ts": 1, "id": 7},
        {"ph": "P", "name": "sample", "pid": 2, "ts": 1},
        {
            "ph": "B",
            "name": "nested",
            "pid": 2,
            "tid": 1,
            "ts": 4,
            "args": {"deep": {"a": [1]}, "ok": "yes"},
        },
        {"ph": "E", "name": "nested", "pid": 2, "tid": 1, "ts": 5},
    ]
    trace = Trace.from_chrome(write_events(tmp_path, events, wrap=True))
    ev = trace.events
    on_5 = ev[ev["Thread"] == 5]
    assert list(
        zip(
            on_5["Event Type"].astype(str),
            on_5["Name"].astype(str),
            on_5["Timestamp (ns)"],
            strict=True,
        )
    ) == [
        ("Enter", "outer", 10_000),
        ("Enter", "inner", 10_000),
        ("Instant", "MpiSend", 12_000),
        ("Leave", "inner", 14_000),
        ("Leave", "outer", 20_000),
        ("Enter", "after", 20_000),
        ("Leave", "after", 20_000),
    ]
    task = ev[ev["Name"] == "task"]
    assert task["Event Type"].astype(str).tolist() == ["Enter", "Leave"]  # the E got a name
    assert task["Timestamp (ns)"].tolist() == [1000, 3000]  # 1.0005 us rounds to 1000 ns
    assert task["n"].tolist()[0] == 3
    send = ev[ev["Name"] == "MpiSend"]
    recv = ev[ev["Name"] == "MpiRecv"]
    assert send["Partner"].tolist() == [2] and recv["Partner"].tolist() == [1]
    assert trace.comm_matrix("count", as_frame=True).loc[1, 2] == 1
    assert set(ev["Name"].astype(str)) >= {"tick", "memory"}
    assert trace.metadata["ignored_events"] == {"b": 1, "P": 1}
    assert trace.metadata["dropped_args"] == ["deep"]
    assert ev.loc[ev["Name"] == "nested", "ok"].astype(str).tolist()[0] == "yes"
    assert trace.definitions.to_dict("records") == [
        {"Definition Type": "process_name", "Process": 1, "Thread": 0, "Value": "renderer"}
    ]
    trace.calc_exc_metrics()
    assert trace.flat_profile("time.exc").loc["outer", "time.exc"] == 6000


def test_array_format_without_closing_bracket(tmp_path):
    path = tmp_path / "open.json"
    path.write_text(
        '[{"ph": "B", "name": "a", "pid": 0, "tid": 0, "ts": 0},\n'
        '{"ph": "E", "name": "a", "pid": 0, "tid": 0, "ts": 1},\n'
    )
    trace = Trace.from_chrome(path)
    assert len(trace) == 2 and trace.metadata["format"] == "chrome"


def test_parsing_in_chunks(tmp_path, monkeypatch):
    trace = synthetic_trace(2, 20)
    rows = len(trace)
    frame = trace.events.copy()
    frame["Note"] = pd.Categorical(np.where(np.arange(rows) % 3 == 0, '}, {"ph": "x"', "plain"))
    tricky = Trace(frame)
    path = tmp_path / "chunks.json"
    tricky.to_chrome(path)
    monkeypatch.setattr(chrome_events, "CHUNK_EVENTS", 7)
    back = Trace.from_chrome(path)
    pd.testing.assert_frame_equal(back.events, tricky.events)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"ph": "B", "name": "a", "ts": 0}, {"ph": "E", "ts": }]', "invalid JSON near line 1"),
        ('[{"ph": "B", "name": "a", "ts": 0},\n{"name": "b", "ts": 1}]', "event 1 has no 'ph'"),
        ('[{"ph": "B", "name": "a"}]', "event 0 \\(ph 'B'\\) has no 'ts'"),
        ('[{"ph": "B", "name": "a", "ts": "now"}]', "event 0: 'ts' is 'now', not a number"),
        ('[{"ph": "X", "name": "a", "ts": 0}]', "event 0 \\(ph 'X'\\) has no valid 'dur'"),
        ('[{"ph": "B", "ts": 0}]', "event 0 \\(ph 'B'\\) has no 'name'"),
        ("[1, 2]", "must be a JSON object"),
        ('{"otherData": {}}', "without a 'traceEvents' array"),
        ('"just text"', "not trace-event JSON"),
        (
            '[{"ph": "B", "name": "a", "ts": 0, "args": [1]}]',
            "event 0: 'args' is \\[1\\], not a JSON object",
        ),
    ],
)
def test_malformed_files(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ReaderError, match=message) as info:
        Trace.from_chrome(path)
    assert str(path) in str(info.value)


def test_named_leave_must_close_an_enter_of_that_name(tmp_path):
    path = write_events(
        tmp_path,
        [{"ph": "B", "name": "a", "ts": 0, "pid": 0}, {"ph": "E", "name": "b", "ts": 1, "pid": 0}],
    )
    with pytest.raises(
        ReaderError,
        match=r"the Leave of 'b' at 1000 ns on process 0, "
        r"thread 0 closes the Enter of 'a'",
    ) as info:
        Trace.from_chrome(path)
    assert str(path) in str(info.value)


def test_unreadable_inputs(tmp_path):
    with pytest.raises(ReaderError, match="no such file"):
        Trace.from_chrome(tmp_path / "missing.json")
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    with pytest.raises(ReaderError, match="empty file"):
        Trace.from_chrome(empty)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b'[{"ph": "B", "name": "\xff", "ts": 0}]')
    with pytest.raises(ReaderError, match="UTF-8"):
        Trace.from_chrome(binary)


def test_detect(tmp_path, foo_bar_path):
    assert trace_chrome.detect(write_events(tmp_path, [{"ph": "B"}]))
    assert trace_chrome.detect(write_events(tmp_path, [], wrap=True, name="w.json"))
    assert not trace_chrome.detect(foo_bar_path)
    assert not trace_chrome.detect(tmp_path)
