"""The timeline's counter tracks in the kernel: a ``counters`` request is answered with
the tracks under each process and, per pixel column, the min, max and mean of the samples
there, checked against the counter table sample by sample; bad requests get errors."""

from __future__ import annotations

import numpy as np
import pytest

from glade.datasets import synthetic_trace
from glade.datasets.counters import counter_trace
from glade.packing import unpack_arrays
from glade.views import Timeline
from tests.views.timeline.test_widget import Replies


@pytest.fixture(scope="module")
def trace():
    return counter_trace(4, 6)


@pytest.fixture
def view(trace):
    return Timeline(trace, height=300)


@pytest.mark.parametrize("mode", ["value", "rate"])
def test_counters_request_reduces_each_track_to_pixel_columns(view, trace, mode) -> None:
    replies = Replies(view)
    first, last = view.extent
    t0, t1, width = first + (last - first) / 4, first + (last - first) / 2, 37
    request = {"type": "counters", "id": 3, "t0": t0, "t1": t1, "width": width, "mode": mode}
    view._on_request(view, request, [])
    fields, buffers = replies.sent[-1]
    assert fields["type"] == "counters" and fields["mode"] == mode
    tracks = fields["tracks"]
    # under each process, its two counters in declaration order
    assert [(t["process"], t["counter"]) for t in tracks] == [
        (p, c) for p in range(4) for c in ("PAPI_TOT_INS", "PAPI_L3_TCM")
    ]
    assert tracks[0]["unit"] == "count" and tracks[0]["rate_unit"] == "count/s"
    arrays = unpack_arrays(fields["arrays"], buffers[0])
    table = trace.counters
    quantity = "Value" if mode == "value" else "Rate"
    for k, track in enumerate(tracks):
        mine = table[
            (table["Counter"] == track["counter"]) & (table["Process"] == track["process"])
        ]
        t = mine["Timestamp (ns)"].to_numpy()
        v = mine[quantity].to_numpy()
        if mode == "rate":
            # the rate between two samples is drawn from the first of them
            t, v = t[:-1], v[1:]
        t, v = t[~np.isnan(v)], v[~np.isnan(v)]
        inside = (t >= t0) & (t < t1)
        column = np.floor((t[inside] - t0) / (t1 - t0) * width).astype(int)
        rows = np.flatnonzero(arrays["track"] == k)
        assert arrays["column"][rows].tolist() == sorted(set(column.tolist()))
        for row in rows:
            here = v[inside][column == arrays["column"][row]]
            assert arrays["count"][row] == here.size
            assert arrays["low"][row] == here.min() and arrays["high"][row] == here.max()
            assert arrays["mean"][row] == pytest.approx(here.mean())
        assert arrays["before"][k] == pytest.approx(v[t < t0][-1])
        assert arrays["beyond"][k] == 1
    # the Python side of the same answer
    frame = view.counter_tracks.frame(t0, t1, width, mode)
    assert frame["mean"].to_numpy() == pytest.approx(arrays["mean"])


def test_only_the_tracks_in_view_are_reduced(view) -> None:
    first, last = view.extent
    whole = view.counter_tracks.envelope(first, last, 50, "value")
    # the tracks under two rows that are not neighbours (after a sort, say)
    part = view.counter_tracks.envelope(first, last, 50, "value", [6, 2, 3])
    mine = np.isin(whole.track, [2, 3, 6])
    for field in ("track", "column", "low", "high", "mean", "count"):
        np.testing.assert_array_equal(getattr(part, field), getattr(whole, field)[mine])
    asked = np.isin(np.arange(8), [2, 3, 6])
    assert np.isnan(part.before[~asked]).all() and not part.beyond[~asked].any()
    np.testing.assert_array_equal(part.before[asked], whole.before[asked])
    np.testing.assert_array_equal(part.beyond[asked], whole.beyond[asked])
    replies = Replies(view)
    request = {"t0": first, "t1": last, "width": 50, "tracks": [7, 6]}
    view._on_request(view, {"type": "counters", "id": 2, **request}, [])
    fields, buffers = replies.sent[-1]
    assert len(fields["tracks"]) == 8
    assert set(unpack_arrays(fields["arrays"], buffers[0])["track"].tolist()) == {6, 7}


