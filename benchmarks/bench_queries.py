"""Call path queries side by side with Hatchet: the same object-dialect queries on the
same synthetic trees (one row per node, and one row per node and rank), matching
alone and query/filter with squash; plus glade alone on a 10^6-node tree and on a
10^5-deep chain (a profile and a trace, issue 25 item 5), and the cost of parsing a
query in both dialects.

Run alone with ``python benchmarks/bench_queries.py [--quick]``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

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
    progress,
)
from glade import GraphFrame
from glade.datasets import synthetic_literal, synthetic_profile
from glade.nodes import NodeSet
from glade.query import Query, QueryNode, match_nodes, parse
from glade.query.strings import _parse_cached
from same_data import glade_ids, hatchet_with_rows, same_nodes

#: The paper's query: every MPI call (or its PMPI twin) and everything below it.
MPI_QUERY = [{"name": "P?MPI_.*"}, "*"]

#: A solver, any chain of calls, an MPI call costing more than 50 (inclusive), and
#: one or more MPI-internal frames below it: a regex, a numeric bound, an inner
#: ``*`` and a trailing ``+``.
SOLVER_MPI_QUERY = [
    {"name": "(solve|advance|integrate)_.*"},
    "*",
    {"name": "MPI_.*", "time (inc)": "> 50"},
    ("+", {"name": "(PMPI|MPID|MPIDI|MPIR|MPIC|psm)_.*"}),
]

#: The same 4-node query in the string dialect (same text for glade and Hatchet).
SOLVER_MPI_TEXT = (
    'MATCH (".", a)->("*")->(".", b)->("+", c) '
    'WHERE a."name" =~ "(solve|advance|integrate)_.*" AND b."name" =~ "MPI_.*" '
    'AND b."time (inc)" > 50 AND c."name" =~ "(PMPI|MPID|MPIDI|MPIR|MPIC|psm)_.*"'
)

QUERIES = {"MPI query": MPI_QUERY, "4-node query": SOLVER_MPI_QUERY}

#: Where an inner ``*`` must pass a node that satisfies the next query node to reach a
#: deeper match (application functions nest), so the two tools' semantics part.
NESTED_QUERY = [
    {"name": "(solve|advance)_.*"},
    "*",
    {"name": "(compute|update|apply)_.*", "time (inc)": "> 50"},
    ("+", {"name": "(MPI|PMPI|MPID|MPIDI|MPIR|MPIC|psm)_.*"}),
]


#: An alternation without a group: Hatchet anchors only its last alternative at the end.
ALTERNATION = [{"name": "MPI_Send|MPI_Wait"}]
#: What Hatchet makes of it, written for glade.
ALTERNATION_AS_HATCHET = [{"name": "MPI_Send.*|MPI_Wait"}]


def lazy_star(query: Query, position: int) -> Query:
    """``query`` with the ``*`` at ``position`` made lazy, as Hatchet's is: the wildcard's
    nodes never satisfy the next query node's predicate."""
    nodes = list(query.nodes)
    star, after = nodes[position], nodes[position + 1]
    nodes[position] = QueryNode("*", star.predicate & ~after.predicate)
    return Query(nodes)


@dataclass
class Dataset:
    """One profile in both tools: glade's GraphFrame, Hatchet's (or None), the node
    correspondence, and Hatchet's multi-index mode."""

    label: str
    gf: GraphFrame
    hgf: Any
    ids: dict[Any, int]
    mode: str
    target: Target | None


def make_dataset(hatchet, n: int, ranks: int | None, targets: bool) -> Dataset:
    """A synthetic profile of ``n`` nodes (one row per node, or per node and rank)."""
    literal = synthetic_literal(n)
    gf = synthetic_profile(n, ranks=ranks) if ranks else GraphFrame.from_literal(literal)
    label = f"{n:,} nodes x {ranks} ranks" if ranks else f"{n:,} nodes"
    target = Target(speedup=100) if targets and n == 10_000 else None
    if hatchet is None:
        return Dataset(label, gf, None, {}, "off", target)
    hgf = hatchet.GraphFrame.from_literal(literal)
    if ranks:
        hgf = hatchet_with_rows(hatchet, hgf, gf)
    return Dataset(label, gf, hgf, glade_ids(hgf, gf), "any" if ranks else "off", target)


