"""glade.stats against numpy and scipy: every statistic of every RAJAPerf node equals
the one computed from that node's raw per-profile values (read file by file and
matched by call path), plus random ensembles and every error."""

from __future__ import annotations

import warnings

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
    call_paths,
    ensemble_values,
    profile_values,
    samples_by_path,
    stats_by_path,
)
from tests.hypothesis_budget import examples


@pytest.fixture(scope="module")
def raw_samples(raw_profiles):
    """Call path -> the metric's value in every profile that has the node, computed
    from the files read one by one."""
    values = {}
    for path, gf in raw_profiles.items():
        values.update({(cp, str(path)): v for cp, v in profile_values(gf, METRIC).items()})
    return samples_by_path(values)


def close(a: float, b: float) -> bool:
    return (np.isnan(a) and np.isnan(b)) or bool(np.isclose(a, b, rtol=1e-10, atol=1e-14))


def check(ens, column, raw_samples, oracle):
    got = stats_by_path(ens, column)
    assert set(got) == set(raw_samples)
    for path, sample in raw_samples.items():
        assert close(got[path], oracle(sample)), (path, got[path], oracle(sample))


@pytest.mark.parametrize(
    ("function", "column", "oracle"),
    [
        (gs.count, "count", len),
        (gs.mean, "mean", np.mean),
        (gs.median, "median", np.median),
        (gs.minimum, "min", np.min),
        (gs.maximum, "max", np.max),
        (gs.std, "std", lambda x: np.std(x, ddof=1) if len(x) > 1 else np.nan),
        (gs.var, "var", lambda x: np.var(x, ddof=1) if len(x) > 1 else np.nan),
    ],
)
def test_simple_stats_match_numpy(rajaperf, raw_samples, function, column, oracle):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        function(rajaperf, METRIC)
        check(rajaperf, f"{METRIC}_{column}", raw_samples, oracle)


def test_ddof_is_explicit(rajaperf, raw_samples):
    gs.var(rajaperf, METRIC, ddof=0)
    check(rajaperf, f"{METRIC}_var", raw_samples, lambda x: np.var(x, ddof=0))
    assert rajaperf.stats_recipes[-1].describe() == "var(metrics=['Avg time/rank'], ddof=0)"
    gs.std(rajaperf, METRIC)
    assert "ddof=1" in rajaperf.stats_recipes[-1].describe()


def test_percentiles_match_numpy(rajaperf, raw_samples):
    gs.percentiles(rajaperf, METRIC, q=[0, 10, 25, 50, 90, 99.9, 100])
    for q in (0, 10, 25, 50, 90, 99.9, 100):
        check(rajaperf, f"{METRIC}_p{q:g}", raw_samples, lambda x, q=q: np.percentile(x, q))


def test_boxplot_and_outliers_match_numpy(rajaperf, raw_samples):
    gs.boxplot(rajaperf, METRIC, whis=1.5)
    q1 = lambda x: np.percentile(x, 25)  # noqa: E731
    q3 = lambda x: np.percentile(x, 75)  # noqa: E731
    check(rajaperf, f"{METRIC}_q1", raw_samples, q1)
    check(rajaperf, f"{METRIC}_q2", raw_samples, np.median)
    check(rajaperf, f"{METRIC}_iqr", raw_samples, lambda x: q3(x) - q1(x))
    check(rajaperf, f"{METRIC}_lower_fence", raw_samples, lambda x: q1(x) - 1.5 * (q3(x) - q1(x)))
    check(rajaperf, f"{METRIC}_upper_fence", raw_samples, lambda x: q3(x) + 1.5 * (q3(x) - q1(x)))

    def outside(x):
        low, high = q1(x) - 1.5 * (q3(x) - q1(x)), q3(x) + 1.5 * (q3(x) - q1(x))
        return x[(x < low) | (x > high)]

    check(rajaperf, f"{METRIC}_outliers", raw_samples, lambda x: len(outside(x)))
    # the outliers table lists exactly those samples, with their profiles' values
    values = ensemble_values(rajaperf, METRIC)
    paths = call_paths(rajaperf.graph)
    table = rajaperf.outliers
    assert list(table.columns) == ["node", "name", "profile", "metric", "value", "side"]
    listed = samples_by_path(
        {
            (paths[n], p): v
            for n, p, v in zip(table["node"], table["profile"], table["value"], strict=True)
        }
    )
    for path, sample in raw_samples.items():
        assert sorted(listed.get(path, [])) == sorted(outside(sample))
    for node, profile, value in zip(table["node"], table["profile"], table["value"], strict=True):
        assert values[(paths[node], profile)] == value
    assert set(table["side"]) <= {"low", "high"}


