"""The bottom-up and flat tabs of a CCT view restricted by a link: their rows are those of
the restricted call tree (``view.shown()``, the slow path through
``trace.query(text, level="calls")``) with the view's own query on top, checked against a
brute-force oracle that walks every node's call path, and, without edits, the flat tab's
exclusive totals are the sums of what the tree tab draws."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade.datasets import synthetic_trace
from glade.views import CCT, Timeline
from tests.hypothesis_budget import examples

METRICS = ("time", "time (inc)", "count")


@pytest.fixture(scope="module")
def trace():
    return synthetic_trace(4, 8, seed=7)


def oracle(gf) -> dict[str, dict[tuple[str, ...], dict[str, float]]]:
    """The flat and bottom-up rows of ``gf``, one node at a time: each metric's mean over
    the ranks of the GraphFrame (a rank without a row counts 0, as the view counts it);
    inclusive values over outermost calls only. Keyed by the row's names: the function,
    then its callers outwards."""
    ranks = gf.dataframe.index.get_level_values("rank").nunique()
    flat: dict = defaultdict(lambda: defaultdict(float))
    bottom: dict = defaultdict(lambda: defaultdict(float))
    for node in gf.graph.nodes():
        path = [str(n) for n in node.path()]
        rows = gf.dataframe.xs(node.nid, level="node")
        outer = path[-1] not in path[:-1]
        callers = tuple(reversed(path))
        for metric in METRICS:
            value = float(rows[metric].sum()) / ranks
            if metric.endswith("(inc)") and not outer:
                value = 0.0
            flat[(path[-1],)][metric] += value
            for k in range(1, len(callers) + 1):
                bottom[callers[:k]][metric] += value
    return {"flat": flat, "bottom-up": bottom}


def rows_of(view: CCT, kind: str) -> dict[tuple[str, ...], dict[str, float]]:
    """The rows of the view's ``kind`` tab, keyed as :func:`oracle` keys them."""
    table = view.function_table(kind)
    names = view.function_names
    out = {}
    for r in range(len(table)):
        key, at = [], r
        while at >= 0:
            key.append(names[table.name[at]])
            at = int(table.parent[at])
        out[tuple(reversed(key))] = {
            c.name: float(c.values[r]) for c in table.columns if c.name in METRICS
        }
    return out


def flat_dict(rows: dict) -> dict:
    return {(key, m): v for key, values in rows.items() for m, v in values.items()}


@settings(
    max_examples=examples(5),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.floats(0, 1),
    st.floats(0, 1),
    st.sets(st.integers(0, 3), min_size=1),
    st.sampled_from([None, "MPI_Waitall", "compute_flux", "main"]),
)
def test_restricted_tabs_are_those_of_the_restricted_tree(trace, a, b, processes, hidden):
    timeline, tree = Timeline(trace), CCT(trace)
    link = glade.link(timeline, tree)
    first, last = timeline.extent
    t0, t1 = sorted((int(first + (last - first) * a), int(first + (last - first) * b)))
    timeline.window(t0, t1, processes=sorted(processes))
    if hidden is not None and hidden in tree.function_names:
        tree.hide_function(hidden)
    restricted = tree.shown()  # built from the query itself, not from the view's fast path
    if tree.history:
        restricted = restricted.query(tree.query, fold=True)
    want = oracle(restricted)
    for kind in ("flat", "bottom-up"):
        assert flat_dict(rows_of(tree, kind)) == pytest.approx(flat_dict(want[kind]))
    if not tree.history:
        # what the tree tab draws, summed per function
        arrays, n = tree.payload_arrays(), len(tree._tree.parent)
        names = [m["name"] for m in tree.metrics]
        drawn = arrays["link_values"].reshape(len(names), n)[names.index("time")]
        keep = arrays["link_keep"].astype(bool)
        sums: dict = defaultdict(float)
        for i in np.flatnonzero(keep):
            sums[str(tree._tree.node_names[i])] += drawn[i]
        flat = {key[0]: values["time"] for key, values in rows_of(tree, "flat").items()}
        assert flat == pytest.approx(dict(sums))
    link.unlink()  # the rows of the whole trace again
    unlinked = CCT(trace)
    unlinked.history = list(tree.history)
    assert rows_of(tree, "flat") == rows_of(unlinked, "flat")


def test_the_tab_shown_follows_the_restriction(trace):
    timeline, tree = Timeline(trace), CCT(trace, tab="flat")
    whole = tree.payload_arrays()["tab_values"].copy()
    glade.link(timeline, tree)
    first, last = timeline.extent
    timeline.window(int(first), int(first + (last - first) * 0.2))
    field = tree.payload_fields()["tab"]
    assert field["restriction"] == tree.restriction == timeline.query
    assert field["query"] == tree.query
    assert tree.payload_arrays()["tab_values"].sum() < whole.sum()
    timeline.window(int(last) + 10, int(last) + 20)  # no call in the window: no rows
    assert len(tree.function_table()) == 0
    assert tree.payload_arrays()["tab_parent"].size == 0
    timeline.clear_window()
    assert tree.payload_fields()["tab"]["restriction"] == ""
    np.testing.assert_array_equal(tree.payload_arrays()["tab_values"], whole)
