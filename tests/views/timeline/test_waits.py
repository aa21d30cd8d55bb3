"""Wait states, the critical path and the order of rows in the timeline: what the kernel
sends per range request on hand-built traces with known answers, the selections as
call-level queries, the window summary's waiting time, and the rows pinned and sorted."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.datasets import synthetic_trace
from glade.errors import GladeError
from glade.packing import unpack_arrays
from glade.trace.timeline.waiting import MAX_WAITS, WaitLayer, forest_waiting
from glade.trace.waits import PATTERNS
from glade.trace.windows import trace_forest
from glade.views import Timeline
from tests.trace.test_waits import MS, call, recv, send, trace_of
from tests.views.timeline.test_widget import Replies


@pytest.fixture(scope="module")
def late_sender():
    """Process 0 receives from 1 at 0 ms; process 1 works 3 ms, then sends: process 0's
    MPI_Recv waits exactly 3 ms for process 1's MPI_Send."""
    return trace_of(
        call(0, "MPI_Recv", 0, 4 * MS, recv(0, 1, 3 * MS + 500))
        + call(1, "work", 0, 3 * MS)
        + call(1, "MPI_Send", 3 * MS, 3 * MS + 100, send(1, 0, 3 * MS + 50))
    )


def range_answer(view, t0, t1, width=400, **extra):
    replies = Replies(view)
    message = {"type": "range", "id": 1, "t0": t0, "t1": t1, "width": width}
    view._on_request(view, {**message, "height": 100, "row0": 0, "row1": 99, **extra}, [])
    fields, buffers = replies.sent[-1]
    assert fields["type"] == "range", fields
    return fields, unpack_arrays(fields["arrays"], buffers[0])


def test_a_late_sender_of_3_ms_shows_a_3_ms_wait_and_an_arrow_to_the_sender(late_sender):
    view = Timeline(late_sender)
    fields, arrays = range_answer(view, 0, 4 * MS)
    assert not fields["waits"] and "wait_start" not in arrays
    view.show_waits()
    fields, arrays = range_answer(view, 0, 4 * MS)
    assert fields["waits"] and not fields["path"]
    assert arrays["wait_start"].tolist() == [0.0]
    assert arrays["wait_end"].tolist() == [3.0 * MS]
    assert PATTERNS[arrays["wait_pattern"][0]] == "late sender"
    # the waiting call is process 0's MPI_Recv (row 0); the arrow ends at the sender's
    # MPI_Send (row 1) where it is entered
    assert arrays["wait_row"].tolist() == [0]
    assert arrays["wait_cause_row"].tolist() == [1]
    assert arrays["wait_cause_time"].tolist() == [3.0 * MS]
    node = int(arrays["wait_node"][0])
    assert view.index.forest.names[view.index.forest.code[node]] == "MPI_Recv"
    assert not arrays["wait_alpha"].any()  # every wait is exact at this zoom


def test_a_wait_shorter_than_a_pixel_goes_to_the_raster(late_sender):
    view = Timeline(late_sender).show_waits()
    # 4 columns over 40 ms: a pixel is 10 ms, the 3 ms wait lies in column 0 of row 0
    fields, arrays = range_answer(view, 0, 40 * MS, width=4)
    assert arrays["wait_start"].size == 0
    alpha = arrays["wait_alpha"].reshape(fields["bins"], 4)
    top = arrays["wait_top"].reshape(fields["bins"], 4)
    assert alpha[0].tolist() == [round(255 * 0.3), 0, 0, 0]
    assert PATTERNS[top[0, 0] - 1] == "late sender"
    assert not alpha[1].any()


def test_the_wait_of_a_click_names_its_cause_and_selects_the_call(late_sender):
    view = Timeline(late_sender).show_waits()
    _, arrays = range_answer(view, 0, 4 * MS)
    replies = Replies(view)
    view._on_request(view, {"type": "wait", "id": 2, "node": int(arrays["wait_node"][0])}, [])
    answer = replies.sent[-1][0]
    wait = answer["wait"]
    assert (wait["pattern"], wait["waiting"]) == ("late sender", 3 * MS)
    assert (wait["cause"]["name"], wait["cause"]["start"], wait["cause"]["location"]) == (
        "MPI_Send",
        3 * MS,
        1,
    )
    assert answer["selection"] == view.selection
    assert view.selected()[["name", "Process", "start"]].values.tolist() == [["MPI_Recv", 0, 0]]
    # a call that does not wait: no wait, and the call is selected
    work = int(
        np.flatnonzero(np.array(view.index.forest.names)[view.index.forest.code] == "work")[0]
    )
    assert view.wait_of(work) is None
    assert view.selected()["name"].tolist() == ["work"]


