"""Linked views read a restriction straight from the call forest's mask: the CCT values
(CallLevel.cct_rows) and the comm matrix's messages must equal what the slow path gives,
``trace.query(q, level="calls").to_graphframe()`` (its calls clipped to the window of a
window query) and ``.comm_matrix()``, on random
traces (nested calls on several processes and threads, calls never left, orphan Leaves,
messages) and random queries (time windows with and without processes, which keep every
kept call's callers, and name conditions, which do not)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade.query import Query, col
from glade.trace import Trace
from glade.trace.call_level import call_level
from glade.trace.windows import window_of
from glade.views import CCT, CommMatrix, Timeline
from glade.views.timeline.edits import window_predicate
from tests.hypothesis_budget import examples
from tests.trace.test_matching_property import random_traces
from tests.views.matrix.test_properties import GAP, make_trace, messages_strategy, oracle
from tests.views.test_link import expected, flat, measured, shown


def _trace(events: pd.DataFrame) -> Trace:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = Trace(events.drop(columns=["Counter"]).reset_index(drop=True))
        trace.calls()
    return trace


@st.composite
def queries(draw, trace: Trace) -> str:
    """A time window (with processes or not) over the trace's span, or a name
    condition (alone or with a window)."""
    stamps = trace.events["Timestamp (ns)"].to_numpy()
    lo, hi = int(stamps.min()), int(stamps.max())
    t0 = draw(st.integers(lo - 1, hi + 1))
    t1 = draw(st.integers(t0, hi + 2))
    window = {"t0": t0, "t1": t1}
    if draw(st.booleans()):
        first = draw(st.integers(0, 1))
        window["processes"] = [[first, draw(st.integers(first, 2))]]
    pred = window_predicate(window)
    kind = draw(st.sampled_from(["window", "name", "both"]))
    if kind != "window":
        names = ~col("name").isin(
            draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=2))
        )
        pred = names if kind == "name" else pred & names
    return str(Query().match(".", pred))


def _slow_rows(trace: Trace, text: str) -> dict[tuple, tuple]:
    """{(call path, rank): (time, time (inc), count)} of the slow path, for the (node,
    rank) with calls (its GraphFrame is dense: zeros fill the other pairs)."""
    kept = trace.query(text, level="calls")
    origin = int(trace.calls().dataframe["start"].min())
    gf = (kept if window_of(text, origin) is None else measured(trace, text)).to_graphframe()
    paths = {node.nid: tuple(node.path()) for node in gf.graph.nodes()}
    return {
        (paths[n], r): (t, i, c)
        for (n, r), t, i, c in zip(
            gf.dataframe.index,
            gf.dataframe["time"],
            gf.dataframe["time (inc)"],
            gf.dataframe["count"],
            strict=True,
        )
        if c > 0
    }


@settings(
    max_examples=examples(75),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.data())
def test_cct_rows_from_the_mask_equal_the_query(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = _trace(data.draw(random_traces()))
        if len(trace.calls()) == 0:
            return
        text = data.draw(queries(trace))
        whole = trace.to_graphframe()
        rows = call_level(trace).cct_rows(text, whole.graph)
        slow = _slow_rows(trace, text)
    if rows is None:
        # only a query that drops some kept call's caller, or a kept call never left
        level = call_level(trace)
        keep = level.mask(text)
        assert not level.closed(keep) or level._cct_arrays(whole.graph)[2][keep].any()
        return
    paths = {node.nid: tuple(node.path()) for node in whole.graph.nodes()}
    got = {
        (paths[n], r): (t, i, c)
        for n, r, t, i, c in zip(
            rows["node"], rows["rank"], rows["time"], rows["time (inc)"], rows["count"], strict=True
        )
    }
    assert got == slow


def test_a_window_keeps_its_callers_so_the_fast_path_runs():
    trace = glade.datasets.synthetic_trace(4, iterations=6, seed=2)
    level = call_level(trace)
    stamps = trace.events["Timestamp (ns)"]
    t0 = int(stamps.quantile(0.4))
    text = str(Query().match(".", window_predicate({"t0": t0, "t1": t0 + 1000})))
    graph = trace.to_graphframe().graph
    assert level.closed(level.mask(text)) and level.cct_rows(text, graph) is not None
    hidden = str(Query().match(".", col("name") != "compute_step"))
    assert not level.closed(level.mask(hidden)) and level.cct_rows(hidden, graph) is None


def test_the_cct_view_draws_the_query_both_ways():
    """A window (summed from the mask) and a query dropping callers (the slow path):
    shown() is the query's call tree, and the window's drawn values are its values
    (a dropped caller's callees fold into the view's nodes, tested in test_link)."""
    trace = glade.datasets.synthetic_trace(6, iterations=8, seed=3)
    timeline, tree = Timeline(trace), CCT(trace)
    glade.link(timeline, tree)
    first, last = timeline.extent
    timeline.window(
        int(first + (last - first) * 0.2), int(first + (last - first) * 0.3), processes=[0, 2, 3]
    )
    hidden = str(Query().match(".", col("name") != "compute_step"))
    for text in (timeline.query, hidden):
        tree.link_restrict(text)
        reference = (
            measured(trace, text) if text != hidden else trace.query(text, level="calls")
        ).to_graphframe()
        if text != hidden:
            assert flat(shown(tree)) == pytest.approx(flat(expected(reference)))
        assert tree.shown().dataframe.equals(reference.dataframe)


def _nonzero(frame: pd.DataFrame) -> dict[tuple[int, int], float]:
    stacked = frame.stack()
    return {(int(s), int(r)): float(v) for (s, r), v in stacked[stacked != 0].items()}


@settings(max_examples=examples(40), deadline=None)
@given(
    messages_strategy, st.integers(0, 500), st.integers(0, 500), st.sampled_from(["bytes", "count"])
)
def test_the_matrix_of_a_window_sent_in_it_by_brute_force(case, a, b, metric):
    """The matrix's own window: a message belongs to it when sent in it, in the cells,
    in messages() and in the query, whose trace holds exactly both events of each."""
    n, messages = case
    trace = make_trace(n, messages)
    t0, t1 = sorted((a, b))
    view = CommMatrix(trace, metric=metric, window=(t0, t1))
    inside = [(i, m) for i, m in enumerate(messages) if t0 <= GAP * (i + 1) <= t1]
    np.testing.assert_array_equal(
        view.matrix().to_numpy(), oracle(n, [m for _, m in inside], metric)
    )
    table = view.messages()
    assert table["Send time (ns)"].tolist() == [GAP * (i + 1) for i, _ in inside]
    assert table["Receive time (ns)"].tolist() == [GAP * (i + 1) + m[4] for i, m in inside]
    if view.query == 'MATCH ("*")':
        return
    result = trace.query(view.query, level="calls").events
    expected = sorted(
        [(GAP * (i + 1), "MpiIsend", s) for i, (s, r, *_) in inside]
        + [(GAP * (i + 1) + lat, "MpiIrecv", r) for i, (s, r, _, _, lat) in inside]
    )
    assert (
        sorted(
            zip(
                result["Timestamp (ns)"], result["Name"].astype(str), result["Process"], strict=True
            )
        )
        == expected
    )


@settings(max_examples=examples(40), deadline=None)
@given(
    messages_strategy,
    st.integers(0, 500),
    st.integers(0, 500),
    st.booleans(),
    st.sampled_from(["bytes", "count"]),
)
def test_a_restricted_matrix_is_the_matrix_of_the_query(case, a, b, some, metric):
    """link_restrict(window): the cells are those of trace.query(window).comm_matrix(),
    read from the shared node mask without building that trace."""
    n, messages = case
    trace = make_trace(n, messages)
    t0, t1 = sorted((a, b))
    window = {"t0": t0, "t1": t1}
    if some:
        window["processes"] = [[0, max(n // 2 - 1, 0)]]
    text = str(Query().match(".", window_predicate(window)))
    view = CommMatrix(trace, metric=metric)
    view.link_restrict(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = trace.query(text, level="calls").comm_matrix(
            output="size" if metric == "bytes" else "count", as_frame=True
        )
    assert _nonzero(view.matrix()) == _nonzero(reference)


@settings(
    max_examples=examples(75),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.data())
def test_the_shared_mask_equals_the_query_engine(data):
    """A window (with processes) is found by search where the forest nests, else compared
    column by column in numpy; every other query goes to the engine: all give the
    engine's node mask."""
    from glade.query import query_mask
    from glade.query.engine import RowTable

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = _trace(data.draw(random_traces()))
    if len(trace) == 0:
        return
    level = call_level(trace)
    text = data.draw(queries(trace))
    forest = level.forest
    expected_mask = query_mask(RowTable(forest.graph, forest.dataframe), glade.query.parse(text))
    keep = level.mask(text)
    np.testing.assert_array_equal(keep, expected_mask)
    assert not keep.flags.writeable
    if "name" not in text:
        assert level._compared(glade.query.parse(text)) is not None
        # a window on a forest that nests: its nodes found by search, not compared
        assert (level._window_nodes(glade.query.parse(text)) is not None) == level.nodes.nested


def test_the_kept_nodes_of_a_query_are_those_of_its_mask_found_once():
    # the nodes a window keeps, shared by the linked views: its mask's, read-only, and the
    # same array for the next view; every node for a query that keeps everything
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(4, 30, seed=3)
    level = call_level(trace)
    t0, t1 = (int(t) for t in np.percentile(level.nodes.start, [40, 45]))
    text = str(Query().match(".", window_predicate({"t0": t0, "t1": t1})))
    kept = level.kept(text)
    np.testing.assert_array_equal(kept, np.flatnonzero(level.mask(text)))
    assert 0 < kept.size < len(level.nodes) and not kept.flags.writeable
    assert level.kept(text) is kept
    from glade.query import EVERYTHING

    np.testing.assert_array_equal(level.kept(EVERYTHING), np.arange(len(level.nodes)))
