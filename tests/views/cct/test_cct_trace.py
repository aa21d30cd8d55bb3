"""The CCT view of a Trace: its call tree aggregated over time, with the edits applying
to the trace's events."""

from __future__ import annotations

import pytest

from glade.datasets import synthetic_trace
from glade.errors import GladeError, QueryError
from glade.trace import Trace
from glade.trace.filter import Filter
from glade.views.base import python_string


def _totals(gf) -> dict[tuple, tuple[float, float]]:
    """(time (inc), time) summed over processes, by call path."""
    sums = gf.dataframe.groupby(level="node")[["time (inc)", "time"]].sum()
    return {
        gf.graph.node(int(n)).path(): (float(r["time (inc)"]), float(r["time"]))
        for n, r in sums.iterrows()
    }


def _largest_subtree_child(graph):
    """The child of the largest root that has the largest subtree."""
    end = graph.subtree_end
    root = max(graph.roots, key=lambda r: end[r.nid] - r.nid)
    return max(root.children, key=lambda c: end[c.nid] - c.nid)


def test_view_edits_apply_to_the_events():
    trace = synthetic_trace(processes=3, iterations=4, seed=2)
    view = trace.show()
    gf = trace.to_graphframe()
    big = _largest_subtree_child(gf.graph)
    grandchild = big.children[0]
    view.collapse(grandchild.path())
    other = next(c for c in big.children if c != grandchild)
    view.hide(other.path())
    applied = view.apply()
    assert isinstance(applied, Trace)
    assert view.code() == f"trace.query({python_string(view.query)}, fold=True)"
    assert len(applied.events) < len(trace.events)
    # the trace's own call tree after the edits is the folded query of its call tree
    expected = _totals(gf.query(view.query, fold=True))
    got = _totals(applied.to_graphframe())
    assert set(got) == set(expected)
    for path, (inc, exc) in expected.items():
        assert got[path] == pytest.approx((inc, exc)), path
    # by hand: the collapsed node keeps its inclusive time and now owns all of it
    before = _totals(gf)
    assert got[grandchild.path()] == pytest.approx((before[grandchild.path()][0],) * 2)
    # the hidden node's inclusive time counts for its parent
    assert got[big.path()][1] == pytest.approx(before[big.path()][1] + before[other.path()][0])
    assert not any(p[: len(other.path())] == other.path() for p in got)


def test_trace_query_only_folds_and_takes_queries():
    trace = synthetic_trace(processes=2, iterations=2, seed=1)
    with pytest.raises(GladeError, match="only folds"):
        trace.query('MATCH ("*")', fold=False)
    with pytest.raises(QueryError, match=r"Trace\.filter takes a Filter"):
        trace.query(Filter("Process", "==", 0))
    everything = trace.query('MATCH ("*")')
    assert len(everything.events) == len(trace.events)


def test_trace_times_travel_with_their_unit():
    view = synthetic_trace(processes=2, iterations=2, seed=1).show()
    assert {m["name"]: m["unit"] for m in view.metrics} == {
        "time": "ns",
        "time (inc)": "ns",
        "count": None,
        "waiting time": "ns",
        "waiting time (inc)": "ns",
        # the processes are the ranks: the spread of the view's metric over them
        "time (inc) min": "ns",
        "time (inc) max": "ns",
        "time (inc) imbalance": None,
    }
