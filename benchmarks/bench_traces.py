"""Traces: writing and reading CSV, Chrome JSON and OTF2 (when the ``otf2`` package is
installed), matching Enter/Leave with
inclusive and exclusive metrics, and the analyses (flat profile, time profile,
communication matrix) on synthetic traces of 10^6 and 10^7 events (16 processes,
ring exchange), with events per second and peak memory; then reading the CSV file and
matching with inclusive/exclusive time side by side with Pipit (when installed) on the
same file, as ratios and against the memory-bandwidth limit measured in the same run.

Run alone with ``python benchmarks/bench_traces.py [--quick]`` (about 15 minutes; the
10^7-event files take 1.3 GB in the temporary folder while it runs).

Every measurement runs in a fresh child process, so that its peak memory (the
child's peak resident set, ``VmHWM``, the trace itself included) is its own. The analyses
are measured on a trace whose metrics were computed first (not timed); their time
is the best of three calls. glade's compiled kernels are loaded (or compiled) on a small
trace in the child before anything is timed: the first call's compilation is a
one-time cost (see the README), not the operation's.
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

from common import (
    LIMIT_HEADERS,
    OTHER_TOOL_TIMEOUT,
    Check,
    Comparison,
    Table,
    Target,
    Timing,
    copy_bandwidth,
    format_seconds,
    limit_columns,
    load_optional,
    progress,
)

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
    ("match + inclusive/exclusive", "match", 1.0),
    ("flat profile (time.exc)", "flat", 1.0),
    ("time profile (50 bins)", "time", 1.0),
    ("comm matrix", "comm", 1.0),
]
MEMORY_TARGET = 3 * GB

#: The steps timed as the best of three calls, on a trace whose metrics were computed first.
ANALYSES = ("flat", "time", "comm")
#: The steps compared with Pipit (timed three times on 10^6 events).
COMPARED = ("read_csv", "match", "pipit_read_csv")
TIMESTAMP = "Timestamp (ns)"


def child(step: str, folder: Path) -> dict:
    """Run one step on the trace stored in ``folder``; its time and peak memory."""
    if step.startswith("pipit_"):
        return pipit_child(step, folder)
    import pandas as pd

    from glade.datasets import synthetic_trace
    from glade.trace import Trace

    warnings.simplefilter("ignore")
    warm = synthetic_trace(2, 3)
    warm.calc_exc_metrics()
    warm.to_csv(folder / f"warm-{step}.csv")
    Trace.from_csv(folder / f"warm-{step}.csv", progress=False)
    events = None if step.startswith("read_") else pd.read_pickle(folder / "events.pkl")
    trace = None if events is None else Trace(events)
    if step in ANALYSES:
        trace.calc_exc_metrics()
    fresh = {"match": lambda: Trace(events)}
    calls = {
        "read_csv": lambda _: Trace.from_csv(folder / "trace.csv", progress=False),
        "read_chrome": lambda _: Trace.from_chrome(folder / "trace.json", progress=False),
        "read_otf2": lambda _: Trace.from_otf2(folder / "otf2" / "traces.otf2"),
        "write_csv": lambda _: trace.to_csv(folder / "out.csv"),
        "write_chrome": lambda _: trace.to_chrome(folder / "out.json"),
        "write_otf2": lambda _: trace.to_otf2(folder / "out-otf2"),
        "match": lambda t: t.calc_exc_metrics([TIMESTAMP]),
        "flat": lambda _: trace.flat_profile("time.exc"),
        "time": lambda _: trace.time_profile(50),
        "comm": lambda _: trace.comm_matrix(),
    }
    return timed(calls[step], fresh.get(step, lambda: None), repeat_of(step, events))


def pipit_child(step: str, folder: Path) -> dict:
    """One step of Pipit on the same CSV file: reading it, or matching with inclusive
    and exclusive time (on a trace read from it, not timed)."""
    import pipit

    warnings.simplefilter("ignore")
    path = str(folder / "trace.csv")
    if step == "pipit_read_csv":
        return timed(
            lambda _: pipit.Trace.from_csv(path), lambda: None, repeat_of(step, None, path)
        )
    return timed(lambda t: t.calc_exc_metrics([TIMESTAMP]), lambda: pipit.Trace.from_csv(path), 1)


def repeat_of(step: str, events, path: str | None = None) -> int:
    """How many timed calls a step gets: three for the analyses and for the steps of
    the comparison with Pipit on 10^6 events, else one (a 10^7-event step is long)."""
    if step in ANALYSES:
        return 3
    if step in COMPARED:
        size = len(events) if events is not None else Path(path or "").stat().st_size
        return 3 if size <= (1_100_000 if events is not None else 60 * 2**20) else 1
    return 1


def timed(call, fresh, repeat: int) -> dict:
    """The best of ``repeat`` timed calls ``call(fresh())`` (``fresh()`` builds the input
    of each call, untimed), and this process's peak memory."""
    times = []
    for _ in range(repeat):
        subject = fresh()
        start = time.perf_counter()
        call(subject)
        times.append(time.perf_counter() - start)
    return {"seconds": min(times), "peak": peak_memory(), "runs": repeat}


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


