"""Wait states and the critical path: hand-built traces with known answers for every
pattern, random message exchanges against a brute-force event-by-event replay, and
Pipit's real ping-pong checked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.errors import TraceError
from glade.trace import Trace
from glade.trace.critical_path import location_bounds, path_segments
from glade.trace.waits import COLLECTIVES, PATTERNS
from tests.hypothesis_budget import examples

MS = 1_000_000
COLUMNS = ["Timestamp (ns)", "Event Type", "Name", "Process", "Partner", "Tag", "Root"]


def trace_of(rows: list[tuple]) -> Trace:
    """A trace of ``(time, type, name, process[, partner, tag, root])`` rows."""
    full = [(*r, -1, -1, -1)[:7] if len(r) == 4 else (*r, -1)[:7] for r in rows]
    table = pd.DataFrame(full, columns=COLUMNS)
    table["Communicator"] = np.where(table["Partner"] >= 0, 0, -1)
    table["Message Size"] = np.where(table["Partner"] >= 0, 8, -1)
    return Trace(table)


def call(process: int, name: str, enter: int, leave: int, *inside: tuple) -> list[tuple]:
    """The Enter and Leave of one call with the instants ``inside`` it."""
    return [(enter, "Enter", name, process), *inside, (leave, "Leave", name, process)]


def send(process: int, to: int, at: int, tag: int = 0, name: str = "MpiSend") -> tuple:
    return (at, "Instant", name, process, to, tag)


def recv(process: int, source: int, at: int, tag: int = 0, name: str = "MpiRecv") -> tuple:
    return (at, "Instant", name, process, source, tag)


def one_row(trace: Trace) -> dict:
    waits = trace.wait_states()
    assert len(waits) == 1, waits
    return waits.iloc[0].to_dict()


def test_a_late_sender_waits_exactly_3_ms():
    trace = trace_of(
        call(0, "MPI_Recv", 0, 4 * MS, recv(0, 1, 3 * MS + 500))
        + call(1, "work", 0, 3 * MS)
        + call(1, "MPI_Send", 3 * MS, 3 * MS + 100, send(1, 0, 3 * MS + 50))
    )
    row = one_row(trace)
    assert row["pattern"] == "late sender"
    assert row["waiting time"] == 3 * MS
    assert (row["Process"], row["name"], row["start"]) == (0, "MPI_Recv", 0)
    assert (row["cause process"], row["cause name"], row["cause start"]) == (1, "MPI_Send", 3 * MS)
    # the cause's event is the row of the send call's Enter
    assert trace.events.loc[row["cause event"], "Name"] == "MPI_Send"


def test_a_wait_is_never_longer_than_its_call():
    # the receive was left before the send was entered (skewed clocks): 1 ms, not 3
    trace = trace_of(
        call(0, "MPI_Recv", 0, MS, recv(0, 1, MS - 10))
        + call(1, "MPI_Send", 3 * MS, 3 * MS + 100, send(1, 0, 3 * MS + 50))
    )
    assert one_row(trace)["waiting time"] == MS


def test_an_early_sender_causes_no_wait():
    trace = trace_of(
        call(0, "MPI_Send", 0, 100, send(0, 1, 50)) + call(1, "MPI_Recv", 200, 300, recv(1, 0, 250))
    )
    assert trace.wait_states().empty


def test_a_late_receiver_waits_in_a_blocking_send_only():
    # process 0's MPI_Ssend runs until its receive arrives 2 ms later
    blocking = trace_of(
        call(0, "MPI_Ssend", 0, 2 * MS + 300, send(0, 1, 100))
        + call(1, "MPI_Recv", 2 * MS, 2 * MS + 400, recv(1, 0, 2 * MS + 200))
    )
    row = one_row(blocking)
    assert (row["pattern"], row["waiting time"], row["cause name"]) == (
        "late receiver",
        2 * MS,
        "MPI_Recv",
    )
    # an eager send left before the receive was entered: nothing waited
    eager = trace_of(
        call(0, "MPI_Send", 0, 300, send(0, 1, 100))
        + call(1, "MPI_Recv", 2 * MS, 2 * MS + 400, recv(1, 0, 2 * MS + 200))
    )
    assert eager.wait_states().empty
    # a non-blocking send never waits for its receive
    isend = trace_of(
        call(0, "MPI_Isend", 0, 2 * MS + 300, send(0, 1, 100, name="MpiIsend"))
        + call(1, "MPI_Recv", 2 * MS, 2 * MS + 400, recv(1, 0, 2 * MS + 200))
    )
    assert isend.wait_states().empty


def test_a_barrier_where_one_process_arrives_5_ms_late():
    rows = []
    for p in range(4):
        arrive = 5 * MS if p == 2 else p * 1000
        rows += call(p, "MPI_Barrier", arrive, 5 * MS + 100 + p)
    waits = trace_of(rows).wait_states().set_index("Process")
    assert list(waits.index) == [0, 1, 3]
    assert list(waits["waiting time"]) == [5 * MS, 5 * MS - 1000, 5 * MS - 3000]
    assert set(waits["pattern"]) == {"wait at barrier"}
    assert set(waits["cause process"]) == {2}


def test_collective_instances_are_matched_in_call_order():
    # two Allreduces: process 1 is late to the first, process 0 to the second
    rows = (
        call(0, "MPI_Allreduce", 0, 1000)
        + call(1, "MPI_Allreduce", 400, 1000)
        + call(0, "MPI_Allreduce", 2000, 3000)
        + call(1, "MPI_Allreduce", 1500, 3000)
    )
    waits = trace_of(rows).wait_states()
    assert list(
        zip(waits["Process"], waits["waiting time"], waits["cause process"], strict=False)
    ) == [
        (0, 400, 1),
        (1, 500, 0),
    ]
    assert set(waits["pattern"]) == {"wait at N x N"}


def test_root_based_collectives():
    # MPI_Reduce (N x 1): the root (lowest process, 0) waits for the last other arrival
    reduce = trace_of(
        call(0, "MPI_Reduce", 0, 900)
        + call(1, "MPI_Reduce", 300, 900)
        + call(2, "MPI_Reduce", 700, 800)
    )
    row = one_row(reduce)
    assert (row["Process"], row["pattern"], row["waiting time"], row["cause process"]) == (
        0,
        "wait at N x 1",
        700,
        2,
    )
    # MPI_Bcast (1 x N) rooted at 2 (a Root column): the others wait for the root
    bcast = trace_of(
        [
            (0, "Enter", "MPI_Bcast", 0, -1, -1, 2),
            (900, "Leave", "MPI_Bcast", 0),
            (100, "Enter", "MPI_Bcast", 1, -1, -1, 2),
            (900, "Leave", "MPI_Bcast", 1),
            (600, "Enter", "MPI_Bcast", 2, -1, -1, 2),
            (700, "Leave", "MPI_Bcast", 2),
        ]
    )
    waits = bcast.wait_states()
    assert list(
        zip(waits["Process"], waits["waiting time"], waits["cause process"], strict=False)
    ) == [
        (0, 600, 2),
        (1, 500, 2),
    ]
    assert set(waits["pattern"]) == {"wait at 1 x N"}


def test_a_call_with_several_waits_has_one_row_its_longest():
    # a Waitall completing two late receives: the later send is the cause
    trace = trace_of(
        call(
            0,
            "MPI_Waitall",
            0,
            1000,
            recv(0, 1, 500, name="MpiIrecv"),
            recv(0, 2, 900, name="MpiIrecv"),
        )
        + call(1, "MPI_Isend", 300, 350, send(1, 0, 310, name="MpiIsend"))
        + call(2, "MPI_Isend", 800, 850, send(2, 0, 810, name="MpiIsend"))
    )
    row = one_row(trace)
    assert (row["waiting time"], row["cause process"]) == (800, 2)


def test_a_chain_with_a_known_critical_path():
    # 0 computes 5 ms and sends to 1; 1 waits, computes 2 ms and sends to 2; 2 waits and
    # ends last. The path: 0's compute and send, 1's receive tail, compute and send, 2's
    # receive tail.
    trace = trace_of(
        call(0, "compute", 0, 5 * MS)
        + call(0, "MPI_Send", 5 * MS, 5 * MS + 100, send(0, 1, 5 * MS + 50))
        + call(1, "MPI_Recv", 0, 5 * MS + 200, recv(1, 0, 5 * MS + 150))
        + call(1, "compute", 5 * MS + 200, 7 * MS + 200)
        + call(1, "MPI_Send", 7 * MS + 200, 7 * MS + 300, send(1, 2, 7 * MS + 250))
        + call(2, "MPI_Recv", 100, 7 * MS + 400, recv(2, 1, 7 * MS + 350))
    )
    path = trace.critical_path()
    assert list(zip(path["Process"], path["name"], path["critical path"], strict=False)) == [
        (0, "compute", 5 * MS),
        (1, "MPI_Recv", 200),
        (1, "compute", 2 * MS),
        (2, "MPI_Recv", 200),
    ]
    assert path["critical path"].sum() == 7 * MS + 400
    summary = trace.critical_path_summary()
    assert summary.loc["compute", "time on path"] == 7 * MS
    assert summary.loc["compute", "time off path"] == 0
    # the receives waited 5 ms and 7.3 ms off the path
    assert summary.loc["MPI_Recv", "time off path"] == (5 * MS + 200 - 200) + (7 * MS + 300 - 200)


def test_waiting_time_in_the_cct_and_the_call_forest():
    trace = trace_of(
        call(0, "main", 0, 5 * MS, *call(0, "MPI_Recv", 10, 4 * MS, recv(0, 1, 3 * MS + 500)))
        + call(
            1,
            "main",
            0,
            5 * MS,
            *call(1, "MPI_Send", 3 * MS, 3 * MS + 100, send(1, 0, 3 * MS + 50)),
        )
    )
    gf = trace.to_graphframe()
    table = gf.dataframe.reset_index()
    recv_row = table[(table["name"] == "MPI_Recv") & (table["rank"] == 0)].iloc[0]
    main_row = table[(table["name"] == "main") & (table["rank"] == 0)].iloc[0]
    assert recv_row["waiting time"] == recv_row["waiting time (inc)"] == 3 * MS - 10
    assert main_row["waiting time"] == 0 and main_row["waiting time (inc)"] == 3 * MS - 10
    assert "waiting time" in gf.exc_metrics and "waiting time (inc)" in gf.inc_metrics
    forest = trace.calls().dataframe
    assert forest.loc[forest["waiting time"] > 0, "name"].tolist() == ["MPI_Recv"]
    waiting = trace.query('MATCH (".", p) WHERE p."waiting time" > 0', level="calls")
    assert set(waiting.events["Name"]) == {"MPI_Recv"}
    on_path = trace.query('MATCH (".", p) WHERE p."critical path" > 0', level="calls")
    assert set(on_path.events["Name"]) >= {"main", "MPI_Send"}


def test_summaries_per_function_process_and_pattern():
    rows = []
    for p in range(3):
        rows += call(p, "MPI_Barrier", 100 * p, 1000)
    trace = trace_of(rows)
    by_process = trace.wait_summary("Process")
    assert by_process["waiting time"].to_dict() == {0: 200, 1: 100}
    assert list(by_process.columns) == ["waiting time", "waiting calls", *PATTERNS]
    by_name = trace.wait_summary()
    assert by_name.loc["MPI_Barrier", "wait at barrier"] == 300
    assert trace.wait_summary(["pattern"])["waiting calls"].to_dict() == {"wait at barrier": 2}
    with pytest.raises(TraceError, match="groups by"):
        trace.wait_summary("Thread")


def test_results_are_copies():
    trace = trace_of(call(0, "MPI_Barrier", 0, 10) + call(1, "MPI_Barrier", 5, 10))
    waits, path = trace.wait_states(), trace.critical_path()
    waits.loc[:, "waiting time"] = -1
    path.loc[:, "critical path"] = -1
    assert (trace.wait_states()["waiting time"] == 5).all()
    assert (trace.critical_path()["critical path"] >= 0).all()


# ------------------------------------------------------------------ the oracle
def replay(trace: Trace) -> list[tuple]:
    """Wait states by replaying the events one by one (a Python loop over events: the
    brute-force oracle), as (event, pattern, wait, cause event), in time order."""
    events = trace.events
    stacks: dict[tuple, list[int]] = {}
    end_of: dict[int, int] = {}
    around: dict[int, int] = {}
    collective_calls: dict[tuple, list[int]] = {}
    for row in range(len(events)):
        kind, name = events["Event Type"].iat[row], events["Name"].iat[row]
        where = (events["Process"].iat[row], events["Thread"].iat[row])
        stack = stacks.setdefault(where, [])
        if kind == "Enter":
            stack.append(row)
            if name in COLLECTIVES:
                collective_calls.setdefault((name, where[0]), []).append(row)
        elif kind == "Leave":
            end_of[stack.pop()] = events["Timestamp (ns)"].iat[row]
        elif stack:
            around[row] = stack[-1]
    start = events["Timestamp (ns)"]
    candidates: dict[int, list[tuple]] = {}
    pairs = trace.match_messages()
    for s, r in zip(pairs["Send event"], pairs["Receive event"], strict=True):
        if s not in around or r not in around:
            continue
        sc, rc = around[s], around[r]
        wait = min(start[sc] - start[rc], end_of[rc] - start[rc])
        if wait > 0:
            candidates.setdefault(rc, []).append((wait, "late sender", sc))
        if events["Name"].iat[s] == "MpiSend" and start[rc] < end_of[sc]:
            wait = start[rc] - start[sc]
            if wait > 0:
                candidates.setdefault(sc, []).append((wait, "late receiver", rc))
    for name in {n for n, _ in collective_calls}:
        per_process = {p: c for (n, p), c in collective_calls.items() if n == name}
        for k in range(max(len(c) for c in per_process.values())):
            instance = {p: c[k] for p, c in per_process.items() if len(c) > k}
            last = max(instance.values(), key=lambda c: (start[c], -c))
            root = min(instance)
            pattern = PATTERNS[COLLECTIVES[name]]
            for p, c in instance.items():
                if pattern in ("wait at barrier", "wait at N x N"):
                    cause = last
                elif pattern == "wait at N x 1":
                    others = [x for q, x in instance.items() if q != root]
                    cause = (
                        max(others, key=lambda c: (start[c], -c)) if p == root and others else None
                    )
                else:
                    cause = instance.get(root) if p != root else None
                if cause is None or cause == c:
                    continue
                wait = min(start[cause] - start[c], end_of[c] - start[c])
                if wait > 0:
                    candidates.setdefault(c, []).append((wait, pattern, cause))
    out = []
    for c in sorted(candidates, key=lambda c: (start[c], c)):
        wait, pattern, cause = max(candidates[c], key=lambda x: x[0])  # first on ties
        out.append((c, pattern, wait, cause))
    return out


def walk(trace: Trace, waits: pd.DataFrame) -> list[tuple]:
    """The critical path's segments (process, from, to) by the definition, step by step."""
    events = trace.events
    first = events.groupby("Process")["Timestamp (ns)"].min().to_dict()
    leaves = events[events["Event Type"] == "Leave"]
    last = leaves.iloc[-1]
    where, t = last["Process"], last["Timestamp (ns)"]
    used: set[int] = set()
    segments = []
    while True:
        ends = waits["start"] + waits["waiting time"]
        mine = [
            i
            for i in range(len(waits))
            if waits["Process"].iat[i] == where and ends.iat[i] <= t and i not in used
        ]
        if not mine:
            if t > first[where]:
                segments.append((where, first[where], t))
            break
        i = max(mine, key=lambda i: (ends.iat[i], waits["event"].iat[i]))
        used.update(
            j
            for j in mine
            if (ends.iat[j], waits["event"].iat[j]) >= (ends.iat[i], waits["event"].iat[i])
        )
        if t > ends.iat[i]:
            segments.append((where, ends.iat[i], t))
        t = min(waits["cause start"].iat[i], ends.iat[i])
        where = waits["cause process"].iat[i]
    return segments[::-1]


