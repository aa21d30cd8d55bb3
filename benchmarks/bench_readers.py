"""Trace readers side by side: Chrome / Perfetto JSON and OTF2 at 10^6 and 10^7 events
(synthetic traces of 16 processes written by glade), with events per second and the
memory-bandwidth limit of each read (the bytes it must touch at the copy bandwidth
measured in the same run). OTF2 is compared with Pipit's ``from_otf2`` on the same
archive; Pipit has no Chrome reader, so the Chrome row is compared with Python's own
``json.loads`` of the same file (Python objects only, no table), the floor of any reader
that goes through Python objects.

Run alone with ``python benchmarks/bench_readers.py [--quick]`` (about 15 minutes with
Pipit installed; the 10^7-event files take about 1.2 GB in the temporary folder).
Every read runs in a fresh child process; glade's compiled scanners and callbacks are
loaded (or compiled once) on a small file before anything is timed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from common import (
    LIMIT_HEADERS,
    Comparison,
    Table,
    Target,
    Timing,
    copy_bandwidth,
    limit_columns,
    load_optional,
    progress,
)

HERE = Path(__file__).resolve()
#: Pipit's OTF2 reader is stopped after this many seconds (a lower bound is reported).
PIPIT_TIMEOUT = 240.0
#: The target of both glade readers (issue 16).
EVENTS_PER_SECOND = 2_000_000
#: json.loads builds several GB of Python objects at 10^7 events: it runs up to this many.
JSON_LOADS_EVENTS = 2_000_000


def child(step: str, folder: Path) -> dict:
    """One read in this (fresh) process: its best time over the calls it gets."""
    warnings.simplefilter("ignore")
    if step == "pipit_read_otf2":
        import pipit

        return timed(lambda: pipit.Trace.from_otf2(str(folder / "otf2")), 1)
    if step == "json_loads":
        return timed(lambda: json.loads((folder / "trace.json").read_bytes()), 1)
    from glade.trace import Trace

    small = folder / "small"
    warm = {
        "read_chrome": lambda: Trace.from_chrome(small / "trace.json", progress=False),
        "read_otf2": lambda: Trace.from_otf2(small / "otf2"),
    }
    calls = {
        "read_chrome": lambda: Trace.from_chrome(folder / "trace.json", progress=False),
        "read_otf2": lambda: Trace.from_otf2(folder / "otf2"),
    }
    warm[step]()
    return timed(calls[step], 3 if (folder / "trace.json").stat().st_size < 2**28 else 1)


def timed(call, repeat: int) -> dict:
    """The best of ``repeat`` timed calls of ``call``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return {"seconds": min(times), "runs": repeat}


def prepare(folder: Path, events: int) -> dict:
    """The synthetic trace written as Chrome JSON and OTF2 (and a small copy of both to
    warm up the compiled code); its event count and the bytes each read must touch:
    the file (for OTF2, the archive's event files) read once and the events table
    written once (a categorical column by its codes)."""
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(16, events=events, seed=0)
    trace.to_chrome(folder / "trace.json")
    trace.to_otf2(folder / "otf2")
    small = synthetic_trace(4, events=2_000, seed=1)
    (folder / "small").mkdir()
    small.to_chrome(folder / "small" / "trace.json")
    small.to_otf2(folder / "small" / "otf2")
    table = sum(
        (trace.events[c].cat.codes if hasattr(trace.events[c], "cat") else trace.events[c])
        .to_numpy()
        .dtype.itemsize
        for c in trace.events.columns
    ) * len(trace)
    archive = sum(p.stat().st_size for p in (folder / "otf2").rglob("*") if p.is_file())
    return {
        "count": len(trace),
        "table": table,
        "chrome_bytes": (folder / "trace.json").stat().st_size + table,
        "otf2_bytes": archive + table,
    }


def measure_step(step: str, folder: Path, timeout: float | None = None) -> Timing:
    """Run ``step`` in a fresh child process (stopped after ``timeout`` seconds)."""
    try:
        done = subprocess.run(
            [sys.executable, str(HERE), "--child", step, str(folder)],
            capture_output=True,
            text=True,
            check=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Timing(timeout or 0.0, 1, stopped=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return Timing(result["seconds"], result["runs"])


def main(quick: bool = False) -> list[Table]:
    """Run the reader benchmarks, print their tables and return them."""
    has_pipit = load_optional("pipit") is not None
    bandwidth = copy_bandwidth()
    chrome = Comparison(
        "Chrome / Perfetto JSON reader (same file, same run)", "json.loads", LIMIT_HEADERS
    )
    otf2 = Comparison(
        "OTF2 reader side by side with Pipit (same archive, same run)", "Pipit", LIMIT_HEADERS
    )
    sizes = [100_000] if quick else [1_000_000, 10_000_000]
    for size in progress(sizes, "readers"):
        folder = Path(tempfile.mkdtemp(prefix="glade-bench-readers-"))
        try:
            prepared = prepare(folder, size)
            count = prepared["count"]
            rate = Target(seconds=count / EVENTS_PER_SECOND) if not quick else None
            ours = measure_step("read_chrome", folder)
            baseline = measure_step("json_loads", folder) if count <= JSON_LOADS_EVENTS else None
            chrome.compare(
                f"read Chrome JSON, {count:,} events",
                ours,
                baseline,
                rate,
                limit_columns(count, ours.best, prepared["chrome_bytes"], bandwidth),
            )
            ours = measure_step("read_otf2", folder)
            theirs = measure_step("pipit_read_otf2", folder, PIPIT_TIMEOUT) if has_pipit else None
            otf2.compare(
                f"read OTF2, {count:,} events",
                ours,
                theirs,
                rate,
                limit_columns(count, ours.best, prepared["otf2_bytes"], bandwidth),
            )
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    for table in (chrome, otf2):
        table.note(
            f"memory bandwidth measured in this run: {bandwidth / 1e9:.1f} GB/s (a "
            "numpy copy of 256 MiB, bytes read + written); 'bandwidth limit' is the "
            "time the file's bytes read once and the events table written once take "
            "at that rate"
        )
        table.note(
            f"target: at least {EVENTS_PER_SECOND / 1e6:g} M events/s (issue 16), "
            "shown as the time that rate gives; glade: best of 3 calls at 10^6 "
            "events, 1 at 10^7, each in a fresh process after a warm-up read of a "
            "small file (compiled code loaded)"
        )
    chrome.note(
        "Pipit has no Chrome reader; json.loads (Python's C parser) builds only the "
        "Python objects of the file, no table: one call in a fresh process, up to "
        f"{JSON_LOADS_EVENTS:,} events (beyond, its objects take several GB)"
    )
    otf2.note(
        f"Pipit: Trace.from_otf2 on the same archive, one call in a fresh process, "
        f"stopped after {PIPIT_TIMEOUT:.0f} s"
    )
    if not has_pipit:
        otf2.note("Pipit not measured: it is not installed (see benchmarks/README.md)")
    return [chrome.show(), otf2.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--child", nargs=2, metavar=("STEP", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]))))
    else:
        main(args.quick)
