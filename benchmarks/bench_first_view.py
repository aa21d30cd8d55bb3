"""Time from Run All to the first view of every tutorial: cold (numba's cache empty, so
every kernel a tutorial reaches compiles) and after ``glade warmup`` (the kernels load from
the cache). Each run executes a copy of the tutorial in a fresh kernel (nbclient) whose
``NUMBA_CACHE_DIR`` is a new empty folder, so the cache beside glade's modules is not
used; the clock starts when the first cell starts and stops when a cell first shows a
widget (a view). ``glade warmup``'s own time is given beside it.

Run alone: ``python benchmarks/bench_first_view.py [--quick] [TUTORIAL ...]`` (names such
as ``05_traces``; default every tutorial, ``--quick`` only the second, once, with the
numba cache glade already has: the smoke run of the test suite, which compiles nothing)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Table
from glade.cli import tutorial_notebooks
from glade.datasets.shared import shared_data_root

WIDGET = "application/vnd.jupyter.widget-view+json"


def first_view(notebook: Path, cache: Path | None, folder: Path) -> float | None:
    """Seconds from the start of the first cell to the first widget output of
    ``notebook``, run in a fresh kernel with ``NUMBA_CACHE_DIR=cache`` (None: numba's own
    cache); None when no cell shows a view."""
    import nbformat
    from nbclient import NotebookClient

    copy = folder / notebook.name
    shutil.copy(notebook, copy)
    nb = nbformat.read(copy, as_version=4)
    marks: dict[str, float] = {}

    def started(cell, cell_index):
        marks.setdefault("start", time.perf_counter())

    def executed(cell, cell_index, execute_reply):
        if "view" not in marks and any(WIDGET in out.get("data", {}) for out in cell.outputs):
            marks["view"] = time.perf_counter()

    before = os.environ.get("NUMBA_CACHE_DIR")
    if cache is not None:
        os.environ["NUMBA_CACHE_DIR"] = str(cache)
    try:
        NotebookClient(
            nb,
            timeout=900,
            kernel_name="python3",
            resources={"metadata": {"path": str(folder)}},
            on_cell_execute=started,
            on_cell_executed=executed,
        ).execute()
    finally:
        if before is None:
            os.environ.pop("NUMBA_CACHE_DIR", None)
        else:
            os.environ["NUMBA_CACHE_DIR"] = before
    return marks["view"] - marks["start"] if "view" in marks else None


def warm_up(cache: Path) -> float:
    """Seconds ``glade warmup`` takes into the empty cache folder ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "glade.cli", "warmup", "--quiet"],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def seconds(value: float | None) -> str:
    return "no view" if value is None else f"{value:.1f} s"


def main(quick: bool = False, names: list[str] | None = None) -> list[Table]:
    """Measure the tutorials (all, ``names``, or with ``quick`` only the second)."""
    notebooks = tutorial_notebooks()
    if names:
        notebooks = [nb for nb in notebooks if nb.stem in names]
    elif quick:
        notebooks = notebooks[1:2]
    root = shared_data_root(Path(__file__).resolve().parent)
    if root is not None:
        os.environ.setdefault("GLADE_TEST_DATA", str(root))
    table = Table(
        "First view of each tutorial: cold, and after glade warmup",
        ["tutorial", "cold", "after warmup", "warmup itself"],
    )
    with tempfile.TemporaryDirectory(prefix="glade-first-view-") as scratch:
        base = Path(scratch)
        for notebook in notebooks:
            if quick:  # the smoke run: numba's own cache, nothing compiled on purpose
                warm = first_view(notebook, None, base)
                table.add(notebook.stem, "not run (quick)", seconds(warm), "not run (quick)")
                continue
            cold_cache, warm_cache = base / f"{notebook.stem}-cold", base / f"{notebook.stem}-warm"
            cold_cache.mkdir()
            warm_cache.mkdir()
            cold = first_view(notebook, cold_cache, base)
            warmup = f"{warm_up(warm_cache):.1f} s"
            warm = first_view(notebook, warm_cache, base)
            table.add(notebook.stem, seconds(cold), seconds(warm), warmup)
    data = f"the public test data in {root}" if root is not None else "synthetic data"
    table.note(f"tutorials on {data}; load average at the end: {os.getloadavg()[0]:.1f}")
    return [table.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the second tutorial")
    parser.add_argument("tutorials", nargs="*", help="tutorial names, e.g. 05_traces")
    args = parser.parse_args()
    main(args.quick, args.tutorials)
