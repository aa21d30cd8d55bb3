"""Thicket's ensemble conveniences in glade: get_node, groupby(...).agg(...), arithmetic
between ensembles, moving values between data and stats, and ensembles built from
stats tables. Hand-computed values on tiny ensembles, the HPCToolkit cpi profile
(with ranks) and brute-force oracles on random ensembles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import glade
import glade.stats as gs
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.ensemble.groupby import GroupBy
from glade.errors import GladeError, MetricError
from glade.graph import Node
from tests.ensemble.oracles import ensemble_values
from tests.ensemble.tiny import tiny_ensemble, tiny_profile
from tests.hypothesis_budget import examples

COMPILERS = [
    {"compiler": "gcc", "size": 1},
    {"compiler": "gcc", "size": 2},
    {"compiler": "clang", "size": 1},
    {"compiler": "clang", "size": 2},
]
TIMES = [[1, 2, 3, 4], [2, 2, 5, 4], [3, 1, 7, 6], [5, 1, 9, 2]]


@pytest.fixture
def four() -> Ensemble:
    return tiny_ensemble(TIMES, COMPILERS)


@pytest.fixture(scope="module")
def cpi(hatchet_data) -> glade.GraphFrame:
    return glade.read(hatchet_data / "hpctoolkit-cpi-database")


def values(ens: Ensemble, metric: str = "time") -> dict:
    """(node name, profile) -> value."""
    names = ens.graph.frames["name"].to_numpy()
    return {
        (names[node], profile): value
        for (node, profile, *_), value in ens.dataframe[metric].dropna().items()
    }


# ------------------------------------------------------------------ get_node
def test_get_node():
    gf = glade.GraphFrame.from_lists(["main", ["a", "x"], ["b", "x"]])
    ens = Ensemble.from_graphframes([gf, gf.copy()], labels=["r1", "r2"])
    assert ens.get_node("a") == Node(ens.graph, 1)
    assert ens.get_node("x") == Node(ens.graph, 2)
    assert ens.get_node("x", which="last") == Node(ens.graph, 4)
    assert [n.path() for n in ens.get_node("x", which="all")] == [
        ("main", "a", "x"),
        ("main", "b", "x"),
    ]
    with pytest.raises(KeyError, match="no node named 'y'"):
        ens.get_node("y")
    with pytest.raises(GladeError, match="which"):
        ens.get_node("x", which="middle")


# ------------------------------------------------------------------- groupby
def test_groupby_is_still_a_dict_and_aggregates(four):
    groups = four.groupby("compiler")
    assert isinstance(groups, GroupBy) and isinstance(groups, dict)
    assert list(groups) == ["clang", "gcc"] and groups.by == ["compiler"]
    assert groups["gcc"].num_profiles == 2
    agg = groups.agg("mean")
    assert agg.profiles == ["clang", "gcc"]
    assert values(agg, "time_mean") == {
        ("main", "clang"): 4.0,
        ("solve", "clang"): 1.0,
        ("kernel", "clang"): 8.0,
        ("io", "clang"): 4.0,
        ("main", "gcc"): 1.5,
        ("solve", "gcc"): 2.0,
        ("kernel", "gcc"): 4.0,
        ("io", "gcc"): 4.0,
    }
    assert agg.exc_metrics == ["time_mean"] and agg.inc_metrics == ["time_mean (inc)"]
    # inclusive of the means is the mean of the inclusive values: main of gcc
    assert values(agg, "time_mean (inc)")[("main", "gcc")] == (10 + 13) / 2
    assert agg.metadata.loc["gcc", "profiles"] == 2
    assert agg.metadata.loc["gcc", "compiler"] == "gcc"
    assert np.isnan(agg.metadata.loc["gcc", "size"])  # 1 and 2 in the group
    several = groups.agg(["max", "std"])
    assert values(several, "time_max")[("kernel", "clang")] == 9.0
    assert values(several, "time_std")[("kernel", "clang")] == pytest.approx(np.sqrt(2))
    assert several.exc_metrics == [] and several.inc_metrics == []
    assert set(several.metric_columns) == {
        "time_max (inc)",
        "time_max",
        "time_std (inc)",
        "time_std",
    }


def test_groupby_several_columns_and_a_dropped_group(four):
    groups = four.groupby(["compiler", "size"])
    assert list(groups) == [("clang", 1), ("clang", 2), ("gcc", 1), ("gcc", 2)]
    del groups[("gcc", 2)]
    agg = groups.agg("sum")
    assert agg.profiles == ["clang, 1", "clang, 2", "gcc, 1"]
    assert values(agg, "time_sum")[("kernel", "clang, 2")] == 9.0
    assert agg.metadata.loc["clang, 2", "size"] == 2


def test_groupby_agg_keeps_ranks(cpi):
    ens = Ensemble.from_graphframes(
        [cpi, cpi.copy(), cpi.copy()],
        labels=["a", "b", "c"],
        metadata=[{"k": 1}, {"k": 1}, {"k": 2}],
    )
    agg = ens.groupby("k").agg(["mean", "sum", "count"])
    assert agg.dataframe.index.names == ["node", "profile", "rank"]
    one = agg.dataframe.xs(1, level="profile")
    # one sample per call path: cpi's nodes that share a call path are merged (summed)
    alone = Ensemble.from_graphframes([cpi], labels=["a"]).dataframe.xs("a", level="profile")
    original = alone.loc[one.index]
    np.testing.assert_allclose(one["time_mean"], original["time"])
    np.testing.assert_allclose(one["time_sum"], 2 * original["time"])
    assert (one["time_count"] == 2).all()


# ---------------------------------------------------------------- arithmetic
def test_arithmetic_by_profile_id(four):
    doubled = tiny_ensemble([[2 * t for t in row] for row in TIMES], COMPILERS)
    diff = doubled - four
    assert values(diff) == values(four)
    assert values(diff, "time (inc)") == values(four, "time (inc)")
    ratio = doubled / four
    assert set(values(ratio).values()) == {2.0}
    assert values(four + four) == values(doubled)
    assert values(four * four)[("kernel", "p3")] == 81.0
    with pytest.raises(TypeError):
        _ = four * 2


def test_arithmetic_on_metadata_and_missing_sides():
    big = tiny_ensemble(
        [[1, 1, 10, 1], [1, 1, 20, 1], [1, 1, 30, 1]],
        [{"size": 1}, {"size": 2}, {"size": 3}],
        labels=["b1", "b2", "b3"],
    )
    other = glade.GraphFrame.from_lists(["main", ["solve", "kernel"], "extra"])
    small = Ensemble.from_graphframes(
        [tiny_profile([1, 1, 4, 1], {"size": 2}), other],
        labels=["s2", "s4"],
        metadata=[{}, {"size": 4}],
    )
    diff = big.sub(small, on="size")
    assert diff.profiles == [2]  # sizes 1 and 3 and 4 are on one side only
    assert values(diff)[("kernel", 2)] == 16.0
    assert ("io", 2) in values(diff) and not any(name == "extra" for name, _ in values(diff))
    assert diff.metadata.loc[2, "size"] == 2
    with pytest.raises(GladeError, match="no profile is in both"):
        big - small
    with pytest.raises(GladeError, match="columnar"):
        Ensemble.concat([big, big], axis="columns") - big


@settings(max_examples=examples(8), deadline=None)
@given(count=hs.integers(1, 6), nodes=hs.integers(10, 60), seed=hs.integers(0, 1000))
def test_difference_matches_brute_force(count, nodes, seed):
    a = Ensemble.from_graphframes(
        synthetic_ensemble(count, nodes, seed=seed), labels=list(range(count))
    )
    b = Ensemble.from_graphframes(
        synthetic_ensemble(count, nodes, seed=seed + 1), labels=list(range(count))
    )
    left, right = ensemble_values(a, "time"), ensemble_values(b, "time")
    got = ensemble_values(a - b, "time")
    expected = {key: left[key] - right[key] for key in left.keys() & right.keys()}
    assert got == pytest.approx(expected)


# ------------------------------------------------------- data <-> stats tables
def test_metrics_to_stats_and_back(four):
    four.metrics_to_stats("time", profile="p2")
    assert four.stats["time_p2"].tolist() == [3.0, 1.0, 7.0, 6.0]
    gs.mean(four, "time")
    four.stats_to_data("time_mean")
    assert values(four, "time_mean")[("kernel", "p0")] == 6.0
    smaller = four.filter_profiles(["p0", "p1"])
    assert smaller.stats["time_p2"].isna().all()  # the profile is gone
    assert values(smaller, "time_mean")[("kernel", "p1")] == 4.0  # recomputed
    single = four.filter_profiles(["p3"])
    single.metrics_to_stats(["time", "time (inc)"])
    assert single.stats["time (inc)_p3"][0] == 17.0
    with pytest.raises(GladeError, match="name the one"):
        four.metrics_to_stats("time")
    with pytest.raises(GladeError, match="no profile 'p9'"):
        four.metrics_to_stats("time", "p9")
    with pytest.raises(MetricError, match="stats column"):
        four.stats_to_data("time_median")


def test_from_stats(four):
    groups = four.groupby("compiler")
    for group in groups.values():
        gs.mean(group, "time")
        gs.std(group, "time")
    table = Ensemble.from_stats(list(groups.values()), key="compiler")
    assert table.profiles == ["clang", "gcc"]
    assert values(table, "time_mean") == values(groups.agg("mean"), "time_mean")
    assert values(table, "time_std")[("kernel", "gcc")] == pytest.approx(np.sqrt(2))
    assert table.metadata.loc["gcc", "profiles"] == 2
    numbered = Ensemble.from_stats(list(groups.values()))
    assert numbered.profiles == [0, 1]
    with pytest.raises(GladeError, match="no statistics"):
        Ensemble.from_stats([four])
    whole = four.copy()
    gs.mean(whole, "time")
    with pytest.raises(GladeError, match="a header needs one"):
        Ensemble.from_stats([groups["gcc"], whole], key="size")
