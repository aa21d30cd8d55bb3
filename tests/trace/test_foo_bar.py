"""Pipit's real foo-bar.csv trace, with every number computed by hand from the file.

The file (times in seconds, two processes):

    process 0: main() [0, 100] { foo() [1, 25] { MPI_Send [3, 5], baz() [8, 18] } }
    process 1: main() [0, 100] { bar() [1, 39] { Idle [2, 10], MPI_Recv [10, 14] },
                                 Idle [39, 57], grault() [57, 77] }

Inclusive time is Leave - Enter; exclusive time subtracts the direct callees, e.g.
foo() = 24 - (2 + 10) = 12 and main() on process 1 = 100 - (38 + 18 + 20) = 24.
At t=10 the file has "Leave Idle" before "Enter MPI_Recv", and at t=39 "Leave bar()"
before "Enter Idle": the events keep that order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glade.errors import MetricError
from glade.query import Query, col
from glade.trace.cct import cct_graphframe

S = 1e9  # ns per second

# (name, process, inclusive s, exclusive s) of every call, in event (row) order.
CALLS = [
    ("main()", 0, 100, 76),
    ("main()", 1, 100, 24),
    ("foo()", 0, 24, 12),
    ("bar()", 1, 38, 26),
    ("Idle", 1, 8, 8),
    ("MPI_Send", 0, 2, 2),
    ("baz()", 0, 10, 10),
    ("MPI_Recv", 1, 4, 4),
    ("Idle", 1, 18, 18),
    ("grault()", 1, 20, 20),
]


def test_events_are_typed_and_keep_file_order_at_equal_times(foo_bar):
    events = foo_bar.events
    assert len(events) == 20
    assert events["Timestamp (ns)"].dtype == np.int64
    assert isinstance(events["Name"].dtype, pd.CategoricalDtype)
    assert list(events.loc[8:9, "Name"]) == ["Idle", "MPI_Recv"]
    assert list(events.loc[8:9, "Event Type"]) == ["Leave", "Enter"]
    assert list(events.loc[13:14, "Event Type"]) == ["Leave", "Enter"]
    assert list(events.loc[13:14, "Name"]) == ["bar()", "Idle"]


def test_inclusive_and_exclusive_times_by_hand(foo_bar):
    foo_bar.calc_exc_metrics()
    events = foo_bar.events
    calls = events[events["Event Type"] == "Enter"]
    got = list(
        zip(
            calls["Name"],
            calls["Process"],
            calls["time.inc"] / S,
            calls["time.exc"] / S,
            strict=True,
        )
    )
    assert got == CALLS
    others = events[events["Event Type"] != "Enter"]
    assert others["time.inc"].isna().all() and others["time.exc"].isna().all()


def test_matching_parents_depths_and_children(foo_bar):
    foo_bar.match_caller_callee()
    events = foo_bar.events
    pairs = {0: 18, 1: 19, 2: 12, 3: 13, 4: 8, 5: 6, 7: 11, 9: 10, 14: 15, 16: 17}
    expected = np.full(20, -1)
    for enter, leave in pairs.items():
        expected[enter], expected[leave] = leave, enter
    assert events["_matching_event"].tolist() == expected.tolist()
    assert events.loc[5, "_matching_timestamp"] == 5 * S
    assert events.loc[6, "_matching_timestamp"] == 3 * S
    parents = {2: 0, 3: 1, 4: 3, 5: 2, 7: 2, 9: 3, 14: 1, 16: 1}
    for row, parent in parents.items():
        assert events.loc[row, "_parent"] == parent
        assert events.loc[pairs[row], "_parent"] == parent
    assert events.loc[0, "_parent"] == -1 and events.loc[1, "_parent"] == -1
    depth = {0: 0, 1: 0, 2: 1, 3: 1, 14: 1, 16: 1, 4: 2, 5: 2, 7: 2, 9: 2}
    assert {r: events.loc[r, "_depth"] for r in depth} == depth
    assert foo_bar.children(1).tolist() == [3, 14, 16]
    assert foo_bar.children(19).tolist() == [3, 14, 16]
    assert foo_bar.children(2).tolist() == [5, 7]
    assert foo_bar.children(5).tolist() == []
    assert events.loc[1, "_num_children"] == 3 and events.loc[19, "_num_children"] == 3


def test_flat_profile_sums_over_processes(foo_bar):
    profile = foo_bar.flat_profile(["time.exc", "time.inc", "count"])
    assert list(profile.index) == [
        "main()",
        "Idle",
        "bar()",
        "grault()",
        "foo()",
        "baz()",
        "MPI_Recv",
        "MPI_Send",
    ]
    exc = {
        "main()": 100,
        "Idle": 26,
        "bar()": 26,
        "grault()": 20,
        "foo()": 12,
        "baz()": 10,
        "MPI_Recv": 4,
        "MPI_Send": 2,
    }
    assert (profile["time.exc"] / S).to_dict() == exc
    assert profile.loc["main()", "time.inc"] == 200 * S
    assert profile.loc["bar()", "time.inc"] == 38 * S
    assert profile.loc["Idle", "count"] == 2
    assert profile["time.exc"].sum() == 200 * S  # 2 processes x 100 s
    mean = foo_bar.flat_profile("time.exc", mean=True)
    assert mean.loc["main()", "time.exc"] == 50 * S
    assert mean.loc["bar()", "time.exc"] == 13 * S  # 26 s on one of two processes


def test_flat_profile_per_process(foo_bar):
    profile = foo_bar.flat_profile("time.exc", per_process=True)
    assert profile.index.names == ["Name", "Process"]
    assert profile.loc[("main()", 0), "time.exc"] == 76 * S
    assert profile.loc[("main()", 1), "time.exc"] == 24 * S
    assert ("foo()", 1) not in profile.index
    with pytest.raises(MetricError):
        foo_bar.flat_profile("no such metric")


def test_time_profile_by_hand(foo_bar):
    # 4 bins of 25 s; e.g. bin 0 on process 0: main [0,1), foo [1,3)+[5,8)+[18,25) = 12,
    # MPI_Send 2, baz 10; on process 1: main 1, bar [1,2)+[14,25) = 12, Idle 8, MPI_Recv 4.
    profile = foo_bar.time_profile(num_bins=4)
    assert profile["bin_start"].tolist() == [0, 25 * S, 50 * S, 75 * S]
    assert profile["bin_end"].tolist() == [25 * S, 50 * S, 75 * S, 100 * S]
    expected = {
        "main()": [2, 25, 25, 48],
        "Idle": [8, 11, 7, 0],
        "bar()": [12, 14, 0, 0],
        "grault()": [0, 0, 18, 2],
        "foo()": [12, 0, 0, 0],
        "baz()": [10, 0, 0, 0],
        "MPI_Recv": [4, 0, 0, 0],
        "MPI_Send": [2, 0, 0, 0],
    }
    for name, values in expected.items():
        assert np.allclose(profile[name] / S, values), name
    assert np.allclose(profile["idle_time"], 0)
    normalized = foo_bar.time_profile(num_bins=4, normalized=True)
    assert np.allclose(normalized["main()"], [2 / 50, 25 / 50, 25 / 50, 48 / 50])
    functions = normalized.drop(columns=["bin_start", "bin_end"])
    assert np.allclose(functions.sum(axis=1), 1.0)


def test_idle_time_and_imbalance(foo_bar):
    idle = foo_bar.idle_time()
    assert idle.index.tolist() == [0, 1]
    assert idle["Idle Time"].tolist() == [0, 26 * S]
    with_mpi = foo_bar.idle_time(mpi_events=True)
    assert with_mpi["Idle Time"].tolist() == [0, 30 * S]  # + MPI_Recv 4 s
    imbalance = foo_bar.load_imbalance(num_processes=2)
    assert imbalance.loc["main()", "time.exc.mean"] == 50 * S
    assert imbalance.loc["main()", "time.exc.max"] == 76 * S
    assert imbalance.loc["main()", "time.exc.imbalance"] == pytest.approx(1.52)
    assert imbalance.loc["main()", "Top process 1"] == 0
    assert imbalance.loc["bar()", "time.exc.imbalance"] == 2.0  # one process of two
    assert imbalance.loc["bar()", "Top process 1"] == 1
    assert imbalance.loc["bar()", "Top process 2"] == 0


def test_to_graphframe_is_the_cct(foo_bar):
    gf = foo_bar.to_graphframe()
    assert len(gf.graph) == 9
    assert list(gf.graph.names) == [
        "main()",
        "foo()",
        "MPI_Send",
        "baz()",
        "bar()",
        "Idle",
        "MPI_Recv",
        "Idle",
        "grault()",
    ]
    assert [n.path() for n in gf.graph.roots] == [("main()",)]
    assert gf.graph.node(6).path() == ("main()", "bar()", "MPI_Recv")
    df = gf.dataframe
    assert df.index.names == ["node", "rank"]
    assert df.loc[(0, 0), "time"] == 76 * S and df.loc[(0, 1), "time"] == 24 * S
    assert df.loc[(0, 0), "time (inc)"] == 100 * S
    assert df.loc[(4, 1), "time (inc)"] == 38 * S and df.loc[(4, 0), "time (inc)"] == 0
    assert df.loc[(7, 1), "time"] == 18 * S and df.loc[(5, 1), "time"] == 8 * S
    assert df["count"].sum() == 10
    assert gf.exc_metrics == ["time", "count", "waiting time"]
    assert gf.inc_metrics == ["time (inc)", "waiting time (inc)"]
    # its MPI calls record no messages: nothing is known to wait
    assert df["waiting time (inc)"].sum() == 0
    nodes = cct_graphframe(foo_bar)[1].tolist()
    assert nodes[:5] == [0, 0, 1, 4, 5] and nodes[14] == 7 and nodes[15] == 7
    assert foo_bar.recorded_columns() == list(foo_bar.events.columns)  # nothing added
    # inclusive values equal the subtree sums of exclusive values
    recomputed = gf.update_inclusive_columns(["time"]).dataframe["time (inc)"]
    assert np.allclose(recomputed, df["time (inc)"])


def test_query_on_the_trace_call_tree(foo_bar):
    gf = foo_bar.to_graphframe()
    below_bar = 'MATCH (".", p)->("*") WHERE p.name = "bar()"'
    assert [n.nid for n in gf.match(below_bar)] == [4, 5, 6]
    idle = Query().match(".", col("name") == "Idle")
    assert [n.nid for n in gf.match(idle)] == [5, 7]
    kept = foo_bar.filter(below_bar)
    assert kept.events["Name"].tolist() == [
        "bar()",
        "Idle",
        "Idle",
        "MPI_Recv",
        "MPI_Recv",
        "bar()",
    ]
    assert (kept.events["Process"] == 1).all()
    assert kept.flat_profile("time.exc").loc["bar()", "time.exc"] == 26 * S
    idle_only = foo_bar.filter([(".", {"name": "Idle"})])
    assert idle_only.flat_profile("time.inc").loc["Idle", "time.inc"] == 26 * S
    slow = foo_bar.filter([(".", {"time (inc)": "> 30e9"})])
    assert sorted(set(slow.events["Name"])) == ["bar()", "main()"]
