"""Shared fixtures: where the real profiler and tracer data lives, and the traces read
from it that several test folders use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from glade.datasets.shared import shared_data_root
from glade.trace import Trace
from tests.hypothesis_budget import CI_EXAMPLES, DEV_EXAMPLES

ROOT = Path(__file__).resolve().parents[1]

# Hypothesis profiles. "dev" (the default) keeps the README's test command quick; "ci" tries
# more examples. Pick one with HYPOTHESIS_PROFILE=ci or --hypothesis-profile=ci (.ci/run
# does). A test that needs another count than the profile's says how many under ci with
# @settings(max_examples=examples(n)), scaled down under dev (tests/hypothesis_budget.py).
# No deadline in either: the machines running the suite are shared, and a slow example is
# not a failure.
settings.register_profile("dev", max_examples=DEV_EXAMPLES, deadline=None)
settings.register_profile("ci", max_examples=CI_EXAMPLES, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a module-scoped fixture (built once per module and worker)."""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(
        defs[-1].scope == "module" for defs in info.name2fixturedefs.values() if defs
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist's ``--dist loadgroup``, keep together the tests of a module that
    share an expensive module-scoped fixture (the reader fuzzing campaign, the Jupyter
    notebooks of the browser modules, the views built once per module), so that it is
    built once, on one worker. The rest, the Dask engine's tests included (each worker
    starts one LocalCluster for its share), are spread test by test. Runs before xdist
    reads the groups; harmless without xdist."""
    for item in items:
        if not item.get_closest_marker("xdist_group") and _uses_a_module_fixture(item):
            module = Path(str(item.path)).relative_to(ROOT).as_posix()
            item.add_marker(pytest.mark.xdist_group(module))


def data_root() -> Path:
    """Where the public test data is, found as the tutorials and docs find it
    (:func:`glade.datasets.shared_data_root`, from the repository), or where it was expected."""
    found = shared_data_root(ROOT)
    if found is not None:
        return found
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


@pytest.fixture
def foo_bar_path(pipit_data: Path) -> Path:
    """Pipit's 2-process CSV trace (``Timestamp (s), Event Type, Name, Process``)."""
    return pipit_data / "foo-bar.csv"


@pytest.fixture
def foo_bar(foo_bar_path: Path) -> Trace:
    """The foo-bar trace, freshly read for every test."""
    return Trace.from_csv(foo_bar_path)


@pytest.fixture(scope="session")
def dask_client():
    """A Client of one LocalCluster of 2 worker processes (1 thread each), shared by every
    test of the Dask engine (skipped with a reason when the glade[dask] extra is absent)."""
    distributed = pytest.importorskip("distributed", reason="the glade[dask] extra is absent")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
