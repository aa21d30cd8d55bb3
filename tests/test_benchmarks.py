"""The benchmarks still run: a short smoke run of every module (timings are not
checked here; the benchmarks measure, the tests check)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


MODULES = sorted(p.stem.removeprefix("bench_") for p in BENCHMARKS.glob("bench_*.py"))
#: Modules that start a browser, a Jupyter server or a Dask cluster each run as a test of
#: their own, so that the suite's workers share them out; the quick ones run together
#: (one Python start instead of one each).
ALONE = [
    "cct_view",
    "comm_matrix",
    "dask",
    "first_view",
    "link",
    "supergraph",
    "timeline",
    "traces",
]
RUNS = [[m] for m in ALONE if m in MODULES] + [[m for m in MODULES if m not in ALONE]]


#: The smoke runs take about four minutes of the two cores (JupyterLab, chromium and Dask
#: clusters start in each): CI runs them (.ci/run sets this variable), the README's test
#: command on a laptop does not.
SMOKE = "GLADE_BENCHMARK_SMOKE"


@pytest.mark.skipif(not os.environ.get(SMOKE), reason=f"benchmark smoke runs: set {SMOKE}=1")
@pytest.mark.parametrize("modules", RUNS, ids=["+".join(run) for run in RUNS])
def test_every_benchmark_module_runs_in_quick_mode(modules: list[str]):
    done = subprocess.run(
        [sys.executable, "run.py", "--quick", *modules],
        cwd=BENCHMARKS,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for module in modules:
        assert f"(bench_{module}: " in done.stdout, done.stderr[-3000:]
    assert "### Targets" in done.stdout


def test_every_benchmark_module_is_run():
    assert sorted(m for run in RUNS for m in run) == MODULES and len(MODULES) >= 10


def test_limit_columns_put_a_time_next_to_the_bandwidth_limit():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import common
    finally:
        sys.path.remove(str(BENCHMARKS))
    # 10^6 events touching 40 bytes each at 20 GB/s cannot take less than 2 ms
    cells = common.limit_columns(10**6, 0.01, 40 * 10**6, 20e9)
    assert cells == ["100,000,000", "40 B", "2.00 ms", "5.0x"]
    assert len(cells) == len(common.LIMIT_HEADERS)
    bandwidth = common.copy_bandwidth(size=1 << 20, repeat=2)
    assert 1e8 < bandwidth < 1e13  # bytes/s: between 0.1 GB/s and 10 TB/s