def test_bad_counters_requests_get_errors(view) -> None:
    replies = Replies(view)
    for request, message in (
        ({"t0": 0, "t1": 10, "width": 5, "mode": "both"}, "not 'both'"),
        ({"t0": 0, "t1": 10, "width": 0}, "width is 1 to"),
        ({"t0": 10, "t1": 10, "width": 5}, "cannot reduce counters"),
        ({"t0": "x", "t1": 10, "width": 5}, "needs numbers"),
        ({"t0": 0, "t1": 10, "width": 5, "tracks": [3, 8]}, "no track 8 among 8"),
        ({"t0": 0, "t1": 10, "width": 5, "tracks": [-1]}, "no track -1 among 8"),
        ({"t0": 0, "t1": 10, "width": 5, "tracks": list(range(513))}, "at most 512 tracks"),
    ):
        view._on_request(view, {"type": "counters", "id": 1, **request}, [])
        fields, _ = replies.sent[-1]
        assert fields["type"] == "error" and message in fields["message"]


def test_a_trace_without_counters_has_no_tracks() -> None:
    view = Timeline(synthetic_trace(2, 2), height=200)
    replies = Replies(view)
    view._on_request(view, {"type": "counters", "id": 1, "t0": 0, "t1": 1e6, "width": 10}, [])
    assert replies.sent[-1][0]["tracks"] == []


def test_chrome_counter_events_are_tracks_not_instant_marks(tmp_path) -> None:
    from glade.trace import Trace
    from tests.trace.test_counters import CHROME_EVENTS, write_chrome

    # the counter events of test_counters (3 "mem" and 1 "cpu" samples) and one real
    # instant, "flush" on process 0 at 40 us
    events = [*CHROME_EVENTS, {"ph": "i", "name": "flush", "pid": 0, "tid": 0, "ts": 40}]
    view = Timeline(Trace.from_chrome(write_chrome(tmp_path / "c.json", events)), height=200)
    first, last = view.extent
    instants = view.picture(first, last, width=200, height=100).instants
    assert [view.names[c] for c in instants["code"]] == ["flush"]
    assert instants["time"].tolist() == [40_000]
    # the samples are the counter tracks: "mem heap" and "mem stack" under process 0,
    # "cpu value" under process 1
    assert [(t["process"], t["counter"]) for t in view.counter_tracks.meta()] == [
        (0, "mem heap"),
        (0, "mem stack"),
        (1, "cpu value"),
    ]
    assert "1 instants" in view.status


def test_the_offline_page_carries_the_counter_tracks_of_the_range(view, tmp_path) -> None:
    first, last = view.extent
    view.zoom(first, (first + last) / 2)
    view.to_html(tmp_path / "timeline.html")
    # what the page holds (the live view does not carry it along)
    page = view._page_state()
    fields = page["payload_meta"]["fields"]
    arrays = unpack_arrays(page["payload_meta"]["arrays"], page["payload"])
    assert "counters_value" not in view.payload_fields()
    width = int(view.viewport.get("width", 1024))
    for mode in ("value", "rate"):
        saved = fields[f"counters_{mode}"]
        assert (saved["t0"], saved["t1"], saved["width"]) == (first, (first + last) / 2, width)
        assert saved["mode"] == mode and len(saved["tracks"]) == 8
        # the kernel's reduction of that range, every track
        frame = view.counter_tracks.frame(first, (first + last) / 2, width, mode)
        np.testing.assert_array_equal(arrays[f"counters_{mode}/column"], frame["column"])
        np.testing.assert_allclose(arrays[f"counters_{mode}/mean"], frame["mean"])
    # the page holds it
    assert "counters_rate" in (tmp_path / "timeline.html").read_text()


def test_otf2_metric_instants_are_tracks_not_instant_marks() -> None:
    import pandas as pd

    from glade.trace import Trace

    # what the OTF2 reader makes of a metric record with no Enter or Leave to sit on: an
    # Instant "Metric" (at 50 ns) carrying the sample, beside a real instant (at 60 ns)
    events = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 20, 50, 60, 100],
            "Event Type": ["Enter", "Instant", "Instant", "Instant", "Leave"],
            "Name": ["main", "Metric", "Metric", "flush", "main"],
            "Process": 0,
            "Thread": 0,
            "PAPI_TOT_INS": [0.0, 5.0, 9.0, None, 12.0],
        }
    )
    metadata = {
        "counters": [{"name": "PAPI_TOT_INS", "column": "PAPI_TOT_INS", "event": None}],
        "counter_events": ["Metric"],
    }
    view = Timeline(Trace(events, metadata=metadata), height=200)
    instants = view.picture(0, 100, width=100, height=100).instants
    assert [view.names[c] for c in instants["code"]] == ["flush"]
    assert instants["time"].tolist() == [60]
    assert view.counter_tracks.frame(0, 101, 101)["mean"].tolist() == [0, 5, 9, 12]
