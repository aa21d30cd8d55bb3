"""Storage: writing and reading a trace as Parquet partitioned by process
(``trace.to_parquet`` / ``Trace.from_parquet``) next to Pipit's nearest equivalents, and
making a synthetic trace straight to Parquet (``glade.datasets.write_synthetic_trace``).

Pipit has no storage format of its own that it both writes and reads: it writes Chrome
JSON (``to_chrome``) and reads CSV (``from_csv``), so those are what glade's write and
read are compared with, on the same synthetic trace (16 processes, ring exchange,
10^6 and 10^7 events). The generator makes 10^8 events on 1024 processes (full runs
only), reporting its time and peak memory.

Every measurement runs in a fresh child process, so that its peak memory (``VmHWM``,
the trace itself included) is its own. Run alone with
``python benchmarks/bench_storage.py [--quick]``; the full run takes about 15 minutes and
about 3 GB in the temporary folder.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from bench_traces import peak_memory
from common import (
    OTHER_TOOL_TIMEOUT,
    Check,
    Comparison,
    Table,
    Timing,
    format_seconds,
    progress,
)

HERE = Path(__file__).resolve()
GB = 1024**3
MB = 1024**2
#: A trace made straight to Parquet keeps memory under this, whatever its size.
GENERATION_MEMORY = 4 * GB
GENERATION = {"events": 100_000_000, "processes": 1024}
QUICK_GENERATION = {"events": 100_000, "processes": 8}


def child(step: str, folder: Path, argument: str) -> dict:
    """Run one step in ``folder``; its time and this process's peak memory."""
    import pandas as pd
    import pyarrow.parquet  # noqa: F401  (modules are imported once per session, not per call)

    import glade.readers.traces.events  # noqa: F401

    warnings.simplefilter("ignore")
    if step == "glade_write":
        from glade.trace import Trace

        trace = Trace(pd.read_pickle(folder / "events.pkl"), copy=False)
        call = lambda: trace.to_parquet(folder / "written.parquet")  # noqa: E731
    elif step == "glade_read":
        from glade.trace import Trace

        call = lambda: Trace.from_parquet(folder / "trace.parquet")  # noqa: E731
    elif step == "pipit_write":
        import pipit

        trace = pipit.Trace(None, pd.read_pickle(folder / "pipit.pkl"))
        call = lambda: trace.to_chrome(str(folder / "pipit.json"))  # noqa: E731
    elif step == "pipit_read":
        import pipit

        call = lambda: pipit.Trace.from_csv(str(folder / "trace.csv"))  # noqa: E731
    elif step == "generate":
        from glade.datasets import write_synthetic_trace

        sizes = json.loads(argument)
        call = lambda: write_synthetic_trace(folder / "generated", **sizes)  # noqa: E731
    else:
        raise ValueError(f"unknown step {step!r}")
    start = time.perf_counter()
    call()
    return {"seconds": time.perf_counter() - start, "peak": peak_memory()}


