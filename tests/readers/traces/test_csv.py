"""The CSV trace reader and writer: exact round trips, typed extra columns, and a
clear ReaderError for every way a file can be wrong."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from glade.datasets import synthetic_trace
from glade.errors import ReaderError
from glade.readers.traces import csv as trace_csv
from glade.trace import Trace
from glade.trace.matching import UnmatchedEventsWarning
from tests.trace.helpers import make_trace


def write(tmp_path, text: str, name: str = "t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_round_trips(tmp_path, foo_bar):
    for trace in (foo_bar, synthetic_trace(3, 4, exchange="halo")):
        for unit in ("s", "ms", "us", "ns"):
            path = tmp_path / f"out_{unit}.csv"
            trace.to_csv(path, unit=unit)
            back = Trace.from_csv(path)
            pd.testing.assert_frame_equal(back.events, trace.events)
    compressed = tmp_path / "out.csv.gz"
    foo_bar.to_csv(compressed)
    assert compressed.read_bytes()[:2] == b"\x1f\x8b"
    for shown in (True, False):  # through Python's gzip with a progress bar, or Arrow's
        pd.testing.assert_frame_equal(
            Trace.from_csv(compressed, progress=shown).events, foo_bar.events
        )


def test_writer_skips_derived_columns_and_quotes_text(tmp_path):
    trace = make_trace(
        [(0, "Enter", "f(a, b)", 0), (5, "Instant", ' say "hi"', 0), (9, "Leave", "f(a, b)", 0)],
        Region=["x,y", None, "z"],
        Weight=[0.1, np.nan, 2.5],
        Flag=[True, False, True],
    )
    trace.calc_exc_metrics()
    path = tmp_path / "quoted.csv"
    trace.to_csv(path)
    header = path.read_text().splitlines()[0]
    assert header == "Timestamp (s),Event Type,Name,Process,Thread,Region,Weight,Flag"
    back = Trace.from_csv(path)
    assert back.events["Name"].astype(str).tolist() == ["f(a, b)", ' say "hi"', "f(a, b)"]
    assert back.events["Region"].astype(object).tolist()[0] == "x,y"
    assert pd.isna(back.events["Region"].iat[1])
    np.testing.assert_array_equal(back.events["Weight"], [0.1, np.nan, 2.5])
    assert back.events["Flag"].tolist() == [True, False, True]
    assert back.metadata["metric_columns"] == ["Weight"]


def test_extra_columns_are_typed(tmp_path):
    path = write(
        tmp_path,
        (
            "Timestamp (us), Event Type, Name, Process, Thread, Partner, Message Size, "
            "PAPI_TOT_CYC, Site\n"
            "0.5, Enter, main, 0, 1, , , 100, a\n"
            "1.25, Instant, MpiSend, 0, 1, 3, 64, 150, b\n"
            "2, Leave, main, 0, 1, , , 400, a\n"
        ),
    )
    trace = Trace.from_csv(path)
    events = trace.events
    assert events["Timestamp (ns)"].tolist() == [500, 1250, 2000]
    assert events["Thread"].tolist() == [1, 1, 1]
    assert events["Partner"].dtype == np.int64 and events["Partner"].tolist() == [-1, 3, -1]
    assert events["Message Size"].tolist() == [-1, 64, -1]
    assert isinstance(events["Site"].dtype, pd.CategoricalDtype)
    assert trace.metric_columns == ["PAPI_TOT_CYC"]
    trace.calc_inc_metrics()
    assert events.loc[0, "PAPI_TOT_CYC.inc"] == 300 and events.loc[0, "time.inc"] == 1500
    assert trace.comm_matrix("count")[0, 3] == 1


def test_large_timestamps_stay_exact(tmp_path):
    base = 1_700_000_000_123_456_789  # ns since the epoch: beyond float precision
    trace = make_trace([(base, "Enter", "a", 0), (base + 1, "Leave", "a", 0)])
    for unit in ("s", "ms"):
        path = tmp_path / f"epoch_{unit}.csv"
        trace.to_csv(path, unit=unit)
        back = Trace.from_csv(path)
        assert back.events["Timestamp (ns)"].tolist() == [base, base + 1]
    path = write(
        tmp_path,
        "Timestamp (s),Event Type,Name,Process\n1.7e9,Enter,a,0\n1700000000.5,Leave,a,0\n",
        "sci.csv",
    )
    with pytest.raises(ReaderError, match="plain decimal notation"):
        Trace.from_csv(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Time,Event Type,Name,Process\n0,Enter,a,0\n", "exactly one timestamp column"),
        ("Timestamp (s),Timestamp (ns),Event Type,Name,Process\n", "exactly one timestamp"),
        ("Timestamp (s),Event Type,Process\n0,Enter,0\n", r"lacks the column\(s\) \['Name'\]"),
        (
            "Timestamp (s),Event Type,Name,Process\n0,Enter,a,0\n1,Exit,a,0\n",
            "line 3: unknown event type 'Exit'",
        ),
        (
            "Timestamp (s),Event Type,Name,Process\n0,Enter,a,0\nsoon,Leave,a,0\n",
            "line 3: 'soon' in column 'Timestamp \\(s\\)' is not a number",
        ),
        (
            "Timestamp (s),Event Type,Name,Process\n,Enter,a,0\n",
            "line 2: no value in column 'Timestamp",
        ),
        (
            "Timestamp (s),Event Type,Name,Process\n0,Enter,a,0\n1,Leave,a,0,7,8\n",
            "malformed CSV.*line 3",
        ),
        (
            "Timestamp (s),Event Type,Name,Process\n0,Enter,a,\n",
            "line 2: no value in column 'Process'",
        ),
        (
            "Timestamp (s),Event Type,Name,Process\n0,,a,0\n",
            "line 2: no value in column 'Event Type'",
        ),
        (
            "Timestamp (s),Event Type,Name,Process,Partner\n0,Instant,MpiSend,0,1.5\n",
            "line 2: 1.5 in column 'Partner' is not an integer",
        ),
        ("Timestamp (s),Event Type,Name,Process\n0,Enter,a,0.5\n", "'Process' holds non-integer"),
        ("Timestamp (s),Event Type,Name,Process,Process\n0,Enter,a,0,0\n", "repeats column"),
    ],
)
def test_malformed_files(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ReaderError, match=message) as info:
        Trace.from_csv(path)
    assert str(path) in str(info.value)


def test_unreadable_inputs(tmp_path, foo_bar_path):
    with pytest.raises(ReaderError, match="no such file"):
        Trace.from_csv(tmp_path / "missing.csv")
    with pytest.raises(ReaderError, match="is a directory"):
        Trace.from_csv(tmp_path)
    with pytest.raises(ReaderError, match="empty file"):
        Trace.from_csv(write(tmp_path, ""))
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"Timestamp (s),Event Type,Name,Process\n0,Enter,\xff\xfe,0\n")
    with pytest.raises(ReaderError, match=r"line 2: .* in column 'Name' is not UTF-8"):
        Trace.from_csv(binary)
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(gzip.compress(foo_bar_path.read_bytes())[:60])
    with pytest.raises(ReaderError):
        Trace.from_csv(cut)


def test_detect(tmp_path, foo_bar_path):
    assert trace_csv.detect(foo_bar_path)
    assert not trace_csv.detect(tmp_path)
    assert not trace_csv.detect(write(tmp_path, "a,b,c\n1,2,3\n", "plain.csv"))
    assert not trace_csv.detect(write(tmp_path, '[{"ph": "B"}]', "t.json"))


HEADER = "Timestamp (s),Event Type,Name,Process\n"


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("0,Enter,a,0\n1e309,Leave,a,0\n", r"line 3: inf in column 'Timestamp \(s\)' is not a"),
        ("nan,Enter,a,0\n1,Leave,a,0\n", r"line 2: nan in column 'Timestamp \(s\)' is not a time"),
        ("0,Enter,a,0\n-Infinity,Leave,a,0\n", r"line 3: -inf in column .* is not a time"),
        (
            "0,Enter,a,0\n99999999999999999999,Leave,a,0\n",
            r"line 3: 1e\+20 in column 'Timestamp \(s\)' is not a time glade can store",
        ),
        (
            "0,Enter,a,0\n9223372036854775807,Leave,a,0\n",
            r"line 3: 9\.22\d*e\+18 in column 'Timestamp \(s\)' is not a time glade can store",
        ),
        ("0,Enter,a,1e19\n1,Leave,a,0\n", r"line 2: 1e\+19 in column 'Process' is not an integer"),
        ("0,Enter,a,x\n1,Leave,a,0\n", r"line 2: 'x' in column 'Process' is not an integer"),
        (
            "0,Enter,a,0\n1,Enter,b,0\n2,Leave,a,0\n3,Leave,b,0\n",
            r"line 4: Leave of 'a' at row 2 .* closes the Enter of 'b'",
        ),
        ("0,Enter,\xe9t\xe9,0\n1,Leave,\xe9t\xe9,0\n", None),
    ],
)
def test_hostile_cells_name_their_line(tmp_path, rows, message):
    path = write(tmp_path, HEADER + rows)
    if message is None:  # text that is UTF-8 but not ASCII reads as it is
        assert Trace.from_csv(path).events["Name"].astype(str).tolist() == ["été", "été"]
        return
    with pytest.raises(ReaderError, match=message) as info:
        Trace.from_csv(path)
    assert str(info.value).startswith(str(path))


@pytest.mark.parametrize(
    ("header", "rows", "message"),
    [
        ("Partner", "0,Instant,MpiSend,0,-5\n", r"line 2: -5 in column 'Partner' is negative"),
        (
            "Message Size",
            "0,Instant,MpiSend,0,inf\n",
            r"line 2: inf in column 'Message Size' is not an integer",
        ),
        (
            "Message Size",
            "0,Instant,MpiSend,0,18446744073709551616\n",
            r"line 2: 1\.8\d*e\+19 in column 'Message Size' is not an integer",
        ),
        (
            "PAPI_TOT_CYC",
            "0,Instant,x,0,1\n1,Instant,x,0,-inf\n",
            r"line 3: -inf in metric column 'PAPI_TOT_CYC' is infinite",
        ),
    ],
)
def test_hostile_attributes_name_their_line_and_column(tmp_path, header, rows, message):
    path = write(tmp_path, HEADER.replace("\n", f",{header}\n") + rows)
    with pytest.raises(ReaderError, match=message):
        Trace.from_csv(path)


def test_integer_nanoseconds_beyond_the_int64_range_are_refused(tmp_path):
    path = write(
        tmp_path,
        "Timestamp (ns),Event Type,Name,Process\n0,Enter,a,0\n9223372036854775807,Leave,a,0\n",
    )
    with pytest.raises(
        ReaderError,
        match=r"line 3: 9223372036854775807 in column "
        r"'Timestamp \(ns\)' is beyond",
    ):
        Trace.from_csv(path)


def test_lines_are_those_of_the_file_when_it_is_not_in_time_order(tmp_path):
    path = write(
        tmp_path,
        HEADER + "5,Leave,b,0\n0,Enter,a,0\n1,Enter,b,0\n9,Leave,a,0\n3,Enter,c,1\n4,Leave,d,1\n",
    )
    with pytest.raises(ReaderError, match=r"line 7: Leave of 'd'"):
        Trace.from_csv(path)


def test_non_utf8_text_names_line_and_column(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(
        b"Timestamp (s),Event Type,Name,Process,Site\n0,Enter,a,0,ok\n1,Leave,a,0,caf\xe9\n"
    )
    with pytest.raises(ReaderError, match=r"line 3: .* in column 'Site' is not UTF-8"):
        Trace.from_csv(path)


def test_readable_oddities_are_kept_or_repaired(tmp_path):
    path = write(
        tmp_path,
        "Timestamp (ns), Event Type, Name, Process, When, Note\n"
        "-20, Leave, lost, 0, 2026-01-01, \n"
        '-10, Enter, main, 0, 2026-01-02,  "x y"\n'
        "5, Enter, open, 0, 2026-01-03, \n",
    )
    with pytest.warns(UnmatchedEventsWarning):
        trace = Trace.from_csv(path)
    events = trace.events
    # negative times are times before the clock's origin: kept as they are
    assert events["Timestamp (ns)"].tolist() == [-20, -10, 5]
    # dates stay the text the file holds; cells of spaces only are empty
    assert events["When"].astype(str).tolist() == ["2026-01-01", "2026-01-02", "2026-01-03"]
    assert events["Note"].isna().tolist() == [True, False, True]
    assert events["Note"].iat[1] == "x y"  # quoted after the spaces: unquoted
    assert trace.metadata["repairs"] == {"orphan_leaves": 1, "open_enters": 2}
    assert trace.metadata["source"] == str(path)


def test_the_events_read_are_writable(tmp_path):
    path = write(
        tmp_path,
        "Timestamp (ns),Event Type,Name,Process,Thread,Partner,Weight\n"
        "0,Enter,a,0,0,1,0.5\n5,Leave,a,0,0,2,1.5\n",
    )
    trace = Trace.from_csv(path)
    for column in ("Timestamp (ns)", "Process", "Thread", "Partner", "Weight"):
        trace.events.loc[1, column] = 7
        assert trace.events[column].tolist()[1] == 7