def test_normality_matches_scipy(rajaperf, raw_samples):
    gs.normality(rajaperf, METRIC, alpha=0.05)
    got_p = stats_by_path(rajaperf, f"{METRIC}_shapiro_p")
    got_w = stats_by_path(rajaperf, f"{METRIC}_shapiro_w")
    normal = stats_by_path(rajaperf, f"{METRIC}_normal")
    tested = 0
    for path, sample in raw_samples.items():
        if len(sample) < 3 or np.ptp(sample) == 0:
            assert np.isnan(got_p[path]) and pd.isna(normal[path])
            continue
        w, p = st.shapiro(sample)
        assert abs(got_w[path] - w) < 1e-6 and abs(got_p[path] - p) < 1e-6
        assert normal[path] == (p > 0.05)
        tested += 1
    assert tested > 50


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_correlation_matches_scipy(rajaperf, raw_profiles, method):
    other = "Max time/rank"
    gs.correlation(rajaperf, METRIC, other, method=method)
    got = stats_by_path(rajaperf, f"{METRIC}_vs_{other}_{method}")
    pairs: dict[tuple, list[tuple[float, float]]] = {}
    for gf in raw_profiles.values():
        a, b = profile_values(gf, METRIC), profile_values(gf, other)
        for path in a.keys() & b.keys():
            pairs.setdefault(path, []).append((a[path], b[path]))
    oracle = st.pearsonr if method == "pearson" else st.spearmanr
    for path, values in pairs.items():
        x, y = np.array(values).T
        if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
            assert np.isnan(got[path])
        else:
            assert abs(got[path] - oracle(x, y)[0]) < 1e-9


def test_group_comparisons_match_scipy_and_formulas(rajaperf, raw_profiles):
    small, large = 1048576.0, 2097152.0
    a = {"ProblemSizeRunParam": small}
    b = {"ProblemSizeRunParam": large}
    gs.welch_ttest(rajaperf, METRIC, a, b)
    gs.bhattacharyya(rajaperf, METRIC, a, b)
    gs.hellinger(rajaperf, METRIC, a, b, name="hell")
    groups: dict[float, dict[tuple, list[float]]] = {small: {}, large: {}}
    for gf in raw_profiles.values():
        size = gf.metadata["ProblemSizeRunParam"]
        for path, value in profile_values(gf, METRIC).items():
            groups[size].setdefault(path, []).append(value)
    t = stats_by_path(rajaperf, f"{METRIC}_welch_t")
    p = stats_by_path(rajaperf, f"{METRIC}_welch_p")
    bd = stats_by_path(rajaperf, f"{METRIC}_bhattacharyya")
    hd = stats_by_path(rajaperf, f"{METRIC}_hell")
    compared = 0
    for path in t:
        x, y = np.array(groups[small].get(path, [])), np.array(groups[large].get(path, []))
        if len(x) < 2 or len(y) < 2:
            assert np.isnan(t[path])
            continue
        expected = st.ttest_ind(x, y, equal_var=False)
        assert close(t[path], expected.statistic) and close(p[path], expected.pvalue)
        m1, m2, v1, v2 = x.mean(), y.mean(), x.var(ddof=1), y.var(ddof=1)
        b_expected = 0.25 * np.log(0.25 * (v1 / v2 + v2 / v1 + 2)) + 0.25 * (m1 - m2) ** 2 / (
            v1 + v2
        )
        h2 = 1 - np.sqrt(2 * np.sqrt(v1) * np.sqrt(v2) / (v1 + v2)) * np.exp(
            -0.25 * (m1 - m2) ** 2 / (v1 + v2)
        )
        assert close(bd[path], b_expected)
        assert close(hd[path], np.sqrt(h2))
        assert 0 <= hd[path] <= 1
        compared += 1
    assert compared > 50