def test_the_critical_path_is_a_chain_and_its_selection_a_query(late_sender):
    view = Timeline(late_sender).show_critical_path()
    assert view.selection == 'MATCH (".", n0) WHERE n0."critical path" > 0'
    marked = view.index.forest.code[np.frombuffer(view.highlight, dtype="<i4")]
    assert sorted(view.index.forest.names[c] for c in marked) == ["MPI_Recv", "work"]
    fields, arrays = range_answer(view, 0, 4 * MS)
    assert fields["path"] and not fields["waits"]
    # process 1 works until 3 ms, then the path crosses to process 0's receive
    assert arrays["path_from"].tolist() == [0.0, 3.0 * MS]
    assert arrays["path_to"].tolist() == [3.0 * MS, 4.0 * MS]
    assert arrays["path_row"].tolist() == [1, 0]
    view.show_critical_path(False)
    assert view.selection == ""
    assert "path_from" not in range_answer(view, 0, 4 * MS)[1]


def test_a_path_range_sends_the_segments_around_it_and_two_per_column():
    layer = WaitLayer(
        *(np.zeros(0, dtype=np.int64) for _ in range(6)),
        span=0,
        path_from=np.arange(0, 100, 10, dtype=np.int64),
        path_to=np.arange(10, 110, 10, dtype=np.int64),
        path_process=np.zeros(10, dtype=np.int64),
        path_thread=np.zeros(10, dtype=np.int64),
    )
    view = Timeline(synthetic_trace(2, 2, seed=1))
    # [35, 55) over 2 columns of 10: segments 3..5 overlap it, 2 and 6 join them on;
    # 2, 3 and 4 start in column 0 (clipped to the range), 3 is neither first nor last
    path = layer.path_in_range(view.index, 35, 55, 2, False)
    assert path["path_from"].tolist() == [20, 40, 50, 60]
    # [0, 100) in one column: its first and last segment
    assert layer.path_in_range(view.index, 0, 100, 1, False)["path_from"].tolist() == [0, 90]


def test_a_range_sends_at_most_max_waits_exact_waits():
    trace = synthetic_trace(4, 3, seed=3)
    layer = WaitLayer.of_trace(trace, trace_forest(trace))
    view = Timeline(trace).show_waits()
    first, last = view.extent
    _, arrays = range_answer(view, first, last, width=200)
    exact = arrays["wait_start"].size
    assert exact <= MAX_WAITS
    # the waits a pixel long or more are exact, the others in the raster
    lengths = layer.end - layer.start
    assert 0 < exact == int((lengths >= (last - first) / 200).sum()) < lengths.size
    assert arrays["wait_alpha"].any()


def test_the_window_summary_counts_waiting_time_clipped(late_sender):
    table = late_sender.window_summary(MS, 2 * MS).set_index("name")
    assert table.loc["MPI_Recv", "waiting time"] == MS
    assert table.loc["work", "waiting time"] == 0
    view = Timeline(late_sender).window(2 * MS, 5 * MS)
    per_process = view.summary("process").set_index("Process")
    assert per_process.loc[0, "waiting time"] == MS  # 2-3 ms of the 0-3 ms wait
    assert forest_waiting(late_sender, trace_forest(late_sender)).sum() == 3 * MS


