"""The supergraph view in the kernel: its edits become the same queries as the model's
``query_of``, ``view.apply()`` is ``ens.query(view.query, fold=True)`` and the supergraph
shown is that result's, ``code()`` rebuilds it, edits from the browser (history traits)
and from Python agree, bad edits leave the view as it was."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import glade
from glade.datasets import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.errors import GladeError, QuerySyntaxError
from glade.query import format, parse, simplify
from glade.views import CCT, SupergraphView
from glade.views.supergraph import selection_query
from tests.ensemble.supergraph.small import profile_a, small_ensemble


@pytest.fixture
def ens() -> Ensemble:
    return small_ensemble()


def same_supergraph(first, second) -> None:
    assert first.supernodes == second.supernodes
    pd.testing.assert_frame_equal(first.nodes, second.nodes)
    pd.testing.assert_frame_equal(first.edges, second.edges)
    assert first.layout.digest() == second.layout.digest()


def rebuilt(view, ens):
    """What view.code() builds, evaluated with the ensemble as its data."""
    return eval(view.code(), {"ens": ens, "gf": ens})


def test_initial_view(ens):
    view = SupergraphView(ens)
    assert view.query == 'MATCH ("*")'
    assert view.by == "initial" and view.by_label == "module"
    assert view.metric == "time (inc)" and view.metrics == ["time (inc)", "time"]
    same_supergraph(view.supergraph(), ens.supergraph())
    assert view.code() == (
        "ens.query('''MATCH (\"*\")''', fold=True).supergraph(by='module', "
        "metric='time (inc)', rank_agg='mean')"
    )
    same_supergraph(rebuilt(view, ens), view.supergraph())
    assert view.profile_ids == ["a", "b"]
    # a metadata value of one profile is that profile, named by what tells it apart
    assert view.groups == [
        {"label": "run=1", "group": {"profiles": ["a"]}},
        {"label": "run=2", "group": {"profiles": ["b"]}},
    ]
    fields, arrays = view.payload_fields(), view.payload_arrays()
    table = arrays["node_table"].reshape(3, -1)
    column = fields["node_columns"].index("inclusive_mean")
    np.testing.assert_array_equal(table[:, column], [15.0, 11.5, 2.0])
    assert arrays["edge_table"].size == 4 * len(fields["edge_columns"])


def test_hide_is_a_query_and_apply_is_its_result(ens):
    view = SupergraphView(ens).hide("lib")
    assert view.query == 'NOT {MATCH (".", n0) WHERE n0.module = "lib"}'
    assert view.history == [{"op": "hide", "supernode": "lib"}]
    applied = view.apply()
    expected = ens.query(view.query, fold=True)
    assert [n.path() for n in applied.graph.nodes()] == [n.path() for n in expected.graph.nodes()]
    same_supergraph(view.supergraph(), expected.supergraph())
    same_supergraph(rebuilt(view, ens), view.supergraph())
    # helper's cost folds into solve: app keeps 15, mpi keeps MPI_Recv under solve
    np.testing.assert_array_equal(view.supergraph().values(), [[15, 15], [11, 12]])


def test_every_edit_and_undo(ens):
    view = SupergraphView(ens)
    view.split("app", by="entry")
    assert view.query == 'MATCH ("*")'
    assert view.supergraph().supernodes == ["app=main", "mpi", "lib", "app=callback"]
    view.focus("app=callback")
    assert parse(view.query) == simplify(
        ens.supergraph().split("app").query_of("app=callback", flow=True)
    )
    view.set_threshold(0.5).set_target("b").set_diff({"run": 1}, {"run": 2})
    assert view.threshold == 0.5 and view.target == "b"
    assert view.diff == {"a": {"column": "run", "value": 1}, "b": {"column": "run", "value": 2}}
    shown = view.supergraph()
    assert shown.target == "b"
    same_supergraph(rebuilt(view, ens), shown)
    column = view.payload_fields()["node_columns"].index("difference")
    table = view.payload_arrays()["node_table"].reshape(len(shown), -1)
    np.testing.assert_array_equal(
        table[:, column], shown.diff({"run": 1}, {"run": 2})["difference"]
    )
    view.unfocus().set_metric("time").set_by("name")
    assert view.metric == "time (inc)" and view.by == "name"
    assert "main" in view.supergraph().supernodes
    length = len(view.history)
    view.undo().undo()
    assert len(view.history) == length - 2 and view.by == "initial"
    view.redo()
    assert view.by == "initial" and len(view.future) == 1
    view.reset()
    same_supergraph(view.supergraph(), ens.supergraph())
    assert view.query == 'MATCH ("*")'
    view.undo()
    assert view.threshold == 0.5


def test_a_state_shown_again_sends_what_a_new_view_computes(ens):
    # undo and redo send a state's payload as it was sent first: the same as a view
    # that computes it afresh (with a diff, whose groups are dicts, too)
    view = SupergraphView(ens).split("app", by="callee").set_diff({"run": 1}, {"run": 2})
    view.undo().redo().undo().undo().redo().redo()
    fresh = SupergraphView(ens).split("app", by="callee").set_diff({"run": 1}, {"run": 2})
    assert view.payload_fields() == fresh.payload_fields()
    shown, expected = view.payload_arrays(), fresh.payload_arrays()
    assert shown.keys() == expected.keys()
    for name, values in expected.items():
        np.testing.assert_array_equal(shown[name], values)


def test_threshold_edits_merge_into_one_undo_step(ens):
    view = SupergraphView(ens).set_threshold(0.1).set_threshold(0.2)
    assert view.history == [{"op": "threshold", "fraction": 0.2}]
    view.threshold = 0.3
    assert view.history == [{"op": "threshold", "fraction": 0.3}]


def test_browser_edits_are_the_same_as_python_edits(ens):
    clicked = SupergraphView(ens)
    clicked.history = [
        {"op": "hide", "supernode": "lib"},
        {"op": "split", "supernode": "mpi", "by": "entry"},
    ]
    typed = SupergraphView(ens).hide("lib").split("mpi")
    assert clicked.query == typed.query
    same_supergraph(clicked.supergraph(), typed.supergraph())
    # a browser edit the kernel cannot apply is refused, said, and sent back undone
    with pytest.raises(GladeError, match="no supernode 'nowhere'"):
        clicked.set_state({"history": [*clicked.history, {"op": "hide", "supernode": "nowhere"}]})
    assert len(clicked.history) == 2
    assert "no supernode 'nowhere'" in clicked.error


def test_bad_edits_raise_and_change_nothing(ens):
    view = SupergraphView(ens).hide("lib")
    query, history = view.query, list(view.history)
    with pytest.raises(GladeError, match="no supernode 'io'"):
        view.hide("io")
    with pytest.raises(GladeError, match="'entry' or 'callee'"):
        view.split("app", by="caller")
    with pytest.raises(GladeError, match="fraction"):
        view.set_threshold(2)
    with pytest.raises(GladeError, match="no profile 'zz'"):
        view.set_target("zz")
    with pytest.raises(GladeError, match="not a supergraph view edit"):
        view.history = [{"op": "explode"}]
    with pytest.raises(QuerySyntaxError):
        view.query = "MATCH ("
    with pytest.raises(GladeError, match="no profile 'zz'"):
        view.target = "zz"
    with pytest.raises(GladeError, match="by is one of"):
        view.by = "file"
    assert (view.query, view.history, view.target, view.by) == (query, history, "", "initial")


def test_assigned_query(ens):
    view = SupergraphView(ens)
    view.query = 'MATCH (".", p) WHERE NOT p.name = "helper"'
    assert view.history == [
        {"op": "query", "query": 'MATCH (".", n0) WHERE NOT n0.name = "helper"'}
    ]
    view.hide("app")
    assert view.query == (
        '{MATCH (".", n0) WHERE NOT n0.name = "helper"}\n'
        'AND NOT {MATCH (".", n0) WHERE n0.module = "app"}'
    )
    same_supergraph(view.supergraph(), ens.query(view.query, fold=True).supergraph())


def test_cct_of_a_supernode_and_highlight(ens):
    view = SupergraphView(ens).hide("lib")
    with pytest.raises(GladeError, match="select a supernode"):
        view.cct()
    view.selection = ["mpi"]
    tree = view.cct()
    assert isinstance(tree, CCT)
    assert tree.query == format(
        glade.query.parse(
            '{NOT {MATCH (".", n0) WHERE n0.module = "lib"}} AND '
            '{MATCH ("*")->(".", n1)->("*") WHERE n1.module = "mpi"}'
        )
    )
    assert sorted(map(tuple, tree.selected_paths)) == [
        ("main", "MPI_Init"),
        ("main", "solve", "MPI_Send"),
        ("main", "solve", "MPI_Send", "progress"),
        ("main", "solve", "helper", "MPI_Recv"),
    ]
    tree.selected_paths = [["main", "solve", "MPI_Send"]]
    view.highlight_query(tree)
    assert view.highlight == ["mpi"]
    view.highlight_query('MATCH (".", p) WHERE p.name = "main"')
    assert view.highlight == ["app"]
    assert str(selection_query([["main"], ["main", "solve"]])) == (
        '{MATCH ("main")} OR {{MATCH ("main/solve")} AND NOT {MATCH ("main")}}'
    )


def test_graphframe_view_applies_to_the_profile():
    gf = glade.GraphFrame.from_literal(profile_a())
    view = gf.show_supergraph().hide("lib")
    assert view.data_name == "gf"
    applied = view.apply()
    assert isinstance(applied, glade.GraphFrame)
    same_supergraph(view.supergraph(), applied.supergraph())
    same_supergraph(eval(view.code(), {"gf": gf}), view.supergraph())


def test_ensemble_shortcut_and_function_grouping(ens):
    def by(frame: dict) -> str:
        return "comm" if frame["name"].startswith("MPI") else "compute"

    view = ens.show_supergraph(by=by)
    assert view.by_label == "by()"
    assert view.supergraph().supernodes == ["compute", "comm"]
    view.hide("comm")
    assert [n.name for n in view.apply().graph.nodes()] == [
        "main",
        "solve",
        "progress",
        "helper",
        "callback",
    ]


def test_offline_page(ens, tmp_path):
    view = SupergraphView(ens).hide("lib")
    text = view.to_html(tmp_path / "sg.html").read_text()
    assert '"offline": true' in text
    assert view.offline is False


def test_unit_comes_from_the_data(ens):
    assert SupergraphView(ens).unit == ""
    assert SupergraphView(ens, unit="ms").unit == "ms"
    # the synthetic runs record their seconds as readers record units
    synthetic = Ensemble.from_graphframes(synthetic_ensemble(4, 60))
    assert SupergraphView(synthetic).unit == "s"
    assert SupergraphView(synthetic, metric="time").unit == "s"


def test_rajaperf_view(rajaperf_ensemble):
    view = SupergraphView(rajaperf_ensemble, by={"Basic.*": "Basic", "Stream.*": "Stream"})
    assert view.unit == "s" and view.metric == "Avg time/rank"
    assert view.by_label == "mapping (2 rules)"
    assert view.groups[0]["group"] == {"column": "compiler", "value": "clang++-10.0.1"}
    view.set_diff({"compiler": "clang++-10.0.1"}, {"compiler": "g++-10.3.1"}).hide("Stream")
    assert view.query == 'NOT {MATCH (".", n0) WHERE n0.name =~ "Stream.*"}'
    same_supergraph(
        view.supergraph(),
        rajaperf_ensemble.query(view.query, fold=True).supergraph(
            by={"Basic.*": "Basic", "Stream.*": "Stream"}
        ),
    )


def test_large_synthetic_view_builds():
    ens = Ensemble.from_graphframes(synthetic_ensemble(12, 600))
    view = SupergraphView(ens, by="name").set_threshold(0.01)
    shown = view.supergraph()
    assert len(shown) < len(ens.supergraph(by="name"))
    np.testing.assert_allclose(shown.total, ens.supergraph(by="name").total)


def test_the_old_name_of_the_view_still_works_and_says_the_new_one(ens):
    import glade.views

    with pytest.warns(DeprecationWarning, match="SupergraphView"):
        old = glade.views.Supergraph
    assert old is SupergraphView
