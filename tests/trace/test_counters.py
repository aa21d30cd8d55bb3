"""Counters (glade.trace.counters): the tidy table of the samples a reader keeps (Chrome
``"C"`` events, OTF2 metrics, CSV metric columns) with values checked by hand, lossless
through Parquet, Chrome and OTF2; clear errors on malformed counter records; the window
measure and the per-pixel envelope against brute-force oracles."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from glade.errors import ReaderError, TraceError
from glade.trace import Trace
from glade.trace.counters import COUNTER_COLUMNS, counter_summary, pixel_columns
from glade.trace.filter import Filter

#: A Chrome trace with two counters of one name (``mem``: heap and stack) on process 0,
#: one (``cpu``) on process 1, and a call.
CHROME_EVENTS = [
    {"ph": "X", "name": "main", "pid": 0, "tid": 0, "ts": 0, "dur": 100},
    {"ph": "C", "name": "mem", "pid": 0, "tid": 0, "ts": 0, "args": {"heap": 10, "stack": 1}},
    {"ph": "C", "name": "mem", "pid": 0, "tid": 0, "ts": 50, "args": {"heap": 30, "stack": 2}},
    {"ph": "C", "name": "mem", "pid": 0, "tid": 0, "ts": 100, "args": {"heap": 20}},
    {"ph": "C", "name": "cpu", "pid": 1, "tid": 0, "ts": 10, "args": {"value": 0.5}},
]


def write_chrome(path: Path, events: list[dict]) -> Path:
    """The trace-event file of ``events`` (the text "INFINITE" written as 1e999, a
    number JSON parsers read as infinite)."""
    path.write_text(json.dumps({"traceEvents": events}).replace('"INFINITE"', "1e999"))
    return path


@pytest.fixture
def chrome(tmp_path: Path) -> Trace:
    return Trace.from_chrome(write_chrome(tmp_path / "c.json", CHROME_EVENTS))


def test_chrome_counter_events_are_a_tidy_table(chrome: Trace) -> None:
    table = chrome.counters
    assert tuple(table.columns) == COUNTER_COLUMNS
    assert list(table["Counter"].cat.categories) == ["cpu value", "mem heap", "mem stack"]
    assert (
        table["Counter"].astype(str).tolist()
        == ["cpu value"] + ["mem heap"] * 3 + ["mem stack"] * 2
    )
    assert table["Timestamp (ns)"].tolist() == [10_000, 0, 50_000, 100_000, 0, 50_000]
    assert table["Process"].tolist() == [1, 0, 0, 0, 0, 0]
    assert table["Value"].tolist() == [0.5, 10, 30, 20, 1, 2]
    # heap: +20 in 50 us is 400,000 per second, then -10 in 50 us; stack +1 in 50 us
    rates = table["Rate"].tolist()
    assert math.isnan(rates[0]) and math.isnan(rates[1]) and math.isnan(rates[4])
    assert rates[2] == pytest.approx(400_000) and rates[3] == pytest.approx(-200_000)
    assert rates[5] == pytest.approx(20_000)
    assert table["Unit"].isna().all()
    # the events keep the samples as Instants, as before
    assert (chrome.events["Name"] == "mem").sum() == 3


def test_counter_summary_of_a_window_by_hand(chrome: Trace) -> None:
    summary = chrome.counter_summary("25 us", "75 us").set_index("Counter")
    heap = summary.loc["mem heap"]
    # step function 10 on [25, 50), 30 on [50, 75): mean 20; the line through the samples
    # goes from 20 at 25 us to 25 at 75 us: 5 in 50 us
    assert heap["samples"] == 1 and heap["min"] == 30 and heap["max"] == 30
    assert heap["mean"] == pytest.approx(20)
    assert heap["rate"] == pytest.approx(100_000)
    assert heap["covered"] == 50_000
    stack = summary.loc["mem stack"]
    # stack's last sample is at 50 us: it covers [25, 50) only, from 1.5 to 2
    assert stack["covered"] == 25_000
    assert stack["mean"] == pytest.approx(1) and stack["rate"] == pytest.approx(20_000)
    assert "cpu value" not in summary.index  # its one sample is outside, and covers nothing
    assert chrome.counter_summary(processes=[1])["Counter"].astype(str).tolist() == ["cpu value"]


def test_counters_survive_parquet_chrome_and_selections(chrome: Trace, tmp_path: Path) -> None:
    chrome.metadata["units"] = {"mem heap": "B"}
    expected = chrome.counters
    assert list(expected["Unit"].cat.categories) == ["B"]
    assert expected["Unit"].cat.codes.tolist() == [-1, 0, 0, 0, -1, -1]
    chrome.to_parquet(tmp_path / "p")
    pd.testing.assert_frame_equal(Trace.from_parquet(tmp_path / "p").counters, expected)
    chrome.to_chrome(str(tmp_path / "back.json"))
    written = json.loads((tmp_path / "back.json").read_text())["traceEvents"]
    assert sorted(e["ph"] for e in written) == ["B", "C", "C", "C", "C", "E"]
    pd.testing.assert_frame_equal(Trace.from_chrome(tmp_path / "back.json").counters, expected)
    only = chrome.filter(Filter("Process", "==", 1))
    assert only.counters["Counter"].astype(str).tolist() == ["cpu value"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"heap": "big"}, "'heap' = \"big\", not a finite number"),
        ({"heap": None}, "'heap' = null, not a finite number"),
        ({"heap": [1]}, "'heap' = [1], not a finite number"),
        ({"heap": "INFINITE"}, "'heap' = 1e999, not a finite number"),
    ],
)
def test_malformed_counter_events_are_refused(tmp_path: Path, args, message) -> None:
    events = [*CHROME_EVENTS, {"ph": "C", "name": "mem", "pid": 0, "ts": 120, "args": args}]
    with pytest.raises(ReaderError, match=r"event 5 \(ph 'C', name 'mem'\)") as info:
        Trace.from_chrome(write_chrome(tmp_path / "bad.json", events))
    assert message in str(info.value)


def test_counter_key_with_text_elsewhere_is_refused(tmp_path: Path) -> None:
    events = [*CHROME_EVENTS, {"ph": "i", "name": "note", "pid": 0, "ts": 5, "args": {"heap": "x"}}]
    with pytest.raises(ReaderError, match="'heap' of counter events"):
        Trace.from_chrome(write_chrome(tmp_path / "bad.json", events))


@pytest.mark.parametrize(
    ("counters", "message"),
    [
        ([{"name": "x"}], r"metadata\['counters'\]\[0\]"),
        ([{"name": "x", "column": "nope"}], "the events do not have"),
        ([{"name": "x", "column": "Name"}], "not numbers"),
        (
            [{"name": "x", "column": "heap"}, {"name": "x", "column": "stack"}],
            "two counters are named 'x'",
        ),
    ],
)
def test_malformed_declarations_are_trace_errors(chrome: Trace, counters, message) -> None:
    chrome.metadata["counters"] = counters
    with pytest.raises(TraceError, match=message):
        _ = chrome.counters


def test_infinite_value_names_the_counter(chrome: Trace) -> None:
    chrome.events.loc[chrome.events["Name"] == "cpu", "value"] = np.inf
    with pytest.raises(TraceError, match="counter 'cpu value' has the value inf at event 2"):
        _ = chrome.counters


def test_csv_metric_columns_are_counters(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(
        "Timestamp (s),Event Type,Name,Process,PAPI_TOT_CYC\n"
        "0,Enter,main,0,0\n1,Enter,f,0,100\n3,Leave,f,0,500\n4,Leave,main,0,600\n"
    )
    trace = Trace.from_csv(str(path))
    table = trace.counters
    assert table["Counter"].astype(str).unique().tolist() == ["PAPI_TOT_CYC"]
    assert table["Rate"].tolist()[1:] == pytest.approx([100, 200, 100])
    # 600 cycles in 4 s; from 1 s to 3 s, 400 cycles
    assert trace.counter_summary()["rate"].item() == pytest.approx(150)
    assert trace.counter_summary("1 s", "3 s")["rate"].item() == pytest.approx(200)


def test_otf2_metrics_are_counters_with_units(tmp_path: Path) -> None:
    pytest.importorskip("otf2", reason="the otf2 package (glade[otf2]) is not installed")
    events = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 100, 200, 300, 0, 150, 300, 310],
            "Event Type": ["Enter", "Enter", "Leave", "Leave"] * 2,
            "Name": ["main", "f", "f", "main"] * 2,
            "Process": [0, 0, 0, 0, 1, 1, 1, 1],
            "Thread": 0,
            "PAPI_TOT_INS": [0, 1000, 3000, 3500, 0, 10, 20, 30.0],
        }
    )
    trace = Trace(events, metadata={"units": {"PAPI_TOT_INS": "count"}})
    trace.to_otf2(tmp_path / "a", metrics=["PAPI_TOT_INS"])
    back = Trace.from_otf2(tmp_path / "a")
    table = back.counters
    assert table["Counter"].astype(str).unique().tolist() == ["PAPI_TOT_INS"]
    assert table["Unit"].astype(str).unique().tolist() == ["count"]
    assert table["Value"].tolist() == [0, 1000, 3000, 3500, 0, 10, 20, 30]
    summary = back.counter_summary(100, 200).set_index("Process")
    # process 0: 2000 instructions in 100 ns; process 1: the line through (0, 0),
    # (150, 10), (300, 20) from 100 to 200 ns gives 10 * 50/150 + 10 * 50/150
    assert summary.loc[0, "rate"] == pytest.approx(2e10)
    assert summary.loc[1, "rate"] == pytest.approx((20 / 3) / 100e-9)
    assert summary.loc[0, "rate unit"] == "count/s"
    pd.testing.assert_frame_equal(back.counters, table)


def test_real_traces_without_counters_have_an_empty_table(pipit_data: Path) -> None:
    trace = Trace.from_csv(str(pipit_data / "foo-bar.csv"))
    assert len(trace.counters) == 0 and len(trace.counter_summary()) == 0


# ------------------------------------------------------------------ oracles
def brute_summary(samples: list[tuple[int, float]], lo: int, hi: int) -> dict:
    """One track's window measure, walked piece by piece."""
    covered = area = 0.0
    for (t, v), (u, _) in itertools.pairwise(samples):
        a, b = max(t, lo), min(u, hi)
        if b > a:
            covered += b - a
            area += (b - a) * v

    def at(x: float) -> float:
        x = min(max(x, samples[0][0]), samples[-1][0])
        for (t, v), (u, w) in itertools.pairwise(samples):
            if t <= x <= u and u > t:
                return v + (x - t) / (u - t) * (w - v)
        return [v for t, v in samples if t <= x][-1]

    c0 = min(max(lo, samples[0][0]), samples[-1][0])
    c1 = min(max(hi, samples[0][0]), samples[-1][0])
    inside = [v for t, v in samples if lo <= t <= hi]
    return {
        "samples": len(inside),
        "mean": area / covered if covered else math.nan,
        "rate": (at(c1) - at(c0)) / ((c1 - c0) * 1e-9) if c1 > c0 else math.nan,
        "min": min(inside) if inside else math.nan,
    }