def test_rows_are_pinned_and_sorted_without_changing_the_query(late_sender):
    trace = trace_of(
        call(0, "work", 0, 4 * MS)
        + call(1, "MPI_Recv", 0, 4 * MS, recv(1, 2, 3 * MS + 500))
        + call(2, "work", 0, 3 * MS)
        + call(2, "MPI_Send", 3 * MS, 3 * MS + 100, send(2, 1, 3 * MS + 50))
    )
    view = Timeline(trace)
    query = view.query
    assert view.order_rows("waiting time").labels == ["1", "0", "2"]
    assert view.order_rows("time in MPI").labels == ["1", "2", "0"]
    assert view.order_rows("total time", pinned=[2]).labels == ["2", "0", "1"]
    assert view.order_rows("process").labels == ["0", "1", "2"]
    assert view.query == query
    # the same order again re-sends nothing
    revision = view.revision
    assert view.order_rows("process").revision == revision
    # a click on a row of the new order still names that row's calls
    view.order_rows("waiting time")
    picture = view.picture(0, 4 * MS, width=100)
    rows = dict(zip(picture.boxes["node"].tolist(), picture.boxes["row"].tolist(), strict=True))
    forest = view.index.forest
    recv_node = int(np.flatnonzero(np.array(forest.names)[forest.code] == "MPI_Recv")[0])
    assert rows[recv_node] == 0
    assert view.selected().empty
    with pytest.raises(GladeError, match="ordered by one of"):
        view.order_rows("colour")
    with pytest.raises(GladeError, match="colours by one of"):
        view.colour_by = "pattern"


def test_a_pinned_process_shows_its_own_instants():
    trace = synthetic_trace(3, 2)
    view = Timeline(trace).order_rows("process", pinned=[2])
    assert view.labels == ["2", "0", "1"]
    forest = view.index.forest
    marks = ~forest.call & (forest.processes[forest.location] == 2)
    for rows in [(0, 1), (0, 3)]:
        instants = view.picture(width=500, rows=rows).instants
        on_top = instants["row"] == 0
        # every instant of process 2 (its sends and receives), and only those, on row 0
        assert sorted(instants["node"][on_top].tolist()) == np.flatnonzero(marks).tolist()
        assert on_top.sum() == 4 and on_top.all() == (rows == (0, 1))


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 50),
    lo=st.floats(0, 1),
    width=st.floats(0.01, 1),
    by=st.sampled_from(["function", "process", "process-function"]),
)
def test_window_waiting_time_is_the_waits_clipped_one_by_one(seed, lo, width, by):
    trace = synthetic_trace(4, 3, seed=seed, imbalance=0.5, slow_process=seed % 4)
    first, last = trace.events["Timestamp (ns)"].agg(["min", "max"])
    t0 = int(first + lo * (last - first))
    t1 = int(min(t0 + width * (last - first), last))
    table = trace.window_summary(t0, t1, by=by)
    keys = {"function": ["name"], "process": ["Process"], "process-function": ["Process", "name"]}
    expected: dict = {}
    for row in trace.wait_states().itertuples(index=False):
        inside = min(row.start + row[7], t1) - max(row.start, t0)  # row[7]: waiting time
        if inside > 0:
            key = tuple({"name": row.name, "Process": row.Process}[k] for k in keys[by])
            expected[key] = expected.get(key, 0) + inside
    got = {
        tuple(values[:-1]): values[-1]
        for values in table[[*keys[by], "waiting time"]].itertuples(index=False)
        if values[-1]
    }
    assert got == expected


def test_with_depth_rows_a_wait_is_on_its_depth_and_the_path_on_its_location():
    # the receive and the send are called by main, one level down
    trace = trace_of(
        [
            (0, "Enter", "main", 0),
            *call(0, "MPI_Recv", MS, 4 * MS, recv(0, 1, 4 * MS - 10)),
            (6 * MS, "Leave", "main", 0),
            (0, "Enter", "main", 1),
            *call(1, "work", 0, 3 * MS),
            *call(1, "MPI_Send", 3 * MS, 3 * MS + 100, send(1, 0, 3 * MS + 50)),
            (5 * MS, "Leave", "main", 1),
        ]
    )
    view = Timeline(trace, depth_rows=True).show_waits().show_critical_path()
    assert view.depth_labels == ["0", "· 1", "1", "· 1"]
    _, arrays = range_answer(view, 0, 6 * MS, depth_rows=True)
    assert (arrays["wait_start"].tolist(), arrays["wait_end"].tolist()) == ([MS], [3.0 * MS])
    assert (arrays["wait_row"].tolist(), arrays["wait_cause_row"].tolist()) == ([1], [3])
    # process 1 until the send at 3 ms, then process 0 until its main ends at 6 ms, each
    # on its location's first row
    assert arrays["path_from"].tolist() == [0, 3 * MS]
    assert arrays["path_to"].tolist() == [3 * MS, 6 * MS]
    assert arrays["path_row"].tolist() == [2, 0]
