"""The OTF2 reader and writer, on Pipit's Score-P ping-pong trace and on synthetic traces."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.errors import GladeError, ReaderError
from glade.readers.traces import otf2 as trace_otf2
from glade.readers.traces import otf2_write
from glade.readers.traces.events import ticks_to_ns
from glade.trace import Trace
from tests.hypothesis_budget import examples
from tests.readers.corruption import copy_input, empty, garble, truncate

COLUMNS = ["Timestamp (ns)", "Event Type", "Name", "Process", "Thread"]
MPI = ["Partner", "Tag", "Communicator", "Message Size", "Request"]


@pytest.fixture(scope="module")
def otf2():
    """The otf2 package, which reading and writing OTF2 archives needs."""
    return pytest.importorskip("otf2", reason="the otf2 package (glade[otf2]) is not installed")


@pytest.fixture(scope="module")
def archive(pipit_data: Path) -> Path:
    return pipit_data / "ping-pong-otf2"


@pytest.fixture(scope="module")
def trace(otf2, archive: Path) -> Trace:
    return trace_otf2.read_otf2(archive)


def test_counts_processes_and_names(trace: Trace):
    events = trace.events
    assert len(events) == 120
    assert sorted(events["Process"].unique()) == [0, 1]
    assert set(events["Thread"]) == {0}
    counts = events["Name"].value_counts()
    # ping-pong.c: per rank MPI_Init, Comm_size, Comm_rank, Finalize and main once, and
    # one MPI_Send and one MPI_Recv per message size 8 * 2**i, i = 11..18 (8 sizes)
    assert counts["MPI_Send"] == counts["MPI_Recv"] == 2 * 2 * 8
    assert counts["MpiSend"] == counts["MpiRecv"] == 2 * 8
    for name in ("MPI_Init", "MPI_Finalize", "MPI_Comm_size", "MPI_Comm_rank"):
        assert counts[name] == 2 * 2
    assert counts["ProgramBegin"] == counts["ProgramEnd"] == 2
    assert set(counts.index) == set(events["Name"].cat.categories)  # no unused category


def test_column_types_and_order(trace: Trace):
    events = trace.events
    assert events["Timestamp (ns)"].dtype == np.int64
    assert (np.diff(events["Timestamp (ns)"].to_numpy()) >= 0).all()
    assert isinstance(events["Name"].dtype, pd.CategoricalDtype)
    for column in MPI:
        assert events[column].dtype == np.int64


def test_enter_leave_balanced(trace: Trace):
    frames = trace.events[trace.events["Event Type"] != "Instant"]
    per = frames.groupby(["Process", "Thread", "Name", "Event Type"], observed=True).size()
    enters = per.xs("Enter", level="Event Type")
    leaves = per.xs("Leave", level="Event Type")
    pd.testing.assert_series_equal(enters, leaves, check_names=False)


def test_messages_checked_by_hand(trace: Trace):
    events = trace.events
    sends = events[events["Name"] == "MpiSend"]
    recvs = events[events["Name"] == "MpiRecv"]
    sizes = sorted(8 * 2**i for i in range(11, 19))  # N doubles of 8 bytes, N = 2**i
    for rank, partner, tag in ((0, 1, 10), (1, 0, 20)):  # tag1 = 10 from rank 0, tag2 = 20
        mine = sends[sends["Process"] == rank]
        assert sorted(mine["Message Size"]) == sizes
        assert set(mine["Partner"]) == {partner}
        assert set(mine["Tag"]) == {tag}
        got = recvs[recvs["Process"] == partner]
        assert sorted(got["Message Size"]) == sizes
        assert set(got[got["Tag"] == tag]["Partner"]) == {rank}
    world = trace.definitions
    comm = set(events.loc[events["Name"].isin(["MpiSend", "MpiRecv"]), "Communicator"])
    named = world[(world["Definition Type"] == "Communicator") & world["ID"].isin(comm)]
    assert list(named["Name"]) == ["MPI_COMM_WORLD"]
    assert (events.loc[events["Event Type"] != "Instant", MPI] == -1).all().all()


def test_each_message_lies_in_its_mpi_call(trace: Trace):
    events = trace.events.reset_index(drop=True)
    for row in events.index[events["Name"].isin(["MpiSend", "MpiRecv"])]:
        name, process = events.at[row, "Name"], events.at[row, "Process"]
        before = events.iloc[:row]
        frames = before[(before["Process"] == process) & (before["Event Type"] != "Instant")]
        last = frames.iloc[-1]
        assert last["Event Type"] == "Enter"
        assert last["Name"] == {"MpiSend": "MPI_Send", "MpiRecv": "MPI_Recv"}[name]


def test_against_the_otf2_package_event_objects(otf2, archive: Path, trace: Trace):
    """Brute-force oracle: the package's own (slow) event iteration."""
    expected = []
    with otf2.reader.open(str(archive / "traces.otf2")) as reader:
        clock = reader.definitions.clock_properties
        for location, event in reader.events:
            kind = type(event).__name__
            name = event.region.name if kind in ("Enter", "Leave") else kind
            stamp = ticks_to_ns(
                np.array([event.time], np.uint64), clock.global_offset, clock.timer_resolution
            )[0]
            expected.append(
                (
                    int(stamp),
                    kind if kind in ("Enter", "Leave") else "Instant",
                    name,
                    location.group._ref,
                )
            )
    got = list(trace.events[COLUMNS[:4]].itertuples(index=False, name=None))
    assert sorted(got) == sorted(expected)