OPS = st.lists(
    st.tuples(
        st.sampled_from(
            ["send", "ssend", "isend", "MPI_Barrier", "MPI_Allreduce", "MPI_Reduce", "MPI_Bcast"]
        ),
        st.integers(0, 3),
        st.integers(0, 3),
        st.lists(st.integers(1, 50), min_size=4, max_size=4),
    ),
    min_size=1,
    max_size=12,
)


def exchange(ops: list, processes: int) -> Trace:
    """A random run of ``processes`` processes doing ``ops`` in order (messages from one
    process to another, collectives of all), each process with its own clock."""
    clock = [0] * processes
    rows: list[tuple] = []

    def step(p: int, gap: int) -> int:
        clock[p] += gap
        return clock[p]

    for kind, a, b, gaps in ops:
        a, b = a % processes, b % processes
        if kind.startswith("MPI_"):
            for p in range(processes):
                enter = step(p, gaps[p % 4])
                rows += call(p, kind, enter, step(p, gaps[(p + 1) % 4]))
            continue
        if a == b:
            continue
        name, instant = {
            "send": ("MPI_Send", "MpiSend"),
            "ssend": ("MPI_Ssend", "MpiSend"),
            "isend": ("MPI_Isend", "MpiIsend"),
        }[kind]
        enter = step(a, gaps[0])
        rows += call(a, name, enter, step(a, gaps[1] + 1), send(a, b, enter + 1, name=instant))
        enter = step(b, gaps[2])
        rows += call(b, "MPI_Recv", enter, step(b, gaps[3] + 1), recv(b, a, enter + 1))
    return trace_of(rows or call(0, "work", 0, 1))


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS, st.integers(2, 4))
def test_random_exchanges_match_an_event_by_event_replay(ops, processes):
    trace = exchange(ops, processes)
    waits = trace.wait_states()
    found = list(
        zip(
            waits["event"],
            waits["pattern"].astype(str),
            waits["waiting time"],
            waits["cause event"],
            strict=False,
        )
    )
    assert found == replay(trace)
    # the path: the walk of the definition, step by step
    segments = path_segments(waits, location_bounds(trace))
    assert list(zip(segments["Process"], segments["from"], segments["to"], strict=False)) == walk(
        trace, waits
    )
    path = trace.critical_path()
    assert (path["critical path"] >= 0).all()
    assert (path["path start"] >= segments["from"].to_numpy()[path["segment"]]).all()
    assert (path["path end"] <= segments["to"].to_numpy()[path["segment"]]).all()
    # every call of these runs is a leaf: its time on the path is its clipped duration
    assert (path["critical path"] == path["path end"] - path["path start"]).all()