def bench_dataset(table: Comparison, hatchet, data: Dataset, repeat: int) -> None:
    """Both queries on one dataset: matching alone, then query/filter with squash."""
    for name, query in QUERIES.items():
        ours = measure(lambda q=query: data.gf.match(q), repeat)
        theirs = agreement = None
        if hatchet:
            from hatchet.query import ObjectQuery

            def hatchet_match(q=query):
                return data.hgf.query_engine.apply(
                    ObjectQuery(q, data.mode), data.hgf.graph, data.hgf.dataframe
                )

            theirs = measure(hatchet_match, repeat, OTHER_TOOL_TIMEOUT)
            if not theirs.stopped:
                agreement = same_nodes(hatchet_match(), data.ids, data.gf.match(query))
        table.compare(f"match {name}, {data.label}", ours, theirs, data.target, [agreement or "-"])
        ours = measure(lambda q=query: data.gf.query(q), repeat)
        theirs = None
        if hatchet:
            theirs = measure(
                lambda q=query: data.hgf.filter(q, multi_index_mode=data.mode),
                repeat,
                OTHER_TOOL_TIMEOUT,
            )
        table.compare(f"query + squash {name}, {data.label}", ours, theirs, data.target, [""])


def bench_million(table: Comparison, n: int, repeat: int, targets: bool) -> None:
    """The 4-node query on one large tree, glade alone: ``match`` end to end (a NodeSet),
    then its two parts, the engine (node ids) and the NodeSet around them."""
    gf = synthetic_profile(n)
    label = f"{n:,} nodes (glade only)"
    matched = len(gf.match(SOLVER_MPI_QUERY))
    table.compare(
        f"match 4-node query, {label}",
        measure(lambda: gf.match(SOLVER_MPI_QUERY), repeat),
        None,
        Target(seconds=1.0) if targets else None,
        [f"{matched:,} nodes"],
    )
    table.compare(
        f"  engine alone (node ids), {label}",
        measure(lambda: match_nodes(gf, SOLVER_MPI_QUERY), repeat),
        None,
        None,
        [""],
    )
    ids = match_nodes(gf, SOLVER_MPI_QUERY)
    table.compare(
        f"  wrapper alone (NodeSet of the ids), {label}",
        measure(lambda: NodeSet(gf.graph, ids), repeat),
        None,
        None,
        [""],
    )
    table.compare(
        f"query + squash 4-node query, {label}",
        measure(lambda: gf.query(SOLVER_MPI_QUERY), repeat),
        None,
        None,
        [""],
    )


def chain_profile(n: int) -> GraphFrame:
    """A call chain ``f0 -> f1 -> ... -> f{n-1}``, one row per node."""
    frames = pd.DataFrame({"name": [f"f{i}" for i in range(n)]})
    rows = pd.DataFrame({"node": np.arange(n), "time": np.ones(n)})
    return GraphFrame.from_tables(
        frames, np.arange(n - 1), np.arange(1, n), rows, exc_metrics=["time"], fill_inclusive=True
    )


def chain_trace(n: int):
    """One process entering ``f0`` ... ``f{n-1}`` in turn, then leaving them."""
    from glade.trace import Trace

    names = [f"f{i}" for i in range(n)]
    return Trace(
        pd.DataFrame(
            {
                "Timestamp (ns)": np.arange(2 * n, dtype=np.float64),
                "Event Type": ["Enter"] * n + ["Leave"] * n,
                "Name": names + names[::-1],
                "Process": 0,
            }
        )
    )


def bench_chain(table: Comparison, n: int, repeat: int, targets: bool) -> None:
    """glade alone on an n-deep chain: ``[".", "*", {"name": last}]`` (every node
    matches) with ``match``, ``query``, and on the same chain as a trace at both levels
    (each trace query on a fresh Trace, so its call forest and CCT are built too)."""
    query = [".", "*", {"name": f"f{n - 1}"}]
    label = f"{n:,}-deep chain (glade only)"
    target = Target(seconds=1.0) if targets else None
    gf = chain_profile(n)
    matched = len(gf.match(query))
    table.compare(
        f"match chain query, {label}",
        measure(lambda: gf.match(query), repeat),
        None,
        target,
        [f"{matched:,} nodes"],
    )
    table.compare(
        f"query + squash chain query, {label}",
        measure(lambda: gf.query(query), repeat),
        None,
        target,
        [""],
    )
    for level in ("calls", "cct"):
        table.compare(
            f"trace.query level={level!r}, {label}",
            measure(lambda lv=level: chain_trace(n).query(query, level=lv), repeat),
            None,
            target,
            [""],
        )


def parse_uncached(text: str):
    """Parse string-dialect text from scratch (glade caches parsed texts for views that
    resend them; the benchmark measures the parser itself)."""
    _parse_cached.cache_clear()
    return parse(text)


