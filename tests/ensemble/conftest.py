"""Fixtures of the ensemble tests: the 18 RAJAPerf profiles, read once as an ensemble
and once file by file (the raw values that oracles compute from)."""

from __future__ import annotations

from pathlib import Path

import pytest

import glade
from glade.ensemble import Ensemble


@pytest.fixture(scope="session")
def rajaperf_dir(thicket_data: Path) -> Path:
    folder = thicket_data / "rajaperf"
    if not folder.is_dir():
        pytest.skip(f"RAJAPerf profiles not found in {folder}")
    return folder


@pytest.fixture(scope="session")
def rajaperf_files(rajaperf_dir: Path) -> list[Path]:
    files = sorted(rajaperf_dir.rglob("*.cali"))
    assert len(files) == 18
    return files


@pytest.fixture(scope="session")
def raw_profiles(rajaperf_files: list[Path]) -> dict[Path, glade.GraphFrame]:
    """Every file read on its own with glade.read."""
    return {path: glade.read(path) for path in rajaperf_files}


@pytest.fixture(scope="session")
def rajaperf_ensemble(rajaperf_files: list[Path]) -> Ensemble:
    """The 18 profiles as one ensemble (read in this process; tests copy before
    adding stats)."""
    return Ensemble.from_files(rajaperf_files, workers=1, progress=False)


@pytest.fixture()
def rajaperf(rajaperf_ensemble: Ensemble) -> Ensemble:
    """A fresh copy of the RAJAPerf ensemble for one test."""
    return rajaperf_ensemble.copy()