def test_a_synthetic_run_with_a_slow_process():
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(6, 5, exchange="halo", imbalance=1.0, slow_process=4, noise=0.0)
    waits = trace.wait_states()
    found = list(
        zip(
            waits["event"],
            waits["pattern"].astype(str),
            waits["waiting time"],
            waits["cause event"],
            strict=False,
        )
    )
    assert found == replay(trace)
    # the others wait for the slow process: its neighbours in the halo, everyone at the
    # Allreduce; the compute of the slow process is on the critical path
    late = waits[waits["pattern"] == "late sender"]
    assert set(late["cause process"]) == {4}
    assert set(late["Process"]) == {3, 5}
    summary = trace.critical_path_summary()
    path = trace.critical_path()
    computing = path[path["name"] == "flux_kernel"]
    assert set(computing["Process"]) == {4}
    assert summary.index[0] == "flux_kernel"


def test_pipit_ping_pong_by_hand(pipit_data):
    pytest.importorskip("otf2", reason="the OTF2 reader needs the glade[otf2] extra")
    trace = Trace.from_otf2(pipit_data / "ping-pong-otf2")
    waits = trace.wait_states()
    stamps = trace.events["Timestamp (ns)"]
    # the first ping: process 0's MPI_Send ran from 193668225 to 193685930 ns; process 1
    # entered the MPI_Recv of it at 193677293, while it ran: a late receiver of 9068 ns
    first, second = waits.iloc[0], waits.iloc[1]
    assert (first["Process"], first["name"], first["pattern"]) == (0, "MPI_Send", "late receiver")
    assert stamps[first["event"]] == 193668225 and first["end"] == 193685930
    assert stamps[first["cause event"]] == 193677293
    assert first["waiting time"] == 193677293 - 193668225 == 9068
    # the first pong: process 0 entered MPI_Recv at 193687379 ns, process 1 entered the
    # MPI_Send of its reply at 193698690 ns: a late sender of 11311 ns
    assert (second["Process"], second["name"], second["pattern"]) == (0, "MPI_Recv", "late sender")
    assert stamps[second["event"]] == 193687379
    assert stamps[second["cause event"]] == 193698690
    assert second["waiting time"] == 11311
    # process 1 entered that MPI_Recv (193677293) after the send was entered: no wait
    assert not ((waits["Process"] == 1) & (waits["start"] == 193677293)).any()
    found = list(
        zip(
            waits["event"],
            waits["pattern"].astype(str),
            waits["waiting time"],
            waits["cause event"],
            strict=False,
        )
    )
    assert found == replay(trace)
    path = trace.critical_path()
    assert path["critical path"].sum() == path["path end"].max() - path["path start"].min()