tracks = st.lists(
    st.lists(
        st.tuples(st.integers(0, 1000), st.integers(-50, 50).map(float)),
        min_size=1,
        max_size=12,
        unique_by=lambda s: s[0],
    ).map(sorted),
    min_size=1,
    max_size=4,
)


@given(tracks, st.integers(-100, 1100), st.integers(0, 600))
def test_counter_summary_matches_a_brute_force_walk(data, lo, length) -> None:
    rows = [(t, p, v) for p, samples in enumerate(data) for t, v in samples]
    table = pd.DataFrame(
        {
            "Timestamp (ns)": [r[0] for r in rows],
            "Process": [r[1] for r in rows],
            "Thread": 0,
            "Counter": pd.Categorical(["c"] * len(rows)),
            "Value": [r[2] for r in rows],
            "Rate": np.nan,
            "Unit": pd.Categorical([None] * len(rows), categories=[]),
        }
    )
    got = counter_summary(table, lo, lo + length).set_index("Process")
    for p, samples in enumerate(data):
        want = brute_summary(samples, lo, lo + length)
        if want["samples"] == 0 and math.isnan(want["mean"]):
            assert p not in got.index
            continue
        row = got.loc[p]
        assert row["samples"] == want["samples"]
        for key in ("mean", "rate", "min"):
            assert row[key] == pytest.approx(want[key], nan_ok=True, rel=1e-9, abs=1e-9)


