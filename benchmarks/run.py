"""Run every benchmark module of this folder and summarize the targets.

``python benchmarks/run.py`` runs each ``bench_*.py`` here (alphabetical order) by
calling its ``main(quick)``; ``--quick`` makes a short smoke run; names select
modules (``python benchmarks/run.py queries profiles``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from pathlib import Path

from common import Check, Table, format_seconds

HERE = Path(__file__).resolve().parent


def available() -> list[str]:
    """Names of the benchmark modules present (``bench_queries.py`` is ``queries``)."""
    return sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))


def summary(checks: list[Check]) -> Table:
    """One row per target: which were met, missed, or could not be judged."""
    table = Table("Targets", ["benchmark", "case", "target", "met"])
    for check in checks:
        verdict = {True: "yes", False: "NO", None: "not judged"}[check.met]
        table.add(check.table, check.case, check.target, verdict)
    counts = {verdict: sum(1 for c in checks if c.met is verdict) for verdict in (True, False)}
    table.note(
        f"{len(checks)} targets: {counts[True]} met, {counts[False]} missed, "
        f"{len(checks) - counts[True] - counts[False]} not judged"
    )
    return table


def main(argv: list[str] | None = None) -> int:
    """Run the selected benchmarks. A module that raises is reported and the others still
    run; the exit status is 1 if any module raised, else 0 (missed targets do not fail
    the run: timings depend on the machine)."""
    names = available()
    parser = argparse.ArgumentParser(
        description="glade benchmarks, side by side with Hatchet, Thicket and Pipit"
    )
    parser.add_argument(
        "--quick", action="store_true", help="a short smoke run (small inputs, one timed call)"
    )
    parser.add_argument(
        "modules",
        nargs="*",
        metavar="MODULE",
        help=f"modules to run (default: all of {', '.join(names)})",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.modules) - set(names))
    if unknown:
        parser.error(f"no benchmark module {', '.join(unknown)}; present: {', '.join(names)}")
    checks: list[Check] = []
    failed: list[str] = []
    for name in args.modules or names:
        print(f"## bench_{name}\n", flush=True)
        start = time.perf_counter()
        try:
            tables = importlib.import_module(f"bench_{name}").main(quick=args.quick)
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        for table in tables:
            checks += table.checks
        print(f"(bench_{name}: {format_seconds(time.perf_counter() - start)})\n", flush=True)
    summary(checks).show()
    if failed:
        print(f"failed to run: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
