"""Linked views read a restriction straight from the call forest's mask: the CCT values
(CallLevel.cct_rows) and the comm matrix's messages must equal what the slow path gives,
``trace.query(q, level="calls").to_graphframe()`` and ``.comm_matrix()``, on random
traces (nested calls on several processes and threads, calls never left, orphan Leaves,
messages) and random queries (time windows with and without processes, which keep every
kept call's callers, and name conditions, which do not)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade.query import Query, col
from glade.trace import Trace
from glade.views import CCT, Timeline
from glade.views.forest import call_level
from glade.views.timeline.edits import window_predicate
from tests.trace.test_matching_property import random_traces
from tests.views.test_link import expected, flat, shown


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
        names = ~col("name").isin(draw(st.lists(st.sampled_from(["a", "b", "c"]),
                                                min_size=1, max_size=2)))
        pred = names if kind == "name" else pred & names
    return str(Query().match(".", pred))


def _slow_rows(trace: Trace, text: str) -> dict[tuple, tuple]:
    """{(call path, rank): (time, time (inc), count)} of the slow path, for the (node,
    rank) with calls (its GraphFrame is dense: zeros fill the other pairs)."""
    gf = trace.query(text, level="calls").to_graphframe()
    paths = {node.nid: tuple(node.path()) for node in gf.graph.nodes()}
    return {(paths[n], r): (t, i, c) for (n, r), t, i, c in zip(
        gf.dataframe.index, gf.dataframe["time"], gf.dataframe["time (inc)"],
        gf.dataframe["count"], strict=True) if c > 0}


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_cct_rows_from_the_mask_equal_the_query(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = _trace(data.draw(random_traces()))
        if len(trace.calls()) == 0:
            return
        text = data.draw(queries(trace))
        fast = call_level(trace).cct_rows(text)
        slow = _slow_rows(trace, text)
    if fast is None:
        # only a query that drops some kept call's caller, or a kept call never left
        level = call_level(trace)
        keep = level.mask(text)
        assert not level.closed(keep) or level._cct_arrays()[3][keep].any()
        return
    count, rows = fast
    whole = trace.to_graphframe()
    assert count == len(whole.graph)
    paths = {node.nid: tuple(node.path()) for node in whole.graph.nodes()}
    got = {(paths[n], r): (t, i, c) for n, r, t, i, c in zip(
        rows["node"], rows["rank"], rows["time"], rows["time (inc)"], rows["count"],
        strict=True)}
    assert got == slow


def test_a_window_keeps_its_callers_so_the_fast_path_runs():
    trace = glade.datasets.synthetic_trace(4, iterations=6, seed=2)
    level = call_level(trace)
    stamps = trace.events["Timestamp (ns)"]
    t0 = int(stamps.quantile(0.4))
    text = str(Query().match(".", window_predicate({"t0": t0, "t1": t0 + 1000})))
    assert level.closed(level.mask(text)) and level.cct_rows(text) is not None
    hidden = str(Query().match(".", col("name") != "compute_step"))
    assert not level.closed(level.mask(hidden)) and level.cct_rows(hidden) is None


def test_the_cct_view_draws_the_query_both_ways():
    """A window (summed from the mask) and a query dropping callers (the slow path):
    shown() is the query's call tree, and the window's drawn values are its values
    (a dropped caller's callees fold into the view's nodes, tested in test_link)."""
    trace = glade.datasets.synthetic_trace(6, iterations=8, seed=3)
    timeline, tree = Timeline(trace), CCT(trace)
    glade.link(timeline, tree)
    first, last = timeline.extent
    timeline.window(int(first + (last - first) * 0.2), int(first + (last - first) * 0.3),
                    processes=[0, 2, 3])
    hidden = str(Query().match(".", col("name") != "compute_step"))
    for text in (timeline.query, hidden):
        tree.link_restrict(text)
        reference = trace.query(text, level="calls").to_graphframe()
        if text != hidden:
            assert flat(shown(tree)) == pytest.approx(flat(expected(reference)))
        assert tree.shown().dataframe.equals(reference.dataframe)
