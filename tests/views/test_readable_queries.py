"""The queries views emit are readable and mean what the long form they replace means:
length targets on real data (issue 26), and property tests that the readable query of
random edit sequences selects exactly the nodes (or calls) of the long form, built here
as the views built it before (one subtraction per removed set, absolute times)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade import GraphFrame
from glade.datasets import synthetic_ensemble, synthetic_profile, synthetic_trace
from glade.ensemble import Ensemble
from glade.errors import GladeError
from glade.query import CompoundQuery, Query, parse, query_mask
from glade.query.engine import RowTable
from glade.views import CCT, SupergraphView, Timeline
from glade.views.cct import edits as cct_edits
from glade.views.cct.query import function_query, normalize
from glade.views.timeline import edits as timeline_edits
from tests.hypothesis_budget import examples

from .cct.cct_cases import random_profile
from .cct.test_cct_roundtrip import random_edits

#: The query `gf.show()` emitted for the four cpi edits before the readable form.
CPI_BEFORE = (
    '{MATCH (".", n0)->(".", n1)->("*") WHERE n0 IS ROOT AND n0.name = "<program root>" AND '
    'n1.name = "main"} AND {NOT {{{MATCH (".", n0)->(".", n1)->(".", n2)->("+") WHERE n0 IS '
    'ROOT AND n0.name = "<program root>" AND n1.name = "main" AND n2.name = "MPI_Init"} AND '
    '{NOT {MATCH (".", n0)->(".", n1)->(".", n2) WHERE n0 IS ROOT AND n0.name = "<program '
    'root>" AND n1.name = "main" AND n2.name = "MPI_Init"}}} OR {{MATCH (".", n0)->(".", '
    'n1)->(".", n2)->("+") WHERE n0 IS ROOT AND n0.name = "<program root>" AND n1.name = '
    '"main" AND n2.name = "MPI_Finalize"} AND {NOT {MATCH (".", n0)->(".", n1)->(".", n2) '
    'WHERE n0 IS ROOT AND n0.name = "<program root>" AND n1.name = "main" AND n2.name = '
    '"MPI_Finalize"}}}}}'
)


def kept(gf: GraphFrame, text: str) -> np.ndarray:
    return query_mask(RowTable(gf.graph, gf.dataframe), parse(text))


def test_the_cpi_session_reads_in_a_few_lines(hatchet_data):
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    view = gf.show()
    view.collapse(("<program root>", "main", "MPI_Init"))
    view.hide(("<program root>", "main", "MPI_Finalize", "PMPI_Finalize"))
    view.focus(("<program root>", "main"))
    view.expand_to_depth(2)
    assert len(CPI_BEFORE) == 701
    assert view.query == (
        '{MATCH ("<program root>/main")->("*")} AND {MATCH (".", n0) WHERE n0.depth <= 2}'
    )
    assert len(view.query) <= 300
    assert (kept(gf, view.query) == kept(gf, CPI_BEFORE)).all()
    # main, its callers, and the two calls under it: depth 0, 1 and 2
    assert sorted(n.path()[-1] for n in view.apply().graph.nodes()) == [
        "<program root>",
        "MPI_Finalize",
        "MPI_Init",
        "main",
    ]


def test_expand_to_depth_on_a_large_tree_is_one_condition():
    gf = synthetic_profile(100_000)
    view = gf.show()
    view.expand_to_depth(2)
    assert view.query == 'MATCH (".", n0) WHERE n0.depth <= 2'
    assert len(view.query) <= 200
    assert (kept(gf, view.query) == (np.asarray(gf.graph.depth) <= 2)).all()


def rajaperf_session(view: CCT) -> CCT:
    """Ten edits a student might make on a RAJAPerf profile."""
    root = ("RAJAPerf",)
    view.collapse((*root, "Basic"))
    view.hide((*root, "Apps", "Apps_FIR"))
    view.hide((*root, "Apps", "Apps_VOL3D"))
    view.elide((*root, "Lcals", "Lcals_EOS"))
    view.collapse((*root, "Algorithm"))
    view.hide((*root, "Lcals", "Lcals_FIRST_MIN"))
    view.focus(root)
    view.expand((*root, "Basic"))
    view.collapse((*root, "Polybench"))
    view.hide((*root, "Apps", "Apps_LTIMES"))
    return view


def test_a_ten_edit_rajaperf_session_fits_800_characters(thicket_data):
    files = sorted((thicket_data / "rajaperf").rglob("*.cali"))
    if not files:
        pytest.skip(f"RAJAPerf profiles not found in {thicket_data / 'rajaperf'}")
    gf = glade.read(files[0])
    view = rajaperf_session(gf.show())
    assert len(view.history) == 10
    assert len(view.query) <= 800
    # the three hides under Apps are one IN list, the two collapses another
    assert 'n2.name IN ["Apps_VOL3D", "Apps_FIR", "Apps_LTIMES"]' in view.query
    assert 'n1.name IN ["Algorithm", "Polybench"]' in view.query
    assert (kept(gf, view.query) == kept(gf, str(long_form(view)))).all()


# ------------------------------------------------------------ CCT: the long form
def long_form(view: CCT) -> CompoundQuery | Query:
    """The CCT query as it was built before the readable form: each removed set is a
    call path minus another, ``{P(X)->("+")} AND NOT {P(X)}`` for a collapse,
    ``{P(X)->("*")} AND NOT {P(parent)}`` for a hide, ``{P(X)} AND NOT {P(parent)}`` for
    an elision, one name condition per hidden or focused function, and nothing is
    simplified."""
    tree = view._tree
    state = cct_edits.replay(tree, view.history)
    parts, focus = normalize(tree, state)
    operands: list = [parse(t) for t in state.base.parts] if state.base else []
    if focus:
        paths = [tree.path_query(int(tree.key_rep[k]), "*") for k in focus]
        operands.append(paths[0] if len(paths) == 1 else CompoundQuery.of("or", *paths))
    # a function edit is one name condition per function, wherever it is called
    operands += [function_query([name], callers=True) for name in state.focus_names]
    removed = [function_query([name]) for name in state.hidden_names]
    for key, kind in parts:
        node = int(tree.key_rep[key])
        parent = int(tree.parent[node])
        own = tree.path_query(node)
        if kind == "desc":
            removed.append(CompoundQuery.of("and", own.rel("+"), ~own))
            continue
        part = own.rel("*") if kind == "sub" else own
        removed.append(
            part if parent < 0 else CompoundQuery.of("and", part, ~tree.path_query(parent))
        )
    if removed:
        operands.append(~(removed[0] if len(removed) == 1 else CompoundQuery.of("or", *removed)))
    if not operands:
        return Query().match("*")
    return operands[0] if len(operands) == 1 else CompoundQuery("and", tuple(operands))


def dag_profile(rng: np.random.Generator, n: int) -> GraphFrame:
    """A random DAG (each node below 0 has one to three parents of smaller id) with
    repeated names."""
    src, dst = [], []
    for i in range(1, n):
        for p in set(rng.integers(0, i, int(rng.integers(1, 4))).tolist()):
            src.append(p)
            dst.append(i)
    frames = pd.DataFrame(
        {
            "name": np.asarray(["main", "a", "b", "c"])[rng.integers(0, 4, n)],
            "file": np.asarray(["a.c", "b.c"])[rng.integers(0, 2, n)],
        }
    )
    frames.loc[0, "name"] = "main"
    rows = pd.DataFrame({"node": np.arange(n), "time": rng.exponential(3.0, n).round(2)})
    return GraphFrame.from_tables(frames, src, dst, rows, exc_metrics=["time"], fill_inclusive=True)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.integers(2, 30),
    count=st.integers(1, 10),
    dag=st.booleans(),
)
def test_the_readable_cct_query_keeps_what_the_long_form_keeps(seed, size, count, dag):
    rng = np.random.default_rng(seed)
    gf = dag_profile(rng, size) if dag else random_profile(rng, size)
    view = CCT(gf)
    random_edits(view, rng, count)
    long = long_form(view)
    assert (kept(gf, view.query) == kept(gf, str(long))).all(), (view.history, view.query)
    assert parse(view.query) == parse(str(parse(view.query)))  # render/parse round trip


# ------------------------------------------------------------ timeline windows
@pytest.fixture(scope="module")
def trace():
    return synthetic_trace(6, 14, seed=3)


def shifted(trace, offset: int):
    """The trace as recorded by a clock ``offset`` ns later."""
    events = trace.events[trace.recorded_columns()].copy()
    events["Timestamp (ns)"] += offset
    return glade.Trace(events, trace.definitions, trace.metadata)


def calls(trace, text: str) -> list[tuple]:
    events = trace.query(text, level="calls").events
    return sorted(
        zip(
            events["Name"].astype(str),
            events["Process"],
            events["Event Type"].astype(str),
            strict=True,
        )
    )


def test_a_saved_window_selects_the_same_calls_on_a_shifted_copy(trace, tmp_path):
    view = Timeline(trace)
    first, last = view.extent
    view.window(first + (last - first) * 0.3, first + (last - first) * 0.6, processes=[1, 2])
    assert "START + " in view.query and " ms" in view.query
    path = view.save_query(tmp_path / "window.query")
    later = shifted(trace, 10**12)
    text = path.read_text()
    assert calls(later, text) == calls(trace, view.query)
    # the same window in absolute ns selects nothing on the shifted copy
    absolute = str(Query().match(".", timeline_edits.window_predicate(view.history[-1])))
    assert calls(trace, absolute) == calls(trace, view.query)
    assert calls(later, absolute) == []


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a=st.floats(0, 1),
    b=st.floats(0, 1),
    processes=st.one_of(st.none(), st.sets(st.integers(0, 5), min_size=1)),
    hidden=st.lists(st.sampled_from(["MpiIsend", "compute_flux", "MPI_Allreduce"]), max_size=2),
    offset=st.sampled_from([0, 10**12]),
)
def test_the_readable_window_selects_what_the_absolute_one_does(
    trace, a, b, processes, hidden, offset
):
    copy = shifted(trace, offset) if offset else trace
    view = Timeline(copy)
    first, last = view.extent
    t0, t1 = sorted((int(first + (last - first) * a), int(first + (last - first) * b)))
    view.window(t0, t1, processes=sorted(processes) if processes else None)
    for name in hidden:
        view.hide(name)
    state = timeline_edits.replay(view.history)
    long = timeline_edits.state_query(state)  # absolute ns, not simplified
    assert long is not None
    assert calls(copy, view.query) == calls(copy, str(long))
    assert parse(view.query) == parse(str(parse(view.query)))


# ------------------------------------------------------------ supergraph edits
@pytest.fixture(scope="module")
def ensemble():
    return Ensemble.from_graphframes(synthetic_ensemble(4, 60, seed=5))


def supergraph_long_form(state) -> CompoundQuery | Query:
    """The supergraph query as it was built before: the AND of the assigned queries, the
    focus and NOT of the OR of the hidden supernodes' queries, not simplified."""
    operands: list = [parse(t) for t in state.base]
    if state.focus is not None:
        operands.append(parse(state.focus))
    if state.hidden:
        removed = [parse(t) for t in state.hidden]
        operands.append(~(removed[0] if len(removed) == 1 else CompoundQuery.of("or", *removed)))
    if not operands:
        return Query().match("*")
    return operands[0] if len(operands) == 1 else CompoundQuery("and", tuple(operands))


