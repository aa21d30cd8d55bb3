"""The timeline of a DaskTrace (its answers computed on a 2-worker LocalCluster of
processes) is the timeline of the same trace on pandas: the same rows, totals and
overview, the same picture of every range (boxes with their node ids, raster, instants,
arrows with their envelope), in both layouts, before and after edits; the same queries,
selections (a message's two calls too), highlights and call paths; the same wait states
and critical path; and ``view.apply()`` keeps the same events."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.errors import GladeError, QueryError
from glade.trace import Trace
from glade.views import Timeline
from tests.hypothesis_budget import examples
from tests.trace.engines.test_dask_trace import random_events

pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")

#: The arrays of a pandas picture's arrows that a Dask picture lacks.
TRAITS = (
    "labels",
    "depth_labels",
    "names",
    "extent",
    "overview_meta",
    "snapshot_meta",
    "query",
    "highlight",
)


def assert_pictures_equal(expected, actual, what: str) -> None:
    """Two pictures of one request are equal: geometry, boxes, raster, instants, arrows."""
    for name in ("row0", "row1", "pool", "bins", "threshold", "visible_calls", "instants_pooled"):
        assert getattr(actual, name) == getattr(expected, name), f"{what}: {name}"
    for field, values in expected.boxes.items():
        np.testing.assert_array_equal(actual.boxes[field], values, f"{what}: box {field}")
    np.testing.assert_allclose(
        actual.cover, expected.cover, rtol=1e-12, atol=1e-9, err_msg=f"{what}: cover"
    )
    np.testing.assert_allclose(
        actual.busy, expected.busy, rtol=1e-12, atol=1e-9, err_msg=f"{what}: busy"
    )
    np.testing.assert_array_equal(actual.top, expected.top, f"{what}: top")
    for field, values in expected.instants.items():
        np.testing.assert_array_equal(actual.instants[field], values, f"{what}: {field}")
    for field in (
        "send_time",
        "receive_time",
        "send_row",
        "receive_row",
        "size",
        "count",
        "bundled",
    ):
        np.testing.assert_array_equal(
            getattr(actual.arrows, field), getattr(expected.arrows, field), f"{what}: {field}"
        )
    envelope = expected.arrows.envelope
    assert set(actual.arrows.envelope) == set(envelope), what
    for field, values in actual.arrows.envelope.items():
        np.testing.assert_array_equal(values, envelope[field], f"{what}: arrow {field}")


def assert_views_equal(expected: Timeline, actual: Timeline) -> None:
    """The two views show the same thing (their traits) and keep the same events."""
    for trait in TRAITS:
        assert getattr(actual, trait) == getattr(expected, trait), trait
    arrays, wanted = actual.payload_arrays(), expected.payload_arrays()
    assert set(arrays) == set(wanted)
    for name, values in arrays.items():
        np.testing.assert_array_equal(values, wanted[name], name)
    assert actual.payload_fields() == expected.payload_fields()
    # (a Dask source names the hidden functions without counting their calls)
    own, wanted_status = (v.status.partition("; hidden: ") for v in (actual, expected))
    assert own[0].startswith(wanted_status[0])
    assert bool(own[2]) == bool(wanted_status[2])
    kept = actual.apply()
    assert type(kept).__name__ == "DaskTrace"
    np.testing.assert_array_equal(
        kept.compute().events["Timestamp (ns)"], expected.apply().events["Timestamp (ns)"]
    )


@st.composite
def requests(draw, first: int, last: int, rows: int) -> dict:
    t0 = draw(st.integers(first - 3, last + 1))
    t1 = draw(st.integers(t0 + 1, last + 4))
    row0 = draw(st.integers(0, rows))
    return {
        "t0": t0,
        "t1": t1,
        "width": draw(st.integers(1, 40)),
        "height": draw(st.integers(1, 6)),
        "rows": (row0, draw(st.integers(row0, rows))),
    }


def both_views(table, npartitions: int) -> tuple[Timeline, Timeline]:
    """The pandas timeline of the trace of events ``table`` and that of the same trace
    on Dask in ``npartitions`` partitions (a random trace's repairs are not warned)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = Trace(table.reset_index(drop=True))
        return Timeline(trace), Timeline(trace.to_dask(npartitions))


@settings(max_examples=examples(4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_events(), st.integers(1, 4), st.data())
def test_random_ranges_of_random_traces_are_the_pandas_pictures(
    dask_client, table, npartitions, data
):
    expected, view = both_views(table, npartitions)
    assert_views_equal(expected, view)
    first, last = (int(t) for t in expected.extent)
    for depth_rows in (False, True):
        rows = len(expected.depth_labels if depth_rows else expected.labels)
        for _ in range(2):
            request = data.draw(requests(first, last, rows))
            args = dict(request, depth_rows=depth_rows)
            assert_pictures_equal(expected.picture(**args), view.picture(**args), str(args))
    names = expected.names
    if names:
        name = data.draw(st.sampled_from(names))
        t0 = data.draw(st.integers(first, last))
        for timeline in (expected, view):
            timeline.hide(name)
            timeline.window(t0, last, [0, 2])
        assert_views_equal(expected, view)
        request = data.draw(requests(first, last, len(expected.labels)))
        assert_pictures_equal(expected.picture(**request), view.picture(**request), "edited")


def test_a_window_from_start_keeps_on_dask_what_it_keeps_on_pandas(dask_client):
    """The failing example of the random pictures above (a Leave without its Enter
    first, a call left open at the end): the view's window is written from START, the
    first node of the call forest (t = 2, not the orphan Leave at t = 0), on both
    engines, so ``apply()`` keeps the calls of [4, 6] on process 0: c, not b."""
    import pandas as pd

    table = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 2, 3, 4, 5, 6],
            "Event Type": ["Leave", "Enter", "Leave", "Enter", "Leave", "Enter"],
            "Name": ["a", "b", "b", "c", "c", "a"],
            "Process": [0, 0, 0, 0, 0, 1],
            "Thread": 0,
        }
    )
    expected, view = both_views(table, 2)
    for timeline in (expected, view):
        timeline.window(4, 6, [0, 2])
    assert "START + 2 ns" in view.query
    assert expected.apply().events["Timestamp (ns)"].tolist() == [4, 5]
    assert_views_equal(expected, view)