def test_metadata(trace: Trace):
    meta = trace.metadata
    assert meta["format"] == "otf2"
    assert meta["creator"] == "Score-P 7.1"
    assert meta["timer_resolution"] == 2095197216
    assert meta["num_locations"] == 2
    assert meta["program"].endswith("ping-pong.otf2")


def test_detect(archive: Path, pipit_data: Path):
    assert trace_otf2.detect(archive)
    assert trace_otf2.detect(archive / "traces.otf2")
    assert not trace_otf2.detect(pipit_data / "foo-bar.csv")
    assert not trace_otf2.detect(pipit_data / "no-such-thing")


def test_ticks_to_ns_rounds_exactly():
    ticks = np.array([10, 10 + 3, 10 + 2095197216 * 5 + 1], dtype=np.uint64)
    got = ticks_to_ns(ticks, 10, 2095197216)
    # 3 ticks at 2.095 GHz = 1.43 ns -> 1; 5 s and one tick -> 5e9 ns (0.48 ns rounds down)
    assert got.tolist() == [0, 1, 5_000_000_000]


# ------------------------------------------------------------------ round trips
def _synthetic() -> Trace:
    """Two processes with two threads; nested calls, blocking and non-blocking messages
    and a counter on some calls."""
    rows = []
    for p in (0, 1):
        other = 1 - p
        for t in (0, 1):
            base = 1000 * p + 10 * t
            if t == 0:
                rows.append((base, "Instant", "ProgramBegin", p, t))
            rows += [
                (base + 0, "Enter", "main", p, t),
                (base + 1, "Enter", "compute", p, t),
                (base + 5, "Leave", "compute", p, t),
            ]
            if t == 0:
                rows += [
                    (base + 6, "Enter", "MPI_Isend", p, t),
                    (base + 7, "Instant", "MpiIsend", p, t, other, 5, 0, 64 * (p + 1), 9),
                    (base + 8, "Leave", "MPI_Isend", p, t),
                    (base + 9, "Enter", "MPI_Recv", p, t),
                    (base + 10, "Instant", "MpiRecv", p, t, other, 5, 0, 64 * (other + 1)),
                    (base + 11, "Leave", "MPI_Recv", p, t),
                    (base + 12, "Instant", "MpiIsendComplete", p, t, -1, -1, -1, -1, 9),
                ]
            rows.append((base + 20, "Leave", "main", p, t))
            if t == 0:
                rows.append((base + 21, "Instant", "ProgramEnd", p, t))
    full = [r + (-1,) * (10 - len(r)) for r in rows]
    events = pd.DataFrame(full, columns=COLUMNS + MPI)
    events.loc[events["Message Size"] >= 0, "Communicator"] = 0
    events["PAPI_TOT_INS"] = np.where(events["Name"] == "compute", 100.0 * events.index, np.nan)
    return Trace(events, metadata={"program": "synthetic"})


