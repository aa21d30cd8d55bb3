"""Results share nothing mutable with their inputs: every public operation of a
GraphFrame runs on the HPCToolkit cpi database, its result is edited every way the API
allows, and the input must be exactly as it was (deep comparison). Graphs never change,
so they are shared."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import glade
from tests.isolation import assert_same, edit, edit_graph, snapshot

QUERY = 'MATCH (".", p)->("*") WHERE p.name STARTS WITH "62:MPI_"'

OPERATIONS = {
    "copy": lambda gf: gf.copy(),
    "squash": lambda gf: gf.filter(lambda row: row["time"] > 0, squash=False).squash(),
    "squash fold": lambda gf: gf.query(QUERY, squash=False).squash(fold=True),
    "query": lambda gf: gf.query(QUERY),
    "query fold": lambda gf: gf.query(QUERY, fold=True),
    "query without squash": lambda gf: gf.query(QUERY, squash=False),
    "filter function": lambda gf: gf.filter(lambda row: row["time"] > 0),
    "filter without squash": lambda gf: gf.filter(lambda row: row["time"] > 0, squash=False),
    "filter query": lambda gf: gf.filter([{"name": ".*MPI.*"}]),
    "update_inclusive_columns": lambda gf: gf.update_inclusive_columns(),
    "drop_index_levels": lambda gf: gf.drop_index_levels(),
    "drop_index_levels twice": lambda gf: gf.drop_index_levels().drop_index_levels("max"),
    "unify": lambda gf: gf.unify(gf.query(QUERY)),
    "add": lambda gf: gf + gf,
    "sub": lambda gf: operator.sub(gf, gf.query(QUERY)),
    "mul": lambda gf: gf * gf,
    "div": lambda gf: gf / gf,
    "groupby_aggregate": lambda gf: gf.groupby_aggregate("module"),
    "flat_profile": lambda gf: gf.flat_profile(),
    "node_values": lambda gf: gf.node_values("time"),
    "to_literal": lambda gf: gf.to_literal(),
    "to_dict": lambda gf: gf.to_dict(),
    "subgraph_sum": lambda gf: gf.subgraph_sum("time", "time below"),
    "subtree_sum": lambda gf: gf.subtree_sum(["time"]),
    "hot_path": lambda gf: gf.hot_path("time (inc)"),
    "load_imbalance": lambda gf: gf.load_imbalance("time"),
    "match": lambda gf: list(gf.match(QUERY)),
    "ensemble": lambda gf: glade.Ensemble.from_graphframes([gf], labels=["cpi"]),
}


@pytest.fixture(scope="module")
def cpi_path(hatchet_data):
    return hatchet_data / "hpctoolkit-cpi-database"


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_editing_a_result_leaves_the_profile_unchanged(cpi_path, name):
    gf = glade.read(cpi_path)
    before = snapshot(gf)
    result = OPERATIONS[name](gf)
    edit(result)
    assert_same(before, snapshot(gf))
    # and the other way round: editing the input leaves a fresh result as it was
    fresh = OPERATIONS[name](gf)
    kept = snapshot(fresh) if isinstance(fresh, glade.GraphFrame | glade.Ensemble) else None
    edit(gf)
    if kept is not None:
        assert_same(kept, snapshot(fresh), "result")


def test_a_graph_never_changes(cpi_path):
    gf = glade.read(cpi_path)
    graph = gf.graph
    before = snapshot(gf)["graph"]
    edit_graph(graph)
    frames = graph.frames
    frames["name"] = "renamed"
    assert graph.names[0] == "<program root>" and graph.copy() is graph
    with pytest.raises(ValueError):
        graph.frame_values("name")[0] = "x"
    assert_same(before, snapshot(gf)["graph"], "graph")
    # so results share it freely
    assert gf.query(QUERY, squash=False).graph is graph
    assert gf.update_inclusive_columns().graph is graph
    assert np.array_equal(gf.copy().graph.tree_parent, graph.tree_parent)
