"""The compiled Chrome JSON scanner against Python's json module (numbers parse to the
same doubles, strings decode to the same text, args columns type the same way), and the
Chrome reader under hostile input: every bad file ends in a ReaderError naming the file
and the event or byte, in bounded time and memory."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.errors import ReaderError
from glade.readers.traces import json_scan
from glade.trace import Trace
from tests.hypothesis_budget import examples

NUMBER_FORMATS = ("{!r}", "{:.17g}", "{:e}", "{:.3f}", "{:.0f}", "{:.12E}")


def scan_one(text: bytes):
    """The scanner's kinds, spans and numbers of a one-event array ``text``."""
    raw = np.frombuffer(text, dtype=np.uint8)
    width = len(json_scan.KEYS)
    kind = np.empty((4, width), np.uint8)
    start, stop = np.empty((4, width), np.int64), np.empty((4, width), np.int64)
    numbers = np.empty((4, len(json_scan.NUMERIC)))
    info = np.zeros(2, np.int64)
    result, _, count = json_scan.scan(
        raw,
        1,
        True,
        0,
        *json_scan.key_table(),
        kind,
        start,
        stop,
        numbers,
        np.empty(4, np.int64),
        info,
    )
    return result, count, kind[:count], numbers[:count], info


@settings(max_examples=examples(150), deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(NUMBER_FORMATS))
def test_numbers_parse_to_the_double_python_gives(value, form):
    text = form.format(value)
    result, count, kind, numbers, _ = scan_one(b'[{"ts": ' + text.encode() + b"}]")
    assert (result, count) == (json_scan.END, 1)
    assert kind[0, json_scan.KEYS.index("ts")] == json_scan.NUMBER
    parsed = numbers[0, 0]
    # NaN marks the numbers left to Python's exact parse: any other value must be exact
    assert np.isnan(parsed) or parsed == float(text)


@settings(max_examples=examples(100), deadline=None)
@given(
    name=st.text(st.characters(exclude_categories=("Cs",)), max_size=20), ascii_only=st.booleans()
)
def test_strings_decode_to_the_text_python_gives(tmp_path_factory, name, ascii_only):
    path = tmp_path_factory.mktemp("names") / "t.json"
    events = [{"ph": "i", "name": name, "ts": 1, "pid": 0, "args": {"label": name}}]
    path.write_text(json.dumps(events, ensure_ascii=ascii_only), encoding="utf-8")
    trace = Trace.from_chrome(path)
    assert trace.events["Name"].astype(str).tolist() == [name]
    assert trace.events["label"].astype(str).tolist() == [name]


def test_args_are_typed_as_json_gives_them(tmp_path):
    events = [
        {
            "ph": "i",
            "name": "a",
            "ts": 1,
            "args": {"n": 1, "x": 1.5, "b": True, "s": "u", "big": 2**64, "mixed": 1, "k": None},
        },
        {
            "ph": "i",
            "name": "a",
            "ts": 2,
            "args": {"n": 2, "x": 2, "b": False, "s": "v", "big": 1, "mixed": "one", "k": None},
        },
        {"ph": "i", "name": "a", "ts": 3, "args": {"x": -0.25, "dup": 2}},
    ]
    path = tmp_path / "args.json"
    path.write_text(json.dumps(events).replace('"dup": 2', '"dup": 1, "dup": 2'))
    trace = Trace.from_chrome(path)
    ev = trace.events
    # an integer attribute some events lack is float (NaN there), as in the CSV reader
    assert ev["n"].tolist()[:2] == [1.0, 2.0] and np.isnan(ev["n"].iat[2])
    assert ev["x"].tolist() == [1.5, 2.0, -0.25]
    assert ev["b"].tolist() == [True, False, False]
    assert ev["s"].astype(str).tolist()[:2] == ["u", "v"]
    assert ev["big"].tolist()[:2] == [2.0**64, 1.0]  # too big for int64: floats
    assert ev["dup"].tolist()[2] == 2  # the last of a repeated key, as json keeps it
    assert set(trace.metadata["dropped_args"]) == {"mixed", "k"}