@pytest.mark.usefixtures("otf2")
def test_round_trip_synthetic(tmp_path: Path):
    original = _synthetic()
    anchor = original.to_otf2(tmp_path / "out")  # Trace's own writer and reader
    assert anchor == tmp_path / "out" / "traces.otf2"
    back = Trace.from_otf2(anchor)
    a, b = original.events, back.events
    for column in [*COLUMNS, "Partner", "Tag", "Communicator", "Message Size", "Request"]:
        assert a[column].astype(str).tolist() == b[column].astype(str).tolist(), column
    np.testing.assert_array_equal(a["PAPI_TOT_INS"].to_numpy(), b["PAPI_TOT_INS"].to_numpy())
    assert back.metadata["program"] == "synthetic"
    assert back.metadata["timer_resolution"] == 10**9


@pytest.mark.usefixtures("otf2")
def test_buffer_that_fills_grows_and_reading_goes_on(tmp_path: Path, monkeypatch):
    """The record buffer starting with room for one record and few aux values fills on
    nearly every record (messages, metrics, program names, rare records): the compiled
    callbacks interrupt the library, the buffer grows, and the result is the same."""
    from glade.readers.traces import otf2_records

    anchor = _synthetic().to_otf2(tmp_path / "out")
    whole = Trace.from_otf2(anchor)
    monkeypatch.setattr(otf2_records, "FIRST_RECORDS", 0)
    monkeypatch.setattr(otf2_records, "FIRST_AUX", 0)
    pd.testing.assert_frame_equal(Trace.from_otf2(anchor).events, whole.events)
    assert len(whole) == len(_synthetic())


@pytest.mark.usefixtures("otf2")
@settings(
    max_examples=examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(st.integers(-(2**40), 2**40), min_size=2, max_size=2, unique=True),
    st.lists(st.integers(0, 2**31), min_size=2, max_size=2, unique=True),
)
def test_process_and_thread_ids_survive_a_round_trip(tmp_path_factory, processes, threads):
    """Saved queries name process ids: an OTF2 copy of a run keeps them (issue 25: a
    trace whose only process was 1 came back as process 0)."""
    original = _synthetic()
    events = original.events.copy()
    to_process = {0: processes[0], 1: processes[1], -1: -1}
    events["Process"] = events["Process"].map(to_process).astype(np.int64)
    events["Partner"] = events["Partner"].map(to_process).astype(np.int64)
    events["Thread"] = events["Thread"].map({0: threads[0], 1: threads[1]}).astype(np.int64)
    renamed = Trace(events)
    back = Trace.from_otf2(renamed.to_otf2(tmp_path_factory.mktemp("ids") / "out"))
    key = ["Timestamp (ns)", "Name", "Process", "Thread", "Partner"]
    a = renamed.events[key].sort_values(key, ignore_index=True)
    b = back.events[key].astype({"Name": str}).sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(a.astype({"Name": str}), b, check_dtype=False)


@pytest.mark.usefixtures("otf2")
def test_only_process_one_stays_process_one(tmp_path: Path):
    events = _synthetic().events
    alone = events[(events["Process"] == 1) & (events["Partner"] < 0)]
    back = Trace.from_otf2(Trace(alone).to_otf2(tmp_path / "one"))
    assert back.events["Process"].unique().tolist() == [1]
    assert sorted(back.events["Thread"].unique().tolist()) == [0, 1]


