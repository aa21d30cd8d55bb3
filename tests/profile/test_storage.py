"""GraphFrames stored as Parquet: lossless round trips (random profiles and Hatchet's
real ones), detection by glade.read, and damaged directories refused."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings

import glade
from glade import GraphFrame
from glade.errors import GladeError, ReaderError
from tests.hypothesis_budget import examples
from tests.readers.profiles.test_literal_json import random_graphframes

REAL_PROFILES = [
    "hpctoolkit-cpi-database",
    "caliper-cpi-json",
    "caliper-lulesh-json",
    "gprof2dot-cpi",
    "cprofile-hatchet-pstats/cprofile-cycle.pstats",
    "pyinstrument-hatchet-json",
    "tau-cpi-mpi",
    "timemory",
    "json/hatchet-graph-literal.json",
]


def same_value(a, b) -> bool:
    """Equal, NaN equal to NaN, and of the same type."""
    if isinstance(a, dict):
        return (
            isinstance(b, dict) and a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
        )
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same_value, a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def assert_same_graphframe(got: GraphFrame, want: GraphFrame) -> None:
    pd.testing.assert_frame_equal(got.dataframe, want.dataframe, check_exact=True)
    pd.testing.assert_frame_equal(got.graph.frames, want.graph.frames, check_exact=True)
    for a, b in zip(got.graph.edges(), want.graph.edges(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got.graph.root_ids, want.graph.root_ids)
    assert (got.exc_metrics, got.inc_metrics, got.default_metric) == (
        want.exc_metrics,
        want.inc_metrics,
        want.default_metric,
    )
    assert same_value(got.metadata, want.metadata)


@given(gf=random_graphframes())
@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_random_profiles_round_trip(gf: GraphFrame, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("store") / "profile"
    gf.to_parquet(path)
    assert_same_graphframe(GraphFrame.from_parquet(path), gf)


@pytest.mark.parametrize("name", REAL_PROFILES)
def test_real_profiles_round_trip(hatchet_data: Path, tmp_path: Path, name: str) -> None:
    gf = glade.read(hatchet_data / name)
    gf.to_parquet(tmp_path / "p")
    got = glade.read(tmp_path / "p")  # detected as a stored profile
    assert_same_graphframe(got, gf)
    assert got.tree() == gf.tree()


def test_labels_and_indexes_of_any_kind(tmp_path: Path) -> None:
    gf = glade.datasets.synthetic_profile(30, ranks=3)
    gf.dataframe["flag"] = gf.dataframe["time"] > 1
    gf.dataframe["kind"] = pd.Categorical(
        np.arange(len(gf.dataframe)) % 3, categories=[2, 0, 1], ordered=True
    )
    gf.dataframe["mixed"] = pd.Series(
        [1, "a", None] * (len(gf.dataframe) // 3), index=gf.dataframe.index, dtype=object
    )
    gf.metadata = {"launch": (1, 2), "ranks": np.int64(3), "nan": math.nan}
    gf.to_parquet(tmp_path / "p")
    got = GraphFrame.from_parquet(tmp_path / "p")
    assert_same_graphframe(got, gf)
    assert got.dataframe["mixed"].tolist()[:3] == [1, "a", None]
    assert list(got.dataframe["kind"].cat.categories) == [2, 0, 1]


def test_unstorable_profile_writes_nothing(tmp_path: Path) -> None:
    gf = glade.datasets.synthetic_profile(10)
    gf.metadata["bad"] = {1, 2}
    with pytest.raises(GladeError, match="cannot store"):
        gf.to_parquet(tmp_path / "p")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    return glade.datasets.synthetic_profile(40, ranks=2).to_parquet(tmp_path / "p")


def test_missing_table(stored: Path) -> None:
    (stored / "edges.parquet").unlink()
    with pytest.raises(ReaderError, match="is missing") as err:
        GraphFrame.from_parquet(stored)
    assert err.value.path.endswith("edges.parquet")


def test_truncated_table(stored: Path) -> None:
    path = stored / "dataframe.parquet"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ReaderError, match="not a readable stored table") as err:
        GraphFrame.from_parquet(stored)
    assert err.value.path == str(path)


def test_wrong_column_type(stored: Path) -> None:
    path = stored / "dataframe.parquet"
    table = pq.read_table(path)
    table = table.set_column(
        table.column_names.index("time"), "time", table.column("time").cast("string")
    )
    pq.write_table(table, path)
    with pytest.raises(ReaderError, match="'time' is string, expected double"):
        GraphFrame.from_parquet(stored)


def test_edges_that_are_no_graph(stored: Path) -> None:
    path = stored / "edges.parquet"
    table = pq.read_table(path)
    far = pa.array(table.column("dst").to_numpy() + 10**6)
    pq.write_table(table.set_column(1, "dst", far), path)
    with pytest.raises(ReaderError, match="outside") as err:
        GraphFrame.from_parquet(stored)
    assert err.value.path == str(path)


def test_wrong_format_and_version(stored: Path, tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="is a stored profile, not a trace"):
        glade.read_trace(stored)
    body = json.loads((stored / "glade.json").read_text())
    (stored / "glade.json").write_text(json.dumps({**body, "version": 2}))
    with pytest.raises(ReaderError, match="version 2"):
        GraphFrame.from_parquet(stored)
    glade.datasets.synthetic_trace(2, 1).to_parquet(tmp_path / "t")
    with pytest.raises(ReaderError, match="holds a 'glade-trace', not a 'glade-profile'"):
        GraphFrame.from_parquet(tmp_path / "t")
    with pytest.raises(ReaderError, match=r"is a stored trace: read it with glade\.read_trace"):
        glade.read(tmp_path / "t")
