"""Window summaries in the kernel (issue 27): ``trace.window_summary()`` and a timeline's
``view.summary()`` on synthetic traces of 10^6 and 10^7 events on 64 and 1024 processes,
for windows of 1 %, 10 % and 50 % of the trace on every process, and of 10 % on a quarter
of them; per function, per process and per process and function.

The call forest's arrays are built once per trace (shared with the timeline, not timed:
the summary of a window is what the user waits for after a brush), and the trace's first
summary, which pairs its messages and finds its wait states once, is timed apart (wall and
CPU time; a timeline view does that work in the background once it is built); each time
is the best of three calls after a warm-up (numba and numpy code paths loaded on a small
trace first). Target: under 200 ms at 10^7 events and 1024 processes. The machine may be
shared: the load average is printed with the table.

    python benchmarks/bench_window_summary.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

from common import Check, Table, measure

CASES = [(10**6, 64), (10**7, 1024)]
QUICK_CASES = [(20_000, 8)]
TARGET_SECONDS = 0.2
WINDOWS = [(0.01, 1.0), (0.1, 1.0), (0.5, 1.0), (0.1, 0.25)]


def main(quick: bool = False, cases: list[tuple[int, int]] | None = None) -> list[Table]:
    """The window summary benchmark (the target is judged at 10^7 events in full runs)."""
    from glade.datasets import synthetic_trace
    from glade.trace.windows import trace_forest

    cases = cases or (QUICK_CASES if quick else CASES)
    repeat = 1 if quick else 3
    table = Table(
        "Window summary in the kernel (trace.window_summary, clipped to the window)",
        ["events", "processes", "window", "processes in it", "function", "process", "both"],
    )
    synthetic_trace(4, 3).window_summary(0, 10**6)  # load the compiled code paths
    once: list[str] = []
    for events, processes in cases:
        trace = synthetic_trace(processes, events=events, seed=0)
        trace_forest(trace)
        first = int(trace.events["Timestamp (ns)"].min())
        last = int(trace.events["Timestamp (ns)"].max())
        # the trace's first summary analyses it once (its message pairs and wait states,
        # kept for every later summary and the timeline's wait layer): timed apart
        started, cpu = time.perf_counter(), time.process_time()
        trace.window_summary(first, last)
        once.append(
            f"{len(trace.events):,} events: {time.perf_counter() - started:.2f} s "
            f"({time.process_time() - cpu:.2f} s CPU)"
        )
        for fraction, share in WINDOWS:
            t0 = first + int((last - first) * (0.5 - fraction / 2))
            t1 = t0 + int((last - first) * fraction)
            chosen = None if share == 1.0 else range(int(processes * share))
            times = {
                by: measure(partial(trace.window_summary, t0, t1, chosen, by), repeat)
                for by in ("function", "process", "process-function")
            }
            table.add(
                f"{len(trace.events):,}",
                processes,
                f"{fraction:.0%}",
                "all" if chosen is None else f"{len(chosen)}",
                *(f"{1000 * times[b].best:.0f} ms" for b in times),
            )
            if events >= 10**7 and not quick:
                table.checks.append(
                    Check(
                        table.title,
                        f"window summary, {events:.0e} events, {processes} processes, "
                        f"window {fraction:.0%} of {share:.0%} processes",
                        f"< {1000 * TARGET_SECONDS:.0f} ms",
                        max(t.best for t in times.values()) < TARGET_SECONDS,
                    )
                )
    table.note(f"load average while measuring: {' '.join(map(str, os.getloadavg()))}")
    table.note(f"best of {repeat} calls after a warm-up; the forest's arrays built beforehand")
    table.note(
        "the first summary of a trace (the whole run, before the windows above) analyses it "
        f"once, its message pairs and wait states: {'; '.join(once)}"
    )
    return [table.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    main(quick=parser.parse_args().quick)