def test_recomputing_a_column_replaces_it(rajaperf):
    gs.std(rajaperf, METRIC, ddof=1)
    first = rajaperf.stats[f"{METRIC}_std"].copy()
    gs.std(rajaperf, METRIC, ddof=0)
    assert len(rajaperf.stats_recipes) == 1
    assert (rajaperf.stats[f"{METRIC}_std"] <= first).all()
    gs.mean(rajaperf, [METRIC, "Max time/rank"])
    gs.mean(rajaperf, METRIC)
    # the first mean recipe still provides 'Max time/rank_mean'
    assert [r.kind for r in rajaperf.stats_recipes] == ["std", "mean", "mean"]
    assert "Max time/rank_mean" in rajaperf.stats.columns


def test_returned_columns_and_defaults(rajaperf):
    table = gs.mean(rajaperf)
    assert list(table.columns) == [
        f"{m}_mean"
        for m in rajaperf.metric_columns
        if m in rajaperf.inc_metrics + rajaperf.exc_metrics
    ]
    assert table.index.name == "node"
    assert list(rajaperf.stats.columns[1:]) == list(table.columns)


# --------------------------------------------------------- random ensembles
profiles_strategy = hs.integers(min_value=2, max_value=9)


@settings(max_examples=examples(13), deadline=None)
@given(
    count=profiles_strategy, nodes=hs.integers(20, 120), seed=hs.integers(0, 10_000), data=hs.data()
)
def test_random_ensembles_match_numpy_by_node(count, nodes, seed, data):
    ens = Ensemble.from_graphframes(synthetic_ensemble(count, nodes, seed=seed, noise=0.3))
    q = data.draw(hs.lists(hs.floats(0, 100), min_size=1, max_size=3))
    gs.mean(ens, "time")
    gs.std(ens, "time", ddof=0)
    gs.median(ens, "time (inc)")
    gs.percentiles(ens, "time", q=q)
    samples = samples_by_path(ensemble_values(ens, "time"))
    inclusive = samples_by_path(ensemble_values(ens, "time (inc)"))
    check(ens, "time_mean", samples, np.mean)
    check(ens, "time_std", samples, lambda x: np.std(x, ddof=0))
    check(ens, "time (inc)_median", inclusive, np.median)
    for value in q:
        check(ens, f"time_p{float(value):g}", samples, lambda x, v=value: np.percentile(x, v))


# ------------------------------------------------------------------ errors
def test_errors(rajaperf):
    with pytest.raises(MetricError, match="no metric named 'walltime'"):
        gs.mean(rajaperf, "walltime")
    with pytest.raises(MetricError, match="no metric named 'name'"):
        gs.mean(rajaperf, "name")
    rajaperf.derive("built with", lambda e: e.profile_values("compiler"))
    with pytest.raises(MetricError, match="no numeric metric named 'built with'"):
        gs.mean(rajaperf, "built with")
    with pytest.raises(GladeError, match="ddof must be a non-negative integer"):
        gs.std(rajaperf, METRIC, ddof=-1)
    with pytest.raises(GladeError, match="ddof must be a non-negative integer"):
        gs.var(rajaperf, METRIC, ddof=1.5)
    with pytest.raises(GladeError, match="from 0 to 100"):
        gs.percentiles(rajaperf, METRIC, q=[50, 101])
    with pytest.raises(GladeError, match="whis"):
        gs.boxplot(rajaperf, METRIC, whis=-1)
    with pytest.raises(GladeError, match="alpha"):
        gs.normality(rajaperf, METRIC, alpha=2)
    with pytest.raises(GladeError, match="pearson' or 'spearman"):
        gs.correlation(rajaperf, METRIC, "Max time/rank", method="kendall")
    with pytest.raises(GladeError, match="not in the ensemble"):
        gs.welch_ttest(rajaperf, METRIC, ["nope"], rajaperf.profiles[:3])
    with pytest.raises(GladeError, match="holds no profile"):
        gs.hellinger(rajaperf, METRIC, {"compiler": "icc"}, rajaperf.profiles[:3])
    with pytest.raises(MetricError, match="metadata column"):
        gs.bhattacharyya(rajaperf, METRIC, {"cpu": "x"}, rajaperf.profiles[:3])
    with pytest.raises(GladeError, match="profile ids or a"):
        gs.bhattacharyya(rajaperf, METRIC, "gcc", rajaperf.profiles[:3])
    with pytest.raises(GladeError, match=r"need a glade\.Ensemble"):
        gs.mean(rajaperf.dataframe, METRIC)
    assert rajaperf.stats_recipes == []
