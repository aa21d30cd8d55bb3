"""The call forest (trace.calls()) and call-level queries (trace.query(q, level="calls"))
against hand-computed values, against a brute-force stack walk on random traces, and
against the CCT level; and on Pipit's ping-pong OTF2 trace."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.errors import GladeError, QueryError
from glade.query import Query, col, is_root, match_nodes
from glade.trace import Trace
from glade.trace.calls import forest_nodes
from glade.trace.matching import UnmatchedEventsWarning
from tests.hypothesis_budget import examples
from tests.trace.helpers import make_trace
from tests.trace.test_matching_property import NAMES, oracle, random_traces


def quiet(function, *args, **kwargs):
    """``function(...)`` with the warnings about repaired Enter/Leave events silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        return function(*args, **kwargs)


def test_the_forest_of_a_small_trace():
    # p0: main [0, 100] { a [10, 40] { mark@20 }, b [50, 90] }; p1: main [5, 60], mark@70
    trace = make_trace(
        [
            (0, "Enter", "main", 0),
            (5, "Enter", "main", 1),
            (10, "Enter", "a", 0),
            (20, "Instant", "mark", 0),
            (40, "Leave", "a", 0),
            (50, "Enter", "b", 0),
            (60, "Leave", "main", 1),
            (70, "Instant", "mark", 1),
            (90, "Leave", "b", 0),
            (100, "Leave", "main", 0),
        ],
        Size=[-1, -1, -1, 8, -1, -1, -1, 16, -1, -1],
    )
    forest = trace.calls()
    table = forest.dataframe
    assert table["name"].astype(str).tolist() == ["main", "a", "mark", "b", "main", "mark"]
    assert table["type"].astype(str).tolist() == [
        "call",
        "call",
        "instant",
        "call",
        "call",
        "instant",
    ]
    assert table["Process"].tolist() == [0, 0, 0, 0, 1, 1]
    assert table["start"].tolist() == [0, 10, 20, 50, 5, 70]
    assert table["end"].tolist() == [100, 40, 20, 90, 60, 70]
    assert table["time.inc"].tolist() == [100, 30, 0, 40, 55, 0]
    assert table["time.exc"].tolist() == [30, 30, 0, 40, 55, 0]
    assert table["depth"].tolist() == [0, 1, 2, 1, 0, 0]
    assert table["event"].tolist() == [0, 2, 3, 5, 1, 7]
    assert table["Size"].tolist() == [-1, -1, 8, -1, -1, 16]
    assert forest.graph.tree_parent.tolist() == [-1, 0, 1, 0, -1, -1]
    assert [n.path() for n in forest.graph.nodes()][:3] == [
        ("main",),
        ("main", "a"),
        ("main", "a", "mark"),
    ]
    assert forest.default_metric == "time.inc"
    assert table["sent"].tolist() == [-1] * 6


def test_message_instants_carry_the_time_their_message_was_sent():
    # p0 sends at 10 and 30, p1 receives them at 25 and 35 inside "wait", p1 sends at 40
    # and p0 receives that at 50; p1 sends at 55 to p0, which never receives it
    trace = make_trace(
        [
            (0, "Enter", "main", 0),
            (5, "Enter", "main", 1),
            (10, "Instant", "MpiSend", 0),
            (20, "Enter", "wait", 1),
            (25, "Instant", "MpiRecv", 1),
            (30, "Instant", "MpiSend", 0),
            (35, "Instant", "MpiRecv", 1),
            (38, "Leave", "wait", 1),
            (40, "Instant", "MpiSend", 1),
            (50, "Instant", "MpiRecv", 0),
            (55, "Instant", "MpiSend", 1),
            (60, "Leave", "main", 0),
            (60, "Leave", "main", 1),
        ],
        Partner=[-1, -1, 1, -1, 0, 1, 0, -1, 0, 1, 0, -1, -1],
        Tag=0,
    )
    table = trace.calls().dataframe
    got = dict(zip(zip(table["Process"], table["start"], strict=True), table["sent"], strict=True))
    assert got == {
        (0, 0): -1,
        (0, 10): 10,
        (0, 30): 30,
        (0, 50): 40,
        (1, 5): -1,
        (1, 20): -1,
        (1, 25): 10,
        (1, 35): 30,
        (1, 40): 40,
        (1, 55): 55,
    }
    # a window on the send time keeps both events of the messages sent in it, the
    # receive at 50 after the window's end too
    kept = trace.query('MATCH (".", p) WHERE p.sent >= 20 AND p.sent <= 45', level="calls")
    assert sorted(kept.events["Timestamp (ns)"].tolist()) == [30, 35, 40, 50]


