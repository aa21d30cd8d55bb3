"""Hatchet's and Thicket's spellings that glade accepts: each gives what glade's own
spelling gives, with a one-line SpellingWarning naming glade's spelling."""

from __future__ import annotations

import pytest

import glade
from glade import Ensemble, GraphFrame
from glade.datasets import synthetic_ensemble, synthetic_profile
from glade.errors import GladeError, SpellingWarning


@pytest.fixture
def ens():
    return Ensemble.from_graphframes(synthetic_ensemble(4, 30, seed=1))


def test_tree_metric_column_is_metric_with_a_note():
    gf = synthetic_profile(30, ranks=2, seed=1)
    with pytest.warns(SpellingWarning, match=r"glade's is tree\(metric=\.\.\.\)"):
        assert gf.tree(metric_column="time") == gf.tree(metric="time")


def test_tree_takes_a_list_on_graphframe_and_ensemble_alike(ens):
    gf = synthetic_profile(30, ranks=2, seed=1)
    lines = gf.tree(["time (inc)", "time"], depth=0).splitlines()
    root = gf.graph.root_ids[0]
    mean_exc = gf.dataframe.xs(root, level="node")["time"].mean()
    assert lines[0] == "time (inc) (mean over ranks)"
    assert gf.units["time"] == "us"  # the synthetic profile's times are in us
    assert lines[1].endswith(f"[time={mean_exc:.3f} us]")
    glade.stats.mean(ens, "time")
    glade.stats.std(ens, "time")
    assert ens.tree(metric=["time_mean", "time_std"]) == ens.tree(["time_mean", "time_std"])
    assert ens.tree(metrics="time_mean", depth=1) == ens.tree("time_mean", depth=1)
    with pytest.warns(SpellingWarning, match="Thicket"):
        assert ens.tree(metric_column="time_mean") == ens.tree("time_mean")
    with pytest.raises(GladeError, match="not several"):
        ens.tree("time_mean", metric_column="time_std")


def test_stats_columns_is_metrics_with_a_note(ens):
    with pytest.warns(SpellingWarning, match=r"glade.stats.mean\(ens, metrics=\.\.\.\)"):
        by_columns = glade.stats.mean(ens, columns=["time"])
    assert by_columns.equals(glade.stats.mean(ens, metrics=["time"]))
    with pytest.warns(SpellingWarning):
        glade.stats.std(ens, columns=["time"], ddof=0)
    assert ens.stats_recipes[-1].param("ddof") == 0


def test_from_caliperreader_reads_as_from_caliper(hatchet_data, thicket_data):
    cali = hatchet_data / "caliper-lulesh-cali" / "lulesh-annotation-profile.cali"
    with pytest.warns(SpellingWarning, match=r"GraphFrame\.from_caliper$"):
        gf = GraphFrame.from_caliperreader(str(cali))
    assert gf.dataframe.equals(GraphFrame.from_caliper(str(cali)).dataframe)
    files = sorted(str(p) for p in (thicket_data / "rajaperf").rglob("*.cali"))[:2]
    with pytest.warns(SpellingWarning, match=r"Ensemble\.from_files"):
        tk = Ensemble.from_caliperreader(files, workers=1, progress=False)
    assert tk.num_profiles == 2


def test_traverse_show_metric_columns_profile_and_mapping(ens):
    gf = synthetic_profile(30, seed=1)
    with pytest.warns(SpellingWarning, match=r"graph\.nodes\(\)"):
        assert list(gf.graph.traverse()) == list(gf.graph.nodes())
    with pytest.warns(SpellingWarning, match="gf.metric_columns"):
        assert gf.show_metric_columns() == gf.metric_columns
    with pytest.warns(SpellingWarning, match="ens.profiles"):
        assert ens.profile == ens.profiles
    with pytest.warns(SpellingWarning, match=r'ens\.metadata\["path"\]'):
        assert ens.profile_mapping == dict.fromkeys(ens.profiles)


def test_dataframe_loc_takes_a_node_as_hatchet_does(ens):
    gf = synthetic_profile(30, ranks=3, seed=1)
    node = gf.graph.roots[0].children[1]
    rows = gf.dataframe.loc[node]
    assert rows.equals(gf.dataframe.loc[node.nid]) and len(rows) == 3  # one row per rank
    assert gf.dataframe.loc[node, "time"].tolist() == gf.dataframe.loc[node.nid, "time"].tolist()
    both = gf.dataframe.loc[[gf.graph.roots[0], node]]
    assert sorted(set(both.index.get_level_values("node"))) == [0, node.nid]
    assert ens.dataframe.loc[ens.graph.roots[0]].equals(ens.dataframe.loc[0])
    other = synthetic_profile(30, ranks=3, seed=1).graph.node(node.nid)
    assert other != node and len({node, other}) == 2  # a handle is still its graph's
    assert bool(gf.graph.roots[0])  # node 0 is a node, not a false value
