"""Traces: writing and reading CSV, Chrome JSON and OTF2 (when the ``otf2`` package is
installed), matching Enter/Leave with
inclusive and exclusive metrics, and the analyses (flat profile, time profile,
communication matrix) on synthetic traces of 10^6 and 10^7 events (16 processes,
ring exchange), with events per second and peak memory.

Run alone with ``python benchmarks/bench_traces.py [--quick]`` (about 10 minutes; the
10^7-event files take 1.3 GB in the temporary folder while it runs).

Every measurement runs in a fresh child process, so that its peak memory (the
child's peak resident set, ``VmHWM``, the trace itself included) is its own. The analyses
are measured on a trace whose metrics were computed first (not timed); their time
is the best of three calls.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from common import Check, Table, format_seconds, progress

HERE = Path(__file__).resolve()
GB = 1024**3

#: (case, child step, time target in seconds or None)
STEPS = [
    ("write CSV", "write_csv", None),
    ("read CSV", "read_csv", None),
    ("write Chrome JSON", "write_chrome", None),
    ("read Chrome JSON", "read_chrome", None),
    ("write OTF2", "write_otf2", None),
    ("read OTF2", "read_otf2", None),
    ("match + inclusive/exclusive", "match", 10.0),
    ("flat profile (time.exc)", "flat", 1.0),
    ("time profile (50 bins)", "time", 1.0),
    ("comm matrix", "comm", 1.0),
]
MEMORY_TARGET = 3 * GB

#: The steps timed as the best of three calls, on a trace whose metrics were computed first.
ANALYSES = ("flat", "time", "comm")


def child(step: str, folder: Path) -> dict:
    """Run one step on the trace stored in ``folder``; its time and peak memory."""
    import pandas as pd

    from glade.trace import Trace

    warnings.simplefilter("ignore")
    trace = None if step.startswith("read_") else Trace(pd.read_pickle(folder / "events.pkl"))
    if step in ANALYSES:
        trace.calc_exc_metrics()
    calls = {
        "read_csv": lambda: Trace.from_csv(folder / "trace.csv", progress=False),
        "read_chrome": lambda: Trace.from_chrome(folder / "trace.json", progress=False),
        "read_otf2": lambda: Trace.from_otf2(folder / "otf2" / "traces.otf2"),
        "write_csv": lambda: trace.to_csv(folder / "out.csv"),
        "write_chrome": lambda: trace.to_chrome(folder / "out.json"),
        "write_otf2": lambda: trace.to_otf2(folder / "out-otf2"),
        "match": lambda: trace.calc_exc_metrics(),
        "flat": lambda: trace.flat_profile("time.exc"),
        "time": lambda: trace.time_profile(50),
        "comm": lambda: trace.comm_matrix(),
    }
    times = []
    for _ in range(3 if step in ANALYSES else 1):
        start = time.perf_counter()
        calls[step]()
        times.append(time.perf_counter() - start)
    return {"seconds": min(times), "peak": peak_memory()}


def peak_memory() -> int:
    """This process's peak resident set in bytes (``VmHWM``: unlike ``ru_maxrss`` it
    does not include the parent's peak inherited through fork)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def has_otf2() -> bool:
    """Whether the ``otf2`` package (the ``glade[otf2]`` extra) is installed."""
    return importlib.util.find_spec("otf2") is not None


def prepare(folder: Path, events: int) -> int:
    """Generate the synthetic trace and store it as a pickle, CSV, Chrome JSON and (when
    the otf2 package is there) OTF2."""
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(16, events=events, seed=0)
    trace.events.to_pickle(folder / "events.pkl")
    trace.to_csv(folder / "trace.csv")
    trace.to_chrome(folder / "trace.json")
    if has_otf2():
        trace.to_otf2(folder / "otf2")
    return len(trace)


def measure_step(step: str, folder: Path) -> dict:
    done = subprocess.run([sys.executable, str(HERE), "--child", step, str(folder)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(quick: bool = False) -> list[Table]:
    """Run the trace benchmarks, print their table and return it."""
    table = Table("Traces (synthetic, 16 processes)",
                  ["case", "events", "time", "events/s", "peak memory", "target", "met"])
    sizes = [100_000] if quick else [1_000_000, 10_000_000]
    steps = [s for s in STEPS if has_otf2() or "otf2" not in s[1]]
    for size in sizes:
        folder = Path(tempfile.mkdtemp(prefix="glade-bench-traces-"))
        try:
            count = prepare(folder, size)
            for case, step, target in progress(steps, f"traces, {size:.0e} events"):
                result = measure_step(step, folder)
                seconds, peak = result["seconds"], result["peak"]
                goal, met = [], []
                if target is not None and not quick:
                    goal.append(f"< {format_seconds(target)}")
                    met.append(seconds < target)
                if size >= 10_000_000:
                    goal.append("< 3 GB")
                    met.append(peak < MEMORY_TARGET)
                verdict = ("yes" if all(met) else "NO") if met else ""
                table.add(case, f"{count:,}", format_seconds(seconds),
                          f"{count / seconds:,.0f}", f"{peak / GB:.2f} GB", ", ".join(goal),
                          verdict)
                if met:
                    table.checks.append(Check(table.title, f"{case}, {count:,} events",
                                              ", ".join(goal), all(met)))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    table.note("each step runs in a fresh process; peak memory is that process's peak "
               "resident set, the trace included")
    table.note("analyses: best of 3 calls on a trace whose inclusive/exclusive metrics were "
               "computed first (not timed)")
    if not has_otf2():
        table.note("OTF2 not measured: the otf2 package is not installed (glade[otf2])")
    return [table.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--child", nargs=2, metavar=("STEP", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]))))
    else:
        main(args.quick)