def test_the_call_forest_after_match_messages_keeps_the_call_ends():
    # match_messages adds _matching_timestamp (-1 off the messages) before match_events
    # ran: the forest's ends come from the call structure, not from that column
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(2, 1)
    expected = trace.copy().calls().dataframe
    trace.match_messages()
    forest = trace.calls().dataframe
    pd.testing.assert_series_equal(forest["end"], expected["end"])
    assert (forest["end"] >= forest["start"]).all()


def test_the_supergraph_shows_where_waiting_happens():
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(6, 4, exchange="halo", imbalance=1.0, slow_process=4)
    sg = trace.to_graphframe().supergraph(by="name", metric="waiting time (inc)")
    values = dict(zip(sg.supernodes, sg.values()[:, 0], strict=True))
    # a supernode's value is its mean over ranks (CallFlow's rank_agg): per function,
    # the wait states' total over the 6 processes
    per_name = trace.wait_states().groupby("name", observed=True)["waiting time"].sum() / 6
    assert values["MPI_Waitall"] == pytest.approx(per_name["MPI_Waitall"])
    assert values["MPI_Allreduce"] == pytest.approx(per_name["MPI_Allreduce"])
    assert values["main"] == pytest.approx(per_name.sum())
    assert values["flux_kernel"] == 0