def test_calls_never_left_end_with_the_trace_and_orphan_leaves_have_no_node():
    trace = make_trace(
        [
            (0, "Leave", "lost", 0),
            (1, "Enter", "main", 0),
            (2, "Enter", "work", 0),
            (5, "Leave", "work", 0),
            (9, "Instant", "x", 0),
        ]
    )
    table = quiet(trace.calls).dataframe
    assert table["name"].astype(str).tolist() == ["main", "work", "x"]
    assert table["end"].tolist() == [9, 5, 9]
    assert table["time.exc"].tolist() == [5, 3, 0]


def test_call_level_queries_keep_the_events_of_the_matched_nodes():
    trace = make_trace(
        [
            (0, "Enter", "main", 0),
            (10, "Enter", "a", 0),
            (20, "Instant", "mark", 0),
            (40, "Leave", "a", 0),
            (50, "Enter", "b", 0),
            (90, "Leave", "b", 0),
            (100, "Leave", "main", 0),
        ]
    )
    window = trace.query('MATCH (".", p) WHERE p.end >= 45 AND p.start <= 60', level="calls")
    assert window.events["Name"].astype(str).tolist() == ["main", "b", "b", "main"]
    hidden = trace.query('MATCH (".", p) WHERE p.name <> "a"', level="calls")
    assert hidden.events["Name"].astype(str).tolist() == ["main", "mark", "b", "b", "main"]
    assert hidden.flat_profile("time.exc")["time.exc"].to_dict() == {"b": 40, "main": 60}
    messages = trace.query('MATCH ("*")->(".", p) WHERE p.type = "instant"', level="calls")
    assert messages.events["Name"].astype(str).tolist() == ["main", "a", "mark", "a", "main"]
    assert len(trace.query('MATCH ("*")', level="calls")) == len(trace)
    with pytest.raises(QueryError, match="level must be one of"):
        trace.query('MATCH ("*")', level="events")
    with pytest.raises(GladeError, match="only folds"):
        trace.query('MATCH ("*")', level="calls", fold=False)
    with pytest.raises(QueryError, match="no column named 'duration'"):
        trace.query('MATCH (".", p) WHERE p.duration > 3', level="calls")
    # the input is left as it was: a new trace holds the selection
    assert len(trace) == 7


def forest_oracle(events) -> list[tuple]:
    """(process, thread, name, start, end, depth, parent's start or -1) of every call and
    instant, from the brute-force stack walk."""
    expected = oracle(events)
    kinds = events["Event Type"].astype(str).to_numpy()
    stamps = events["Timestamp (ns)"].to_numpy()
    rows = np.flatnonzero((kinds == "Enter") | (kinds == "Instant"))
    out = []
    for row in rows:
        end = expected["match_ts"][row] if kinds[row] == "Enter" else stamps[row]
        parent = expected["parent"][row]
        out.append(
            (
                int(events["Process"].iat[row]),
                int(events["Thread"].iat[row]),
                str(events["Name"].iat[row]),
                int(stamps[row]),
                int(end),
                int(expected["depth"][row]),
                int(stamps[parent]) if parent >= 0 else -1,
            )
        )
    return sorted(out)


def forest_rows(forest) -> list[tuple]:
    table = forest.dataframe
    parent = forest.graph.tree_parent
    starts = table["start"].to_numpy()
    return sorted(
        zip(
            table["Process"].tolist(),
            table["Thread"].tolist(),
            table["name"].astype(str).tolist(),
            table["start"].tolist(),
            table["end"].tolist(),
            table["depth"].tolist(),
            np.where(parent >= 0, starts[np.maximum(parent, 0)], -1).tolist(),
            strict=True,
        )
    )


