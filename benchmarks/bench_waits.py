"""Wait states and the critical path at scale: ``trace.wait_states()`` and
``trace.critical_path()`` on synthetic MPI runs (glade.datasets.synthetic_trace, a ring
exchange with a slow process) of 10^6 events on 64 processes and 10^7 events on 1,024
processes.

Each is timed from a trace whose calls are matched (``match_events``: the call
structure every analysis shares); the wait states include the pairing of the messages,
the critical path starts from the wait states (each is computed once per trace and
kept, so the timed calls drop what the trace kept before each run).
Target (issue 31): each under 2 s at 10^7 events and 1,024 processes.

Run alone with ``python benchmarks/bench_waits.py [--quick]``.
"""

from __future__ import annotations

import argparse
import warnings

from common import TIMING_NOTE, Comparison, Table, Target, measure
from glade.datasets import synthetic_trace
from glade.trace import Trace

CASES = [(10**6, 64), (10**7, 1024)]
QUICK_CASES = [(20_000, 8)]


def fresh(trace: Trace, *kept: str) -> Trace:
    """``trace`` without the results it keeps of earlier wait-state analyses (the call
    structure stays), so that a timed call computes them."""
    for key in ("message pairs", "wait states", "critical path"):
        if key not in kept:
            trace._memos.pop(key, None)
    return trace


def main(quick: bool = False) -> list[Table]:
    """Run the benchmark, print its table and return it."""
    warnings.simplefilter("ignore")
    table = Comparison("Wait states and the critical path", "other tool")
    repeat = 1 if quick else 3
    for events, processes in QUICK_CASES if quick else CASES:
        trace = synthetic_trace(processes, events=events, imbalance=0.3)
        trace.match_events()
        target = None if quick or events < 10**7 else Target(seconds=2.0)
        case = f"{len(trace):,} events, {processes:,} processes"
        waits = measure(lambda t=trace: fresh(t).wait_states(), repeat)
        table.compare(f"wait_states(): {case}", waits, None, target)
        path = measure(
            lambda t=trace: fresh(t, "message pairs", "wait states").critical_path(), repeat
        )
        table.compare(f"critical_path(): {case}", path, None, target)
    table.note(
        "from a trace whose calls are matched; wait_states() pairs the messages, "
        "critical_path() starts from the wait states"
    )
    table.note("no other tool computes these in Python: glade alone")
    table.note(TIMING_NOTE)
    return [table.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    main(parser.parse_args().quick)