def prepare(folder: Path, events: int) -> dict:
    """Generate the synthetic trace and store it as a pickle, CSV, Chrome JSON and (when
    the otf2 package is there) OTF2; its event count and the bytes the compared steps
    must touch (see :func:`bytes_touched`)."""
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(16, events=events, seed=0)
    trace.events.to_pickle(folder / "events.pkl")
    trace.to_csv(folder / "trace.csv")
    trace.to_chrome(folder / "trace.json")
    if has_otf2():
        trace.to_otf2(folder / "otf2")
    return {"count": len(trace), **bytes_touched(trace.events, folder / "trace.csv")}


def bytes_touched(events, csv_file: Path) -> dict:
    """The bytes a step cannot avoid touching, the basis of its bandwidth limit.
    Reading CSV: the file's bytes read, and the events table written (a categorical
    column by its codes). Matching with inclusive/exclusive time: the columns it needs
    read once (timestamps, event types, names, processes, threads) and the seven
    columns it adds written once (``_matching_event``, ``_matching_timestamp``,
    ``_parent``, ``_depth``, ``_num_children``, ``time.inc``, ``time.exc``, 8 bytes
    each)."""

    def width(column) -> int:
        values = column.cat.codes if hasattr(column, "cat") else column
        return values.to_numpy().dtype.itemsize

    table = sum(width(events[c]) for c in events.columns) * len(events)
    needed = ["Timestamp (ns)", "Event Type", "Name", "Process", "Thread"]
    match = (sum(width(events[c]) for c in needed) + 7 * 8) * len(events)
    return {"read_bytes": csv_file.stat().st_size + table, "match_bytes": match}


