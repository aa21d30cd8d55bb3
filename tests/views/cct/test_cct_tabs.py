"""The bottom-up and flat tabs of the CCT view: totals per function on small hand-built
trees (numbers worked out by hand), and a property test against a brute-force oracle that
walks every node's call path."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from glade.errors import GladeError
from glade.packing import unpack_arrays
from glade.views import CCT
from glade.views.cct.tabs import bottom_up_table, flat_table, outermost
from glade.views.metrics import MetricColumn

from .cct_cases import profile_from_spec

# main(0) -> solve(1) -> {MPI_Wait(2), work(3) -> MPI_Wait(4)}; main -> work(5) -> work(6)
PARENT = np.array([-1, 0, 1, 1, 3, 0, 5])
DEPTH = np.array([0, 1, 2, 2, 3, 1, 2])
NAMES = ["main", "solve", "MPI_Wait", "work"]
NAME = np.array([0, 1, 2, 3, 2, 3, 3])
EXC = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
# inclusive = own + subtree: 4=5, 3=9, 2=3, 1=2+3+9=14, 6=7, 5=13, 0=1+14+13=28
INC = np.array([28.0, 14.0, 3.0, 9.0, 5.0, 13.0, 7.0])
COUNT = np.array([1.0, 1.0, 10.0, 2.0, 20.0, 1.0, 3.0])


def columns() -> list[MetricColumn]:
    return [
        MetricColumn("time (inc)", "inclusive", -1, INC, "s"),
        MetricColumn("time", "exclusive", 0, EXC, "s"),
        MetricColumn("count", "other", -1, COUNT),
        MetricColumn("time imbalance", "other", -1, np.zeros(7), column=True),
    ]


def test_outermost_marks_calls_under_a_call_of_the_same_name():
    assert outermost(PARENT, DEPTH, NAME).tolist() == [True, True, True, True, True, True, False]


def test_flat_sums_exclusive_and_counts_and_inclusive_without_recursion():
    table = flat_table(PARENT, DEPTH, NAME, columns())
    assert [NAMES[i] for i in table.name] == ["main", "solve", "MPI_Wait", "work"]
    assert (table.parent == -1).all()
    inc, exc, count = (c.values.tolist() for c in table.columns)
    assert [c.name for c in table.columns] == ["time (inc)", "time", "count"]
    assert [c.unit for c in table.columns] == ["s", "s", None]
    assert exc == [1.0, 2.0, 3.0 + 5.0, 4.0 + 6.0 + 7.0]
    # work: node 3 (9) and node 5 (13); node 6 is inside 5, not counted again
    assert inc == [28.0, 14.0, 3.0 + 5.0, 9.0 + 13.0]
    assert count == [1.0, 1.0, 30.0, 6.0]


def test_bottom_up_expands_each_function_into_its_callers():
    table = bottom_up_table(PARENT, DEPTH, NAME, columns())
    rows = {}
    for r in range(len(table)):
        path, at = [], r
        while at >= 0:
            path.append(NAMES[table.name[at]])
            at = int(table.parent[at])
        rows[tuple(reversed(path))] = [c.values[r] for c in table.columns]
    exc = {path: values[1] for path, values in rows.items()}
    assert exc[("MPI_Wait",)] == 8.0
    assert exc[("MPI_Wait", "solve")] == 3.0
    assert exc[("MPI_Wait", "work")] == 5.0
    assert exc[("MPI_Wait", "work", "solve", "main")] == 5.0
    assert exc[("work",)] == 17.0
    assert exc[("work", "solve")] == 4.0
    assert exc[("work", "main")] == 6.0
    assert exc[("work", "work")] == 7.0
    assert exc[("work", "work", "main")] == 7.0
    # inclusive counts outermost calls only: work <- work is node 6, inside node 5
    assert rows[("work",)][0] == 22.0
    assert rows[("work", "work")][0] == 0.0
    assert rows[("MPI_Wait", "work")][2] == 20.0
    assert len(rows) == len(table)  # one row per reversed call path
    parents_first = table.parent < np.arange(len(table))
    assert parents_first.all()


@st.composite
def trees(draw):
    n = draw(st.integers(1, 40))
    parent = [-1]
    for i in range(1, n):  # pre-order: a new node hangs on the path to the last one
        parent.append(draw(st.sampled_from([-1, *_path(parent, i - 1)])))
    name = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    exc = draw(st.lists(st.integers(0, 100), min_size=n, max_size=n))
    return np.array(parent), np.array(name), np.array(exc, dtype=float)


def _path(parent, i):
    out = []
    while i >= 0:
        out.append(i)
        i = parent[i]
    return out  # the node first, then its callers


@given(trees())
def test_tables_match_a_brute_force_oracle(tree):
    parent, name, exc = tree
    n = parent.size
    depth = np.array([len(_path(parent, i)) - 1 for i in range(n)])
    inc = np.array([sum(exc[j] for j in range(n) if i in _path(parent, j)) for i in range(n)])
    cols = [
        MetricColumn("t (inc)", "inclusive", -1, inc),
        MetricColumn("t", "exclusive", 0, exc),
    ]
    outer = [all(name[a] != name[i] for a in _path(parent, i)[1:]) for i in range(n)]
    assert outermost(parent, depth, name).tolist() == outer
    flat_exc, flat_inc = defaultdict(float), defaultdict(float)
    suffix_exc, suffix_inc = defaultdict(float), defaultdict(float)
    for i in range(n):
        flat_exc[name[i]] += exc[i]
        flat_inc[name[i]] += inc[i] if outer[i] else 0.0
        names = tuple(int(name[a]) for a in _path(parent, i))
        for k in range(1, len(names) + 1):
            suffix_exc[names[:k]] += exc[i]
            suffix_inc[names[:k]] += inc[i] if outer[i] else 0.0
    flat = flat_table(parent, depth, name, cols)
    assert dict(zip(flat.name.tolist(), flat.columns[1].values.tolist(), strict=True)) == flat_exc
    assert dict(
        zip(flat.name.tolist(), flat.columns[0].values.tolist(), strict=True)
    ) == pytest.approx(flat_inc)
    bottom = bottom_up_table(parent, depth, name, cols)
    got_exc, got_inc = {}, {}
    for r in range(len(bottom)):
        path, at = [], r
        while at >= 0:
            path.append(int(bottom.name[at]))
            at = int(bottom.parent[at])
        key = tuple(reversed(path))
        assert key not in got_exc
        got_exc[key] = bottom.columns[1].values[r]
        got_inc[key] = bottom.columns[0].values[r]
    assert got_exc == pytest.approx(dict(suffix_exc))
    assert got_inc == pytest.approx(dict(suffix_inc))


# main(0) -> solve(1) -> {mpi_wait a.c (2), mpi_wait b.c (3) -> poll (4)}; main -> io(5) -> write(6)
SPEC = {
    "parent": [-1, 0, 1, 1, 3, 0, 5],
    "name": ["main", "solve", "mpi_wait", "mpi_wait", "poll", "io", "write"],
    "file": ["m.c", "s.c", "a.c", "b.c", "p.c", "io.c", "w.c"],
    "time": [1, 2, 3, 4, 5, 6, 7],
}


def test_hiding_a_function_is_a_name_predicate_and_folds_its_time():
    view = CCT(profile_from_spec(SPEC)).hide_function("mpi_wait")
    assert view.query == 'NOT {MATCH (".", n0)->("*") WHERE n0.name = "mpi_wait"}'
    result = view.apply()
    assert sorted(result.graph.names) == ["io", "main", "solve", "write"]
    time = dict(zip(result.graph.names, result.node_values("time"), strict=True))
    assert time["solve"] == 2 + 3 + 4 + 5  # the calls' time folds into their caller
    view.hide_function("io")
    assert view.query == 'NOT {MATCH (".", n0)->("*") WHERE n0.name IN ["io", "mpi_wait"]}'
    assert "hid every call of io and what it calls: 2 nodes" in view.explain()


def test_focusing_on_a_function_keeps_its_calls_callers_and_callees():
    view = CCT(profile_from_spec(SPEC)).hide(("main", "io")).focus_function("poll")
    assert view.query == (
        '{MATCH ("*")->(".", n1)->("*") WHERE n1.name = "poll"}\n'
        'AND NOT {MATCH ("main/io", n1)->("*", n2) RETURN n1, n2}'
    )
    assert sorted(view.apply().graph.names) == ["main", "mpi_wait", "poll", "solve"]
    view.focus(("main", "io"))  # a focus on a call path replaces the function's
    assert "poll" not in view.query
    view.focus_function("poll").unfocus()
    assert view.query.count("MATCH") == 1


def test_a_function_edit_names_a_function_of_the_view():
    view = CCT(profile_from_spec(SPEC))
    with pytest.raises(GladeError, match="names no function of the view: 'MPI_Wait'"):
        view.hide_function("MPI_Wait")
    assert view.history == []


def test_the_tab_is_view_state_and_its_rows_are_those_of_what_apply_gives():
    view = CCT(profile_from_spec(SPEC))
    assert "tab_parent" not in view.payload_arrays()  # the tree tab needs no table
    view.tab = "flat"
    assert view.history == [] and view.query == 'MATCH ("*")'
    view.collapse(("main", "solve"))
    fields, arrays = view.payload_fields()["tab"], view.payload_arrays()
    assert fields["kind"] == "flat" and fields["query"] == view.query
    names = [view.function_names[i] for i in arrays["tab_name"]]
    assert sorted(names) == ["io", "main", "solve", "write"]
    time = [m["name"] for m in fields["metrics"]].index("time")
    count = len(names)
    exc = dict(zip(names, arrays["tab_values"][time * count : (time + 1) * count], strict=True))
    assert exc == {"main": 1, "solve": 2 + 3 + 4 + 5, "io": 6, "write": 7}
    assert fields["metrics"][time]["unit"] == view.metrics[1]["unit"]
    view.tab = "bottom-up"
    table = view.function_table()
    assert len(view.payload_arrays()["tab_parent"]) == len(table)
    with pytest.raises(GladeError, match="'bottom-up' or 'flat'"):
        view.function_table("icicle")


def test_a_row_limit_leaves_out_deep_callers_and_marks_where():
    full = bottom_up_table(PARENT, DEPTH, NAME, columns())
    assert not full.more.any()
    levels = np.zeros(len(full), dtype=int)
    for r in range(len(full)):
        if full.parent[r] >= 0:
            levels[r] = levels[full.parent[r]] + 1
    first_two = int((levels <= 1).sum())
    cut = bottom_up_table(PARENT, DEPTH, NAME, columns(), max_rows=first_two)
    assert len(cut) == first_two
    np.testing.assert_array_equal(cut.parent, full.parent[:first_two])
    np.testing.assert_array_equal(cut.columns[1].values, full.columns[1].values[:first_two])
    # the rows of level 1 whose calls have callers further up
    marked = {
        tuple(NAMES[cut.name[i]] for i in (cut.parent[r], r)) for r in np.flatnonzero(cut.more)
    }
    # solve is called from main, work from solve and main: their chains go on; main's ends
    assert marked == {
        ("MPI_Wait", "solve"),
        ("MPI_Wait", "work"),
        ("work", "solve"),
        ("work", "work"),
    }


def test_the_page_gets_a_bounded_table_and_is_told_where_it_was_cut(monkeypatch):
    view = CCT(profile_from_spec(SPEC))
    monkeypatch.setattr("glade.views.cct.widget.MAX_TAB_ROWS", 8)
    view.tab = "bottom-up"
    field, arrays = view.payload_fields()["tab"], view.payload_arrays()
    # six functions fit, the five callers of level 1 would pass 8 rows
    assert field["limit"] == 8 and len(arrays["tab_parent"]) == 6
    names = [view.function_names[i] for i in arrays["tab_name"][arrays["tab_more"] == 1]]
    assert sorted(names) == ["io", "mpi_wait", "poll", "solve", "write"]  # main has no caller
    assert len(view.function_table()) == 6 + 5 + 3 + 1  # the kernel has them all


def test_the_offline_page_holds_both_function_tables(monkeypatch):
    view = CCT(profile_from_spec(SPEC), tab="flat").hide_function("io")
    monkeypatch.setattr("glade.views.cct.widget.MAX_PAGE_TAB_ROWS", 8)
    state = view._page_state()
    assert state["offline"] is True
    meta = state["payload_meta"]
    assert set(meta["fields"]["tables"]) == {"flat", "bottom-up"} and "tab" not in meta["fields"]
    arrays = unpack_arrays(meta["arrays"], state["payload"])
    for kind in ("flat", "bottom-up"):
        table = view.function_table(kind, max_rows=8)
        np.testing.assert_array_equal(arrays[f"{kind}:tab_name"], table.name)
        assert meta["fields"]["tables"][kind]["query"] == view.query
    assert len(arrays["bottom-up:tab_parent"]) <= 8 < len(view.function_table("bottom-up"))
    assert "tab_parent" not in arrays and "tab_parent" in view.payload_arrays()


def test_a_threshold_is_explained_in_its_metrics_unit():
    gf = profile_from_spec(SPEC)
    gf.metadata["units"] = {"time": "ms", "time (inc)": "ms"}
    view = CCT(gf).expand_to_depth(1).collapse_below(9.5)
    # inclusive: solve 2+3+4+5 = 14, mpi_wait b.c 9, io 13; only mpi_wait b.c (9 < 9.5)
    # has children, so the threshold collapses it and hides poll
    assert [e["op"] for e in view.history] == ["depth", "threshold"]  # the depth edit stays
    assert "collapsed every node whose time (inc) is below 9.500 ms: hides 1 node" in (
        view.explain()
    )
