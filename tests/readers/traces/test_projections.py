"""The Charm++ Projections reader, on Pipit's ping-pong logs (2 PEs).

Counts below come from the logs themselves, e.g.
``zcat pingpong.prj.0.log.gz | awk 'NR>1 {c[$1]++} END {for (k in c) print k, c[k]}'``:
PE 0 has 985 records (161 BEGIN_PROCESSING, 160 END_PROCESSING, 77 CREATION,
35 CREATION_BCAST, 72 BEGIN_IDLE, 72 END_IDLE, ...), PE 1 has 947 (146 BEGIN, 145 END,
68 CREATION, 108 BEGIN_IDLE, ...).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from glade.errors import ReaderError
from glade.readers.traces.projections import detect, read_projections
from glade.trace import Trace
from tests.readers.corruption import copy_input, empty, garble, truncate


@pytest.fixture(scope="module")
def logs(pipit_data: Path) -> Path:
    return pipit_data / "ping-pong-projections"


@pytest.fixture(scope="module")
def trace(logs: Path) -> Trace:
    return read_projections(logs)


def _event(trace: Trace, name: str, process: int, ns: int):
    events = trace.events
    hit = events[
        (events["Name"] == name) & (events["Process"] == process) & (events["Timestamp (ns)"] == ns)
    ]
    assert len(hit) == 1
    return hit.iloc[0]


def test_counts(trace: Trace):
    events = trace.events
    # one event per record, a Receive beside each of the 231 BEGIN_PROCESSING records
    # with a message (msglen > 0), and one repaired Leave per PE (see below)
    assert len(events) == 985 + 947 + 231 + 2
    assert sorted(events["Process"].unique()) == [0, 1]
    counts = events["Name"].value_counts()
    assert counts["Create"] == 77 + 68
    assert counts["Create Broadcast"] == 35
    assert counts["Receive"] == 231
    assert counts["Idle"] == 2 * (72 + 108)
    assert counts["Computation"] == 4
    per_pe = events[events["Event Type"] == "Enter"].groupby("Process").size()
    # Enter per PE: BEGIN_PROCESSING + BEGIN_IDLE + BEGIN_PACK + BEGIN_UNPACK + BEGIN_COMPUTATION
    assert per_pe.tolist() == [161 + 72 + 103 + 100 + 1, 146 + 108 + 82 + 103 + 1]


def test_entry_method_names(trace: Trace):
    names = set(trace.events["Name"].astype(str))
    assert "Ping1::recv(PingMsg* impl_msg)" in names  # ENTRY 34 of chare 45 "Ping1"
    assert "PingN::recvHandle(const CkNcpyBuffer &destInfo)" in names


def test_messages_checked_by_hand(trace: Trace):
    # PE 1: "1 19 183 81881 0 1 160 4" (CREATION, entry 183 PingN::recvHandle, event 0,
    # 160 bytes); PE 0: "2 19 183 81889 0 1 160 ..." processes it (source PE 1, event 0)
    create = _event(trace, "Create", 1, 81_881_000)
    assert (create["Partner"], create["Message Size"]) == (0, 160)
    receive = _event(trace, "Receive", 0, 81_889_000)
    assert (receive["Partner"], receive["Message Size"]) == (1, 160)
    # PE 0: "1 19 183 81619 10 0 160 4" is processed on PE 1: "2 19 183 82012 10 0 160 ..."
    assert _event(trace, "Create", 0, 81_619_000)["Partner"] == 1
    # broadcasts reach several PEs: no single partner
    events = trace.events
    assert set(events.loc[events["Name"] == "Create Broadcast", "Partner"]) == {-1}
    frames = events[events["Event Type"] != "Instant"]
    assert set(frames["Partner"]) == {-1} and set(frames["Message Size"]) == {-1}


def test_charm_messages_feed_the_communication_analyses(trace: Trace):
    events = trace.events
    creates = events[(events["Name"] == "Create") & (events["Partner"] >= 0)]
    by_pair = creates.groupby(["Process", "Partner"]).size()
    count = trace.comm_matrix(output="count")
    assert count.sum() == len(creates) > 0
    for (sender, receiver), n in by_pair.items():
        assert count[sender, receiver] == n
    # broadcasts (Partner -1) have no single receiver and stay out
    assert ((events["Name"] == "Create") & (events["Partner"] < 0)).any()


def test_receive_lies_inside_its_entry_method(trace: Trace):
    events = trace.events.reset_index(drop=True)
    receives = events.index[events["Name"] == "Receive"]
    for row in receives[:50]:
        before = events.iloc[:row]
        mine = before[
            (before["Process"] == events.at[row, "Process"]) & (before["Event Type"] != "Instant")
        ]
        assert mine.iloc[-1]["Event Type"] == "Enter"
        assert "::" in mine.iloc[-1]["Name"]


def test_open_entry_closed_at_end_of_computation(trace: Trace):
    # both logs end with BEGIN_PROCESSING of TraceProjectionsBOC::traceProjectionsParallel
    # Shutdown (82953 us) and END_COMPUTATION (82954 us) without END_PROCESSING
    assert trace.metadata["closed_at_end"] == 2
    events = trace.events
    for pe in (0, 1):
        mine = events[events["Process"] == pe]
        tail = mine.tail(2)
        assert tail["Event Type"].astype(str).tolist() == ["Leave", "Leave"]
        assert tail["Name"].iloc[0].startswith("TraceProjectionsBOC::")
        assert tail["Name"].iloc[1] == "Computation"
        assert set(tail["Timestamp (ns)"]) == {82_954_000}


def test_order_types_and_balance(trace: Trace):
    events = trace.events
    assert events["Timestamp (ns)"].dtype == np.int64
    assert (np.diff(events["Timestamp (ns)"].to_numpy()) >= 0).all()
    counts = events.groupby(["Process", "Name", "Event Type"], observed=True).size()
    assert counts.xs("Enter", level=2).equals(counts.xs("Leave", level=2))


def test_metadata_and_detect(trace: Trace, logs: Path, pipit_data: Path):
    meta = trace.metadata
    assert meta["format"] == "projections 11.0"
    assert meta["num_pes"] == 2 and meta["charm_version"] == "v7.0.0"
    assert meta["num_records"] == 985 + 947
    assert detect(logs) and detect(logs / "pingpong.prj.sts")
    assert not detect(pipit_data / "ping-pong-otf2")


def test_same_trace_from_sts_or_base_name(trace: Trace, logs: Path):
    for path in (logs / "pingpong.prj.sts", logs / "pingpong.prj"):
        assert read_projections(path).events.equals(trace.events)


def _rewrite(log: Path, edit) -> None:
    lines = gzip.decompress(log.read_bytes()).decode().splitlines()
    log.write_bytes(gzip.compress(("\n".join(edit(lines)) + "\n").encode()))


@pytest.mark.parametrize(
    ("target", "damage", "message"),
    [
        ("pingpong.prj.0.log.gz", truncate, "decompress"),
        ("pingpong.prj.1.log.gz", lambda p: garble(p, 40), "decompress"),
        ("pingpong.prj.0.log.gz", empty, "PROJECTIONS-RECORD"),
        ("pingpong.prj.sts", empty, "PROCESSORS"),
        ("pingpong.prj.sts", lambda p: truncate(p, 0.3), "entry method|is malformed"),
        ("pingpong.prj.0.log.gz", lambda p: _rewrite(p, lambda ls: ls[:500]), "truncated"),
        (
            "pingpong.prj.0.log.gz",
            lambda p: _rewrite(p, lambda ls: [*ls[:9], "2 4 151", *ls[10:]]),
            "line 10: a BEGIN_PROCESSING record has 2 fields",
        ),
        (
            "pingpong.prj.1.log.gz",
            lambda p: _rewrite(p, lambda ls: [*ls[:5], "77 1 2", *ls[6:]]),
            "record type 77",
        ),
        (
            "pingpong.prj.1.log.gz",
            lambda p: _rewrite(p, lambda ls: [*ls[:5], "14 1x 1", *ls[6:]]),
            "no number",
        ),
        # times that cannot be: beyond what a double holds, infinite, NaN, before the start
        (
            "pingpong.prj.0.log.gz",
            lambda p: _rewrite(p, lambda ls: [ls[0], "6 1e400", *ls[2:]]),
            "a record holds '1e400', not a number in range",
        ),
        (
            "pingpong.prj.0.log.gz",
            lambda p: _rewrite(p, lambda ls: [ls[0], "6 99999999999999999999", *ls[2:]]),
            "not a number in range",
        ),
        (
            "pingpong.prj.0.log.gz",
            lambda p: _rewrite(p, lambda ls: [ls[0], "6 nan", *ls[2:]]),
            "a record holds 'nan', not a number in range",
        ),
        (
            "pingpong.prj.0.log.gz",
            lambda p: _rewrite(p, lambda ls: [ls[0], "6 -5", *ls[2:]]),
            "PE 0 logs a record at -5 us, before the trace starts",
        ),
    ],
)
def test_corrupted_logs(logs: Path, tmp_path: Path, target, damage, message):
    copy = copy_input(logs, tmp_path)
    damage(copy / target)
    with pytest.raises(ReaderError, match=message) as info:
        read_projections(copy)
    assert "pingpong.prj" in str(info.value)


def test_user_records(logs: Path, tmp_path: Path):
    copy = copy_input(logs, tmp_path)
    with open(copy / "pingpong.prj.sts", "a") as sts:
        sts.write("EVENT 7 phase\nSTAT 3 energy\n")
    # PE 0's Pack (lines 4-5, at 80896 us) and Unpack (lines 6-7, at 80900 us) become a
    # note, a user stat and a user bracket event (two records: begin, end)
    _rewrite(
        copy / "pingpong.prj.0.log.gz",
        lambda ls: [
            *ls[:3],
            "28 80896 11 hello world",
            "32 80896 1 2.25 0 3",
            "100 7 80900 9 0 0",
            "100 7 80901 9 0 0",
            *ls[7:],
        ],
    )
    events = read_projections(copy).events
    note = events[events["Name"] == "User Note"]
    assert note["Note"].tolist() == ["hello world"]
    assert note["Timestamp (ns)"].tolist() == [80_896_000]
    assert events.loc[events["Name"] == "energy", "Value"].tolist() == [2.25]
    phase = events[events["Name"] == "phase"]
    assert phase["Event Type"].astype(str).tolist() == ["Enter", "Leave"]
    assert phase["Timestamp (ns)"].tolist() == [80_900_000, 80_901_000]


def test_missing_log(logs: Path, tmp_path: Path):
    copy = copy_input(logs, tmp_path)
    (copy / "pingpong.prj.1.log.gz").unlink()
    with pytest.raises(ReaderError, match="missing"):
        read_projections(copy)


def test_unmatched_leave_is_an_error(logs: Path, tmp_path: Path):
    copy = copy_input(logs, tmp_path)
    # PE 1's first BEGIN_IDLE ("14 80887 1", file line 3) becomes a BEGIN_TRACE marker:
    # its END_IDLE is left without an Enter
    _rewrite(copy / "pingpong.prj.1.log.gz", lambda ls: [*ls[:2], "11 80887", *ls[3:]])
    with pytest.raises(ReaderError, match=r"does not match its Enter|without a matching Enter"):
        read_projections(copy)