def measure_step(step: str, folder: Path, timeout: float | None = None) -> dict | None:
    """Run ``step`` in a fresh child process; None when it ran past ``timeout``."""
    try:
        done = subprocess.run(
            [sys.executable, str(HERE), "--child", step, str(folder)],
            capture_output=True,
            text=True,
            check=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(quick: bool = False) -> list[Table]:
    """Run the trace benchmarks, print their tables and return them."""
    table = Table(
        "Traces (synthetic, 16 processes)",
        ["case", "events", "time", "events/s", "peak memory", "target", "met"],
    )
    has_pipit = load_optional("pipit") is not None
    bandwidth = copy_bandwidth()
    versus = Comparison(
        "Traces side by side with Pipit (same CSV file, same run)", "Pipit", LIMIT_HEADERS
    )
    sizes = [100_000] if quick else [1_000_000, 10_000_000]
    steps = [s for s in STEPS if has_otf2() or "otf2" not in s[1]]
    for size in sizes:
        folder = Path(tempfile.mkdtemp(prefix="glade-bench-traces-"))
        try:
            prepared = prepare(folder, size)
            count = prepared["count"]
            ours = {}
            for case, step, target in progress(steps, f"traces, {size:.0e} events"):
                result = measure_step(step, folder)
                ours[step] = result
                seconds, peak = result["seconds"], result["peak"]
                goal, met = [], []
                if target is not None and not quick:
                    goal.append(f"< {format_seconds(target)}")
                    met.append(seconds < target)
                if size >= 10_000_000:
                    goal.append("< 3 GB")
                    met.append(peak < MEMORY_TARGET)
                verdict = ("yes" if all(met) else "NO") if met else ""
                table.add(
                    case,
                    f"{count:,}",
                    format_seconds(seconds),
                    f"{count / seconds:,.0f}",
                    f"{peak / GB:.2f} GB",
                    ", ".join(goal),
                    verdict,
                )
                if met:
                    table.checks.append(
                        Check(table.title, f"{case}, {count:,} events", ", ".join(goal), all(met))
                    )
            compare_with_pipit(versus, folder, prepared, ours, bandwidth, has_pipit, quick)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    table.note(
        "each step runs in a fresh process; peak memory is that process's peak "
        "resident set, the trace included"
    )
    table.note(
        "analyses: best of 3 calls on a trace whose inclusive/exclusive metrics were "
        "computed first (not timed)"
    )
    if not has_otf2():
        table.note("OTF2 not measured: the otf2 package is not installed (glade[otf2])")
    versus.note(
        f"memory bandwidth measured in this run: {bandwidth / 1e9:.1f} GB/s (a "
        "numpy copy of 256 MiB, bytes read + written); 'bandwidth limit' is the "
        "time the step's unavoidable bytes take at that rate (see bytes_touched)"
    )
    versus.note(
        "matching: calc_exc_metrics(['Timestamp (ns)']) on both sides (matching, "
        "callers, time.inc, time.exc), on a fresh trace each call; CSV: "
        "Trace.from_csv on the same file"
    )
    versus.note(
        "glade: best of 3 calls at 10^6 events, 1 at 10^7; Pipit: best of 3 reads "
        "at 10^6, 1 otherwise; Pipit's calls are stopped after "
        f"{format_seconds(OTHER_TOOL_TIMEOUT)}"
    )
    if not has_pipit:
        versus.note("Pipit not measured: it is not installed (see benchmarks/README.md)")
    return [table.show(), versus.show()]


def compare_with_pipit(
    versus: Comparison,
    folder: Path,
    prepared: dict,
    ours: dict,
    bandwidth: float,
    has_pipit: bool,
    quick: bool,
) -> None:
    """Rows of CSV reading and matching, glade's times (from ``ours``) next to Pipit's
    on the same file, with the bandwidth limit of each."""
    count = prepared["count"]
    rows = [
        ("read CSV", "read_csv", "pipit_read_csv", prepared["read_bytes"], Target(speedup=5)),
        (
            "match + inclusive/exclusive",
            "match",
            "pipit_match",
            prepared["match_bytes"],
            Target(speedup=100) if count < 5_000_000 else Target(seconds=1.0),
        ),
    ]
    for case, step, theirs_step, touched, target in rows:
        result = ours[step]
        glade = Timing(result["seconds"], result["runs"])
        theirs = None
        if has_pipit:
            done = measure_step(theirs_step, folder, timeout=OTHER_TOOL_TIMEOUT)
            theirs = (
                Timing(OTHER_TOOL_TIMEOUT, 1, stopped=True)
                if done is None
                else Timing(done["seconds"], done["runs"])
            )
        versus.compare(
            f"{case}, {count:,} events",
            glade,
            theirs,
            None if quick else target,
            limit_columns(count, glade.best, touched, bandwidth),
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--child", nargs=2, metavar=("STEP", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]))))
    else:
        main(args.quick)
