"""SpotDB run sets (a directory of Spot .cali files) read as an Ensemble: the four runs
of Hatchet's test data with their metadata, the values each file holds, run
selection, files that are not Spot runs, and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import glade
from glade.ensemble import Ensemble
from glade.errors import ReaderError
from glade.readers.profiles.spotdb import is_spot_run


@pytest.fixture(scope="module")
def spot_dir(hatchet_data) -> Path:
    return hatchet_data / "spotdb"


@pytest.fixture(scope="module")
def runs(spot_dir) -> Ensemble:
    return Ensemble.from_spotdb(spot_dir, workers=1, progress=False)


def test_the_four_runs_and_their_metadata(runs):
    meta = runs.metadata
    assert meta["run"].tolist() == ["0.cali", "1.cali", "2.cali", "3.cali"]
    assert meta["jobsize"].tolist() == [64, 64, 1, 1]
    assert meta["threads"].tolist() == [1, 2, 4, 4]
    assert meta["launchdate"].tolist() == [1600990151, 1600990433, 1600990774, 1600990802]
    assert meta["figure_of_merit"].tolist() == pytest.approx(
        [31346.720503, 26671.498197, 1776.272418, 1727.025643]
    )
    assert set(meta["cluster"]) == {"quartz"}
    assert all(len(str(p)) == 12 for p in runs.profiles)  # content ids, not paths
    assert "Avg time/rank" in runs.inc_metrics


def test_values_are_those_of_each_file(runs, spot_dir):
    paths = {nid: runs.graph.node(nid).path() for nid in range(len(runs.graph))}
    for profile, run in runs.metadata["run"].items():
        gf = glade.read(spot_dir / run)
        own = {gf.graph.node(n).path(): v for n, v in gf.dataframe["Avg time/rank"].items()}
        mine = {
            paths[n]: v for (n, p), v in runs.dataframe["Avg time/rank"].items() if p == profile
        }
        assert mine == own
    main = runs.get_node("main").nid
    assert runs.dataframe.loc[(main, runs.profiles[0]), "Avg time/rank"] == 235.060251


def test_choosing_runs_and_skipping_other_files(spot_dir, hatchet_data, tmp_path):
    chosen = Ensemble.from_spotdb(
        spot_dir, runs=["3.cali", "1.cali"], labels=["c", "a"], workers=1, progress=False
    )
    assert chosen.profiles == ["c", "a"]
    assert chosen.metadata["run"].tolist() == ["3.cali", "1.cali"]
    mixed = tmp_path / "runs"
    (mixed / "nested").mkdir(parents=True)
    shutil.copy(spot_dir / "0.cali", mixed / "nested" / "a.cali")
    shutil.copy(spot_dir / "2.cali", mixed / "b.cali")
    plain = next((hatchet_data / "caliper-lulesh-cali").glob("*.cali"))
    assert not is_spot_run(plain) and is_spot_run(spot_dir / "0.cali")
    shutil.copy(plain, mixed / "not-spot.cali")
    (mixed / "notes.txt").write_text("not a run")
    ens = Ensemble.from_spotdb(mixed, workers=1, progress=False)
    assert ens.metadata["run"].tolist() == ["b.cali", "nested/a.cali"]


def test_bad_input(spot_dir, tmp_path, hatchet_data):
    with pytest.raises(ReaderError, match=r"has no run '9\.cali'; runs: 0\.cali, 1\.cali"):
        Ensemble.from_spotdb(spot_dir, runs=["9.cali"], workers=1)
    with pytest.raises(ReaderError, match="is not a directory"):
        Ensemble.from_spotdb(spot_dir / "0.cali")
    empty = tmp_path / "empty"
    empty.mkdir()
    shutil.copy(next((hatchet_data / "caliper-lulesh-cali").glob("*.cali")), empty)
    with pytest.raises(ReaderError, match="holds no Spot run"):
        Ensemble.from_spotdb(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    data = (spot_dir / "1.cali").read_bytes()
    (broken / "1.cali").write_bytes(data[: len(data) - 40])
    with pytest.raises(ReaderError, match=r"1\.cali"):
        Ensemble.from_spotdb(broken, workers=1, progress=False)
