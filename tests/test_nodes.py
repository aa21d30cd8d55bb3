"""NodeSet: what ``match`` returns, an id array that behaves like the list of Node
handles it stands for and like a set; checked on the HPCToolkit cpi database and
against Python lists and sets of handles on random trees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import glade
from glade import Graph, Node, NodeSet
from glade.errors import GraphError
from tests.hypothesis_budget import examples


@pytest.fixture(scope="module")
def cpi(hatchet_data):
    return glade.read(hatchet_data / "hpctoolkit-cpi-database")


MPI = 'MATCH (".", p)->("*") WHERE p.name = "MPI_Finalize" AND p.callsite_line = 62'


def test_match_returns_a_node_set_that_reads_like_a_list(cpi):
    found = cpi.match(MPI)
    assert isinstance(found, NodeSet) and found.graph is cpi.graph
    # MPI_Finalize (node 13, called at line 62) and the 20 nodes below it
    assert len(found) == 21 and found.ids.tolist() == list(range(13, 34))
    assert [n.nid for n in found] == found.ids.tolist()
    assert found[0] == Node(cpi.graph, 13) and found[-1].nid == 33
    assert found[0].path() == ("<program root>", "main", "MPI_Finalize")
    assert found == [Node(cpi.graph, i) for i in range(13, 34)]
    assert found != [Node(cpi.graph, i) for i in range(13, 33)]
    assert Node(cpi.graph, 20) in found and Node(cpi.graph, 2) not in found
    assert found.names()[:3].tolist() == ["MPI_Finalize", "PMPI_Finalize", "MPID_Finalize"]
    assert found.paths()[2] == cpi.graph.node(15).path()
    assert sorted(found, reverse=True)[0].nid == 33
    assert cpi.match('MATCH (p) WHERE p.name = "nothing"') == []
    assert not cpi.match('MATCH (p) WHERE p.name = "nothing"')


def test_ids_are_read_only_and_sets_never_change(cpi):
    found = cpi.match(MPI)
    with pytest.raises(ValueError):
        found.ids[0] = 0
    head = found[:3]
    assert isinstance(head, NodeSet) and head.ids.tolist() == [13, 14, 15]
    assert found.ids.tolist() == list(range(13, 34))
    with pytest.raises(TypeError):
        {found}  # noqa: B018 - a NodeSet is not hashable: it compares equal to lists


def test_set_operations_and_their_errors(cpi):
    mpi = cpi.match(MPI)
    unknown = cpi.match('MATCH (p) WHERE p.name =~ ".*unknown.*"')
    assert (mpi & unknown).ids.tolist() == sorted(set(mpi.ids) & set(unknown.ids))
    assert (mpi - unknown) | (mpi & unknown) == mpi
    assert (mpi ^ mpi) == []
    assert mpi.union([Node(cpi.graph, 0)]).ids[0] == 0
    elsewhere = glade.datasets.synthetic_profile(40)
    with pytest.raises(GraphError, match="different graphs"):
        mpi | elsewhere.match("MATCH (p)")
    with pytest.raises(GraphError):
        mpi.union(["not a node"])
    with pytest.raises(GraphError):
        NodeSet(cpi.graph, [99])


def test_ensemble_match_is_a_node_set(cpi):
    ens = glade.Ensemble.from_graphframes([cpi], labels=["cpi"])
    found = ens.match(MPI)
    assert isinstance(found, NodeSet) and found.graph is ens.graph
    # the ensemble merged the nodes that share a call path: 21 nodes become 15
    assert len(found) == 15
    assert {n.path() for n in found} == {n.path() for n in cpi.match(MPI)}


@st.composite
def trees_and_subsets(draw):
    n = draw(st.integers(1, 40))
    parent = np.array([-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)])
    names = draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))
    graph, _ = Graph.from_parents(pd.DataFrame({"name": names}), parent)
    subset = st.lists(st.integers(0, n - 1), max_size=n)
    return graph, draw(subset), draw(subset)


@settings(max_examples=examples(75), deadline=None)
@given(trees_and_subsets())
def test_node_sets_agree_with_sets_of_handles(case):
    graph, first, second = case
    a, b = NodeSet(graph, first), NodeSet(graph, second)
    ha, hb = {Node(graph, i) for i in first}, {Node(graph, i) for i in second}
    assert set(a) == ha and len(a) == len(ha)
    assert a == sorted(ha) and a == ha
    for result, expected in (
        (a | b, ha | hb),
        (a & b, ha & hb),
        (a - b, ha - hb),
        (a ^ b, ha ^ hb),
        (a.union(hb), ha | hb),
        (a.difference(list(hb)), ha - hb),
        (list(hb) - a, hb - ha),
    ):
        assert isinstance(result, NodeSet) and result == expected
    assert all((node in a) == (node in ha) for node in graph.nodes())
    assert a.paths() == [node.path() for node in a]
    assert a.names().tolist() == [node.name for node in a]
    assert NodeSet.from_mask(graph, a.mask()) == a