def test_a_window_on_a_trace_without_calls_keeps_nothing_on_both_engines(dask_client):
    """A failing example of the random pictures above: a trace whose only event is a
    Leave without its Enter has no calls, so no START; a window from START keeps
    nothing, on both engines, where it raised a QueryError."""
    import pandas as pd

    table = pd.DataFrame(
        {"Timestamp (ns)": [10], "Event Type": ["Leave"], "Name": ["a"], "Process": [0]}
    )
    expected, view = both_views(table, 1)
    for timeline in (expected, view):
        timeline.hide("a")
        timeline.window(0, 10, [0, 2])
    assert "START" in view.query
    assert expected.apply().events.empty
    assert expected.data.query(view.query, level="calls").events.empty
    assert_views_equal(expected, view)


def test_a_call_left_open_ends_where_the_trace_ends_though_its_partition_ends_before(
    dask_client,
):
    """The view reads each partition once and learns the trace's scan from that read,
    before it knows where the trace ends: a call never left on a partition that ends
    before the trace (process 0, which ends at t = 2) is built again, closed at the
    trace's end (t = 10) as on pandas; the other partition is not. The scan learned
    is the one the trace makes alone."""
    import pandas as pd

    table = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 1, 2, 0, 10],
            "Event Type": ["Enter", "Enter", "Leave", "Enter", "Leave"],
            "Name": ["a", "b", "b", "c", "c"],
            "Process": [0, 0, 0, 1, 1],
            "Thread": 0,
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the call left open is repaired, with a warning
        trace = Trace(table.sort_values("Timestamp (ns)", kind="stable").reset_index(drop=True))
        on_dask = trace.to_dask(2)
        expected, view = Timeline(trace), Timeline(on_dask)
    assert_views_equal(expected, view)
    boxes = view.picture(t0=0, t1=10, width=10, height=2).boxes
    assert dict(zip(boxes["start"].tolist(), boxes["end"].tolist(), strict=True)) == {
        0: 10,  # a (process 0, never left) and c (process 1) both end at 10
        1: 2,
    }
    assert repr(on_dask._summaries) == repr(trace.to_dask(2)._summary())