@settings(max_examples=examples(75), deadline=None)
@given(random_traces())
def test_the_forest_equals_the_stack_walk(table):
    from glade.trace import Trace

    trace = Trace(table)
    forest = quiet(trace.calls)
    assert forest_rows(forest) == forest_oracle(trace.events)
    # pre-order: every node after its parent, every subtree contiguous
    parent = forest.graph.tree_parent
    assert np.all(parent < np.arange(parent.size))
    end = forest.graph.subtree_end
    child = np.flatnonzero(parent >= 0)
    assert np.all(end[child] <= end[parent[child]])


def path_queries():
    """Random call-path queries on names, as (object dialect, builder) pairs."""
    step = st.one_of(
        st.sampled_from(["*", "."]),
        st.sampled_from(NAMES).map(lambda n: {"name": n}),
        st.sampled_from(NAMES).map(lambda n: ("+", {"name": n})),
    )
    return st.lists(step, min_size=1, max_size=4)


def builder_of(objects: list) -> Query:
    query = Query()
    for item in objects:
        step = query.rel if query.nodes else query.match
        if isinstance(item, str):
            query = step(item)
        elif isinstance(item, dict):
            query = step(".", col("name").matches(item["name"]))
        else:
            query = step(item[0], col("name").matches(item[1]["name"]))
    return query


@settings(max_examples=examples(75), deadline=None)
@given(random_traces(), path_queries())
def test_a_call_path_query_selects_the_same_calls_at_both_levels(table, objects):
    from glade.trace import Trace

    # instants are leaves of the call forest but no nodes of the CCT: calls only here
    trace = Trace(table[table["Event Type"] != "Instant"])
    quiet(trace.calc_exc_metrics)
    builder = builder_of(objects)
    text = str(builder)
    forest = trace.calls()

    # the calls each level keeps, by their Enter events
    def enters(kept):
        events = kept.events[kept.events["Event Type"] == "Enter"]
        return sorted(
            zip(
                events["Process"],
                events["Thread"],
                events["Timestamp (ns)"],
                events["Name"].astype(str),
                strict=True,
            )
        )

    at_calls = enters(trace.query(text, level="calls"))
    at_cct = enters(trace.query(text, level="cct"))
    # a CCT node stands for all the calls of its path: it matches when one of them has
    # what the query asks below it, a call only when it has it itself
    assert set(at_calls) <= set(at_cct)
    if not any(step != "*" for step in objects[1:]):
        # nothing asked below a node: the levels agree exactly
        assert at_calls == at_cct
    matched = match_nodes(forest, objects)
    # the three forms agree
    assert match_nodes(forest, text).tolist() == matched.tolist()
    assert match_nodes(forest, builder).tolist() == matched.tolist()


@settings(max_examples=examples(75), deadline=None)
@given(
    random_traces(),
    st.integers(0, 60),
    st.integers(0, 60),
    st.integers(0, 1),
    st.sampled_from(NAMES),
)
def test_windows_processes_and_names_match_a_brute_force_filter(table, a, b, process, name):
    from glade.trace import Trace

    trace = Trace(table)
    t0, t1 = min(a, b), max(a, b)
    text = (
        f'MATCH (".", p) WHERE p.Process = {process} AND p.end >= {t0} AND '
        f'p.start <= {t1} AND NOT p.name = "{name}"'
    )
    kept = quiet(trace.query, text, level="calls")
    expected = [
        r
        for r in forest_oracle(trace.events)
        if r[0] == process and r[4] >= t0 and r[3] <= t1 and r[2] != name
    ]
    forest = quiet(kept.calls)
    got = [(p, t, n, s) for p, t, n, s, *_ in forest_rows(forest)]
    assert got == [(p, t, n, s) for p, t, n, s, *_ in expected]
    objects = [(".", {"Process": process, "end": f">= {t0}", "start": f"<= {t1}"})]
    builder = Query().match(
        ".", (col("Process") == process) & (col("end") >= t0) & (col("start") <= t1)
    )
    forest_all = quiet(trace.calls)
    assert match_nodes(forest_all, objects).tolist() == match_nodes(forest_all, builder).tolist()


