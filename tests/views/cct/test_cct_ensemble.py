"""The CCT view of an Ensemble: its stats or one profile, with queries applying to the
whole ensemble."""

from __future__ import annotations

import numpy as np
import pytest

from glade import Ensemble, stats
from glade.datasets import synthetic_profile
from glade.views.base import python_string


@pytest.fixture
def ens():
    profiles = [
        synthetic_profile(150, seed=3),
        synthetic_profile(150, seed=3),
        synthetic_profile(120, seed=3),
    ]
    profiles[1].dataframe["time"] *= 2.0
    profiles[1] = profiles[1].update_inclusive_columns()
    return Ensemble.from_graphframes(profiles, labels=["a", "b", "c"])


def test_view_of_the_stats_applies_queries_to_the_ensemble(ens):
    stats.mean(ens, ["time (inc)"])
    view = ens.show(metric="time (inc)_mean")
    assert view.metric == "time (inc)_mean"
    # the root's child with the largest subtree, so the collapse removes nodes
    end = ens.graph.subtree_end
    child = max(ens.graph.roots[0].children, key=lambda c: end[c.nid] - c.nid)
    view.collapse(child.path())
    assert view.query != 'MATCH ("*")'
    applied = view.apply()
    assert isinstance(applied, Ensemble)
    expected = ens.query(view.query, fold=True)
    assert [n.path() for n in applied.graph.nodes()] == [n.path() for n in expected.graph.nodes()]
    below = {
        n.path()
        for n in ens.graph.nodes()
        if n.path()[: len(child.path())] == child.path() and n.path() != child.path()
    }
    kept = {n.path() for n in applied.graph.nodes()}
    assert below and child.path() in kept and not below & kept
    assert view.code() == f"ens.query({python_string(view.query)}, fold=True)"
    # fold=True: each profile's collapsed node keeps its inclusive time
    for label in ("a", "b"):
        before = ens.to_graphframe(label)
        after = applied.to_graphframe(label)
        old = before.dataframe.loc[child.nid, "time (inc)"]
        new_id = next(n.nid for n in after.graph.nodes() if n.path() == child.path())
        assert after.dataframe.loc[new_id, "time (inc)"] == pytest.approx(old)
    # the stats were recomputed on the new ensemble
    assert "time (inc)_mean" in applied.stats.columns


def test_view_of_one_profile_shows_every_node(ens):
    view = ens.show(profile="c")
    gf = view._gf
    assert len(gf.graph) == len(ens.graph)
    mine = ens.to_graphframe("c")
    present = np.unique(mine.dataframe.index.get_level_values("node"))
    missing = np.setdiff1d(np.arange(len(ens.graph)), present)
    assert missing.size > 0  # profile c is smaller than a and b
    assert (gf.dataframe.loc[missing, "time"] == 0).all()


def test_view_computes_means_when_there_are_no_stats(ens):
    view = ens.show()
    assert view.metric.endswith("_mean")
    assert ens.stats.columns.drop("name", errors="ignore").empty  # the ensemble is unchanged
