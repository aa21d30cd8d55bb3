"""Hatchet's and Chopper's analyses of one profile: from_lists, subtree_sum and
subgraph_sum, hot_path, load_imbalance and to_dict. Hand-computed examples, the
real HPCToolkit, gprof and cProfile data, and brute-force oracles on random trees."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import glade
from glade import GraphFrame
from glade.errors import GladeError, GraphError, MetricError
from glade.graph import Node
from tests.hypothesis_budget import examples


def by_name(gf: GraphFrame, metric: str) -> dict:
    return dict(zip(gf.dataframe["name"], gf.dataframe[metric], strict=True))


def with_times(gf: GraphFrame, times: list[float]) -> GraphFrame:
    """``gf`` with exclusive ``time`` set per node and its inclusive time recomputed."""
    df = gf.dataframe.copy()
    df["time"] = np.asarray(times, dtype=np.float64)
    return GraphFrame(gf.graph, df, ["time"], ["time (inc)"]).update_inclusive_columns()


@pytest.fixture(scope="module")
def cpi(hatchet_data) -> GraphFrame:
    return glade.read(hatchet_data / "hpctoolkit-cpi-database")


@pytest.fixture(scope="module")
def callgrind(hatchet_data) -> GraphFrame:
    return glade.read(hatchet_data / "gprof2dot-cpi" / "callgrind.dot.64042.0.1")


# --------------------------------------------------------------------- from_lists
def test_from_lists_as_hatchet_documents_it():
    gf = GraphFrame.from_lists(["a", ["b", "d", "e"], ["c", "f", "g"]])
    assert [n.path() for n in gf.graph.nodes()] == [
        ("a",),
        ("a", "b"),
        ("a", "b", "d"),
        ("a", "b", "e"),
        ("a", "c"),
        ("a", "c", "f"),
        ("a", "c", "g"),
    ]
    assert by_name(gf, "time") == dict.fromkeys("abdecfg", 1.0)
    assert by_name(gf, "time (inc)") == {"a": 7, "b": 3, "d": 1, "e": 1, "c": 3, "f": 1, "g": 1}
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    two = GraphFrame.from_lists(["x", "y"], "z")
    assert [n.path() for n in two.graph.roots] == [("x",), ("z",)]
    with pytest.raises(GladeError, match=r"root 0, child 1 is \[\]"):
        GraphFrame.from_lists(["a", "b", []])
    with pytest.raises(GladeError, match="root 1 is 3"):
        GraphFrame.from_lists(["a"], 3)
    with pytest.raises(GladeError, match="at least one root"):
        GraphFrame.from_lists()


# ------------------------------------------------------------------ graph sums
def test_subtree_sum_by_hand():
    gf = with_times(
        GraphFrame.from_lists(["a", ["b", "d", "e"], ["c", "f"]]), [1, 2, np.nan, 4, np.nan, np.nan]
    )
    out = gf.subtree_sum("time", "total")
    assert by_name(out, "total") == pytest.approx(
        {"a": 7, "b": 6, "d": np.nan, "e": 4, "c": np.nan, "f": np.nan}, nan_ok=True
    )
    assert out.inc_metrics == ["time (inc)", "total"]
    assert list(out.dataframe.columns) == ["time (inc)", "time", "total", "name"]
    assert by_name(gf, "time")["a"] == 1  # the input is unchanged
    inplace = gf.subtree_sum(["time"])
    assert by_name(inplace, "time")["b"] == 6
    assert inplace.exc_metrics == [] and "time" in inplace.inc_metrics


def test_subtree_sums_per_rank_match_hpctoolkit_inclusive(cpi):
    out = cpi.subtree_sum("time", "summed")
    assert out.dataframe.index.equals(cpi.dataframe.index)
    np.testing.assert_allclose(out.dataframe["summed"], cpi.dataframe["time (inc)"])


def test_subgraph_sum_counts_shared_nodes_once(callgrind):
    assert not callgrind.graph.is_tree()
    with pytest.raises(GraphError, match="use subgraph_sum"):
        callgrind.subtree_sum("time")
    metric = callgrind.exc_metrics[0]
    out = callgrind.subgraph_sum(metric, "reach")
    graph = callgrind.graph
    value = callgrind.node_values(metric)
    for nid in range(len(graph)):
        seen, stack = {nid}, [nid]
        while stack:
            for child in graph.children_of(stack.pop()).tolist():
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        expected = np.nansum(value[sorted(seen)])
        assert out.node_values("reach")[nid] == pytest.approx(expected)


@st.composite
def random_trees(draw):
    n = draw(st.integers(1, 40))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    ranks = draw(st.integers(1, 3))
    exc = draw(
        st.lists(
            st.one_of(st.floats(0, 100), st.just(np.nan)), min_size=n * ranks, max_size=n * ranks
        )
    )
    rows = pd.DataFrame(
        {"node": np.repeat(np.arange(n), ranks), "rank": np.tile(np.arange(ranks), n), "x": exc}
    )
    child = np.arange(1, n)
    return GraphFrame.from_tables(
        pd.DataFrame({"name": [f"n{i}" for i in range(n)]}),
        np.array(parent)[child],
        child,
        rows,
        index=("node", "rank"),
    )


@settings(max_examples=examples(50), deadline=None)
@given(random_trees())
def test_subtree_sum_matches_brute_force(gf):
    parent = gf.graph.tree_parent.tolist()  # pre-order: a parent comes before its children
    out = gf.subtree_sum("x", "sum")
    x = gf.dataframe["x"]
    descendants = {i: {i} for i in range(len(parent))}
    for i in range(len(parent) - 1, 0, -1):
        descendants[parent[i]] |= descendants[i]
    for (node, rank), got in out.dataframe["sum"].items():
        wanted = [x[(d, rank)] for d in descendants[node]]
        expected = np.nan if all(np.isnan(wanted)) else np.nansum(wanted)
        assert got == pytest.approx(expected, nan_ok=True)


def test_graph_sum_errors():
    gf = GraphFrame.from_lists(["a", "b"])
    with pytest.raises(MetricError, match="walltime"):
        gf.subtree_sum("walltime")
    labelled = GraphFrame(gf.graph, gf.dataframe.assign(label="x"), ["time"], ["time (inc)"])
    with pytest.raises(MetricError, match="numeric column named 'label'"):
        labelled.subgraph_sum("label")
    with pytest.raises(GladeError, match="2 output columns for 1"):
        gf.subtree_sum("time", ["x", "y"])
    with pytest.raises(GladeError, match="frame attribute"):
        gf.subtree_sum("time", "name")


# -------------------------------------------------------------------- hot path
def test_hot_path_by_hand():
    # main 100 -> solve 80 -> (kernel 50, halo 30); main -> io 20
    gf = with_times(
        GraphFrame.from_lists(["main", ["solve", "kernel", "halo"], "io"]), [0, 0, 50, 30, 20]
    )
    assert [n.name for n in gf.hot_path()] == ["main", "solve", "kernel"]
    # kernel keeps 50/80 of solve: a threshold of 0.7 stops at solve
    assert [n.name for n in gf.hot_path(threshold=0.7)] == ["main", "solve"]
    assert [n.name for n in gf.hot_path(threshold=0.0)] == ["main", "solve", "kernel"]
    assert gf.hot_path(start="io") == [Node(gf.graph, 4)]
    # by exclusive time main and solve cost 0: any child keeps at least half of 0
    assert [n.name for n in gf.hot_path("time", start=0)] == ["main", "io"]
    with pytest.raises(GladeError, match="threshold"):
        gf.hot_path(threshold=2)


def test_hot_path_on_real_data(cpi, hatchet_data):
    path = cpi.hot_path()
    values = cpi.node_values("time (inc)")
    assert path[0].nid == int(np.argmax(values[cpi.graph.root_ids]))
    for parent, child in itertools.pairwise(path):
        siblings = cpi.graph.children_of(parent.nid)
        assert values[child.nid] == values[siblings].max()
        assert values[child.nid] >= 0.5 * values[parent.nid]
    last = path[-1].nid
    children = cpi.graph.children_of(last)
    assert not len(children) or values[children].max() < 0.5 * values[last]
    # recursion (a cycle in the call graph) ends the walk
    cycle = glade.read(hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats")
    walked = cycle.hot_path(threshold=0.0)
    assert len({n.nid for n in walked}) == len(walked)


# --------------------------------------------------------------- load imbalance
def test_load_imbalance_by_hand_on_cpi(cpi):
    out = cpi.load_imbalance("time", top=3)
    assert out.default_metric == "time.imbalance"
    assert out.dataframe.index.name == "node"
    per_rank = cpi.dataframe["time"].unstack("rank").fillna(0.0)
    mean, peak = per_rank.mean(axis=1), per_rank.max(axis=1)
    np.testing.assert_allclose(out.dataframe["time.mean"], mean)
    np.testing.assert_allclose(out.dataframe["time.max"], peak)
    busy = mean.to_numpy() > 0
    np.testing.assert_allclose(out.dataframe["time.imbalance"][busy], (peak / mean)[busy])
    assert out.dataframe["time.imbalance"][~busy].isna().all()
    for node, row in per_rank.iterrows():
        order = sorted(row.index, key=lambda r: (-row[r], r))[:3]
        assert [out.dataframe.loc[node, f"Top rank {k}"] for k in (1, 2, 3)] == order
    assert "Top rank 4" not in out.dataframe.columns


def test_load_imbalance_threshold_and_errors(cpi):
    full = cpi.load_imbalance("time (inc)")
    kept = cpi.load_imbalance("time (inc)", threshold=0.5)
    peak = full.dataframe["time (inc).max"]
    assert len(kept.graph) == int((peak >= 0.5 * peak.max()).sum())
    assert set(kept.dataframe["name"]) == set(full.dataframe["name"][peak >= 0.5 * peak.max()])
    with pytest.raises(GraphError, match="ranks"):
        GraphFrame.from_lists(["a"]).load_imbalance("time")
    with pytest.raises(MetricError):
        cpi.load_imbalance("walltime")
    with pytest.raises(GladeError, match="top"):
        cpi.load_imbalance("time", top=0)
    with pytest.raises(GladeError, match="threshold"):
        cpi.load_imbalance("time", threshold=-1)


# ---------------------------------------------------------------------- to_dict
def test_to_dict_is_hatchets_export():
    gf = GraphFrame.from_lists(["a", ["b", "d"], "c"])
    doc = gf.to_dict()
    assert doc["graph"] == [
        {
            0: {"data": {"name": "a"}, "children": [1, 3]},
            1: {"data": {"name": "b"}, "children": [2]},
            2: {"data": {"name": "d"}, "children": []},
            3: {"data": {"name": "c"}, "children": []},
        }
    ]
    assert doc["dataframe_indices"] == ["node"]
    assert doc["dataframe"][1] == {"node": 1, "time (inc)": 2.0, "time": 1.0, "name": "b"}
    assert doc["exclusive_metrics"] == ["time"] and doc["inclusive_metrics"] == ["time (inc)"]


@pytest.mark.parametrize("which", ["cpi", "callgrind"])
def test_to_dict_round_trips_through_json(which, cpi, callgrind):
    gf = {"cpi": cpi, "callgrind": callgrind}[which]
    back = GraphFrame.from_json(json.dumps(gf.to_dict()))
    assert len(back.graph) == len(gf.graph)
    assert [n.path() for n in back.graph.nodes()] == [n.path() for n in gf.graph.nodes()]
    src, dst = back.graph.edges()
    assert sorted(zip(src.tolist(), dst.tolist(), strict=True)) == sorted(
        zip(*(e.tolist() for e in gf.graph.edges()), strict=True)
    )
    for metric in gf.exc_metrics + gf.inc_metrics:
        np.testing.assert_allclose(
            back.dataframe[metric].to_numpy(dtype=float), gf.dataframe[metric].to_numpy(dtype=float)
        )
    assert back.dataframe.index.names == gf.dataframe.index.names
