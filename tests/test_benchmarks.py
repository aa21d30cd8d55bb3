"""The benchmarks still run: a short smoke run of every module (timings are not
checked here; the benchmarks measure, the tests check)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_every_benchmark_module_runs_in_quick_mode():
    modules = sorted(p.stem for p in BENCHMARKS.glob("bench_*.py"))
    done = subprocess.run([sys.executable, "run.py", "--quick"], cwd=BENCHMARKS,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    finished = [m for m in modules if f"({m}: " in done.stdout]
    assert finished == modules, done.stderr[-3000:]
    assert "### Targets" in done.stdout
