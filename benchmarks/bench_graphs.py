"""Graph ordering at scale: depth-first pre-order of wide and deep graphs (a star of
10^6 children, 10^6 roots, a chain of 10^6 nodes, a random tree and a random DAG of 10^6
nodes), the call tree of a trace with 10^6 top-level calls (``to_graphframe()``), and a
star of 10^5 children read from a literal next to Hatchet. scipy's depth-first search,
which glade used before, is quadratic in a node's fan-out and in the number of roots: a
star of 128k children took 6 s and 10^6 children did not finish in 120 s.

Run alone with ``python benchmarks/bench_graphs.py [--quick]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from common import (
    OTHER_TOOL_TIMEOUT,
    TIMING_NOTE,
    Comparison,
    Table,
    Target,
    load_optional,
    measure,
)
from glade import Graph, GraphFrame
from glade.trace import Trace


def shapes(n: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Edges (src, dst) of the graphs of ``n`` nodes."""
    rng = np.random.default_rng(0)
    ids = np.arange(1, n, dtype=np.int64)
    random_parent = (rng.random(n - 1) * ids).astype(np.int64)
    extra = rng.integers(0, n, size=n)
    dag_src = np.concatenate([random_parent, np.minimum(extra[: n // 2], extra[n // 2 :])])
    dag_dst = np.concatenate([ids, np.maximum(extra[: n // 2], extra[n // 2 :])])
    keep = dag_src != dag_dst
    return {
        "star": (np.zeros(n - 1, dtype=np.int64), ids),
        "roots": (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)),
        "chain": (ids - 1, ids),
        "random tree": (random_parent, ids),
        "random DAG (1.5 edges per node)": (dag_src[keep], dag_dst[keep]),
    }


def top_level_calls(n: int) -> Trace:
    """A trace of one process making ``n`` calls of 1,000 functions one after another."""
    stamps = np.arange(2 * n, dtype=np.int64)
    kinds = pd.Categorical(np.tile(["Enter", "Leave"], n), categories=["Enter", "Leave", "Instant"])
    names = np.repeat(np.char.add("f", (np.arange(n) % 1000).astype(str)), 2)
    events = pd.DataFrame(
        {
            "Timestamp (ns)": stamps,
            "Event Type": kinds,
            "Name": pd.Categorical(names),
            "Process": 0,
            "Thread": 0,
        }
    )
    return Trace(events)


def star_literal(n: int) -> list[dict]:
    return [
        {
            "frame": {"name": "main", "type": "function"},
            "metrics": {"time": 1.0},
            "children": [
                {"frame": {"name": f"f{i}", "type": "function"}, "metrics": {"time": 1.0}}
                for i in range(n - 1)
            ],
        }
    ]


def main(quick: bool = False) -> list[Table]:
    """Run the graph benchmarks, print their table and return it."""
    warnings.simplefilter("ignore")
    hatchet = load_optional("hatchet")
    table = Comparison("Graph ordering: glade (Hatchet for the literal star)", "Hatchet")
    repeat = 1 if quick else 5
    n = 10_000 if quick else 1_000_000
    frames = pd.DataFrame({"name": np.arange(n).astype(str)})
    for shape, (src, dst) in shapes(n).items():
        timing = measure(lambda s=src, d=dst: Graph.from_edges(frames, s, d), repeat)
        table.compare(
            f"pre-order: {shape}, {n:,} nodes", timing, None, None if quick else Target(seconds=5.0)
        )
    trace = top_level_calls(n)
    trace.calc_exc_metrics()
    timing = measure(trace.to_graphframe, repeat)
    table.compare(
        f"trace with {n:,} top-level calls: to_graphframe()",
        timing,
        None,
        None if quick else Target(seconds=10.0),
    )
    size = 1_000 if quick else 100_000
    literal = star_literal(size)
    ours = measure(lambda: GraphFrame.from_literal(literal), repeat)
    theirs = (
        measure(lambda: hatchet.GraphFrame.from_literal(literal), repeat, OTHER_TOOL_TIMEOUT)
        if hatchet
        else None
    )
    table.compare(f"from_literal: a star of {size:,} children", ours, theirs)
    if hatchet is None:
        table.note("Hatchet is not installed (pip install -e '.[bench]'): glade alone")
    table.note(
        "the graphs are built from edge arrays in node-id order (Graph.from_edges); "
        "the trace's events exist before timing and its metrics are computed first"
    )
    table.note(TIMING_NOTE)
    return [table.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    main(parser.parse_args().quick)