def run_child(
    step: str, folder: Path, argument: str = "", timeout: float | None = None
) -> tuple[Timing, int | None]:
    """The time and peak memory of one step in a fresh process (a lower bound and no
    memory when it was stopped after ``timeout`` seconds)."""
    try:
        done = subprocess.run(
            [sys.executable, str(HERE), "--child", step, str(folder), argument],
            capture_output=True,
            text=True,
            check=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Timing(timeout, 1, stopped=True), None
    except subprocess.CalledProcessError as exc:
        raise RuntimeError(f"{step} failed: {exc.stderr[-2000:]}") from exc
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return Timing(result["seconds"], 1), result["peak"]


def size_of(path: Path) -> int:
    """Bytes of a file, or of every file under a directory."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def has_pipit() -> bool:
    """Whether Pipit (the benchmark environment's ``pipit``) is installed."""
    return importlib.util.find_spec("pipit") is not None


def prepare(folder: Path, events: int) -> int:
    """The synthetic trace as a pickle (glade's and Pipit's columns), Parquet and CSV."""
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(16, events=events, seed=0)
    trace.events.to_pickle(folder / "events.pkl")
    trace.events[["Timestamp (ns)", "Event Type", "Name", "Process", "Thread"]].to_pickle(
        folder / "pipit.pkl"
    )
    trace.to_parquet(folder / "trace.parquet")
    trace.to_csv(folder / "trace.csv")
    return len(trace)


def megabytes(size: int) -> str:
    return f"{size / MB:,.1f} MB"


def memory(peak: int | None) -> str:
    return "-" if peak is None else f"{peak / GB:.2f} GB"


def storage_table(quick: bool) -> Table:
    """glade's Parquet write and read against Pipit's to_chrome and from_csv."""
    table = Comparison(
        "Trace storage (synthetic, 16 processes)",
        "Pipit",
        ["glade peak", "Pipit peak", "glade size", "Pipit size"],
    )
    pipit = has_pipit()
    for size in [100_000] if quick else [1_000_000, 10_000_000]:
        folder = Path(tempfile.mkdtemp(prefix="glade-bench-storage-"))
        try:
            count = prepare(folder, size)
            steps = [
                (
                    "write",
                    "glade_write",
                    "pipit_write",
                    "written.parquet",
                    "pipit.json",
                    "Parquet / Chrome JSON",
                ),
                ("read", "glade_read", "pipit_read", "trace.parquet", "trace.csv", "Parquet / CSV"),
            ]
            for verb, mine, theirs, my_file, their_file, formats in progress(
                steps, f"storage, {size:.0e} events"
            ):
                glade_time, glade_peak = run_child(mine, folder)
                other, other_peak = (
                    run_child(theirs, folder, timeout=OTHER_TOOL_TIMEOUT) if pipit else (None, None)
                )
                their_path = folder / their_file
                table.compare(
                    f"{verb} {count:,} events ({formats})",
                    glade_time,
                    other,
                    None,
                    [
                        memory(glade_peak),
                        memory(other_peak),
                        megabytes(size_of(folder / my_file)),
                        megabytes(size_of(their_path)) if their_path.exists() else "-",
                    ],
                )
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    table.note(
        "Pipit has no format it both writes and reads: its writer is to_chrome, its "
        "reader from_csv; glade writes and reads Parquet partitioned by process"
    )
    table.note(
        "each step runs once in a fresh process; peak is that process's peak "
        "resident set (the trace included)"
    )
    if not pipit:
        table.note("Pipit not measured: it is not installed in this environment")
    return table.show()


def generation_table(quick: bool) -> Table:
    """A synthetic trace made straight to Parquet, a process group at a time."""
    table = Table(
        "Synthetic trace straight to Parquet (ring exchange)",
        ["events", "processes", "time", "events/s", "peak memory", "size on disk", "target", "met"],
    )
    sizes = QUICK_GENERATION if quick else GENERATION
    folder = Path(tempfile.mkdtemp(prefix="glade-bench-generate-"))
    try:
        timing, peak = run_child("generate", folder, json.dumps(sizes))
        written = json.loads((folder / "generated" / "glade.json").read_text())
        count = written["events"]["rows"]
        met = None if quick else peak < GENERATION_MEMORY
        table.add(
            f"{count:,}",
            sizes["processes"],
            format_seconds(timing.best),
            f"{count / timing.best:,.0f}",
            memory(peak),
            megabytes(size_of(folder / "generated")),
            "" if quick else "< 4 GB",
            {None: "", True: "yes", False: "NO"}[met],
        )
        if met is not None:
            table.checks.append(Check(table.title, f"{count:,} events", "< 4 GB", met))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    table.note(
        "glade.datasets.write_synthetic_trace, 2 * 10^6 events per group of "
        "processes; peak is the writing process's peak resident set"
    )
    return table.show()


def main(quick: bool = False) -> list[Table]:
    """Run the storage benchmarks, print their tables and return them."""
    return [storage_table(quick), generation_table(quick)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument(
        "--child", nargs=3, metavar=("STEP", "FOLDER", "ARGUMENT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.child[2])))
    else:
        main(args.quick)
