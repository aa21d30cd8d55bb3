"""The Timeline widget in the kernel: edits become call-level queries that apply to this
run and to another, requests are answered (or fail with a reply), the selection is a
query, and the offline page carries the picture."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from glade.datasets import synthetic_trace
from glade.errors import GladeError, QuerySyntaxError
from glade.packing import pack_arrays, unpack_arrays
from glade.query import TimeValue, parse
from glade.trace.timeline import source as source_module
from glade.views import Timeline
from glade.views.timeline import edits
from glade.views.timeline.edits import time_unit
from tests.trace.helpers import make_trace


@pytest.fixture(scope="module")
def trace():
    return synthetic_trace(6, 10, seed=5)


@pytest.fixture
def view(trace):
    return Timeline(trace, height=300)


def events_of(trace):
    table = trace.events
    return sorted(
        zip(
            table["Process"].tolist(),
            table["Timestamp (ns)"].tolist(),
            table["Event Type"].astype(str).tolist(),
            table["Name"].astype(str).tolist(),
            strict=True,
        )
    )


def test_a_new_view_shows_everything(view, trace):
    assert view.query == 'MATCH ("*")'
    assert view.labels == [str(p) for p in range(6)]
    assert len(view.depth_labels) == len(view.labels) * 4
    assert view.extent[0] < view.extent[1]
    assert any(name.startswith("snapshot/") for name in view.payload_arrays())
    assert view.snapshot_meta["bins"] == 6
    assert view.overview_meta["bins"] > 0
    assert view.status.startswith(f"{int((trace.events['Event Type'] == 'Enter').sum()):,} of")
    assert events_of(view.apply()) == events_of(trace)


def test_edits_make_the_query_that_apply_runs(view, trace):
    first, last = view.extent
    t0, t1 = int(first + (last - first) * 0.2), int(first + (last - first) * 0.4)
    view.window(t0, t1, processes=[1, 2, 3, 5]).hide("MpiIsend").hide("compute_flux")
    # the window's times are written from the trace's start, in one unit
    unit = time_unit(t1 - first)
    start, end = (TimeValue.of_ns(t - first, unit, from_start=True).text() for t in (t0, t1))
    assert view.query == (
        'MATCH (".", n0)\n'
        "WHERE (n0.Process >= 1 AND n0.Process <= 3 OR n0.Process = 5)\n"
        f"  AND n0.end >= {start}\n"
        f"  AND n0.start <= {end}\n"
        '  AND NOT n0.name IN ["MpiIsend", "compute_flux"]'
    )
    absolute = (
        'MATCH (".", n0) WHERE (n0.Process >= 1 AND n0.Process <= 3 OR n0.Process = 5) AND '
        f'n0.end >= {t0} AND n0.start <= {t1} AND NOT n0.name IN ["MpiIsend", "compute_flux"]'
    )
    assert view.viewport["t0"] == t0 and view.viewport["t1"] == t1
    result = view.apply()
    assert events_of(result) == events_of(trace.query(view.query, level="calls"))
    assert events_of(result) == events_of(trace.query(absolute, level="calls"))
    names = set(result.events["Name"].astype(str))
    assert not names & {"MpiIsend", "compute_flux"} and "flux_kernel" in names
    assert set(result.events["Process"]) == {1, 2, 3, 5}
    assert view.index.calls.size < view.index.forest.call.sum()
    view.unhide("compute_flux").focus(("main", "compute_step"))
    assert view.query.startswith('{MATCH ("main/compute_step")->("*")}\nAND {\n  MATCH (".", n0)\n')
    focused = view.apply()
    assert set(focused.events["Name"].astype(str)) == {
        "main",
        "compute_step",
        "compute_flux",
        "flux_kernel",
        "update_field",
    }
    assert view.code() == f"trace.query('''{view.query}''', level=\"calls\")"
    view.unfocus().clear_window()
    assert view.query == 'MATCH (".", n0) WHERE NOT n0.name IN ["MpiIsend"]'
    view.undo().undo()
    assert "compute_step" in view.query and "n0.end >=" in view.query
    view.redo()
    assert "n0.end >=" in view.query and "compute_step" not in view.query
    before = view.query
    view.reset()
    assert view.query == 'MATCH ("*")'
    view.undo()
    assert view.query == before


def test_a_saved_query_applies_to_another_run(view, tmp_path):
    first, last = view.extent
    view.window(first, (first + last) / 2, processes=[0, 1]).hide("MPI_Allreduce")
    path = view.save_query(tmp_path / "window.query")
    other = synthetic_trace(6, 14, seed=9)
    again = Timeline(other)
    again.query = path.read_text().strip()
    assert again.query == view.query
    assert again.history[-1]["op"] == "base"
    assert parse(again.history[-1]["query"]) == parse(view.query)
    kept = again.apply()
    assert set(kept.events["Process"]) == {0, 1}
    assert "MPI_Allreduce" not in set(kept.events["Name"].astype(str))
    assert events_of(kept) == events_of(other.query(view.query, level="calls"))
    # later edits refine the assigned query; a bad one leaves the view as it was
    again.hide("flux_kernel")
    assert parse(again.query) == parse(
        "{" + view.query + '} AND {MATCH (".", n0) WHERE NOT n0.name IN ["flux_kernel"]}'
    )
    before = again.query
    with pytest.raises(QuerySyntaxError):
        again.query = "MATCH ("
    assert again.query == before


def test_edit_checks(view):
    with pytest.raises(GladeError, match="no function named 'nope'"):
        view.hide("nope")
    with pytest.raises(GladeError, match="call path"):
        view.focus("main")
    with pytest.raises(GladeError, match="ends before it starts"):
        view.window(10, 5)
    with pytest.raises(GladeError, match="'op' is one of"):
        view.history = [{"op": "zoom"}]
    with pytest.raises(GladeError, match="not a \\[first, last\\] range"):
        view.history = [{"op": "window", "t0": 0, "t1": 5, "processes": [[3, 1]]}]
    with pytest.raises(GladeError, match="a time in ns"):
        view.zoom([1], 5)
    view.zoom("1 ms", "2.5 ms")
    assert (view.viewport["t0"], view.viewport["t1"]) == (1e6, 2.5e6)
    assert edits.process_ranges([5, 1, 2, 3, 9, 2]) == [[1, 3], [5, 5], [9, 9]]


class Replies:
    """What a widget sends to its front end."""

    def __init__(self, view):
        self.sent = []
        view.send = lambda content, buffers=None: self.sent.append((content, buffers))


def test_requests_are_answered_with_pictures_or_errors(view):
    replies = Replies(view)
    first, last = view.extent
    view._on_request(
        view,
        {
            "type": "range",
            "id": 7,
            "t0": first,
            "t1": last,
            "width": 300,
            "height": 100,
            "row0": 0,
            "row1": 6,
        },
        [],
    )
    fields, buffers = replies.sent[-1]
    assert fields["type"] == "range" and fields["id"] == 7
    assert fields["revision"] == view.revision
    arrays = unpack_arrays(fields["arrays"], buffers[0])
    assert arrays["raster_alpha"].size == 300 * fields["bins"]
    assert arrays["box_start"].size == arrays["box_node"].size > 0
    # float32 times from the range's start: edges to 2^-24 of the range, durations and
    # exclusive times to 2^-24 of themselves
    boxes = view.picture(first, last, width=300, height=100).boxes
    start = fields["box_origin"] + arrays["box_start"].astype(np.float64)
    np.testing.assert_allclose(start, boxes["start"], rtol=0, atol=(last - first) * 2**-24)
    np.testing.assert_allclose(arrays["box_duration"], boxes["end"] - boxes["start"], rtol=2**-24)
    np.testing.assert_allclose(arrays["box_exclusive"], boxes["exclusive"], rtol=2**-24)
    view._on_request(view, {"type": "range", "id": 8, "t0": 5, "t1": 1}, [])
    assert replies.sent[-1] == (
        {"type": "error", "id": 8, "request": "range", "message": replies.sent[-1][0]["message"]},
        None,
    )
    assert "needs numbers" in replies.sent[-1][0]["message"]
    view._on_request(view, {"type": "select", "id": 9, "node": 10**9}, [])
    assert replies.sent[-1][0]["type"] == "error"
    view._on_request(view, {"type": "unknown", "id": 10}, [])
    view._on_request(view, "not a request", [])
    assert len(replies.sent) == 3


def test_the_selection_is_a_query(view):
    replies = Replies(view)
    forest = view.index.forest
    node = int(np.flatnonzero(np.array(forest.names)[forest.code] == "MPI_Waitall")[3])
    view._on_request(view, {"type": "select", "id": 1, "node": node}, [])
    assert re.fullmatch(
        r'MATCH \(".", n0\) WHERE n0.Process = \d AND n0.Thread = 0 AND '
        r'n0.start = \d+ AND n0.name = "MPI_Waitall"',
        view.selection,
    )
    assert replies.sent[-1][0]["selection"] == view.selection
    selected = view.selected()
    assert selected.index.tolist() == [node]
    assert np.frombuffer(view.highlight, dtype="<i4").tolist() == [node]
    view._on_request(view, {"type": "path", "id": 2, "node": node}, [])
    assert replies.sent[-1][0]["path"] == ["main", "MPI_Waitall"]
    view.selection = 'MATCH (".", p) WHERE p.name = "MPI_Allreduce"'
    assert len(view.selected()) == 6 * 10
    view._on_request(view, {"type": "select", "id": 3, "node": -1}, [])
    assert view.selection == "" and view.highlight == b""


def test_the_offline_page_carries_the_picture(view, tmp_path):
    view.zoom(view.extent[0], (view.extent[0] + view.extent[1]) / 2)
    page = view.to_html(tmp_path / "timeline.html").read_text()
    state = json.loads(
        re.search(
            r'<script type="application/vnd.jupyter.widget-state\+json">\n(.*?)\n</script>',
            page,
            re.S,
        )
        .group(1)
        .replace("<\\/", "</")
    )
    widget = next(
        s
        for s in state["state"].values()
        if s["model_name"] == "AnyModel" and "payload_meta" in s["state"]
    )
    assert widget["state"]["offline"] is True
    assert widget["state"]["payload_meta"]["fields"]["snapshot"]["t1"] == view.viewport["t1"]
    assert not view.offline


def test_pack_arrays_round_trip():
    noise = np.random.default_rng(0).integers(0, 256, 1000).astype(np.uint8)
    arrays = {
        "a": np.arange(5, dtype=np.int32),
        "b": np.linspace(0, 1, 3),
        "c": np.array([3, 0, 0, 0, 7], dtype=np.uint16),
        "d": noise,
    }
    descriptors, blob = pack_arrays(arrays, deflate=("c", "d"), noisy=("d",))
    assert [d["offset"] % 8 for d in descriptors] == [0, 0, 0, 0]
    assert descriptors[2]["deflate"] and descriptors[3]["deflate"]
    assert not descriptors[0]["deflate"]
    back = unpack_arrays(descriptors, blob)
    for name, values in arrays.items():
        np.testing.assert_array_equal(back[name], values)
    with pytest.raises(GladeError, match="dtype int64"):
        pack_arrays({"x": np.arange(3)})


def test_a_timeline_shows_a_trace(trace):
    with pytest.raises(GladeError, match="shows a Trace"):
        Timeline(trace.to_graphframe())
    assert isinstance(trace.show_timeline(depth_rows=True), Timeline)


def test_the_window_summary_measures_the_brushed_window(view, trace):
    first, last = view.extent
    t0, t1 = int(first + (last - first) * 0.3), int(first + (last - first) * 0.5)
    whole = view.summary()
    assert whole["time"].sum() == pytest.approx(
        trace.window_summary(int(first), int(last))["time"].sum()
    )
    view.window(t0, t1, processes=[1, 2])
    for by in ("function", "process", "process-function"):
        pd.testing.assert_frame_equal(
            view.summary(by), trace.window_summary(t0, t1, processes=[1, 2], by=by)
        )
    # the legend's shares: the clipped exclusive time of every function
    table = view.summary().set_index("name")["time"]
    totals = view.payload_arrays()["totals"]
    shares = {view.names[c]: totals[c] for c in np.flatnonzero(totals)}
    assert shares == pytest.approx(table[table > 0].to_dict())
    # two processes, each busy the whole window
    assert view.summary("process")["time"].tolist() == [t1 - t0, t1 - t0]
    # a hidden function's time goes to its caller, inside the window too
    before = view.summary().set_index("name")["time"]
    view.hide("flux_kernel")
    after = view.summary().set_index("name")["time"]
    assert "flux_kernel" not in after.index
    assert after["compute_flux"] == pytest.approx(before["compute_flux"] + before["flux_kernel"])
    assert after.sum() == pytest.approx(before.sum())


def test_a_summary_row_selects_its_calls(view):
    first, last = view.extent
    t0, t1 = int(first + (last - first) * 0.3), int(first + (last - first) * 0.5)
    view.window(t0, t1, processes=[3])
    row = view.summary().set_index("name").loc["compute_flux"]
    answer, _ = view._answer_summary_select({"name": "compute_flux"})
    assert answer["selection"] == view.selection
    calls = view.selected()
    assert len(calls) == row["calls"]
    assert set(calls["Process"]) == {3} and set(calls["name"]) == {"compute_flux"}
    assert ((calls["end"] >= t0) & (calls["start"] <= t1)).all()
    assert view.payload_arrays()["highlight"].size == row["calls"]
    view.select_summary_row(process=3)
    assert len(view.selected()) == view.summary("process")["calls"].iloc[0]
    answer, _ = view._answer_summary({"by": "process-function", "sort": "calls"})
    assert answer["columns"][:3] == ["Process", "name", "time"]
    calls_column = [r[answer["columns"].index("calls")] for r in answer["rows"]]
    assert calls_column == sorted(calls_column, reverse=True)
    assert answer["window"] == {"t0": t0, "t1": t1, "processes": (3,)}
    with pytest.raises(GladeError, match="no column"):
        view._answer_summary({"sort": "nothing"})


def test_the_status_line_counts_what_hiding_removed():
    """A ping-pong of 2 processes and 3 iterations: 48 calls, 6 of them MPI_Recv (one
    per iteration and process), each holding one MpiRecv instant."""
    view = Timeline(synthetic_trace(2, 3, exchange="pingpong"))
    assert view.status == "48 of 48 calls, 12 instants, 6 messages"
    view.hide("MPI_Recv")
    assert view.status == "42 of 48 calls, 12 instants, 6 messages; hidden: 6 MPI_Recv"
    view.hide("MpiRecv")
    assert view.status.endswith("0 messages; hidden: 6 MPI_Recv, 6 MpiRecv")
    first = view.extent[0]
    view.window(first, first + 1)
    assert view.status.endswith("; hidden: 0 MPI_Recv, 0 MpiRecv")


def test_find_steps_through_the_calls_of_a_search(view, trace):
    forest = trace.calls().dataframe
    reduce_calls = forest[forest["name"] == "MPI_Allreduce"].sort_values("start", kind="stable")
    starts = sorted(set(reduce_calls["start"]))
    first = view.find(["MPI_Allreduce"], after=0)
    assert first["start"] == starts[0] and first["name"] == "MPI_Allreduce"
    second = view.find(["MPI_Allreduce"], after=first["start"])
    assert second["start"] == starts[1]
    back = view.find(["MPI_Allreduce"], after=second["start"], forward=False)
    assert back["start"] == starts[0]
    assert view.find(["MPI_Allreduce"], after=starts[-1]) is None
    row = reduce_calls[reduce_calls["start"] == first["start"]].iloc[0]
    assert view.labels[first["location"]] == str(row["Process"])
    assert first["depth"] == row["depth"]
    answer, _ = view._answer_find({"codes": [view.names.index("MPI_Allreduce")], "after": 0})
    assert answer["found"] == first
    # hidden calls are not found
    view.hide("MPI_Allreduce")
    assert view.find(["MPI_Allreduce"], after=0) is None
    with pytest.raises(GladeError, match="codes"):
        view._answer_find({"codes": "MPI", "after": 0})


def test_zoom_to_activity_skips_a_long_initialisation():
    """main [0, 10 s] calls MPI_Init [0, 9.7 s], then 400 short calls in [9.7, 9.9 s]."""
    rows = [
        (0, "Enter", "main", 0),
        (0, "Enter", "MPI_Init", 0),
        (9_700_000_000, "Leave", "MPI_Init", 0),
    ]
    for k in range(400):
        t = 9_700_000_000 + k * 500_000
        rows += [(t, "Enter", "step", 0), (t + 400_000, "Leave", "step", 0)]
    rows.append((10_000_000_000, "Leave", "main", 0))
    view = Timeline(make_trace(rows))
    view.zoom_to_activity()
    t0, t1 = view.viewport["t0"], view.viewport["t1"]
    assert 9_690_000_000 <= t0 <= 9_702_000_000
    assert 9_899_000_000 <= t1 <= 9_910_000_000
    answer, _ = view._answer_activity({})
    assert (answer["t0"], answer["t1"]) == (t0, t1)


def test_arrows_carry_their_envelope_and_a_message_selects_both_calls(trace):
    """Every arrow of a wide picture of a ring exchange names its send and receive
    instants (nodes of the call forest at the arrow's times) and carries their tag and
    communicator; selecting a message selects the calls holding its instants: the
    MPI_Isend and the MPI_Waitall that completes the receive."""
    view = Timeline(trace)
    arrows = view.picture(width=4000).arrows
    assert not arrows.bundled and arrows.send_time.size > 0
    calls = trace.calls()
    forest = calls.dataframe
    parent = calls.graph.tree_parent
    envelope = arrows.envelope
    sends, receives = envelope["send_node"].astype(int), envelope["receive_node"].astype(int)
    assert set(forest["name"].iloc[sends].astype(str)) == {"MpiIsend"}
    assert set(forest["name"].iloc[receives].astype(str)) == {"MpiIrecv"}
    np.testing.assert_array_equal(forest["start"].iloc[sends], arrows.send_time)
    np.testing.assert_array_equal(forest["start"].iloc[receives], arrows.receive_time)
    np.testing.assert_array_equal(forest["Tag"].iloc[sends], envelope["tag"])
    np.testing.assert_array_equal(forest["Communicator"].iloc[sends], envelope["communicator"])
    np.testing.assert_array_equal(forest["Message Size"].iloc[sends], arrows.size)
    ends = view.select_message(sends[0], receives[0])
    assert ends["send"]["name"] == "MPI_Isend" and ends["receive"]["name"] == "MPI_Waitall"
    assert ends["send"]["node"] == parent[sends[0]]
    assert set(view.selected().index) == {parent[sends[0]], parent[receives[0]]}
    answer, _ = view._answer_message({"send_node": int(sends[0]), "receive_node": int(receives[0])})
    assert answer["selection"] == view.selection and answer["send"] == ends["send"]
    with pytest.raises(GladeError, match="no call"):
        view.select_message(-5, receives[0])


def test_a_brush_whose_index_fails_leaves_the_view_as_it_was(view, monkeypatch):
    """A brush drops the previous index before building the next (two would not fit side
    by side at scale); when building fails, the previous one is built again: the view
    shows the same calls, messages and legend, and the next brush works."""
    source = view._source
    before = (source.index.calls.copy(), source.status(), source.totals.copy())
    built = source_module.TimelineIndex

    def failing(forest, keep=None, *args, **kwargs):
        if keep is not None:
            raise MemoryError("no room for the window's index")
        return built(forest, keep, *args, **kwargs)

    first, last = view.extent
    with monkeypatch.context() as patch:
        patch.setattr(source_module, "TimelineIndex", failing)
        with pytest.raises(MemoryError):
            source.show(view.query, f'MATCH (".", p) WHERE p.end >= {first} AND p.start <= {first}')
    np.testing.assert_array_equal(source.index.calls, before[0])
    assert source.status() == before[1]
    np.testing.assert_array_equal(source.totals, before[2])
    view.window(first, (first + last) // 2)
    assert source.index.calls.size < before[0].size


def test_a_view_analyses_what_the_first_summary_reads_ahead():
    """Once built, the view finds the trace's wait states in the background (so the first
    brush costs what the next ones do); what it keeps is what a fresh trace computes, and
    closing the view waits for that work."""
    trace = synthetic_trace(4, 6, seed=2, imbalance=0.5, slow_process=1)
    view = Timeline(trace, height=300)
    ahead = view._source._ahead
    view.close()
    assert ahead.done()
    sizes, waiting = ahead.result()
    assert waiting is trace._memos["forest waiting"]
    assert waiting.sum() == trace.wait_states()["waiting time"].sum() > 0
    fresh = synthetic_trace(4, 6, seed=2, imbalance=0.5, slow_process=1)
    np.testing.assert_array_equal(waiting, source_module.forest_waiting(fresh, view._source.forest))
    np.testing.assert_array_equal(sizes, fresh.events["Message Size"].to_numpy())