@given(tracks, st.integers(-100, 900), st.integers(1, 700), st.integers(1, 40))
def test_pixel_envelope_matches_a_brute_force_reduction(data, t0, length, width) -> None:
    t1 = t0 + length
    stamps = np.array([t for samples in data for t, _ in samples], dtype=np.int64)
    track = np.repeat(np.arange(len(data)), [len(s) for s in data])
    values = np.array([v for samples in data for _, v in samples])
    env = pixel_columns(stamps, track, values, len(data), t0, t1, width)
    got = {
        (k, c): (lo, hi, m, n)
        for k, c, lo, hi, m, n in zip(
            env.track, env.column, env.low, env.high, env.mean, env.count, strict=True
        )
    }
    want = {}
    for k, samples in enumerate(data):
        for c in range(width):
            a, b = t0 + c * length / width, t0 + (c + 1) * length / width
            inside = [v for t, v in samples if a <= t < b and t < t1]
            if inside:
                want[(k, c)] = (min(inside), max(inside), sum(inside) / len(inside), len(inside))
        early = [v for t, v in samples if t < t0]
        assert env.before[k] == pytest.approx(early[-1] if early else math.nan, nan_ok=True)
        assert env.beyond[k] == any(t >= t1 for t, _ in samples)
    assert got.keys() == want.keys()
    for key, (lo, hi, m, n) in want.items():
        assert got[key] == pytest.approx((lo, hi, m, n))


def test_dask_trace_gives_the_pandas_counters(dask_client, tmp_path: Path) -> None:
    from glade.datasets import counter_trace

    trace = counter_trace(5, 3)
    run = trace.to_dask(3)
    pd.testing.assert_frame_equal(run.counters, trace.counters)
    pd.testing.assert_frame_equal(
        run.counter_summary("0.1 ms", "0.4 ms", processes=[1, 4]),
        trace.counter_summary("0.1 ms", "0.4 ms", processes=[1, 4]),
    )
    trace.to_parquet(tmp_path / "p")
    stored = Trace.from_parquet(tmp_path / "p", engine="dask")
    pd.testing.assert_frame_equal(stored.counters, trace.counters)
