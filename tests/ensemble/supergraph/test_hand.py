"""The supergraph of the small hand-made ensemble (tests/ensemble/supergraph/small.py), every
value computed by hand.

By module, profile a: app = {main, solve, callback}, mpi = {MPI_Send, progress, MPI_Recv,
MPI_Init}, lib = {helper}. Top entries: app main (callback has main above it: a
re-entry), mpi MPI_Send, MPI_Recv, MPI_Init, lib helper. So inclusive app = 15, mpi = 4 + 3
+ 4 = 11, lib = 4; exclusive app = 1 + 2 + 1 = 4, mpi = 3 + 1 + 2 + 4 = 10, lib = 1; edges
app -> mpi = MPI_Send + MPI_Init = 8, app -> lib = 4, lib -> mpi = 3, and the re-entry
mpi -> app = callback = 1. Profile b: app 15 (exclusive 3), mpi 6 + 6 = 12 (exclusive
12), lib 0; app -> mpi = 12, every other edge 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glade.errors import GladeError, MetricError, QueryError
from glade.profile import GraphFrame
from tests.ensemble.supergraph.small import profile_a, small_ensemble


@pytest.fixture
def ens():
    return small_ensemble()


def edge_table(sg) -> dict:
    return {(row.source, row.target, row.reentry): row.value_mean for row in sg.edges.itertuples()}


def members(ens, sg, supernode: str) -> set[str]:
    return {node.name for node in (ens.graph.node(int(i)) for i in sg.members(supernode))}


def matched(ens, query) -> set[str]:
    return {node.name for node in ens.match(query)}


def test_values_by_module(ens):
    sg = ens.supergraph(by="module", metric="time (inc)")
    assert sg.supernodes == ["app", "mpi", "lib"]
    assert sg.profiles == ["a", "b"]
    np.testing.assert_array_equal(sg.values("inclusive"), [[15, 15], [11, 12], [4, 0]])
    np.testing.assert_array_equal(sg.values("exclusive"), [[4, 3], [10, 12], [1, 0]])
    np.testing.assert_array_equal(sg.values("time"), sg.values("exclusive"))
    nodes = sg.nodes
    assert nodes["inclusive_mean"].tolist() == [15.0, 11.5, 2.0]
    assert nodes["exclusive_mean"].tolist() == [3.5, 11.0, 0.5]
    assert nodes["root_mean"].tolist() == [15.0, 0.0, 0.0]
    assert nodes["nodes"].tolist() == [3, 4, 1]
    assert nodes["entries"].tolist() == [2, 3, 1]
    # two profiles: quartiles interpolate, std has divisor n - 1
    assert nodes.loc[
        "mpi",
        ["inclusive_min", "inclusive_q1", "inclusive_median", "inclusive_q3", "inclusive_max"],
    ].tolist() == [11.0, 11.25, 11.5, 11.75, 12.0]
    assert nodes.loc["mpi", "inclusive_std"] == pytest.approx(np.sqrt(0.5))
    assert nodes.loc["lib", "inclusive_std"] == pytest.approx(np.sqrt(8.0))
    assert edge_table(sg) == {
        ("app", "mpi", False): 10.0,
        ("app", "lib", False): 2.0,
        ("mpi", "app", True): 0.5,
        ("lib", "mpi", False): 1.5,
    }
    np.testing.assert_array_equal(sg.edge_values(), [[8, 12], [4, 0], [1, 0], [3, 0]])
    np.testing.assert_array_equal(sg.total, [15, 15])
    assert np.isnan(nodes["inclusive_imbalance"]).all()


def test_levels_and_entries(ens):
    sg = ens.supergraph()
    assert sg.nodes["level"].to_dict() == {"app": 0, "lib": 1, "mpi": 2}
    entries = sg.entries.set_index("name")
    assert entries.loc["callback", "supernode"] == "app"
    assert not entries.loc["callback", "top"]
    assert entries.loc["callback", "caller"] == "mpi"
    assert pd.isna(entries.loc["main", "caller"])
    assert entries.loc["MPI_Recv", "inclusive_mean"] == 1.5
    assert set(entries.index) == {"main", "callback", "MPI_Send", "MPI_Recv", "MPI_Init", "helper"}
    # the re-entry mpi -> app goes back from level 2 to level 0: drawn as a loop
    loops = sg.layout.loop
    assert sg.edges["reentry"].tolist() == loops.tolist() == [False, False, True, False]


def test_by_name_is_the_call_tree(ens):
    sg = ens.supergraph(by="name")
    assert sg.supernodes == [
        "main",
        "solve",
        "MPI_Send",
        "progress",
        "helper",
        "MPI_Recv",
        "callback",
        "MPI_Init",
    ]
    np.testing.assert_array_equal(sg.values("inclusive")[:, 0], [15, 10, 4, 1, 4, 3, 1, 4])
    assert len(sg.edges) == 7 and not sg.edges["reentry"].any()


def test_target_and_outliers(ens):
    sg = ens.supergraph(target="b")
    assert sg.target == "b"
    assert sg.nodes["inclusive_target"].tolist() == [15.0, 12.0, 0.0]
    assert sg.edges["value_target"].tolist() == [12.0, 0.0, 0.0, 0.0]
    other = sg.with_target("a")
    assert other.nodes["inclusive_target"].tolist() == [15.0, 11.0, 4.0]
    assert sg.nodes["inclusive_target"].tolist() == [15.0, 12.0, 0.0]
    assert other.with_target(None).target is None
    assert sg.outliers.empty and sg.edge_outliers.empty
    with pytest.raises(GladeError, match="no profile 'c'"):
        ens.supergraph(target="c")


def test_histograms_share_edges(ens):
    sg = ens.supergraph(bins=4)
    counts, edges = sg.histograms()
    np.testing.assert_array_equal(counts, [[0, 0, 2, 0], [1, 0, 0, 1], [1, 0, 0, 1]])
    np.testing.assert_array_equal(edges[0], [14.5, 14.75, 15.0, 15.25, 15.5])
    np.testing.assert_array_equal(edges[1], [11.0, 11.25, 11.5, 11.75, 12.0])
    one, one_edges = sg.histogram("lib")
    np.testing.assert_array_equal(one, [1, 0, 0, 1])
    np.testing.assert_array_equal(one_edges, [0.0, 1.0, 2.0, 3.0, 4.0])


def test_split_by_entry(ens):
    sg = ens.supergraph().split("app", by="entry")
    assert sg.supernodes == ["app=main", "mpi", "lib", "app=callback"]
    np.testing.assert_array_equal(sg.values(), [[15, 15], [11, 12], [4, 0], [1, 0]])
    # callback is no longer a re-entry: it is its own supernode's top entry
    assert edge_table(sg) == {
        ("app=main", "mpi", False): 10.0,
        ("app=main", "lib", False): 2.0,
        ("mpi", "app=callback", False): 0.5,
        ("lib", "mpi", False): 1.5,
    }
    assert sg.nodes["kind"].tolist() == ["split", "group", "group", "split"]
    np.testing.assert_array_equal(sg.total, [15, 15])
    assert sg.recipe() == (
        ".supergraph(by='module', metric='time (inc)', rank_agg='mean').split('app', by='entry')"
    )


def test_split_by_callee(ens):
    sg = ens.supergraph().split("app", by="callee")
    assert sg.supernodes == ["app", "mpi=MPI_Send", "lib=helper", "mpi", "mpi=MPI_Init"]
    np.testing.assert_array_equal(sg.values(), [[15, 15], [4, 6], [4, 0], [3, 0], [4, 6]])
    assert edge_table(sg)[("lib=helper", "mpi", False)] == 1.5
    assert edge_table(sg)[("mpi", "app", True)] == 0.5
    with pytest.raises(GladeError, match="calls no other supernode"):
        sg.split("mpi=MPI_Init", by="callee")


def test_split_queries_select_their_nodes(ens):
    sg = ens.supergraph().split("app", by="callee").split("app", by="entry")
    expected = {
        "app=main": {"main", "solve"},
        "app=callback": {"callback"},
        "mpi=MPI_Send": {"MPI_Send", "progress"},
        "mpi=MPI_Init": {"MPI_Init"},
        "mpi": {"MPI_Recv"},
        "lib=helper": {"helper"},
    }
    assert set(sg.supernodes) == set(expected)
    for supernode, names in expected.items():
        assert members(ens, sg, supernode) == names
        assert matched(ens, sg.query_of(supernode)) == names, supernode
    assert str(sg.query_of("mpi=MPI_Send")) == (
        '{MATCH (".", n0)->(".", n1)->("*", n2) WHERE n0.module = "app" AND n1.module = '
        '"mpi" AND n1.name = "MPI_Send" AND n2.module = "mpi"} AND '
        '{MATCH (".", n0) WHERE n0.module = "mpi"}'
    )
    # what a focus keeps: callers, the runs and everything below them
    assert matched(ens, sg.query_of("mpi", flow=True)) == {
        "main",
        "solve",
        "helper",
        "MPI_Recv",
        "callback",
    }
    assert matched(ens, sg.query_of("app=callback", flow=True)) == {
        "main",
        "solve",
        "helper",
        "MPI_Recv",
        "callback",
    }


def test_module_query(ens):
    sg = ens.supergraph()
    assert str(sg.query_of("mpi")) == 'MATCH (".", n0) WHERE n0.module = "mpi"'
    assert str(sg.query_of("lib", flow=True)) == (
        'MATCH ("*")->(".", n1)->("*") WHERE n1.module = "lib"'
    )
    assert matched(ens, sg.query_of("lib", flow=True)) == {
        "main",
        "solve",
        "helper",
        "MPI_Recv",
        "callback",
    }


def test_threshold_collects_small_supernodes(ens):
    sg = ens.supergraph()
    # 20% of the mean total (15) is 3: lib (mean 2) goes to the "other" of its level 1
    small = sg.threshold(0.2)
    assert small.supernodes == ["app", "mpi", "other (level 1)"]
    np.testing.assert_array_equal(small.values(), [[15, 15], [11, 12], [4, 0]])
    assert small.nodes["kind"].tolist() == ["group", "group", "other"]
    assert matched(ens, small.query_of("other (level 1)")) == {"helper"}
    assert sg.threshold(0.0).supernodes == sg.supernodes
    np.testing.assert_array_equal(sg.threshold(1.0).total, [15, 15])
    with pytest.raises(GladeError, match="fraction"):
        sg.threshold(1.5)


def test_diff_of_profiles_and_groups(ens):
    sg = ens.supergraph()
    diff = sg.diff("a", "b")
    assert diff["difference"].tolist() == [0.0, 1.0, -4.0]
    assert diff["ratio"].tolist()[:2] == [1.0, 12 / 11] and diff["ratio"].iloc[2] == 0.0
    assert diff["welch_p"].isna().all()  # one profile per side
    by_metadata = sg.diff({"run": 1}, {"run": 2}, which="exclusive")
    assert by_metadata["difference"].tolist() == [-1.0, 2.0, -1.0]
    with pytest.raises(GladeError, match="group b holds no profile"):
        sg.diff("a", {"run": 3})


def test_mapping_and_equivalent_function_agree(ens):
    mapping = {"MPI_.*": "MPI", "solve|helper": "numerics"}

    def by(frame: dict) -> str | None:
        if frame["name"].startswith("MPI_"):
            return "MPI"
        return "numerics" if frame["name"] in ("solve", "helper") else None

    from_mapping = ens.supergraph(by=mapping)
    from_function = ens.supergraph(by=by)
    assert (
        from_mapping.supernodes
        == from_function.supernodes
        == ["main", "numerics", "MPI", "progress", "callback"]
    )
    pd.testing.assert_frame_equal(from_mapping.nodes, from_function.nodes)
    pd.testing.assert_frame_equal(from_mapping.edges, from_function.edges)
    assert from_mapping.layout.digest() == from_function.layout.digest()
    assert str(from_mapping.query_of("numerics")) == (
        'MATCH (".", n0) WHERE n0.name =~ "solve|helper"'
    )
    for supernode in from_mapping.supernodes:
        names = members(ens, from_mapping, supernode)
        assert matched(ens, from_mapping.query_of(supernode)) == names
        assert matched(ens, from_function.query_of(supernode)) == names
        assert matched(ens, from_function.query_of(supernode, flow=True)) == matched(
            ens, from_mapping.query_of(supernode, flow=True)
        )


def test_earlier_rules_win(ens):
    sg = ens.supergraph(by={"MPI_Send": "send", "MPI_.*": "MPI"})
    assert members(ens, sg, "MPI") == {"MPI_Recv", "MPI_Init"}
    assert str(sg.query_of("MPI")) == (
        'MATCH (".", n0) WHERE n0.name =~ "MPI_.*" AND NOT n0.name =~ "MPI_Send"'
    )
    assert matched(ens, sg.query_of("MPI")) == {"MPI_Recv", "MPI_Init"}


def test_graphframe_is_an_ensemble_of_one():
    gf = GraphFrame.from_literal(profile_a())
    sg = gf.supergraph(metric="time")
    np.testing.assert_array_equal(sg.values(), [[15], [11], [4]])
    assert sg.metric == "time (inc)"
    assert np.isnan(sg.nodes["inclusive_std"]).all()


def test_bad_input(ens):
    with pytest.raises(GladeError, match="by must be"):
        ens.supergraph(by="file")
    with pytest.raises(QueryError, match="invalid regular expression"):
        ens.supergraph(by={"MPI_(": "MPI"})
    with pytest.raises(GladeError, match="the by function raised KeyError"):
        ens.supergraph(by=lambda frame: frame["file"])
    with pytest.raises(MetricError, match="no additive metric named 'flops'"):
        ens.supergraph(metric="flops")
    with pytest.raises(GladeError, match="rank_agg"):
        ens.supergraph(rank_agg="median")
    with pytest.raises(GladeError, match="no supernode 'io'"):
        ens.supergraph().split("io")
    with pytest.raises(GladeError, match="split by 'entry' or 'callee'"):
        ens.supergraph().split("app", by="caller")
    with pytest.raises(GladeError, match="bins"):
        ens.supergraph(bins=0)
    no_module = GraphFrame.from_literal([{"frame": {"name": "main"}, "metrics": {"time": 1.0}}])
    with pytest.raises(MetricError, match="frame attribute"):
        no_module.supergraph()


def test_call_graphs_are_refused(hatchet_data):
    import glade

    gf = glade.read(hatchet_data / "gprof2dot-cpi" / "callgrind.dot.64042.0.1")
    with pytest.raises(GladeError, match="calling-context tree"):
        gf.supergraph(by="name")