def test_archive_with_two_groups_of_one_process_id_is_refused(otf2, tmp_path: Path):
    with otf2.writer.open(
        str(tmp_path / "a"), archive_name="traces", timer_resolution=10**9
    ) as out:
        node = out.definitions.system_tree_node("machine")
        for name in ("rank 0", "rank 1"):
            group = out.definitions.location_group(name, system_tree_parent=node)
            out.definitions.location_group_property(group, "glade::Process", value=4)
            out.event_writer_from_location(out.definitions.location("t", group=group))
    with pytest.raises(ReaderError, match="two location groups have the same glade::Process"):
        Trace.from_otf2(tmp_path / "a" / "traces.otf2")


def test_round_trip_ping_pong(trace: Trace, tmp_path: Path):
    back = trace_otf2.read_otf2(otf2_write.write_otf2(trace, tmp_path / "pp"))
    for column in [*COLUMNS, "Partner", "Tag", "Message Size"]:
        assert trace.events[column].tolist() == back.events[column].tolist(), column


def test_metric_without_event_becomes_instant(otf2, tmp_path: Path):
    """Written with the otf2 package directly: a metric record followed by no event at
    its time stays an Instant event named Metric; one followed by an Enter at the same
    time lands on that Enter."""
    with otf2.writer.open(str(tmp_path / "m"), timer_resolution=10**9) as writer:
        defs = writer.definitions
        group = defs.location_group("rank 0", system_tree_parent=defs.system_tree_node("n"))
        events = writer.event_writer("main thread", group=group)
        region = defs.region("work")
        metric = defs.metric_class(members=[defs.metric_member("cycles")])
        events.metric(5, metric, 42.0)
        events.enter(5, region)
        events.metric(7, metric, 43.0)
        events.leave(9, region)
    got = trace_otf2.read_otf2(tmp_path / "m").events
    assert got["Name"].astype(str).tolist() == ["work", "Metric", "work"]
    assert got["Event Type"].astype(str).tolist() == ["Enter", "Instant", "Leave"]
    np.testing.assert_array_equal(got["cycles"].to_numpy(), [42.0, 43.0, np.nan])


@pytest.mark.usefixtures("otf2")
def test_write_refuses_what_otf2_cannot_hold(tmp_path: Path):
    events = pd.DataFrame(
        {"Timestamp (ns)": [0], "Event Type": ["Instant"], "Name": ["checkpoint"], "Process": [0]}
    )
    with pytest.raises(GladeError, match="checkpoint"):
        otf2_write.write_otf2(Trace(events), tmp_path / "x")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file").write_text("x")
    with pytest.raises(GladeError, match="not an empty directory"):
        otf2_write.write_otf2(_synthetic(), tmp_path / "busy")
    events = _synthetic().events.drop(columns=["Partner"])
    with pytest.raises(GladeError, match="Partner"):
        otf2_write.write_otf2(Trace(events), tmp_path / "y")


# ------------------------------------------------------------------ bad input
@pytest.mark.usefixtures("otf2")
@pytest.mark.parametrize(
    ("damaged", "damage"),
    [
        ("traces.otf2", empty),
        ("traces.otf2", truncate),
        ("traces.def", truncate),
        ("traces.def", lambda p: garble(p, 100)),
        ("traces/0.evt", truncate),
        ("traces/1.evt", lambda p: garble(p, 200)),
    ],
)
def test_corrupted_archives_raise_reader_errors(archive: Path, tmp_path: Path, damaged, damage):
    copy = copy_input(archive, tmp_path)
    damage(copy / damaged)
    with pytest.raises(ReaderError) as info:
        trace_otf2.read_otf2(copy)
    assert "traces.otf2" in str(info.value)


@pytest.mark.usefixtures("otf2")
def test_missing_or_ambiguous_archives(tmp_path: Path):
    with pytest.raises(ReaderError, match=r"no \.otf2 anchor"):
        trace_otf2.read_otf2(tmp_path)
    with pytest.raises(ReaderError, match="no such file"):
        trace_otf2.read_otf2(tmp_path / "nothing.otf2")


def test_missing_package_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "otf2", None)  # makes `import otf2` fail
    with pytest.raises(GladeError, match=r"pip install glade\[otf2\]"):
        trace_otf2.read_otf2("anything.otf2")
