"""The statistics Thicket users know that glade.stats adds: sum, confidence intervals,
scores and a preference between two sides, and temporal patterns. Checked against
values computed by hand on tiny ensembles, against numpy and scipy on every RAJAPerf
node, and against brute-force oracles on random ensembles; and they stay fresh."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

import glade.stats as gs
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.errors import GladeError, MetricError
from tests.ensemble.oracles import (
    METRIC,
    ensemble_values,
    samples_by_path,
    stats_by_path,
)
from tests.ensemble.tiny import tiny_ensemble
from tests.hypothesis_budget import examples

# kernel (node 2) gets [1, 2] in group a and [3, 5] in group b
SIDES = tiny_ensemble(
    [[0, 0, 1, 1], [0, 0, 2, 1], [0, 0, 3, 1], [0, 0, 5, 1]],
    [{"compiler": "gcc"}, {"compiler": "gcc"}, {"compiler": "clang"}, {"compiler": "clang"}],
)
A, B = {"compiler": "gcc"}, {"compiler": "clang"}


@pytest.fixture
def sides() -> Ensemble:
    return SIDES.copy()


def test_sum_by_hand():
    ens = tiny_ensemble([[1, 2, 3, 4], [5, 6, 7, 8], [0.5, 0, 0, 1]])
    gs.sum(ens, "time")
    assert ens.stats["time_sum"].tolist() == [6.5, 8.0, 10.0, 13.0]
    assert gs.sum is gs.total


def test_confidence_interval_by_hand():
    ens = tiny_ensemble([[1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0], [4, 0, 0, 0]])
    gs.confidence_interval(ens, "time")
    # mean 2.5, s = sqrt(5/3), n = 4, t(0.975, 3) = 3.182446305
    assert ens.stats["time_ci95_low"][0] == pytest.approx(0.4457397, abs=1e-6)
    assert ens.stats["time_ci95_high"][0] == pytest.approx(4.5542603, abs=1e-6)
    gs.confidence_interval(ens, "time", level=0.9, distribution="normal")
    # z(0.95) = 1.644854
    assert ens.stats["time_ci90_low"][0] == pytest.approx(2.5 - 1.0617485, abs=1e-6)
    assert ens.stats["time_ci90_high"][0] == pytest.approx(2.5 + 1.0617485, abs=1e-6)
    # every profile has 0 at solve: no spread, an empty interval around 0
    assert ens.stats["time_ci95_low"][1] == ens.stats["time_ci95_high"][1] == 0


def test_confidence_interval_matches_scipy_on_rajaperf(rajaperf):
    gs.confidence_interval(rajaperf, METRIC, level=0.99)
    values = samples_by_path(ensemble_values(rajaperf, METRIC))
    low = stats_by_path(rajaperf, f"{METRIC}_ci99_low")
    high = stats_by_path(rajaperf, f"{METRIC}_ci99_high")
    checked = 0
    for path, sample in values.items():
        if len(sample) < 2:
            assert np.isnan(low[path])
            continue
        if np.ptp(sample) == 0:
            continue
        expected = st.t.interval(0.99, len(sample) - 1, loc=sample.mean(), scale=st.sem(sample))
        assert low[path] == pytest.approx(expected[0], rel=1e-9)
        assert high[path] == pytest.approx(expected[1], rel=1e-9)
        checked += 1
    assert checked > 50


def test_scores_by_hand(sides):
    gs.score_delta_mean_delta_stdnorm(sides, "time", A, B)
    gs.score_delta_mean_delta_coefficient_of_variation(sides, "time", A, B)
    gs.score_bhattacharyya(sides, "time", A, B)
    gs.score_hellinger(sides, "time", A, B)
    gs.bhattacharyya(sides, "time", A, B)
    gs.hellinger(sides, "time", A, B)
    row = sides.stats.loc[2]
    # a: [1, 2] mean 1.5 var 0.5; b: [3, 5] mean 4 var 2
    s1, s2 = np.sqrt(0.5), np.sqrt(2.0)
    assert row["time_delta_stdnorm"] == pytest.approx(-2.5 + (s1 - s2) / 2.5)
    assert row["time_delta_cv"] == pytest.approx(-2.5 + s1 / 1.5 - s2 / 4)
    distance = 0.25 * np.log(0.25 * (0.25 + 4 + 2)) + 0.25 * 6.25 / 2.5
    assert row["time_bhattacharyya"] == pytest.approx(distance)
    assert row["time_score_bhattacharyya"] == pytest.approx(-distance)
    hellinger = np.sqrt(1 - np.sqrt(0.8) * np.exp(-0.625))
    assert row["time_hellinger"] == pytest.approx(hellinger)
    assert row["time_score_hellinger"] == pytest.approx(-hellinger)
    # io is 1 everywhere: no spread on either side
    assert np.isnan(sides.stats.loc[3, "time_delta_stdnorm"])
    # the sign follows the sides: b against a is positive
    gs.score_bhattacharyya(sides, "time", B, A, name="b_vs_a")
    assert sides.stats.loc[2, "time_b_vs_a"] == pytest.approx(distance)


def test_preference_by_hand_and_scipy(sides):
    gs.preference(sides, "time", A, B)
    welch = st.ttest_ind([1, 2], [3, 5], equal_var=False)
    assert sides.stats.loc[2, "time_preferred_p"] == pytest.approx(welch.pvalue)
    assert welch.pvalue > 0.05
    assert sides.stats.loc[2, "time_preferred"] == "none"
    gs.preference(sides, "time", A, B, alpha=0.3)
    assert sides.stats.loc[2, "time_preferred"] == "gcc"
    gs.preference(sides, "time", A, B, alpha=0.3, prefer="higher", labels=["x", "y"])
    assert sides.stats.loc[2, "time_preferred"] == "y"
    # fewer than 2 samples or no spread: no test, no preference
    assert sides.stats.loc[3, "time_preferred"] == "none"
    assert np.isnan(sides.stats.loc[3, "time_preferred_p"])


def test_two_metric_sides_of_a_columnar_ensemble(sides):
    gcc = sides.filter_metadata(lambda row: row["compiler"] == "gcc")
    clang = sides.filter_metadata(lambda row: row["compiler"] == "clang")
    for ens, run in ((gcc, [0, 1]), (clang, [0, 1])):
        ens.metadata["run"] = run
    joined = Ensemble.concat([gcc, clang], axis="columns", key="compiler", on="run")
    pair = [("gcc", "time"), ("clang", "time")]
    gs.score_bhattacharyya(joined, pair)
    gs.preference(joined, pair, alpha=0.3)
    gs.welch_ttest(joined, pair)
    column = ("gcc", "time_vs_clang/time_score_bhattacharyya")
    distance = 0.25 * np.log(0.25 * (0.25 + 4 + 2)) + 0.25 * 6.25 / 2.5
    kernel = joined.get_node("kernel").nid
    assert joined.stats.loc[kernel, column] == pytest.approx(-distance)
    assert joined.stats.loc[kernel, ("gcc", "time_vs_clang/time_preferred")] == "gcc/time"
    assert joined.stats.loc[kernel, ("gcc", "time_vs_clang/time_welch_t")] == pytest.approx(
        st.ttest_ind([1, 2], [3, 5], equal_var=False).statistic
    )


def test_temporal_pattern_by_hand():
    ens = tiny_ensemble(
        [[5, 1, 0, 1], [5, 2, 0, 1], [5, 3, 0, 1], [5, 4, 10, 1]],
        [{"iteration": i} for i in range(4)],
        labels=[0, 1, 2, 3],
    )
    gs.calc_temporal_pattern(ens, "time")
    stats = ens.stats
    assert stats["time_temporal_score"].tolist()[:3] == pytest.approx([0, 0.375, 0.75])
    assert stats["time_pattern"].tolist() == ["constant", "phased", "sporadic", "constant"]
    zero = tiny_ensemble([[1, 0, 0, 0], [2, 0, 0, 0]])
    gs.temporal_pattern(zero, "time")
    assert zero.stats["time_pattern"].tolist()[1:] == ["none"] * 3
    assert np.isnan(zero.stats["time_temporal_score"][1])


def test_new_stats_stay_fresh_after_operations(sides):
    gs.preference(sides, "time", A, B, alpha=0.3)
    gs.confidence_interval(sides, "time")
    gs.score_hellinger(sides, "time", A, B)
    smaller = sides.filter_profiles(["p0", "p1", "p2"])
    fresh = SIDES.copy().filter_profiles(["p0", "p1", "p2"])
    gs.preference(fresh, "time", A, B, alpha=0.3)
    gs.confidence_interval(fresh, "time")
    gs.score_hellinger(fresh, "time", A, B)
    pd.testing.assert_frame_equal(smaller.stats, fresh.stats)
    assert smaller.stats.loc[2, "time_preferred"] == "none"  # one clang sample left


@settings(max_examples=examples(10), deadline=None)
@given(count=hs.integers(4, 9), nodes=hs.integers(20, 80), seed=hs.integers(0, 10_000))
def test_scores_match_brute_force(count, nodes, seed):
    ens = Ensemble.from_graphframes(synthetic_ensemble(count, nodes, seed=seed, noise=0.3))
    a, b = ens.profiles[: count // 2], ens.profiles[count // 2 :]
    gs.score_delta_mean_delta_stdnorm(ens, "time", a, b)
    gs.score_delta_mean_delta_coefficient_of_variation(ens, "time", a, b)
    gs.sum(ens, "time")
    values = ensemble_values(ens, "time")
    stdnorm = stats_by_path(ens, "time_delta_stdnorm")
    cv = stats_by_path(ens, "time_delta_cv")
    total = stats_by_path(ens, "time_sum")
    by_path: dict[tuple, tuple[list, list]] = {}
    for (path, profile), value in values.items():
        by_path.setdefault(path, ([], []))[0 if profile in a else 1].append(value)
    for path, (x, y) in by_path.items():
        x, y = np.array(x), np.array(y)
        assert total[path] == pytest.approx(x.sum() + y.sum())
        if len(x) < 2 or len(y) < 2:
            continue
        m1, m2, s1, s2 = x.mean(), y.mean(), x.std(ddof=1), y.std(ddof=1)
        assert stdnorm[path] == pytest.approx(m1 - m2 + (s1 - s2) / abs(m1 - m2))
        assert cv[path] == pytest.approx(m1 - m2 + s1 / m1 - s2 / m2)


def test_errors(sides):
    with pytest.raises(GladeError, match="two groups of profiles"):
        gs.score_bhattacharyya(sides, "time")
    with pytest.raises(GladeError, match="needs two of them"):
        gs.preference(sides, ["time", "time", "time"])
    with pytest.raises(GladeError, match="both groups"):
        gs.preference(sides, ["time", "time (inc)"], A)
    with pytest.raises(MetricError, match="walltime"):
        gs.score_hellinger(sides, ["time", "walltime"])
    with pytest.raises(GladeError, match="alpha"):
        gs.preference(sides, "time", A, B, alpha=1.5)
    with pytest.raises(GladeError, match="prefer"):
        gs.preference(sides, "time", A, B, prefer="faster")
    with pytest.raises(GladeError, match="labels"):
        gs.preference(sides, "time", A, B, labels=["same", "same"])
    with pytest.raises(GladeError, match="labels"):
        gs.preference(sides, "time", A, B, labels=["none", "b"])
    with pytest.raises(GladeError, match="level"):
        gs.confidence_interval(sides, "time", level=95)
    with pytest.raises(GladeError, match="distribution"):
        gs.confidence_interval(sides, "time", distribution="z")
    with pytest.raises(MetricError):
        gs.temporal_pattern(sides, "walltime")
    assert sides.stats_recipes == []
