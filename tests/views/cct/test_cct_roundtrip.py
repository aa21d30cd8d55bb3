"""The round trip of the CCT view: for random profiles and random edit sequences,

- ``gf.query(view.query, fold=True)`` has exactly the rows the JS view displays, with the
  values it displays (inclusive kept, exclusive folded, merged rows summed);
- the query keeps exactly the nodes a brute-force reading of the edits keeps.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.query import parse, query_mask
from glade.query.engine import RowTable
from glade.views import CCT
from glade.views.metrics import metric_columns
from tests.hypothesis_budget import examples

from .cct_cases import gf_paths, js_paths, random_profile, run_js

BASE_QUERIES = [
    'MATCH (".", a)->("*") WHERE a.name = "solve"',
    'NOT {MATCH (".", a) WHERE a.name = "io"}',
    '{MATCH ("*")} AND {NOT {MATCH (".", a)->("+") WHERE a.name = "mpi"}}',
    'MATCH (".", a)->(".", b) WHERE a.name = "main" OR b.file = "b.c"',
]


def random_edits(view: CCT, rng: np.random.Generator, count: int) -> None:
    """Apply ``count`` random edits to ``view`` through its Python methods (node edits on
    one to three nodes at once, as a click on a merged row does)."""
    n = view._tree.n
    values = view._tree.values["time (inc)"]
    for _ in range(count):
        kind = rng.choice(
            [
                "collapse",
                "collapse",
                "hide",
                "elide",
                "elide",
                "focus",
                "expand",
                "unfocus",
                "depth",
                "threshold",
                "undo",
                "redo",
                "base",
                "several",
                "hide_function",
                "focus_function",
            ]
        )
        node = int(rng.integers(0, n))
        if kind in ("collapse", "hide", "elide", "focus", "expand"):
            getattr(view, kind)(node)
        elif kind in ("hide_function", "focus_function"):
            getattr(view, kind)(str(view._tree.node_names[node]))
        elif kind == "several":
            op = str(rng.choice(["collapse", "hide", "elide"]))
            nodes = sorted({int(i) for i in rng.integers(0, n, int(rng.integers(1, 4)))})
            view._edit({"op": op, "nodes": nodes})
        elif kind == "unfocus":
            view.unfocus()
        elif kind == "depth":
            view.expand_to_depth(int(rng.integers(0, 4)))
        elif kind == "threshold":
            view.collapse_below(float(np.quantile(values, rng.random())))
        elif kind == "base":
            view.query = str(rng.choice(BASE_QUERIES))
        elif kind == "undo":
            view.undo()
        else:
            view.redo()


def make_case(seed: int) -> CCT:
    rng = np.random.default_rng(seed)
    gf = random_profile(
        rng,
        int(rng.integers(3, 60)),
        ranks=int(rng.integers(2, 4)) if rng.random() < 0.3 else None,
        shared=seed % 2 == 0,
    )
    view = CCT(gf)
    random_edits(view, rng, int(rng.integers(1, 9)))
    return view


@pytest.fixture(scope="module")
def cases():
    views = [make_case(seed) for seed in range(160)]
    return views, run_js([(view, view.history) for view in views])


def test_the_query_gives_what_the_view_displays(cases):
    views, results = cases
    for view, result in zip(views, results, strict=True):
        applied = view.apply()
        assert applied.graph.is_tree()
        shown = js_paths(view, result["rows"])
        kept = gf_paths(applied)
        assert set(shown) == set(kept), view.query
        columns = metric_columns(applied)
        for path, row in shown.items():
            for column in columns:
                j = [m["name"] for m in view.metrics].index(column.name)
                assert np.isclose(
                    row["values"][j], column.values[kept[path]], rtol=1e-9, atol=1e-9
                ), (path, column.name, view.history)


def kept_by_brute_force(view: CCT) -> np.ndarray:
    """The nodes the view's edits keep, read naively: state per call path (the tuple of
    frames from the root), then for each node the conditions of the edit semantics."""
    tree = view._tree
    frames = [tuple(row) for row in tree.graph.frames.itertuples(index=False)]
    paths = []
    for i in range(tree.n):
        parent = tree.parent[i]
        paths.append((paths[parent] if parent >= 0 else ()) + (frames[i],))
    collapsed, hidden, elided, focus = set(), set(), set(), set()
    hidden_names: set[str] = set()
    focus_name = None
    base = None
    for edit in view.history:
        op = edit["op"]
        named = {paths[i] for i in edit.get("nodes", [])}
        if op == "hide_function":
            hidden_names.add(edit["name"])
        elif op == "focus_function":
            focus, focus_name = set(), edit["name"]
        elif op == "collapse":
            collapsed |= named
        elif op == "expand":
            collapsed -= named
        elif op == "hide":
            hidden |= named
        elif op == "elide":
            elided |= named
        elif op == "focus":
            focus, focus_name = named, None
        elif op == "unfocus":
            focus, focus_name = set(), None
        elif op in ("depth", "threshold"):
            values = tree.values.get(edit.get("metric"))
            below = {
                paths[i]
                for i in range(tree.n)
                if tree.child_count[i]
                and (tree.depth[i] == edit["depth"] if op == "depth" else values[i] < edit["value"])
            }
            # expand to depth replaces the collapses; a threshold adds to them
            collapsed = below if op == "depth" else collapsed | below
        elif op == "base":
            collapsed, hidden, elided, focus = set(), set(), set(), set()
            hidden_names, focus_name = set(), None
            base = query_mask(RowTable(tree.graph, view._gf.dataframe), parse(edit["query"]))
        else:
            collapsed, hidden, elided, focus, base = set(), set(), set(), set(), None
            hidden_names, focus_name = set(), None
    calls_focus = np.zeros(tree.n, dtype=bool)
    for i in range(tree.n):
        if paths[i] in focus:
            node = i
            while node >= 0:
                calls_focus[node] = True
                node = tree.parent[node]
    keep = np.ones(tree.n, dtype=bool)
    for i, path in enumerate(paths):
        above = [path[:d] for d in range(1, len(path))]
        removed = any(a in collapsed or a in hidden for a in above) or path in hidden | elided
        in_focus = any(path[:d] in focus for d in range(1, len(path) + 1))
        keep[i] = not removed and (not focus or calls_focus[i] or in_focus)
    # a function edit names every call, and follows the graph's edges (all callers)
    names = tree.graph.names
    for name in hidden_names:
        keep &= ~reached(tree.graph, names == name, down=True)
    if focus_name is not None:
        calls = names == focus_name
        keep &= reached(tree.graph, calls, down=True) | reached(tree.graph, calls, down=False)
    return keep if base is None else keep & base


def reached(graph, start: np.ndarray, down: bool) -> np.ndarray:
    """The nodes reachable from ``start`` (included) along the graph's edges, one node at
    a time."""
    seen = start.copy()
    pending = list(np.flatnonzero(start))
    while pending:
        node = pending.pop()
        for other in graph.children_of(node) if down else graph.parents_of(node):
            if not seen[other]:
                seen[other] = True
                pending.append(int(other))
    return seen


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.integers(2, 40),
    count=st.integers(1, 10),
    shared=st.booleans(),
)
def test_the_query_keeps_what_the_edits_say(seed, size, count, shared):
    rng = np.random.default_rng(seed)
    view = CCT(random_profile(rng, size, shared=shared))
    random_edits(view, rng, count)
    table = RowTable(view._gf.graph, view._gf.dataframe)
    assert (query_mask(table, parse(view.query)) == kept_by_brute_force(view)).all(), view.history
