"""Results share nothing mutable with their inputs: every public operation of an
Ensemble runs on the 18 RAJAPerf profiles, its result is edited every way the API
allows, and the input must be exactly as it was (deep comparison). Adding a statistic
or a derived column changes an ensemble in place by design, so the input carries its
stats before the operation."""

from __future__ import annotations

import pytest

import glade.stats as gs
from glade.ensemble import Ensemble
from tests.ensemble.oracles import METRIC
from tests.isolation import assert_same, edit, snapshot

QUERY = 'MATCH (".", p)->("*") WHERE p.name =~ "Apps.*"'
GCC = "g++-10.3.1"

OPERATIONS = {
    "copy": lambda ens: ens.copy(),
    "query": lambda ens: ens.query(QUERY),
    "query fold": lambda ens: ens.query(QUERY, fold=True),
    "query without squash": lambda ens: ens.query(QUERY, squash=False),
    "query all profiles": lambda ens: ens.query(QUERY, profile_mode="all"),
    "intersection": lambda ens: ens.intersection(),
    "filter_stats": lambda ens: ens.filter_stats(lambda row: row[f"{METRIC}_mean"] > 0),
    "filter_stats without squash": lambda ens: ens.filter_stats(
        ens.stats[f"{METRIC}_mean"] > 0, squash=False
    ),
    "filter_profiles": lambda ens: ens.filter_profiles(ens.profiles[:3]),
    "filter_metadata": lambda ens: ens.filter_metadata(lambda row: row["compiler"] == GCC),
    "groupby": lambda ens: list(ens.groupby("compiler").values()),
    "concat": lambda ens: Ensemble.concat(list(ens.groupby("compiler").values())),
    "concat columns": lambda ens: Ensemble.concat(
        list(
            ens.filter_metadata(ens.metadata["ProblemSizeRunParam"] == 2097152.0)
            .groupby("tuning")
            .values()
        ),
        axis="columns",
        key="tuning",
        on="compiler",
    ),
    "stats": lambda ens: ens.stats,
    "outliers": lambda ens: ens.outliers,
    "to_graphframe": lambda ens: ens.to_graphframe(),
    "to_graphframe of a profile": lambda ens: ens.to_graphframe(ens.profiles[0]),
    "profile_values": lambda ens: ens.profile_values("compiler"),
    "match": lambda ens: list(ens.match(QUERY)),
    "samples": lambda ens: ens.samples().values(METRIC),
    "add": lambda ens: ens + ens,
    "div by metadata": lambda ens: ens.div(ens, on="path"),
    "groupby agg": lambda ens: ens.groupby("compiler").agg(["mean", "sum"]),
    "from_stats": lambda ens: Ensemble.from_stats(
        list(ens.groupby("compiler").values()), key="compiler"
    ),
    "get_node": lambda ens: ens.get_node(ens.graph.name_of(1)),
}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_editing_a_result_leaves_the_ensemble_unchanged(rajaperf, name):
    gs.mean(rajaperf, METRIC)
    gs.boxplot(rajaperf, METRIC)
    before = snapshot(rajaperf)
    result = OPERATIONS[name](rajaperf)
    edit(result)
    assert_same(before, snapshot(rajaperf))
