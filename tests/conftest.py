"""Shared fixtures: where the real profiler and tracer data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def data_root() -> Path:
    """``$GLADE_TEST_DATA`` if set, else ``../shared/data`` beside the repository."""
    env = os.environ.get("GLADE_TEST_DATA")
    return Path(env) if env else ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared test data folder; tests that need it skip when it is absent."""
    root = data_root()
    if not root.is_dir():
        pytest.skip(f"shared test data not found at {root} (set GLADE_TEST_DATA)")
    return root


@pytest.fixture(scope="session")
def hatchet_data(data_dir: Path) -> Path:
    """Hatchet's test data (HPCToolkit, Caliper, cProfile, ... profiles)."""
    return data_dir / "hatchet"


@pytest.fixture(scope="session")
def thicket_data(data_dir: Path) -> Path:
    """Thicket's test data (RAJAPerf ensembles)."""
    return data_dir / "thicket"


@pytest.fixture(scope="session")
def pipit_data(data_dir: Path) -> Path:
    """Pipit's test data (traces)."""
    return data_dir / "pipit"
