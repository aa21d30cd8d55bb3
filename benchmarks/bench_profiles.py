"""Profiles side by side with Hatchet: reading a real HPCToolkit database, and
``from_literal``, ``squash`` and ``tree()`` on synthetic call trees built from the
same literal for both tools; plus glade alone reading one root with 10^6 children
written as a Hatchet literal, Caliper JSON and pyinstrument JSON (issue 25, item 6).

Run alone with ``python benchmarks/bench_profiles.py [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import tempfile
import time
from pathlib import Path

import glade
from common import (
    OTHER_TOOL_TIMEOUT,
    TIMING_NOTE,
    Comparison,
    Table,
    Target,
    Timing,
    load_optional,
    measure,
    progress,
)
from glade import GraphFrame
from glade.datasets import shared_data, synthetic_literal

#: System, allocator, ``std::`` and MPI-internal frames: what a user hides first to
#: expose the application (about 28% of the nodes of a synthetic profile).
SYSTEM_FRAME = re.compile(
    r"(malloc|calloc|realloc|free|memset|memcpy|mmap|munmap|poll|sched_yield"
    r"|operator (new|delete)|(std|__gnu_cxx)::.*|_int_.*|__.*|pthread_.*"
    r"|(PMPI|MPID|MPIDI|MPIR|MPIC|psm)_.*)"
)


def not_system(row) -> bool:
    """True for a dataframe row whose node is not a system or MPI-internal frame."""
    return SYSTEM_FRAME.fullmatch(row["name"]) is None


def bench_cpi(table: Comparison, hatchet, repeat: int) -> None:
    """Reading the real HPCToolkit cpi database (4 MPI ranks)."""
    path = shared_data("hatchet", "hpctoolkit-cpi-database")
    if path is None or not path.is_dir():
        table.note("HPCToolkit cpi database not found (set GLADE_TEST_DATA): not measured")
        return
    ours = measure(lambda: GraphFrame.from_hpctoolkit(str(path)), repeat)
    theirs = (
        measure(lambda: hatchet.GraphFrame.from_hpctoolkit(str(path)), repeat, OTHER_TOOL_TIMEOUT)
        if hatchet
        else None
    )
    table.compare("read HPCToolkit cpi database", ours, theirs)
    gf = GraphFrame.from_hpctoolkit(str(path))
    line = f"cpi database: glade {len(gf.graph)} nodes x {len(gf.dataframe)} rows"
    if hatchet:
        hgf = hatchet.GraphFrame.from_hpctoolkit(str(path))
        line += f", Hatchet {len(hgf.graph)} nodes x {len(hgf.dataframe)} rows"
    table.note(line)


def bench_size(table: Comparison, hatchet, n: int, repeat: int, targets: bool) -> None:
    """from_literal, squash after hiding system frames, and tree() on an n-node tree."""
    literal = synthetic_literal(n)
    label = f"{n:,} nodes"
    read_ours = measure(lambda: GraphFrame.from_literal(literal), repeat)
    gf = GraphFrame.from_literal(literal)
    filtered = gf.filter(not_system, squash=False)
    squash_ours = measure(filtered.squash, repeat)
    tree_ours = measure(lambda: gf.tree(metric="time (inc)"), repeat)
    read_theirs = squash_theirs = tree_theirs = both_theirs = None
    if hatchet:
        read_theirs = measure(
            lambda: hatchet.GraphFrame.from_literal(literal), repeat, OTHER_TOOL_TIMEOUT
        )
        hgf = hatchet.GraphFrame.from_literal(literal)
        hfiltered = hgf.filter(not_system, squash=False, num_procs=1)
        squash_theirs = measure(hfiltered.squash, repeat, OTHER_TOOL_TIMEOUT)
        tree_theirs = measure(
            lambda: hgf.tree(metric_column="time (inc)"), repeat, OTHER_TOOL_TIMEOUT
        )
        both_theirs = Timing(
            read_theirs.best + squash_theirs.best,
            min(read_theirs.runs, squash_theirs.runs),
            read_theirs.stopped or squash_theirs.stopped,
        )
        if not squash_theirs.stopped:
            ours, theirs = filtered.squash(), hfiltered.squash()
            table.note(
                f"{label}: squash keeps {len(ours.graph):,} nodes in glade, "
                f"{len(theirs.graph):,} in Hatchet; total time {ours.dataframe['time'].sum():.6g}"
                f" in glade, {theirs.dataframe['time'].sum():.6g} in Hatchet"
            )
    both_ours = Timing(read_ours.best + squash_ours.best, min(read_ours.runs, squash_ours.runs))
    table.compare(
        f"from_literal, {label}",
        read_ours,
        read_theirs,
        Target(speedup=10) if targets and n == 100_000 else None,
    )
    table.compare(
        f"squash after hiding {1 - len(filtered.dataframe) / n:.0%} of nodes, {label}",
        squash_ours,
        squash_theirs,
    )
    table.compare(
        f"from_literal + squash, {label}",
        both_ours,
        both_theirs,
        Target(speedup=10) if targets and n == 10_000 else None,
    )
    table.compare(
        f"tree(), {label}",
        tree_ours,
        tree_theirs,
        Target(seconds=1.0) if targets and n == 100_000 else None,
    )


def wide_files(folder: Path, n: int) -> dict[str, Path]:
    """One root with ``n`` children, written in three profile formats."""
    literal = [
        {
            "frame": {"name": "root", "type": "function"},
            "metrics": {"time": 0.0, "time (inc)": float(n)},
            "children": [
                {
                    "frame": {"name": f"f{i}", "type": "function"},
                    "metrics": {"time": 1.0, "time (inc)": 1.0},
                }
                for i in range(n)
            ],
        }
    ]
    caliper = {
        "data": [[i, 1.0] for i in range(n + 1)],
        "columns": ["path", "time"],
        "column_metadata": [{"is_value": False}, {"is_value": True}],
        "nodes": [{"column": "path", "label": "root"}]
        + [{"column": "path", "label": f"f{i}", "parent": 0} for i in range(n)],
    }
    frame = {
        "file_path_short": "x.py",
        "file_path": "x.py",
        "time": 1.0,
        "is_application_code": True,
        "children": [],
    }
    pyinstrument = {
        "start_time": 0.0,
        "duration": float(n),
        "program": "x.py",
        "root_frame": {
            **frame,
            "function": "<module>",
            "line_no": 1,
            "time": float(n),
            "children": [{**frame, "function": f"f{i}", "line_no": i + 2} for i in range(n)],
        },
    }
    paths = {}
    for name, doc in (
        ("Hatchet literal JSON", literal),
        ("Caliper JSON", caliper),
        ("pyinstrument JSON", pyinstrument),
    ):
        paths[name] = folder / f"{name.split()[0].lower()}-{n}.json"
        paths[name].write_text(json.dumps(doc))
    return paths


def read_once(path: Path) -> Timing:
    """One ``glade.read`` as a user runs it: the garbage collector on (``measure`` pauses
    it, which hides what it costs a reader that makes millions of Python objects)."""
    gc.collect()
    start = time.perf_counter()
    glade.read(path)
    return Timing(time.perf_counter() - start, 1)


def bench_wide(table: Comparison, n: int, targets: bool) -> None:
    """glade alone: ``glade.read`` of one root with ``n`` children in three formats."""
    with tempfile.TemporaryDirectory(prefix="glade-bench-wide-") as folder:
        small = wide_files(Path(folder), 100)
        for path in small.values():  # compiled kernels loaded before anything is timed
            glade.read(path)
        for name, path in wide_files(Path(folder), n).items():
            table.compare(
                f"glade.read {name}, 1 root + {n:,} children (glade only)",
                read_once(path),
                None,
                Target(seconds=3.0) if targets else None,
            )


def main(quick: bool = False) -> list[Table]:
    """Run the profile benchmarks, print their table and return it."""
    hatchet = load_optional("hatchet")
    table = Comparison("Profiles: glade vs Hatchet", "Hatchet")
    repeat = 1 if quick else 5
    sizes = [1_000] if quick else [10_000, 100_000]
    bench_cpi(table, hatchet, repeat)
    for n in progress(sizes, "profiles"):
        bench_size(table, hatchet, n, repeat, targets=not quick)
    bench_wide(table, 10_000 if quick else 1_000_000, targets=not quick)
    if hatchet is None:
        table.note("Hatchet is not installed (pip install -e '.[bench]'): glade alone")
    table.note(
        "from_literal + squash is the sum of the two best times; the squash input is "
        "the same tree with system, allocator, std:: and MPI-internal frames filtered "
        "out (filter(callable, squash=False), not timed)"
    )
    table.note(TIMING_NOTE)
    return [table.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    main(parser.parse_args().quick)