HOSTILE = [
    (b'[{"ph": "B", "name": "a", "ts": 1e309}]', r"event 0: 'ts' inf us is not a time"),
    (b'[{"ph": "B", "name": "a", "ts": -1e308}]', r"event 0: 'ts' -1e\+308 us"),
    (
        b'[{"ph": "B", "name": "a", "ts": Infinity}]',
        r"invalid JSON near line 1 \(byte 32, "
        r"event 0\)",
    ),
    (b'[{"ph": "B", "name": "a", "ts": NaN}]', r"invalid JSON near line 1 \(byte 32, event 0\)"),
    (b'[{"ph": "B", "name": "a", "ts": 9223372036854775808}]', r"event 0: 'ts' 9\.22"),
    (b'[{"ph": "X", "name": "a", "ts": 0, "dur": 1e300}]', r"event 0: 'ts' 0\.0 us \(with"),
    (b'[{"ph": "X", "name": "a", "ts": 0, "dur": -1}]', r"event 0 \(ph 'X'\) has no valid"),
    (b'[{"ph": ["B"], "name": "a", "ts": 0}]', r"event 0: 'ph' is \[\"B\"\], not a string"),
    (b'[{"ph": "B", "name": {"x": 1}, "ts": 0}]', r"event 0: 'name' is \{\"x\": 1\}"),
    (
        b'[{"ph": "B", "name": "a", "ts": 0},\n{"ph": "B", "name": "a", "ts": true}]',
        r"event 1: 'ts' is true, not a number",
    ),
    (b'[{"ph": "B", "name": "a", "ts": 0, "pid": 1.5}]', r"event 0: 'pid' is 1\.5, not an int"),
    (b'[{"ph": "B", "name": "a", "ts": 0, "tid": 1e19}]', r"event 0: 'tid' is 1e\+19"),
    (b'{"traceEvents": [{"ph": "B", "name": "a", "ts": 0},', r"ends inside the 'traceEvents'"),
    (b'[{"ph": "B", "name": "a", "ts": 0', r"invalid JSON near line 1 \(byte 33, event 0\)"),
    (b'[{"ph": "B", "name": "a\x01", "ts": 0}]', r"a control character in a string"),
    (b'[{"ph": "B", "name": "a", "ts": 0, "x": "\xc3\x28"}]', r"not UTF-8 text"),
    (b'[{"ph": "B", "name": "\xed\xa0\x80", "ts": 0}]', r"not UTF-8 text"),
    (b'[{"ph": "B", "name": "a", "ts": 0}] trailing', r"invalid JSON|not trace-event"),
    (
        b'{"otherData": {"glade": {"time_offset_ns": "soon"}}, "traceEvents": []}',
        r"time_offset_ns is 'soon'",
    ),
    (
        b'{"otherData": {"glade": {"time_offset_ns": 9223372036854775807}}, "traceEvents": '
        b'[{"ph": "i", "name": "a", "ts": 0}]}',
        r"time_offset_ns is 9223372036854775807",
    ),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE)
def test_hostile_files_are_refused_with_the_file_named(tmp_path, text, message):
    path = tmp_path / "hostile.json"
    path.write_bytes(text)
    if text.endswith(b"trailing"):
        # text after the closing bracket of a bare array is not read: the events are
        assert len(Trace.from_chrome(path)) == 1
        return
    with pytest.raises(ReaderError, match=message) as info:
        Trace.from_chrome(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("where", ["args", "event", "other"])
def test_nesting_past_the_limit_is_refused_without_recursion(tmp_path, where):
    depth = 100_000
    deep = b"[" * depth + b"]" * depth
    text = {
        "args": b'[{"ph": "i", "name": "a", "ts": 0, "args": {"x": ' + deep + b"}}]",
        "event": b'[{"ph": "i", "name": "a", "ts": 0, "x": ' + deep + b"}]",
        "other": b'{"traceEvents": [{"ph": "i", "name": "a", "ts": 0, "x": ' + deep + b"}]}",
    }[where]
    path = tmp_path / "deep.json"
    path.write_bytes(text)
    with pytest.raises(
        ReaderError,
        match=f"nested deeper than {json_scan.MAX_DEPTH} levels "
        r"near line 1 \(byte \d+, event 0\)",
    ):
        Trace.from_chrome(path)


def test_nesting_within_the_limit_is_read(tmp_path):
    depth = json_scan.MAX_DEPTH - 3  # the array, the event and the args object around it
    deep = b"[" * depth + b"]" * depth
    path = tmp_path / "deep.json"
    path.write_bytes(b'[{"ph": "i", "name": "a", "ts": 0, "args": {"x": ' + deep + b"}}]")
    trace = Trace.from_chrome(path)
    assert len(trace) == 1 and trace.metadata["dropped_args"] == ["x"]
