"""Caliper time series as ensembles, one profile per iteration: values against the
records read directly with caliper-reader, totals against the file read as one
profile, Hatchet's numbers where both read the same records, and bad input."""

from __future__ import annotations

from pathlib import Path

import caliperreader
import numpy as np
import pytest

import glade
import glade.stats as gs
from glade.ensemble import Ensemble
from glade.errors import ReaderError

METRIC = "sum#time.duration.ns"


@pytest.fixture(scope="module")
def series_dir(hatchet_data) -> Path:
    return hatchet_data / "caliper-timeseries-cali"


@pytest.fixture(scope="module")
def lulesh(series_dir) -> Ensemble:
    return Ensemble.from_timeseries(series_dir / "timeseries.cali")


def record_sums(path: Path, level: str = "loop.start_iteration") -> dict[tuple, float]:
    """(call path, iteration) -> sum of METRIC over the records, with plain loops: a
    record without ``level`` belongs to the iteration in effect (the first one before
    any)."""
    reader = caliperreader.CaliperReader()
    reader.read(str(path))
    records = [r for r in reader.records if "path" in r]
    steps = [int(float(r[level])) if level in r else None for r in records]
    current = next(s for s in steps if s is not None)
    out: dict[tuple, float] = {}
    for record, step in zip(records, steps, strict=True):
        current = step if step is not None else current
        path_value = record["path"]
        key = (tuple(path_value) if isinstance(path_value, list) else (path_value,), current)
        if METRIC in record:
            out[key] = out.get(key, 0.0) + float(record[METRIC])
    return out


def test_one_profile_per_iteration(lulesh, series_dir):
    assert lulesh.profiles == list(range(0, 100, 2))
    assert lulesh.metadata["iteration"].tolist() == lulesh.profiles
    assert (lulesh.metadata["path"] == str(series_dir / "timeseries.cali")).all()
    assert lulesh.metadata["cali.caliper.version"].unique().tolist() == ["2.10.0-dev"]
    assert METRIC in lulesh.exc_metrics and f"{METRIC} (inc)" in lulesh.inc_metrics
    assert "loop.start_iteration" not in lulesh.metric_columns


def test_values_match_the_records(lulesh, series_dir):
    expected = record_sums(series_dir / "timeseries.cali")
    paths = {nid: tuple(lulesh.graph.node(nid).path()) for nid in range(len(lulesh.graph))}
    got = {
        (paths[node], profile): value
        for (node, profile), value in lulesh.dataframe[METRIC].items()
        if value != 0
    }
    assert got == pytest.approx(expected)


def test_iterations_add_up_to_the_whole_file(lulesh, series_dir):
    whole = glade.read(series_dir / "timeseries.cali")
    total = lulesh.dataframe[METRIC].groupby(level="node").sum()
    by_path = {lulesh.graph.node(n).path(): v for n, v in total.items()}
    assert {whole.graph.node(n).path(): v for n, v in whole.dataframe[METRIC].items()} == (
        pytest.approx(by_path)
    )
    assert whole.dataframe["loop.iterations"].sum() == 7202
    assert lulesh.dataframe["loop.iterations"].groupby(level="profile").sum().sum() == 7202


def test_hatchet_numbers_where_both_read_the_same_records(lulesh):
    # Hatchet 2026.2 from_timeseries, second profile (iteration 2): these regions have
    # one record in that iteration, so Hatchet's per-node mean is the record itself
    hatchet = {
        "lulesh.cycle": 484779.0,
        "TimeIncrement": 9025.0,
        "LagrangeLeapFrog": 48275.0,
        "LagrangeNodal": 30029104.0,
        "IntegrateStressForElems": 126271201.0,
        "CalcFBHourglassForceForElems": 194832612.0,
    }
    two = lulesh.dataframe.xs(2, level="profile")
    names = two["name"]
    for name, value in hatchet.items():
        assert two[METRIC][names == name].item() == value


def test_temporal_pattern_of_the_series(lulesh):
    ens = lulesh.copy()
    gs.calc_temporal_pattern(ens, METRIC)
    samples = ens.dataframe[METRIC].unstack("profile").to_numpy()
    score = 1 - samples.mean(axis=1) / samples.max(axis=1)
    np.testing.assert_allclose(ens.stats[f"{METRIC}_temporal_score"], score)
    kernel = ens.get_node("IntegrateStressForElems").nid
    assert ens.stats.loc[kernel, f"{METRIC}_pattern"] == "constant"


def test_split_by_another_attribute_and_a_second_file(series_dir):
    snapshots = Ensemble.from_timeseries(
        series_dir / "timeseries.cali", level="timeseries.snapshot"
    )
    assert snapshots.profiles == list(range(52))
    small = Ensemble.from_timeseries(series_dir / "230711-163829_2055495_OV0UMVFsW6yp.cali")
    expected = record_sums(series_dir / "230711-163829_2055495_OV0UMVFsW6yp.cali")
    assert small.profiles == sorted({step for _, step in expected})
    paths = {nid: tuple(small.graph.node(nid).path()) for nid in range(len(small.graph))}
    got = {
        (paths[node], profile): value
        for (node, profile), value in small.dataframe[METRIC].items()
        if value != 0
    }
    assert got == pytest.approx(expected)


def test_bad_input(hatchet_data, series_dir, tmp_path):
    plain = next((hatchet_data / "caliper-lulesh-cali").glob("*.cali"))
    with pytest.raises(ReaderError, match=r"has no records with attribute 'loop\.start_"):
        Ensemble.from_timeseries(plain)
    with pytest.raises(ReaderError, match="is a directory"):
        Ensemble.from_timeseries(series_dir)
    with pytest.raises(ReaderError, match="no such file"):
        Ensemble.from_timeseries(tmp_path / "nothing.cali")
    cut = tmp_path / "cut.cali"
    data = (series_dir / "timeseries.cali").read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ReaderError, match="truncated"):
        Ensemble.from_timeseries(cut)
    with pytest.raises(ValueError, match="metric_kinds"):
        Ensemble.from_timeseries(series_dir / "timeseries.cali", metric_kinds={METRIC: "sideways"})