def test_a_callable_query_sees_the_waiting_time():
    from glade.datasets import synthetic_trace
    from glade.query import Query

    trace = synthetic_trace(4, 2, imbalance=1.0)
    text = trace.query('MATCH (".", p) WHERE p."waiting time" > 0', level="calls")
    callable_query = Query().match(".", lambda row: row["waiting time"] > 0)
    pd.testing.assert_frame_equal(trace.query(callable_query, level="calls").events, text.events)


def test_a_memo_is_computed_once_across_threads():
    """Threads asking a trace for the same value at once wait for one computation (a view
    computes wait states ahead while the kernel may ask for them); a pickled copy has its
    own memos."""
    import pickle
    import threading
    import time

    trace = trace_of([(0, "Enter", "main", 0), (MS, "Leave", "main", 0)])
    calls = []

    def compute():
        calls.append(threading.get_ident())
        time.sleep(0.05)  # long enough for every thread to ask meanwhile
        return object()

    got = []
    threads = [
        threading.Thread(target=lambda: got.append(trace._memo("value", compute))) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert len(got) == 4 and all(value is got[0] for value in got)
    copy = pickle.loads(pickle.dumps(trace))
    assert copy._memo("other", lambda: 7) == 7
    assert copy._memo("other", lambda: 8) == 7