def test_a_halo_run_on_dask_answers_as_on_pandas(dask_client, monkeypatch):
    from glade.datasets import synthetic_trace
    from glade.trace.engines import rasters
    from glade.trace.timeline import render

    trace = synthetic_trace(6, 30, exchange="halo", imbalance=0.5)
    expected = Timeline(trace)
    on_dask = trace.to_dask(3)
    view = on_dask.show_timeline()
    assert_views_equal(expected, view)
    # every partition's forest stays on the workers: a zoom reads no events
    assert all(part.key in dask_client.futures for part in view.source._parts)
    for depth_rows in (False, True):
        for t0, t1 in [(None, None), (200_000, 900_000), (400_000, 400_050)]:
            args = {"t0": t0, "t1": t1, "width": 300, "height": 12, "depth_rows": depth_rows}
            assert_pictures_equal(expected.picture(**args), view.picture(**args), str(args))
    # more arrows than MAX_ARROWS are bundled alike; too many boxes join the raster alike
    monkeypatch.setattr(render, "MAX_BOXES", 25)
    monkeypatch.setattr(rasters, "MAX_BOXES", 25)
    wide = {"width": 500, "height": 40}
    assert_pictures_equal(expected.picture(**wide), view.picture(**wide), "few boxes")

    node = int(expected.picture(width=300).boxes["node"][7])
    assert view.source.call_query(node) == expected.source.call_query(node)
    path = expected.source.path(node)
    assert view.source.path(node) == path != []
    for timeline in (expected, view):
        timeline.selection = timeline.source.call_query(node)
        timeline.link_highlight('MATCH (".", n) WHERE n.name = "MPI_Isend"')
    assert view.highlight == expected.highlight != b""
    selected, wanted = view.selected(), expected.selected()
    assert selected.index.tolist() == wanted.index.tolist() == [node]
    assert selected["start"].tolist() == wanted["start"].tolist()

    # a message's send and receive calls, one click apart on both engines
    envelope = expected.picture(width=300).arrows.envelope
    ends = [int(envelope[f"{end}_node"][3]) for end in ("send", "receive")]
    assert view.select_message(*ends) == expected.select_message(*ends)
    assert view.selection == expected.selection
    assert view.selected().index.tolist() == expected.selected().index.tolist()
    with pytest.raises(GladeError, match="no call"):
        view.select_message(view.source.num_nodes, ends[1])

    first, last = (int(t) for t in expected.extent)
    for timeline in (expected, view):
        timeline.focus(path)
        timeline.window(first + (last - first) // 3, first + (last - first) // 2, [1, 2, 4])
        timeline.link_restrict('MATCH (".", n) WHERE n.Process <> 4')
    assert_views_equal(expected, view)
    assert view.code() == expected.code()
    for timeline in (expected, view):
        timeline.undo()
        timeline.link_restrict("")
    assert_views_equal(expected, view)


def test_bad_requests_on_dask_fail_as_on_pandas(dask_client):
    from glade.datasets import synthetic_trace

    view = Timeline(synthetic_trace(3, 4).to_dask(2))
    before = view.query
    with pytest.raises(QueryError, match="nope"):
        view.query = 'MATCH (".", n) WHERE n.nope > 3'
    assert view.query == before and view.history == []
    with pytest.raises(GladeError, match="no call"):
        view.source.call_query(10**9)
    with pytest.raises(GladeError, match="no function"):
        view.hide("no such function")
    with pytest.raises(GladeError, match="rows"):
        view.picture(rows=(5, 2))


def test_a_real_trace_on_dask_has_the_pandas_timeline(dask_client, pipit_data):
    path = pipit_data / "ping-pong-otf2"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    pytest.importorskip("otf2", reason="the otf2 package is absent")
    trace = Trace.from_otf2(str(path))
    expected = Timeline(trace)
    view = Timeline(Trace.from_otf2(str(path), engine="dask", npartitions=2))
    assert_views_equal(expected, view)
    assert_pictures_equal(
        expected.picture(width=700, height=20), view.picture(width=700, height=20), "whole"
    )
    assert expected.picture(width=700).arrows.count.sum() > 0


def _spill_bytes(value: int) -> int:
    """Set the workers' spill size (:data:`glade.trace.engines.spill.SPILL_BYTES`); the
    value before."""
    from glade.trace.engines import spill

    before, spill.SPILL_BYTES = spill.SPILL_BYTES, value
    return before


def _spilled(dask_worker) -> list[str]:
    """The directories of arrays spilled in a worker's local directory."""
    from pathlib import Path

    return sorted(str(p) for p in Path(dask_worker.local_directory).glob("glade-timeline-*"))


def _all_spilled(client) -> set[str]:
    return {d for found in client.run(_spilled).values() for d in found}


def test_a_view_whose_arrays_all_spill_to_disk_answers_as_on_pandas(dask_client):
    import gc
    import time

    from glade.datasets import synthetic_trace

    spill_bytes = dask_client.run(_spill_bytes, 0)  # every array of every part goes to disk
    try:
        trace = synthetic_trace(5, 12, exchange="halo", imbalance=0.4)
        expected = Timeline(trace)
        before = _all_spilled(dask_client)
        view = trace.to_dask(3).show_timeline()
        # the parts' forests and indexes on their workers' disks
        assert _all_spilled(dask_client) - before
        assert_views_equal(expected, view)
        first, last = (int(t) for t in expected.extent)

        @settings(max_examples=examples(6), deadline=None)
        @given(st.booleans(), st.data())
        def same_pictures(depth_rows, data):
            rows = len(expected.depth_labels if depth_rows else expected.labels)
            request = dict(data.draw(requests(first, last, rows)), depth_rows=depth_rows)
            assert_pictures_equal(
                expected.picture(**request), view.picture(**request), str(request)
            )

        same_pictures()
        for timeline in (expected, view):  # an edit: new indexes, in new directories
            timeline.query = 'MATCH (".", n)->("*") WHERE n.name = "MPI_Waitall"'
        assert_views_equal(expected, view)
        same_pictures()
        view.close()  # lets go of the parts: their directories go with them
        gc.collect()
        for _ in range(100):  # the workers let go of the parts as the scheduler says
            if _all_spilled(dask_client) <= before:
                break
            time.sleep(0.1)
        assert _all_spilled(dask_client) <= before
    finally:
        dask_client.run(_spill_bytes, next(iter(spill_bytes.values())))


def _exact_limit(value: int) -> int:
    """Set the number of calls past which a range reads a level of detail
    (:data:`glade.trace.timeline.levels.EXACT_LIMIT`, as the pandas timeline reads it) in
    this process; the value before."""
    from glade.trace.timeline import levels, render

    before, levels.EXACT_LIMIT, render.EXACT_LIMIT = levels.EXACT_LIMIT, value, value
    return before


def test_wide_ranges_on_dask_read_levels_of_detail_as_on_pandas(dask_client):
    from glade.datasets import synthetic_trace

    before = _exact_limit(40)
    dask_client.run(_exact_limit, 40)
    spill_bytes = dask_client.run(_spill_bytes, 0)  # the levels, too, go to disk
    try:
        trace = synthetic_trace(4, 30, exchange="ring", imbalance=0.3)
        expected = Timeline(trace)
        # one partition: its levels are the whole trace's, as on pandas
        view = trace.to_dask(1).show_timeline()
        first, last = (int(t) for t in expected.extent)
        span = last - first
        read = set()
        for t0, t1, width, depth_rows in [
            (first, last, 60, False),
            (first + span // 5, last - span // 7, 33, False),
            (first, first + span // 3, 90, True),
            (first + span // 2, first + span // 2 + span // 50, 40, False),
        ]:
            request = {"t0": t0, "t1": t1, "width": width, "height": 4, "depth_rows": depth_rows}
            want = expected.picture(**request)
            read.add(want.extra["level"])
            assert_pictures_equal(want, view.picture(**request), str(request))
        assert None in read and len(read) > 1  # levels read, and the calls themselves
        view.close()
    finally:
        _exact_limit(before)
        dask_client.run(_exact_limit, before)
        dask_client.run(_spill_bytes, next(iter(spill_bytes.values())))


def test_tasks_on_a_part_run_where_the_part_is(dask_client):
    from distributed import futures_of

    from glade.datasets import synthetic_trace

    trace = synthetic_trace(6, 8, exchange="halo")
    view = trace.to_dask(3).show_timeline()
    source = view._source
    assert set(source._homes) <= set(dask_client.scheduler_info()["workers"])
    first, last = (int(t) for t in view.extent)
    for k in range(6):
        view.picture(first + k, last, width=50 + k, height=6)
    view.query = 'MATCH (".", n) WHERE n.name = "MPI_Waitall"'
    view.picture(first, last, width=40, height=6)
    # no part was copied to another worker to run a task there
    holders = dask_client.who_has([f for p in source._parts for f in futures_of(p)])
    assert [list(holders[futures_of(p)[0].key]) for p in source._parts] == [
        [home] for home in source._homes
    ]
    view.close()


def test_a_view_whose_worker_died_says_so_at_once(dask_client):
    """A worker holding parts is restarted (its nanny starts another, at another
    address; Dask cancels what it held): the view's next answer is a GladeError saying
    so, not a task pinned to the lost worker waiting forever (asked from a thread with a
    time limit, so a hang fails the test)."""
    import threading

    from glade.datasets import synthetic_trace

    view = synthetic_trace(6, 30, exchange="halo").to_dask(3).show_timeline()
    lost = view.source._homes[0]
    dask_client.restart_workers([lost])
    assert lost not in dask_client.scheduler_info(n_workers=-1)["workers"]
    raised: list[Exception] = []

    def ask() -> None:
        try:
            view.picture(width=300, height=12)
        except Exception as error:  # the test asserts which error below
            raised.append(error)

    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    asking.join(timeout=60)
    assert raised, "the view waited for a worker that is gone"
    assert isinstance(raised[0], GladeError) and lost in str(raised[0]), raised[0]
    with pytest.raises(GladeError, match="is gone"):
        view.source.call_query(0)


def assert_analyses_equal(expected: Timeline, view: Timeline, data) -> None:
    """The window summaries (every ``by``), the search for the next and previous call of a
    function, the range of activity, the status line (with its count of hidden calls)
    and where a found call is placed are those of the pandas view."""
    import pandas as pd

    for by in ("function", "process", "process-function"):
        pd.testing.assert_frame_equal(view.summary(by), expected.summary(by), obj=by)
    assert view.source.activity() == expected.source.activity()
    assert re.sub(r" \(Dask, \d+ partitions\)", "", view.status) == expected.status
    names = expected.names
    if not names:
        return
    first, last = (int(t) for t in expected.extent)
    wanted = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))
    after = data.draw(st.integers(first - 1, last + 1))
    for forward in (True, False):
        found = view.find(wanted, after=after, forward=forward)
        assert found == expected.find(wanted, after=after, forward=forward), (wanted, after)


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_events(), st.integers(1, 4), st.data())
def test_summaries_and_searches_of_random_traces_on_dask_are_the_pandas_ones(
    dask_client, table, npartitions, data
):
    expected, view = both_views(table, npartitions)
    assert_analyses_equal(expected, view, data)
    if not expected.names:
        return
    first, last = (int(t) for t in expected.extent)
    name = data.draw(st.sampled_from(expected.names))
    t0 = data.draw(st.integers(first, last))
    t1 = data.draw(st.integers(t0, last + 2))
    processes = data.draw(st.none() | st.lists(st.integers(0, 4), min_size=1, max_size=3))
    for timeline in (expected, view):
        timeline.hide(name)
        timeline.window(t0, t1, processes)
    assert_analyses_equal(expected, view, data)


def test_a_halo_run_on_dask_summarizes_finds_and_waits_as_on_pandas(dask_client):
    import pandas as pd

    from glade.datasets import synthetic_trace

    trace = synthetic_trace(6, 30, exchange="halo", imbalance=0.5)
    expected = Timeline(trace)
    view = trace.to_dask(3).show_timeline()
    whole = view.summary("process")
    pd.testing.assert_frame_equal(whole, expected.summary("process"))
    # late senders wait: the waiting time of the whole run's wait states, per process
    waits = trace.wait_summary("Process")["waiting time"]
    assert (whole.set_index("Process")["waiting time"] == waits.reindex(whole["Process"])).all()
    assert whole["waiting time"].sum() > 0
    # the waiting calls and the calls on the critical path select as on pandas
    for timeline in (expected, view):
        timeline.select_waiting()
    assert view.highlight == expected.highlight and len(view.highlight) > 0
    for timeline in (expected, view):
        timeline.selection = 'MATCH (".", n) WHERE n."critical path" > 0'
    assert view.highlight == expected.highlight
    assert len(view.selected()) == len(expected.selected()) > 0
    # the processes' rows fill the window's length where they are busy
    first, last = expected.extent
    assert (whole["share"] <= 1).all()
    for timeline in (expected, view):
        timeline.window(first + (last - first) // 3, first + (last - first) // 2, [1, 4])
        timeline.hide("MPI_Waitall")
    for by in ("function", "process", "process-function"):
        pd.testing.assert_frame_equal(view.summary(by), expected.summary(by), obj=by)
    assert view.status.partition("; hidden: ")[2] == expected.status.partition("; hidden: ")[2]
    assert view.zoom_to_activity().viewport == expected.zoom_to_activity().viewport
    for forward in (True, False):
        after = first + (last - first) * 5 // 12  # inside the window
        found = view.find(["MPI_Irecv"], after=after, forward=forward)
        assert found is not None and found["name"] == "MPI_Irecv"
        assert found == expected.find(["MPI_Irecv"], after=after, forward=forward)
    assert view.find(["no such function"]) is None
    with pytest.raises(GladeError, match="by one of"):
        view.summary("thread")


def assert_layers_equal(expected: Timeline, actual: Timeline, **request) -> dict:
    """The wait states and the critical path of one request are the pandas ones (those
    arrays returned)."""
    wanted = expected.picture(**request).extra["arrays"]
    got = actual.picture(**request).extra["arrays"]
    assert set(got) == set(wanted)
    for name, values in wanted.items():
        np.testing.assert_array_equal(got[name], values, f"{request}: {name}")
    return wanted


def test_wait_states_and_the_critical_path_on_dask_are_the_pandas_ones(dask_client, monkeypatch):
    from glade.datasets import synthetic_trace
    from glade.trace.timeline import waiting

    trace = synthetic_trace(5, 6, seed=4, imbalance=0.6, slow_process=3)
    expected = Timeline(trace).show_waits().show_critical_path()
    view = Timeline(trace.to_dask(3)).show_waits().show_critical_path()
    assert view.selection == expected.selection
    assert view.highlight == expected.highlight != b""
    first, last = (int(t) for t in expected.extent)
    middle = (first + last) // 2
    for depth_rows in (False, True):
        for t0, t1, width in [(first, last, 300), (first, last, 7), (middle, last, 40)]:
            args = {"t0": t0, "t1": t1, "width": width, "height": 3, "depth_rows": depth_rows}
            shown = assert_layers_equal(expected, view, **args)
            assert shown["path_from"].size
            # some waits are shorter than a pixel; 7 columns put every wait in the raster
            assert shown["wait_alpha"].any()
            assert bool(shown["wait_start"].size) == (width != 7)
    # the waits past the cap join the raster alike (the workers keep their own cap)
    monkeypatch.setattr(waiting, "MAX_WAITS", 3)
    assert assert_layers_equal(expected, view, t0=first, t1=last, width=300)["wait_start"].size == 3
    waits = trace.wait_states()
    forest = expected.index.forest
    nodes = np.flatnonzero(np.isin(forest.event, waits["event"].to_numpy()))
    assert nodes.size > 3
    # a hidden cause is not shown: no arrow, and wait_of names no cause
    for timeline in (expected, view):
        timeline.hide("MPI_Isend")
    monkeypatch.setattr(waiting, "MAX_WAITS", 20_000)
    shown = assert_layers_equal(expected, view, t0=first, t1=last, width=300)
    assert 0 < (shown["wait_cause_row"] < 0).sum() < shown["wait_cause_row"].size
    hidden = set()
    for node in [*nodes[::5].tolist(), 0]:  # some waits, and node 0 (main) waits not
        wait = view.wait_of(node)
        assert wait == expected.wait_of(node)
        assert view.selection == expected.selection
        hidden.add(None if wait is None else wait["cause"] is None)
    assert hidden == {None, True, False}  # no wait, a hidden cause and a shown one


def test_rows_pinned_and_sorted_on_dask_are_the_pandas_ones(dask_client):
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(6, 4, seed=2, imbalance=0.8, slow_process=4)
    expected, view = Timeline(trace), Timeline(trace.to_dask(3))
    first, last = (int(t) for t in expected.extent)
    for by, pinned in [("waiting time", [1]), ("time in MPI", []), ("total time", [5, 0])]:
        for timeline in (expected, view):
            timeline.order_rows(by, pinned)
        # the rows interleave the partitions' processes (two per partition)
        assert view.labels == expected.labels != sorted(expected.labels)
        assert_views_equal(expected, view)
        for depth_rows in (False, True):
            rows = len(expected.depth_labels if depth_rows else expected.labels)
            for t0, t1, width, span in [(first, last, 300, (0, rows)), (first, last, 5, (1, 4))]:
                args = {"t0": t0, "t1": t1, "width": width, "height": 3, "rows": span}
                args["depth_rows"] = depth_rows
                assert_pictures_equal(expected.picture(**args), view.picture(**args), str(args))
    node = int(expected.picture(width=300).boxes["node"][-1])
    assert view.source.place(node) == expected.source.place(node)
    # an edit keeps the order; waits and the path land on the rows of the new order
    for timeline in (expected, view):
        timeline.hide("compute_step")
        timeline.show_waits().show_critical_path()
    assert_views_equal(expected, view)
    assert view.labels == expected.labels
    assert_layers_equal(expected, view, t0=first, t1=last, width=300, depth_rows=True)
    for timeline in (expected, view):
        timeline.order_rows("process")
    assert view.labels == expected.labels == sorted(expected.labels)
    assert_pictures_equal(expected.picture(width=300), view.picture(width=300), "process order")


@settings(max_examples=examples(50), deadline=None)
@given(
    st.lists(st.integers(0, 10**6), unique=True, min_size=1, max_size=40),
    st.data(),
)
def test_the_ends_of_messages_are_found_among_the_message_events(ids, data):
    # dense ids are read from a table, sparse ones searched sorted: the same positions
    from glade.trace.timeline.dask_source import _positions

    events = data.draw(st.lists(st.sampled_from(ids), max_size=60))
    at = [ids.index(e) for e in events]
    size = len(ids)
    rank = np.argsort(np.argsort(ids))  # each id's rank: 0 to size - 1, dense
    for spread in (rank, (np.array(ids) + 1) * 8 * size):  # then each at least 8 * size
        events = spread[np.array(at, dtype=np.int64)]
        assert [p.tolist() for p in _positions(spread, events, events[::-1])] == [at, at[::-1]]