def bench_parse(table: Comparison, hatchet, repeat: int, targets: bool) -> None:
    """Turning the 4-node query into a query object, in both dialects."""
    theirs_text = theirs_object = None
    if hatchet:
        from hatchet.query import ObjectQuery, parse_string_dialect

        theirs_text = measure(
            lambda: parse_string_dialect(SOLVER_MPI_TEXT), repeat, OTHER_TOOL_TIMEOUT
        )
        theirs_object = measure(lambda: ObjectQuery(SOLVER_MPI_QUERY), repeat, OTHER_TOOL_TIMEOUT)
    same = "yes" if parse(SOLVER_MPI_TEXT) == parse(SOLVER_MPI_QUERY) else "NO"
    table.compare(
        "parse + compile 4-node query, string dialect",
        measure(lambda: parse_uncached(SOLVER_MPI_TEXT), repeat),
        theirs_text,
        Target(seconds=1e-3) if targets else None,
        [f"same query: {same}"],
    )
    table.compare(
        "parse + compile 4-node query, object dialect",
        measure(lambda: parse(SOLVER_MPI_QUERY), repeat),
        theirs_object,
        Target(seconds=1e-3) if targets else None,
        [""],
    )


def semantics(hatchet, n: int) -> Table:
    """Where glade and Hatchet differ on purpose, each difference shown by a query that
    tells them apart and by the glade query that reproduces Hatchet's answer."""
    table = Table(
        f"Semantic differences: glade vs Hatchet, {n:,} nodes",
        [
            "query run by Hatchet",
            "query run by glade",
            "glade nodes",
            "Hatchet nodes",
            "same nodes",
        ],
    )
    literal = synthetic_literal(n)
    gf = GraphFrame.from_literal(literal)
    hgf = hatchet.GraphFrame.from_literal(literal)
    ids = glade_ids(hgf, gf)
    from hatchet.query import ObjectQuery

    nested = parse(NESTED_QUERY)
    lazy = "'*' made lazy: ('*', NOT next predicate)"
    cases = [
        (NESTED_QUERY, "nested 4-node query", nested, "the same"),
        (NESTED_QUERY, "nested 4-node query", lazy_star(nested, 1), lazy),
        (ALTERNATION, str(ALTERNATION), ALTERNATION, "the same"),
        (ALTERNATION, str(ALTERNATION), ALTERNATION_AS_HATCHET, str(ALTERNATION_AS_HATCHET)),
    ]
    for their_query, their_label, our_query, our_label in cases:
        theirs = hgf.query_engine.apply(ObjectQuery(their_query), hgf.graph, hgf.dataframe)
        ours = gf.match(our_query)
        table.add(their_label, our_label, len(ours), len(theirs), same_nodes(theirs, ids, ours))
    table.note(f"nested 4-node query: {nested}")
    table.note(
        "inner '*': Hatchet's ends at the first node that satisfies the next query node "
        "(QueryEngine._match_0_or_more returns there), so matches through such a node to "
        "a deeper one are missed; glade counts every match (DESIGN.md, Semantics)"
    )
    table.note(
        "regex: Hatchet's object dialect appends '\\Z' to the pattern, which binds to "
        "its last alternative only, so 'MPI_Send|MPI_Wait' also selects MPI_Sendrecv; "
        "glade matches the whole pattern in every dialect"
    )
    return table


def main(quick: bool = False) -> list[Table]:
    """Run the query benchmarks, print their tables and return them."""
    hatchet = load_optional("hatchet")
    repeat = 1 if quick else 5
    table = Comparison("Call path queries: glade vs Hatchet", "Hatchet", ["same nodes"])
    shapes = (
        [(1_000, None), (1_000, 4)] if quick else [(10_000, None), (100_000, None), (10_000, 64)]
    )
    for n, ranks in progress(shapes, "queries"):
        bench_dataset(table, hatchet, make_dataset(hatchet, n, ranks, not quick), repeat)
    bench_million(table, 10_000 if quick else 1_000_000, repeat, not quick)
    bench_chain(table, 1_000 if quick else 100_000, repeat, not quick)
    bench_parse(table, hatchet, repeat, not quick)
    table.note(f"MPI query: {MPI_QUERY}")
    table.note(f"4-node query: {SOLVER_MPI_QUERY}")
    table.note(
        "Hatchet: matching is QueryEngine.apply(ObjectQuery(q, mode)), query + squash is "
        "GraphFrame.filter(q) (squash=True); with ranks, multi_index_mode='any' in Hatchet "
        "and rank_mode='any' (the default) in glade"
    )
    if hatchet is None:
        table.note("Hatchet is not installed (pip install -e '.[bench]'): glade alone")
    table.note(TIMING_NOTE)
    tables = [table.show()]
    if hatchet:
        tables.append(semantics(hatchet, 1_000 if quick else 10_000).show())
    return tables


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    main(parser.parse_args().quick)
