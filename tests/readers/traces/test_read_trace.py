"""read_trace: format detection over every registered trace format, dispatch, and
the errors for inputs no reader takes."""

from __future__ import annotations

import importlib

import pandas as pd
import pytest

from glade.datasets import synthetic_trace
from glade.errors import GladeError, ReaderError
from glade.readers import traces
from glade.readers.traces import TRACE_FORMATS, available_formats, detect_trace_format, read_trace
from glade.trace import Trace


def test_registry_names_every_format():
    assert [name for name, _, _ in TRACE_FORMATS] == [
        "parquet",
        "otf2",
        "hpctoolkit",
        "projections",
        "nsight",
        "chrome",
        "csv",
    ]
    assert {"chrome", "csv"} <= set(available_formats())
    for name, module, function in TRACE_FORMATS:
        if name in available_formats():
            loaded = importlib.import_module(module)
            assert callable(loaded.detect) and callable(getattr(loaded, function))


def test_text_formats_are_detected_and_read(tmp_path, foo_bar_path):
    assert detect_trace_format(foo_bar_path) == "csv"
    trace = synthetic_trace(2, 3)
    trace.to_chrome(tmp_path / "t.json")
    trace.to_csv(tmp_path / "t.csv.gz")
    assert detect_trace_format(tmp_path / "t.json") == "chrome"
    assert detect_trace_format(tmp_path / "t.csv.gz") == "csv"
    for name in ("t.json", "t.csv.gz"):
        pd.testing.assert_frame_equal(read_trace(tmp_path / name).events, trace.events)
    pd.testing.assert_frame_equal(
        read_trace(foo_bar_path, format="csv").events, Trace.from_csv(foo_bar_path).events
    )


def test_real_pipit_traces_are_detected(pipit_data):
    expected = {
        "ping-pong-otf2": "otf2",
        "ping-pong-hpctoolkit": "hpctoolkit",
        "ping-pong-projections": "projections",
    }
    for folder, name in expected.items():
        if name in available_formats():
            assert detect_trace_format(pipit_data / folder) == name


def test_errors(tmp_path, monkeypatch):
    with pytest.raises(ReaderError, match="no such file"):
        read_trace(tmp_path / "missing")
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(ReaderError, match="not a trace format glade recognizes"):
        read_trace(other)
    with pytest.raises(ReaderError, match="unknown trace format 'vtf'"):
        read_trace(other, format="vtf")
    monkeypatch.setattr(
        traces, "TRACE_FORMATS", [("ghost", "glade.readers.no_such_reader", "read"), *TRACE_FORMATS]
    )
    assert "ghost" not in traces.available_formats()
    with pytest.raises(GladeError, match="the ghost trace reader is not available"):
        traces.read_trace(other, format="ghost")