def test_ping_pong_as_a_call_forest(pipit_data):
    pytest.importorskip("otf2", reason="the otf2 package is not installed")
    import glade

    trace = glade.read_trace(pipit_data / "ping-pong-otf2")
    forest = trace.calls()
    table = forest.dataframe
    kinds = trace.events["Event Type"].astype(str)
    assert len(table) == int((kinds != "Leave").sum())
    assert sorted(set(table["Process"])) == [0, 1]
    sends = table[table["name"].astype(str) == "MpiSend"]
    assert len(sends) and (sends["Message Size"] > 0).all()
    assert (sends["type"] == "instant").all()
    # every send sits inside an MPI_Send call
    parents = forest.graph.tree_parent[sends.index.to_numpy()]
    assert set(table["name"].astype(str).to_numpy()[parents]) == {"MPI_Send"}
    # the MPI_Send calls of process 0 in the second half of the run, by a call-level query
    t0, t1 = int(table["start"].min()), int(table["end"].max())
    middle = (t0 + t1) // 2
    query = (
        Query()
        .match(".", is_root())
        .rel("*")
        .rel(".", (col("name") == "MPI_Send") & (col("Process") == 0) & (col("start") >= middle))
    )
    selected = trace.query(query, level="calls")
    calls = selected.calls().dataframe
    chosen = calls[calls["name"].astype(str) == "MPI_Send"]
    expected = table[
        (table["name"].astype(str) == "MPI_Send")
        & (table["Process"] == 0)
        & (table["start"] >= middle)
    ]
    assert len(chosen) == len(expected) > 0
    assert set(calls["name"].astype(str)) == {"int main(int, char**)", "MPI_Send"}


def test_a_trace_of_instants_only_has_an_empty_call_tree():
    from glade.trace import Trace

    trace = Trace(
        pd.DataFrame(
            {
                "Timestamp (ns)": [1, 2],
                "Event Type": ["Instant"] * 2,
                "Name": ["a", "b"],
                "Process": [0, 1],
            }
        )
    )
    assert len(trace.to_graphframe().graph) == 0
    # no call holds the instants: the CCT level keeps none, the call level keeps both
    assert len(trace.query('MATCH ("*")').events) == 0
    assert len(trace.query('MATCH ("*")', level="calls").events) == 2


@settings(max_examples=examples(75), deadline=None)
@given(random_traces())
def test_forest_nodes_against_the_events(table):
    # the one-pass arrays of the forest (what a timeline reads) against a lookup of each
    # node's parent event among the nodes, and the events' own columns
    trace = Trace(table)
    nodes = quiet(forest_nodes, trace)
    events = trace.events
    node_of_row = {int(r): j for j, r in enumerate(nodes.rows)}
    parents = events["_parent"].to_numpy()[nodes.rows]
    assert nodes.parent.tolist() == [node_of_row.get(int(p), -1) for p in parents]
    kinds = events["Event Type"].to_numpy()[nodes.rows]
    assert nodes.instant.tolist() == [k == "Instant" for k in kinds]
    stamps = events["Timestamp (ns)"].to_numpy()[nodes.rows]
    assert nodes.start.tolist() == stamps.tolist()
    leaves = events["_matching_timestamp"].to_numpy()[nodes.rows]
    assert nodes.end.tolist() == np.where(nodes.instant, stamps, leaves).tolist()
    assert nodes.depth.tolist() == events["_depth"].to_numpy()[nodes.rows].tolist()
    # the same nodes, in the same order, as the forest's GraphFrame
    forest = quiet(trace.calls)
    assert forest.dataframe["event"].tolist() == nodes.rows.tolist()
    assert forest.graph.tree_parent.tolist() == nodes.parent.tolist()
