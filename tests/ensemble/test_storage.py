"""Ensembles stored as Parquet: graph, data, metadata and the stats recipes round trip
(random ensembles and the RAJAPerf ensemble); the stats are computed again on load, so
they follow the stored data; damaged directories are refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade.ensemble import Ensemble
from glade.errors import GladeError, ReaderError
from tests.hypothesis_budget import examples

STATS = {
    "mean": lambda ens: glade.stats.mean(ens),
    "std": lambda ens: glade.stats.std(ens, ddof=0),
    "median": lambda ens: glade.stats.median(ens),
    "percentiles": lambda ens: glade.stats.percentiles(ens, q=[10, 90]),
    "boxplot": lambda ens: glade.stats.boxplot(ens, whis=1.0),
    "maximum": lambda ens: glade.stats.maximum(ens),
}


def assert_same_ensemble(got: Ensemble, want: Ensemble) -> None:
    """The same tables (exactly, with their dtypes and index levels), metric kinds,
    recipes, stats and outliers."""
    pd.testing.assert_frame_equal(got.dataframe, want.dataframe, check_exact=True)
    pd.testing.assert_frame_equal(got.metadata, want.metadata, check_exact=True)
    pd.testing.assert_frame_equal(got.graph.frames, want.graph.frames, check_exact=True)
    for a, b in zip(got.graph.edges(), want.graph.edges(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert (got.exc_metrics, got.inc_metrics, got.default_metric) == (
        want.exc_metrics,
        want.inc_metrics,
        want.default_metric,
    )
    assert got.stats_recipes == want.stats_recipes
    pd.testing.assert_frame_equal(got.stats, want.stats, check_exact=True)
    pd.testing.assert_frame_equal(got.outliers, want.outliers, check_exact=True)
    for level in range(want.dataframe.index.nlevels):
        assert got.dataframe.index.levels[level].equals(want.dataframe.index.levels[level])
        np.testing.assert_array_equal(
            got.dataframe.index.codes[level], want.dataframe.index.codes[level]
        )


@given(
    profiles=st.integers(1, 6),
    nodes=st.integers(2, 40),
    seed=st.integers(0, 20),
    stats=st.lists(st.sampled_from(sorted(STATS)), max_size=3, unique=True),
    drop=st.integers(0, 3),
)
@settings(
    max_examples=examples(13),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_random_ensembles_round_trip(tmp_path_factory, profiles, nodes, seed, stats, drop):
    ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(profiles, nodes, seed))
    if drop and profiles > drop:
        ens = ens.filter_profiles(ens.profiles[drop:])
    for name in stats:
        STATS[name](ens)
    path = tmp_path_factory.mktemp("store") / "ensemble"
    ens.to_parquet(path)
    assert_same_ensemble(Ensemble.from_parquet(path), ens)


def test_rajaperf_round_trip(rajaperf: Ensemble, tmp_path: Path) -> None:
    for name in ("mean", "std", "boxplot"):
        STATS[name](rajaperf)
    rajaperf.to_parquet(tmp_path / "e")
    got = glade.read(tmp_path / "e")  # a stored ensemble reads as one
    assert isinstance(got, Ensemble)
    assert_same_ensemble(got, rajaperf)
    assert got.tree(metrics=["Avg time/rank_mean"]) == rajaperf.tree(metrics=["Avg time/rank_mean"])
    groups = got.groupby("compiler")
    assert sorted(groups) == sorted(rajaperf.groupby("compiler"))


def test_columnar_ensemble_round_trip(rajaperf: Ensemble, tmp_path: Path) -> None:
    size = rajaperf.metadata["ProblemSizeRunParam"] == 2097152.0
    parts = list(rajaperf.filter_metadata(size).groupby("tuning").values())
    joined = Ensemble.concat(parts, axis="columns", key="tuning", on="compiler")
    assert isinstance(joined.dataframe.columns, pd.MultiIndex)
    glade.stats.mean(joined)
    joined.to_parquet(tmp_path / "e")
    assert_same_ensemble(Ensemble.from_parquet(tmp_path / "e"), joined)


def test_stats_are_computed_from_the_stored_data(tmp_path: Path) -> None:
    ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 12, 1))
    glade.stats.mean(ens, "time")
    path = ens.to_parquet(tmp_path / "e")
    table = pq.read_table(path / "dataframe.parquet")
    index = table.column_names.index("time")
    doubled = pa.array(table.column("time").to_numpy() * 2)
    pq.write_table(table.set_column(index, "time", doubled), path / "dataframe.parquet")
    got = Ensemble.from_parquet(path)
    np.testing.assert_allclose(
        got.stats["time_mean"].to_numpy(), 2 * ens.stats["time_mean"].to_numpy()
    )


def test_derived_columns_are_not_stored(tmp_path: Path) -> None:
    ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 10))
    ens.derive("twice", lambda e: e.dataframe["time"] * 2)
    with pytest.raises(GladeError, match=r"derived columns \['twice'\]"):
        ens.to_parquet(tmp_path / "e")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 20))
    glade.stats.mean(ens)
    return ens.to_parquet(tmp_path / "e")


def test_missing_metadata_table(stored: Path) -> None:
    (stored / "metadata.parquet").unlink()
    with pytest.raises(ReaderError, match="is missing") as err:
        Ensemble.from_parquet(stored)
    assert err.value.path.endswith("metadata.parquet")


def test_metadata_of_other_profiles(stored: Path) -> None:
    path = stored / "metadata.parquet"
    table = pq.read_table(path)
    pq.write_table(table.slice(1), path)
    with pytest.raises(ReaderError, match="holds 3 rows") as err:
        Ensemble.from_parquet(stored)
    assert err.value.path == str(path)


def test_unknown_statistic(stored: Path) -> None:
    sidecar = stored / "glade.json"
    sidecar.write_text(sidecar.read_text().replace('"kind": "mean"', '"kind": "meen"'))
    with pytest.raises(ReaderError, match="malformed recipe"):
        Ensemble.from_parquet(stored)


def test_missing_sidecar(stored: Path) -> None:
    (stored / "glade.json").unlink()
    with pytest.raises(ReaderError, match="has no glade"):
        Ensemble.from_parquet(stored)
