"""Calls on small hand-made traces: known exclusive times of nested calls, threads,
recursion, and the documented repair of unmatched Enter/Leave events."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glade.errors import MetricError, TraceError
from glade.trace import Trace
from glade.trace.matching import UnmatchedEventsWarning
from tests.trace.helpers import make_trace


def nested() -> Trace:
    # solve [0, 100] { setup [10, 20], iterate [20, 90] { kernel [30, 50], kernel [60, 80] } }
    # exclusive: solve 100 - 10 - 70 = 20; iterate 70 - 20 - 20 = 30; kernels 20; setup 10
    return make_trace(
        [
            (0, "Enter", "solve", 0),
            (10, "Enter", "setup", 0),
            (20, "Leave", "setup", 0),
            (20, "Enter", "iterate", 0),
            (30, "Enter", "kernel", 0),
            (50, "Leave", "kernel", 0),
            (60, "Enter", "kernel", 0),
            (80, "Leave", "kernel", 0),
            (90, "Leave", "iterate", 0),
            (100, "Leave", "solve", 0),
        ]
    )


def test_nested_calls_have_known_exclusive_times():
    trace = nested()
    profile = trace.flat_profile(["time.exc", "time.inc", "count"])
    assert profile["time.exc"].to_dict() == {"iterate": 30, "kernel": 40, "solve": 20, "setup": 10}
    assert profile["time.inc"].to_dict() == {"iterate": 70, "kernel": 40, "solve": 100, "setup": 10}
    assert profile.loc["kernel", "count"] == 2
    assert profile["time.exc"].sum() == 100


def test_threads_are_separate_stacks():
    # two threads of one process interleave; each thread nests on its own
    trace = make_trace(
        [
            (0, "Enter", "a", 0, 0),
            (1, "Enter", "b", 0, 1),
            (2, "Enter", "c", 0, 0),
            (3, "Leave", "b", 0, 1),
            (4, "Leave", "c", 0, 0),
            (5, "Leave", "a", 0, 0),
        ]
    )
    trace.calc_exc_metrics()
    events = trace.events
    assert events["_matching_event"].tolist() == [5, 3, 4, 1, 2, 0]
    assert events["_parent"].tolist() == [-1, -1, 0, -1, 0, -1]
    assert events.loc[0, "time.exc"] == 5 - 2


def test_recursion_is_not_counted_twice_in_inclusive_profiles():
    # f [0, 10] { f [2, 8] { g [3, 4] } }: inclusive f is 10, not 16
    trace = make_trace(
        [
            (0, "Enter", "f", 0),
            (2, "Enter", "f", 0),
            (3, "Enter", "g", 0),
            (4, "Leave", "g", 0),
            (8, "Leave", "f", 0),
            (10, "Leave", "f", 0),
        ]
    )
    profile = trace.flat_profile(["time.inc", "time.exc"])
    assert profile.loc["f", "time.inc"] == 10
    assert profile.loc["f", "time.exc"] == 9
    gf = trace.to_graphframe()
    assert [n.path() for n in gf.graph.nodes()] == [("f",), ("f", "f"), ("f", "f", "g")]


def test_open_enters_close_at_the_trace_end_and_orphans_are_left_out():
    trace = make_trace(
        [
            (0, "Leave", "lost", 0),  # its Enter was cut off
            (1, "Enter", "main", 0),
            (2, "Enter", "work", 0),
            (5, "Leave", "work", 0),
            (3, "Enter", "other", 1),
            (9, "Enter", "crash", 0),  # never left, nor is main
        ]
    )
    with pytest.warns(UnmatchedEventsWarning, match="1 Leave.*3 Enter"):
        trace.calc_exc_metrics()
    events = trace.events.set_index("Name")
    assert trace.metadata["repairs"] == {"orphan_leaves": 1, "open_enters": 3}
    assert trace.repairs() == trace.metadata["repairs"]
    with pytest.raises(TraceError, match="Leave"):
        trace.repairs("error")
    assert events.loc["lost", "_matching_event"] == -1
    assert events.loc["lost", "_parent"] == -1 and events.loc["lost", "_depth"] == -1
    assert events.loc["main", "_matching_timestamp"] == 9  # the last timestamp
    assert events.loc["main", "time.inc"] == 8
    assert events.loc["main", "time.exc"] == 8 - 3 - 0  # work 3, crash 0
    assert events.loc["other", "time.inc"] == 6
    with pytest.raises(TraceError, match=r"Leave of 'lost' at row 0 .* has no Enter"):
        make_trace(
            [(0, "Leave", "lost", 0), (1, "Enter", "x", 0), (2, "Leave", "x", 0)]
        ).match_events(unmatched="error")
    with pytest.raises(TraceError, match=r"Enter of 'x' at row 0 .* is never left"):
        make_trace([(0, "Enter", "x", 0)]).match_events(unmatched="error")
    with pytest.raises(TraceError, match="unmatched must be"):
        nested().match_events(unmatched="ignore")


def test_badly_nested_calls_are_an_error():
    trace = make_trace(
        [(0, "Enter", "a", 0), (1, "Enter", "b", 0), (2, "Leave", "a", 0), (3, "Leave", "b", 0)]
    )
    with pytest.raises(TraceError, match=r"Leave of 'a' at row 2 .* closes the Enter of 'b'"):
        trace.match_events()


def test_metric_columns_get_inclusive_and_exclusive_values():
    trace = make_trace(
        [(0, "Enter", "a", 0), (1, "Enter", "b", 0), (2, "Leave", "b", 0), (4, "Leave", "a", 0)],
        Cycles=[0.0, 10.0, 25.0, 40.0],
    )
    trace.calc_exc_metrics(["Timestamp (ns)", "Cycles"])
    events = trace.events
    assert events.loc[0, "Cycles.inc"] == 40 and events.loc[0, "Cycles.exc"] == 25
    assert events.loc[1, "Cycles.exc"] == 15
    with pytest.raises(MetricError, match="no recorded column named 'missing'"):
        trace.calc_inc_metrics(["missing"])
    with pytest.raises(MetricError):
        trace.calc_inc_metrics(["Name"])


def test_events_table_contract_errors():
    with pytest.raises(TraceError, match="lacks column"):
        Trace(pd.DataFrame({"Timestamp (ns)": [0], "Name": ["a"], "Process": [0]}))
    with pytest.raises(TraceError, match="unknown event types"):
        make_trace([(0, "Begin", "a", 0)])
    with pytest.raises(TraceError, match="non-integer"):
        Trace(
            pd.DataFrame(
                {"Timestamp (ns)": [0.5], "Event Type": ["Enter"], "Name": ["a"], "Process": [0]}
            )
        )


def test_empty_trace_analyses():
    trace = Trace(
        pd.DataFrame(
            {
                "Timestamp (ns)": np.zeros(0, np.int64),
                "Event Type": [],
                "Name": [],
                "Process": np.zeros(0, np.int64),
            }
        )
    )
    assert trace.flat_profile().empty
    assert trace.comm_matrix().shape == (0, 0)
    assert len(trace.time_profile(3)) == 3


def test_a_trace_copies_its_table_unless_told_to_take_it_over():
    table = pd.DataFrame(
        {
            "Timestamp (ns)": [30.0, 10.0, 20.0, 40.0],
            "Event Type": ["Leave", "Enter", "Instant", "Instant"],
            "Name": ["f", "f", "mark", "mark"],
            "Process": [0.0, 0.0, 0.0, 1.0],
        },
        index=[7, 8, 9, 10],
    )
    before = table.copy()
    trace = Trace(table)
    assert trace.events["Timestamp (ns)"].tolist() == [10, 20, 30, 40]
    assert trace.events.index.tolist() == [0, 1, 2, 3]
    trace.events.loc[0, "Timestamp (ns)"] = 5
    pd.testing.assert_frame_equal(table, before)  # the caller's table is untouched
    table.loc[7, "Timestamp (ns)"] = 35.0
    assert trace.events["Timestamp (ns)"].tolist() == [5, 20, 30, 40]  # and not shared
    owned = Trace(before.copy(), copy=False)
    pd.testing.assert_frame_equal(owned.events, Trace(before).events)
