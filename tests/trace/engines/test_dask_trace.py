"""The Dask engine gives the pandas engine's answers: every analysis of a DaskTrace (on a
2-worker LocalCluster of processes) equals the pandas Trace's, exactly, on random
traces (hypothesis), on synthetic MPI runs and on Pipit's real traces."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.errors import GladeError, MetricError, QueryError, QuerySyntaxError, TraceError
from glade.trace import Trace
from glade.trace.filter import Filter
from glade.trace.matching import UnmatchedEventsWarning
from tests.hypothesis_budget import examples

pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")

NAMES = ["a", "b", "c", "MPI_Wait"]
CCT_QUERY = 'MATCH (".", p)->("*") WHERE p.name = "b"'
CALLS_QUERY = 'MATCH (".", p)->("*", q) WHERE p.name = "a" AND p."time.inc" > 2'


@st.composite
def random_events(draw) -> pd.DataFrame:
    """1-5 processes of 1-2 threads; nested calls, message instants (sizes sometimes
    unknown), Leaves without Enter and Enters left open; small time steps, so events of
    different processes often share a timestamp."""
    processes = draw(st.integers(1, 5))
    tables = []
    for process in range(processes):
        for thread in range(draw(st.integers(1, 2))):
            stack, rows = [], []
            for op in draw(
                st.lists(st.sampled_from(["enter", "leave", "send", "recv"]), max_size=30)
            ):
                if op == "enter":
                    stack.append(draw(st.sampled_from(NAMES)))
                    rows.append(("Enter", stack[-1], -1, -1))
                elif op == "leave":
                    rows.append(("Leave", stack.pop() if stack else "a", -1, -1))
                else:
                    partner = draw(st.integers(0, processes - 1))
                    size = draw(st.sampled_from([-1, 8, 64, 1000]))
                    rows.append(
                        ("Instant", "MpiSend" if op == "send" else "MpiRecv", partner, size)
                    )
            if draw(st.booleans()):
                rows += [("Leave", name, -1, -1) for name in reversed(stack)]
            steps = draw(st.lists(st.integers(0, 3), min_size=len(rows), max_size=len(rows)))
            tables.append(
                pd.DataFrame(
                    {
                        "Timestamp (ns)": np.cumsum(steps, dtype=np.int64),
                        "Event Type": [r[0] for r in rows],
                        "Name": [r[1] for r in rows],
                        "Process": process,
                        "Thread": thread,
                        "Partner": np.array([r[2] for r in rows], dtype=np.int64),
                        "Message Size": np.array([r[3] for r in rows], dtype=np.int64),
                    }
                )
            )
    table = pd.concat(tables, ignore_index=True)
    return table.iloc[np.argsort(table["Timestamp (ns)"].to_numpy(), kind="stable")]


def analyses(trace) -> dict[str, object]:
    """Every analysis the two engines share, on a trace of either."""
    gf = trace.to_graphframe()
    return {
        "flat": trace.flat_profile(["time.exc", "time.inc", "count"]),
        "flat per process": trace.flat_profile(["time.exc", "count"], per_process=True),
        "flat mean": trace.flat_profile("time.inc", mean=True),
        "flat by thread": trace.flat_profile("count", groupby_column="Thread"),
        "time profile": trace.time_profile(7),
        "time profile normalized": trace.time_profile(3, normalized=True),
        "imbalance": trace.load_imbalance("time.exc", num_processes=2),
        "idle": trace.idle_time(["b"], mpi_events=True),
        "comm size": trace.comm_matrix(),
        "comm count": trace.comm_matrix("count", as_frame=True),
        "by process": trace.comm_by_process("count"),
        "histogram": trace.message_histogram(4),
        "cct rows": gf.dataframe,
        "cct frames": gf.graph.frames,
        "cct parents": gf.graph.tree_parent,
        "cct repairs": gf.metadata["trace"]["repairs"],
    }


def assert_equal(expected: object, actual: object, what: str) -> None:
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(actual, expected, check_exact=True, obj=what)
    elif isinstance(expected, tuple):
        for e, a in zip(expected, actual, strict=True):
            np.testing.assert_array_equal(a, e, err_msg=what)
    elif isinstance(expected, np.ndarray):
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        assert actual == expected, what


def assert_analyses_alike(trace: Trace, on_dask) -> None:
    """Every analysis of ``analyses`` gives the same answer on ``on_dask`` as on the
    pandas ``trace`` (analyses may add derived columns to ``trace``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = analyses(trace)
        for what, value in analyses(on_dask).items():
            assert_equal(expected[what], value, what)


def assert_same_answers(trace: Trace, npartitions: int) -> None:
    """Every analysis, derived columns and selections of ``trace`` on the Dask engine
    (``npartitions`` partitions) equal the pandas engine's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dask = trace.to_dask(npartitions)
        assert_analyses_alike(trace.copy(), on_dask)

        derived = trace.copy()
        derived.calc_exc_metrics()
        on_dask.calc_exc_metrics()
        assert on_dask.metadata["repairs"] == derived.metadata["repairs"]
        pd.testing.assert_frame_equal(on_dask.compute().events, derived.events, check_exact=True)

        chosen = Filter("Name", "in", ["a", "MpiSend"]) | Filter("Timestamp (ns)", ">", 20)
        selections = {
            "filter": (trace.filter(chosen), on_dask.filter(chosen)),
            "cct query": (trace.query(CCT_QUERY), on_dask.query(CCT_QUERY)),
            "calls query": (
                trace.query(CALLS_QUERY, level="calls"),
                on_dask.query(CALLS_QUERY, level="calls"),
            ),
        }
        for what, (pandas_trace, dask_trace) in selections.items():
            computed = dask_trace.compute()
            pd.testing.assert_frame_equal(
                computed.events, pandas_trace.events, check_exact=True, obj=what
            )
            assert computed.metadata == pandas_trace.metadata, what


@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_events(), st.integers(1, 4))
def test_random_traces_get_the_pandas_answers(dask_client, table, npartitions):
    assert_same_answers(Trace(table), npartitions)


def test_a_synthetic_mpi_run_gets_the_pandas_answers(dask_client):
    from glade.datasets import synthetic_trace

    assert_same_answers(synthetic_trace(8, 6, exchange="halo", imbalance=0.5), 3)


def test_pipit_traces_get_the_pandas_answers(dask_client, pipit_data):
    pytest.importorskip("otf2", reason="the OTF2 reader needs the glade[otf2] extra")
    foo_bar = Trace.from_csv(pipit_data / "foo-bar.csv")
    assert_same_answers(foo_bar, 2)
    ping_pong = Trace.from_otf2(pipit_data / "ping-pong-otf2")
    assert_same_answers(ping_pong, 2)
    ping_pong_hpctoolkit = Trace.from_hpctoolkit(pipit_data / "ping-pong-hpctoolkit")
    assert_same_answers(ping_pong_hpctoolkit, 2)


def test_partitions_hold_whole_processes(dask_client):
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(7, 3)
    parts = [p.compute() for p in trace.to_dask(3).events.to_delayed()]
    owners = [set(p["Process"]) for p in parts]
    assert sorted(q for o in owners for q in o) == list(range(7))
    assert sum(len(p) for p in parts) == len(trace)
    assert all(np.all(np.diff(p["Timestamp (ns)"].to_numpy()) >= 0) for p in parts)


def test_foo_bar_flat_profile_by_hand(dask_client, foo_bar):
    # every Enter of foo-bar.csv is one call, counted once by the partition of its process
    on_dask = foo_bar.to_dask(2)
    profile = on_dask.flat_profile(["time.inc", "count"])
    expected = foo_bar.flat_profile(["time.inc", "count"])
    pd.testing.assert_frame_equal(profile, expected)
    assert profile["count"].sum() == (foo_bar.events["Event Type"] == "Enter").sum()


def test_bad_arguments_fail_before_any_pass(dask_client):
    from glade.datasets import synthetic_trace

    on_dask = synthetic_trace(2, 2).to_dask(2)
    with pytest.raises(MetricError, match="no metric named 'nope'"):
        on_dask.flat_profile("nope")
    with pytest.raises(MetricError, match="no column named 'Colour'"):
        on_dask.flat_profile(groupby_column="Colour")
    with pytest.raises(TraceError, match="num_bins"):
        on_dask.time_profile(0)
    with pytest.raises(TraceError, match="output"):
        on_dask.comm_matrix("bytes")
    with pytest.raises(QuerySyntaxError):
        on_dask.query("MATCH (", level="calls")
    with pytest.raises(QueryError, match="level"):
        on_dask.query(CCT_QUERY, level="events")
    with pytest.raises(TraceError, match="weights"):
        on_dask.message_histogram("auto")
    with pytest.raises(MetricError, match="Colour"):
        on_dask.filter(Filter("Colour", "==", 1))


def test_unmatched_events_warn_or_fail_as_on_pandas(dask_client):
    table = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 1, 2, 3, 5],
            "Event Type": ["Leave", "Enter", "Enter", "Leave", "Enter"],
            "Name": ["x", "a", "b", "b", "c"],
            "Process": [0, 0, 1, 1, 1],
        }
    )
    on_dask = Trace(table).to_dask(2)
    with pytest.warns(UnmatchedEventsWarning):
        on_dask.match_events()
    assert on_dask.metadata["repairs"] == {"orphan_leaves": 1, "open_enters": 2}
    computed = on_dask.compute()
    # the Enters never left close at the end of the whole trace, not of their partition
    assert computed.events["_matching_timestamp"].tolist() == [-1, 5, 3, 2, 5]
    with pytest.raises(TraceError, match=r"never left|has no Enter"):
        Trace(table).to_dask(2).match_events(unmatched="error")


def test_results_share_nothing_with_the_trace(dask_client):
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(3, 2)
    before = trace.events.copy()
    on_dask = trace.to_dask(2)
    on_dask.calc_exc_metrics()
    computed = on_dask.compute()
    computed.events.loc[0, "Timestamp (ns)"] = -5
    pd.testing.assert_frame_equal(trace.events, before)
    assert "time.exc" not in trace.events.columns
    selected = on_dask.filter(Filter("Process", "==", 1))
    assert "time.exc" not in selected.events.columns
    assert "repairs" not in selected.metadata


def test_a_parquet_store_read_on_dask_is_the_stored_trace(dask_client, tmp_path):
    from glade.datasets import write_synthetic_trace

    store = write_synthetic_trace(tmp_path / "run", processes=6, iterations=4, exchange="halo")
    trace = Trace.from_parquet(store)
    on_dask = Trace.from_parquet(store, engine="dask", npartitions=4)
    assert on_dask.npartitions == 4
    pd.testing.assert_frame_equal(on_dask.compute().events, trace.events, check_exact=True)
    from glade.readers.traces import read_trace

    assert read_trace(store, engine="dask", npartitions=2).npartitions == 2
    assert on_dask.metadata == trace.metadata
    assert_analyses_alike(trace, on_dask)


def test_a_store_in_row_order_keeps_its_order_on_dask(dask_client, tmp_path):
    # equal timestamps with process 1 before process 0: the store keeps each event's row
    table = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 0, 1, 1, 2, 2],
            "Event Type": ["Enter", "Enter", "Leave", "Enter", "Leave", "Leave"],
            "Name": ["b", "a", "a", "c", "c", "b"],
            "Process": [1, 0, 0, 0, 0, 1],
        }
    )
    trace = Trace(table)
    trace.to_parquet(tmp_path / "rows")
    on_dask = Trace.from_parquet(tmp_path / "rows", engine="dask", npartitions=2)
    pd.testing.assert_frame_equal(on_dask.compute().events, trace.events)
    gf = on_dask.to_graphframe()
    assert list(gf.graph.frames["name"]) == ["b", "a", "c"]
    pd.testing.assert_frame_equal(gf.dataframe, trace.to_graphframe().dataframe)


def test_a_damaged_store_is_a_reader_error(dask_client, tmp_path):
    from glade.datasets import write_synthetic_trace
    from glade.errors import ReaderError

    store = write_synthetic_trace(tmp_path / "run", processes=3, iterations=2)
    (store / "events" / "Process=1" / "part-0.parquet").write_bytes(b"not parquet")
    with pytest.raises(ReaderError, match="Process=1"):
        Trace.from_parquet(store, engine="dask").flat_profile()
    (store / "events" / "Process=2" / "part-0.parquet").unlink()
    with pytest.raises(ReaderError, match="partition of process 2"):
        Trace.from_parquet(store, engine="dask")
    with pytest.raises(GladeError, match="engine"):
        Trace.from_parquet(store, engine="spark")


@pytest.mark.parametrize("max_boxes", [30_000, 40])
def test_the_timeline_picture_on_dask_is_the_pandas_one(dask_client, monkeypatch, max_boxes):
    # with 40, most boxes are too many to draw: the longest stay boxes, the rest go to the
    # raster (each partition keeps its longest, then each worker, then the client)
    from glade.datasets import synthetic_trace
    from glade.trace.engines import rasters
    from glade.trace.timeline import dask_source, messages, render
    from glade.views import Timeline

    monkeypatch.setattr(render, "MAX_BOXES", max_boxes)
    # with 40 boxes, at most 25 arrows: more are bundled (from every partition's bundles)
    monkeypatch.setattr(messages, "MAX_ARROWS", 2_000 if max_boxes > 40 else 25)
    monkeypatch.setattr(rasters, "MAX_BOXES", max_boxes)
    # with 40 boxes, at most 30 instants: more are counted per pixel
    instants = 20_000 if max_boxes > 40 else 30
    monkeypatch.setattr(render, "MAX_INSTANTS", instants)
    monkeypatch.setattr(dask_source, "MAX_INSTANTS", instants)
    trace = synthetic_trace(6, 30, exchange="halo", imbalance=0.5)
    view = Timeline(trace)
    on_dask = trace.to_dask(3)
    start, end = on_dask.span
    bundled = []
    for t0, t1, rows in [(start, end, None), (200_000, 900_000, (1, 5))]:
        expected = view.picture(t0, t1, width=400, height=50, rows=rows if rows else (0, 6))
        picture = on_dask.timeline_picture(t0, t1, width=400, height=50, rows=rows)
        assert picture.threshold == expected.threshold
        assert picture.visible_calls == expected.visible_calls
        # node ids are the pandas engine's
        for field in ("node", "row", "start", "end", "code", "depth", "exclusive"):
            np.testing.assert_array_equal(picture.boxes[field], expected.boxes[field], field)
        np.testing.assert_allclose(picture.cover, expected.cover, rtol=1e-12)
        np.testing.assert_allclose(picture.busy, expected.busy, rtol=1e-12)
        np.testing.assert_array_equal(picture.top, expected.top)
        assert picture.cover.sum() > 0
        assert (picture.threshold > picture.request.px) == (max_boxes == 40)
        assert picture.instants_pooled == expected.instants_pooled
        if expected.instants_pooled:
            np.testing.assert_array_equal(picture.instants["count"], expected.instants["count"])
            assert picture.instants["count"].sum() > 30
        else:
            for field in ("node", "row", "time", "code"):
                np.testing.assert_array_equal(
                    picture.instants[field], expected.instants[field], field
                )
            assert picture.instants["time"].size > 0
        assert picture.arrows.count.sum() > 0
        bundled.append(picture.arrows.bundled)
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
                getattr(picture.arrows, field), getattr(expected.arrows, field), field
            )
    assert bundled == [max_boxes == 40, False]


@pytest.mark.parametrize("persist", [False, True])
def test_messages_are_paired_by_receiver_on_the_workers(dask_client, persist):
    # the picture's arrows come from pairs partitioned by receiver, each partition's its
    # own share: together the pandas engine's pairs, no partition (nor the client) all;
    # persisted, a partition is given only the sends addressed to it (a periodic halo
    # over 4 partitions of 2 processes: each hears from itself and its 2 neighbours)
    import dask

    from glade.datasets import synthetic_trace
    from glade.trace.engines.arrows import MESSAGE_ROW, pair_received
    from glade.trace.engines.messages import paired_by_receiver
    from glade.trace.engines.parts import local_trace

    trace = synthetic_trace(8, 5, exchange="halo")
    expected = trace.match_messages()
    on_dask = trace.to_dask(4)

    def message_events(part):
        local = local_trace(part, {})
        rows = np.flatnonzero(local.events["Name"].isin(["MpiIsend", "MpiIrecv"]).to_numpy())
        return part.iloc[rows].assign(**{MESSAGE_ROW: part["Process"].to_numpy()[rows]})

    messages = [dask.delayed(message_events)(p) for p in on_dask.events.to_delayed()]
    pairs = paired_by_receiver(
        messages, [s.processes for s in on_dask._summary()], pair_received, persist
    )
    assert len(pairs) == 4
    given = [sum(str(k).startswith("getitem") for k in dict(p.dask)) for p in pairs]
    assert given == ([3] * 4 if persist else [4] * 4)
    shares = dask.compute(*pairs)
    for share, summary in zip(shares, on_dask._summary(), strict=True):
        assert 0 < share["send_id"].size < len(expected)
        assert np.isin(share["receive_row"], summary.processes).all()
    sent = np.concatenate([s["send_id"] for s in shares])
    order = np.argsort(sent)
    np.testing.assert_array_equal(sent[order], expected["Send event"].to_numpy())
    for field, column in (
        ("send_time", "Send time (ns)"),
        ("receive_time", "Receive time (ns)"),
        ("send_row", "Sender"),
        ("receive_row", "Receiver"),
        ("size", "Message Size"),
    ):
        values = np.concatenate([s[field] for s in shares])[order]
        np.testing.assert_array_equal(values, expected[column].to_numpy(), field)


def test_a_picture_of_a_trace_without_partners_has_no_arrows(dask_client, foo_bar):
    # Pipit's foo-bar CSV records no Partner column: nothing pairs, the picture is pandas'
    from glade.views import Timeline

    expected = Timeline(foo_bar).picture(width=300, height=40)
    picture = foo_bar.to_dask(2).timeline_picture(width=300, height=40)
    assert len(picture.arrows.count) == len(expected.arrows.count) == 0
    for field in ("node", "row", "start", "end", "code"):
        np.testing.assert_array_equal(picture.boxes[field], expected.boxes[field], field)