# each example rebuilds the supergraph after every edit (about 1 s): few examples
@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_readable_supergraph_query_keeps_what_the_long_form_keeps(ensemble, data):
    view = SupergraphView(ensemble, by="name")
    for _ in range(data.draw(st.integers(1, 5))):
        names = view.supergraph().supernodes
        if not names:  # everything hidden, or a focus on nothing left
            break
        op = data.draw(st.sampled_from(["hide", "hide", "focus", "split"]))
        name = data.draw(st.sampled_from(names))
        try:
            getattr(view, op)(name)
        except GladeError:  # a split of a supernode that has one entry, a focus on "other"
            continue
    long = supergraph_long_form(view._state(view.history))
    ours, theirs = (
        query_mask(RowTable(ensemble.graph, ensemble.dataframe), parse(q))
        for q in (view.query, str(long))
    )
    assert (ours == theirs).all(), view.history
    assert len(view.query) <= len(str(long))


# ------------------------------------------------------------ explain
def test_explain_says_what_each_cct_edit_meant(hatchet_data):
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    view = gf.show()
    assert view.explain() == 'no edits: the view shows everything\nquery:\n    MATCH ("*")'
    view.collapse(("<program root>", "main", "MPI_Init"))
    view.focus(("<program root>", "main"))
    view.expand_to_depth(2)
    # MPI_Init has PMPI_Init and 9 calls below it; the tree has 34 nodes, 30 deeper than 2
    assert view.explain() == "\n".join(
        [
            "collapsed <program root>/main/MPI_Init: hides its 10 descendants",
            '    NOT {MATCH ("<program root>/main/MPI_Init")->("+", n3) RETURN n3}',
            "focused on <program root>/main: keeps its subtree and its callers, 34 nodes",
            '    MATCH ("<program root>/main")->("*")',
            "expanded to depth 2: hides the 30 nodes deeper than 2",
            '    MATCH (".", n0) WHERE n0.depth <= 2',
            "query:",
            '    {MATCH ("<program root>/main")->("*")} AND {MATCH (".", n0) WHERE n0.depth <= 2}',
        ]
    )


