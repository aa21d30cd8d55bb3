"""Stats are never stale: after every operation that changes nodes or profiles, the
ensemble's stats equal the same statistics computed from scratch on the result's
tables (a new Ensemble built from them, then the same glade.stats calls)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import glade.stats as gs
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from tests.ensemble.oracles import call_paths

GCC, CLANG = {"compiler": "gcc"}, {"compiler": "clang"}


def add_stats(ens: Ensemble) -> Ensemble:
    gs.mean(ens, ["time", "time (inc)"])
    gs.std(ens, "time", ddof=0)
    gs.percentiles(ens, "time (inc)", q=[10, 90])
    gs.boxplot(ens, "time")
    gs.normality(ens, "time (inc)")
    gs.correlation(ens, "time", "time (inc)", method="spearman")
    gs.welch_ttest(ens, "time", GCC, CLANG)
    gs.hellinger(ens, "time (inc)", GCC, CLANG)
    return ens


@pytest.fixture(scope="module")
def base() -> Ensemble:
    return add_stats(Ensemble.from_graphframes(synthetic_ensemble(15, 150, seed=11)))


def from_scratch(result: Ensemble) -> Ensemble:
    measured = [m for m in result.metric_columns if m not in {"per call"}]
    clean = Ensemble(
        result.graph,
        result.dataframe[measured],
        result.metadata,
        result.exc_metrics,
        result.inc_metrics,
    )
    add_stats(clean)
    if "per call" in result.metric_columns:
        clean.derive("per call", lambda e: e.dataframe["time"] / 2.0)
        gs.mean(clean, "per call")
    return clean


def by_path(ens: Ensemble) -> dict[tuple, pd.Series]:
    stats = ens.stats
    return {path: stats.iloc[i] for i, path in enumerate(call_paths(ens.graph))}


def assert_fresh(result: Ensemble) -> None:
    expected = from_scratch(result)
    # group recipes keep the ids they were given (those still present count)
    assert [(r.kind, r.metrics) for r in result.stats_recipes] == [
        (r.kind, r.metrics) for r in expected.stats_recipes
    ]
    got, want = by_path(result), by_path(expected)
    assert set(want) <= set(got)
    columns = list(expected.stats.columns)
    assert list(result.stats.columns) == columns
    for path, row in want.items():
        mine = got[path]
        for column in columns[1:]:
            a, b = mine[column], row[column]
            if pd.isna(b):
                assert pd.isna(a), (path, column)
            elif isinstance(b, bool | np.bool_):
                assert a == b, (path, column)
            else:
                assert np.isclose(a, b, rtol=1e-9), (path, column, a, b)
    for path in set(got) - set(want):
        # nodes without rows (kept by squash=False): no samples
        assert got[path]["time_mean"] != got[path]["time_mean"]
    paths_r, paths_e = call_paths(result.graph), call_paths(expected.graph)
    outliers = lambda e, p: sorted(  # noqa: E731
        (p[n], pid, v)
        for n, pid, v in zip(
            e.outliers["node"], e.outliers["profile"], e.outliers["value"], strict=True
        )
    )
    assert outliers(result, paths_r) == outliers(expected, paths_e)


def test_filter_profiles(base):
    assert_fresh(base.filter_profiles(base.profiles[::2]))


def test_filter_metadata(base):
    assert_fresh(base.filter_metadata(lambda row: row["problem_size"] != 1 << 21))


def test_groupby(base):
    for group in base.groupby("problem_size").values():
        assert_fresh(group)


def test_filter_stats(base):
    mask = base.stats["time_mean"] > base.stats["time_mean"].median()
    assert_fresh(base.filter_stats(mask))
    assert_fresh(base.filter_stats(mask, squash=False))


@pytest.mark.parametrize(
    "options", [{}, {"fold": True}, {"squash": False}, {"profile_mode": "all"}]
)
def test_query(base, options):
    assert_fresh(base.query([".", ("*", {"module": "app"})], **options))


def test_intersection(base):
    result = base.intersection()
    assert len(result.graph) < len(base.graph)
    assert_fresh(result)


def test_concat_index(base):
    parts = list(base.groupby("compiler").values())
    assert_fresh(Ensemble.concat(parts))


def test_derive_replaces_a_column_the_stats_use(base):
    ens = base.copy()
    ens.derive("per call", lambda e: e.dataframe["time"])
    gs.mean(ens, "per call")
    ens.derive("per call", lambda e: e.dataframe["time"] / 2.0)
    np.testing.assert_allclose(ens.stats["per call_mean"], ens.stats["time_mean"] / 2.0)
    assert_fresh(ens.filter_profiles(ens.profiles[1:]))


def test_copy(base):
    assert_fresh(base.copy())


def test_concat_columns_carries_stats_to_every_header(base):
    parts = list(base.filter_metadata(lambda r: r["run"] < 9).groupby("compiler").values())
    joined = Ensemble.concat(parts, axis="columns", key="compiler", on="problem_size")
    clean_parts = [
        Ensemble(p.graph, p.dataframe[p.metric_columns], p.metadata, p.exc_metrics, p.inc_metrics)
        for p in parts
    ]
    fresh = Ensemble.concat(clean_parts, axis="columns", key="compiler", on="problem_size")
    for header in ("gcc", "clang", "intel"):
        gs.mean(fresh, [(header, "time"), (header, "time (inc)")])
        gs.boxplot(fresh, (header, "time"))
        for column in [
            (header, "time_mean"),
            (header, "time (inc)_mean"),
            (header, "time_q3"),
            (header, "time_outliers"),
        ]:
            np.testing.assert_allclose(joined.stats[column], fresh.stats[column])
    assert_fresh_columnar = joined.filter_profiles(joined.profiles[:2])
    for header in ("gcc", "clang"):
        kept = fresh.filter_profiles(fresh.profiles[:2])
        gs.mean(kept, (header, "time"))
        np.testing.assert_allclose(
            assert_fresh_columnar.stats[(header, "time_mean")], kept.stats[(header, "time_mean")]
        )