def test_explain_on_every_view(trace):
    timeline = Timeline(trace)
    first, last = timeline.extent
    timeline.window(first, (first + last) // 2, processes=[0, 1, 3]).hide("compute_flux")
    lines = timeline.explain().splitlines()
    assert lines[0] == "kept the calls that overlap a window on processes 0-1, 3"
    assert "START" in lines[3] and "hid compute_flux: its time goes to its caller" in lines
    assert '    MATCH (".", n0) WHERE NOT n0.name = "compute_flux"' in lines
    matrix = trace.show_comm_matrix().select([0], [1])
    assert matrix.explain().startswith("selected the messages from processes 0 to processes 1\n")
    ens = Ensemble.from_graphframes(synthetic_ensemble(4, 60, seed=5))
    view = SupergraphView(ens, by="name").hide("build_checkpoint")
    assert view.explain().splitlines()[:2] == [
        "hid build_checkpoint: its cost folds into its callers",
        '    NOT {MATCH (".", n0) WHERE n0.name = "build_checkpoint"}',
    ]


def test_a_dask_trace_reads_times_from_the_whole_trace_start(trace):
    pytest.importorskip("dask.dataframe", reason="the Dask engine needs dask[dataframe]")
    later = shifted(trace, 10**12)
    text = "MATCH (n) WHERE n.end >= START + 0.5 ms AND n.start <= START + 1 ms"
    expected = calls(later, text)
    assert 0 < len(expected) < len(trace.events)
    # each partition knows only its own first call: START is the whole trace's
    events = later.to_dask(npartitions=3).query(text, level="calls").events.compute()
    got = sorted(
        zip(
            events["Name"].astype(str),
            events["Process"],
            events["Event Type"].astype(str),
            strict=True,
        )
    )
    assert got == expected
