"""The readable form: the dialect's additions (call-path literals, RETURN, depth, times
with units and from START) against brute force, and simplify/format against the query
they rewrite, on random trees and DAGs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade import GraphFrame
from glade.errors import QueryError
from glade.query import (
    And,
    CompoundQuery,
    Query,
    QueryNode,
    TimeValue,
    col,
    format,
    is_root,
    match_nodes,
    parse,
    simplify,
)
from tests.hypothesis_budget import examples

from .test_engine_oracle import build, dags, graphs, holds, query_nodes, trees


def segments(length: int, quantifiers: list) -> list[list[tuple[int, int]]]:
    """Every split of a walk of ``length`` nodes into one segment per quantifier."""
    if not quantifiers:
        return [[]] if length == 0 else []
    q, rest = quantifiers[0], quantifiers[1:]
    sizes = {".": [1], "*": range(length + 1), "+": range(1, length + 1)}.get(q, [q])
    out = []
    for size in sizes:
        if size <= length:
            out += [
                [(0, size)] + [(a + size, b + size) for a, b in tail]
                for tail in segments(length - size, rest)
            ]
    return out


def oracle(gf: GraphFrame, query: Query, max_len: int = 6) -> set[int]:
    """The nodes some match puts at a returned position, by enumerating walks and splits."""
    n = len(gf.graph)
    kept = set(query.returned)
    out: set[int] = set()
    stack = [[v] for v in range(n)]
    while stack:
        walk = stack.pop()
        for split in segments(len(walk), [node.quantifier for node in query.nodes]):
            if all(
                holds(node.predicate, gf, v)
                for node, (a, b) in zip(query.nodes, split, strict=True)
                for v in walk[a:b]
            ):
                for i, (a, b) in enumerate(split):
                    if i in kept:
                        out.update(walk[a:b])
        if len(walk) < max_len:
            stack.extend([*walk, int(c)] for c in gf.graph.children_of(walk[-1]))
    return out


@st.composite
def returning(draw):
    nodes = draw(st.lists(query_nodes, min_size=1, max_size=3))
    positions = draw(st.lists(st.integers(0, len(nodes) - 1), max_size=2))
    return Query(nodes, positions or None)


@settings(max_examples=examples(75), deadline=None)
@given(graphs(st.one_of(trees(), dags())), returning())
def test_return_keeps_the_nodes_of_returned_positions(gf, query):
    assert set(match_nodes(gf, query).tolist()) == oracle(gf, query)


@given(graphs(st.one_of(trees(), dags())))
def test_depth_is_the_distance_along_the_first_call_path(gf):
    depth = np.asarray(gf.graph.depth)
    for d in range(4):
        got = match_nodes(gf, f"MATCH (n) WHERE n.depth <= {d}")
        assert got.tolist() == np.flatnonzero(depth <= d).tolist()


def test_a_depth_column_of_the_data_wins():
    gf = build(3, [(0, 1), (1, 2)], ["a", "b", "c"], [0, 0, 0])
    gf.dataframe["depth"] = [5, 5, 0]
    assert match_nodes(gf, "MATCH (n) WHERE n.depth = 5").tolist() == [0, 1]


def test_call_path_literal_is_the_root_anchored_chain():
    gf = build(
        5, [(0, 1), (1, 2), (0, 3), (3, 4)], ["main", "solve", "wait", "x", "solve"], [0] * 5
    )
    assert match_nodes(gf, 'MATCH ("main/solve")').tolist() == [0, 1]
    assert match_nodes(gf, 'MATCH ("main/solve", s) RETURN s').tolist() == [1]
    assert match_nodes(gf, 'MATCH ("main/solve")->("+", d) RETURN d').tolist() == [2]
    assert match_nodes(gf, 'MATCH ("solve")').tolist() == []  # anchored: no root is solve
    long = 'MATCH (".", a)->(".", b) WHERE a IS ROOT AND a.name = "main" AND b.name = "solve"'
    assert parse('MATCH ("main/solve")') == parse(long)
    assert str(parse(long)) == 'MATCH ("main/solve")'


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ('MATCH ("a/b", x) WHERE x.file = "f.c"', 'MATCH ("a/b", n1) WHERE n1.file = "f.c"'),
        ('MATCH ("a/b", x)->("*", y) RETURN x, y', 'MATCH ("a/b", n1)->("*", n2) RETURN n1, n2'),
        ('match ("a")->(2, y) return y', 'MATCH ("a")->(2, n1) RETURN n1'),
        ("MATCH (n) WHERE n.start >= 9.54 ms", 'MATCH (".", n0) WHERE n0.start >= 9.54 ms'),
        ("MATCH (n) WHERE n.end < START + 450 us", 'MATCH (".", n0) WHERE n0.end < START + 450 us'),
        ("MATCH (n) WHERE n.end < START - 2 s", 'MATCH (".", n0) WHERE n0.end < START - 2 s'),
        ("MATCH (n) WHERE n.end < START", 'MATCH (".", n0) WHERE n0.end < START'),
        ("MATCH (n) WHERE n.end < 3 \u00b5s", 'MATCH (".", n0) WHERE n0.end < 3 us'),
        ("MATCH (n) WHERE n.end < 10.0 ns", 'MATCH (".", n0) WHERE n0.end < 10 ns'),
        # a name a literal cannot spell keeps the long form
        (
            'MATCH (".", a) WHERE a IS ROOT AND a.name = "lib/x.so"',
            'MATCH (".", n0) WHERE n0 IS ROOT AND n0.name = "lib/x.so"',
        ),
        (
            'MATCH (".", a) WHERE a IS ROOT AND a.name = "*"',
            'MATCH (".", n0) WHERE n0 IS ROOT AND n0.name = "*"',
        ),
    ],
)
def test_additions_have_one_canonical_text(text, canonical):
    assert str(parse(text)) == canonical
    assert parse(canonical) == parse(text)


def test_time_units_are_exact_nanoseconds():
    assert TimeValue("9.54", "ms").ns == 9_540_000
    assert TimeValue("450", "us").ns == 450_000
    assert TimeValue("2", "s").ns == 2_000_000_000
    assert TimeValue.of_ns(119_999_997, "ms").text() == "119.999997 ms"
    with pytest.raises(QueryError, match="unknown time unit"):
        TimeValue("1", "h")


def test_times_from_start_follow_the_trace_start():
    def forest(offset: int) -> GraphFrame:
        frames = pd.DataFrame({"name": ["main", "a", "b"]})
        rows = pd.DataFrame(
            {"node": [0, 1, 2], "start": np.array([0, 10, 50]) * 1000 + offset, "x": [0, 0, 0]}
        )
        return GraphFrame.from_tables(frames, [0, 0], [1, 2], rows, exc_metrics=["x"])

    text = "MATCH (n) WHERE n.start >= START + 10 us AND n.start < START + 0.05 ms"
    for offset in (0, 10**12):
        assert match_nodes(forest(offset), text).tolist() == [1]
    with pytest.raises(QueryError, match="START needs a numeric 'start' column"):
        match_nodes(build(1, [], ["a"], [0]), "MATCH (n) WHERE n.x > START")


# ------------------------------------------------------------ simplify and format
NAMES = ["a", "b", "c"]


@st.composite
def plain(draw):
    kind = draw(st.integers(0, 2))
    if kind == 0:  # a root-anchored call path, maybe with a tail
        names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3))
        nodes = [QueryNode(".", And.of(is_root(), col("name") == names[0]))]
        nodes += [QueryNode(".", col("name") == n) for n in names[1:]]
        tail = draw(st.sampled_from([None, "*", "+"]))
        if tail:
            nodes.append(QueryNode(tail, None))
        keep = draw(st.lists(st.integers(0, len(nodes) - 1), max_size=2))
        return Query(nodes, keep or None)
    if kind == 1:  # one node by name, or by depth
        if draw(st.booleans()):
            return Query().match(".", col("name") == draw(st.sampled_from(NAMES)))
        return parse(f"MATCH (n) WHERE n.depth > {draw(st.integers(0, 3))}")
    return Query(draw(st.lists(query_nodes, min_size=1, max_size=2)))


compound = st.recursive(
    plain(),
    lambda inner: st.one_of(
        inner.map(lambda q: CompoundQuery("not", (q,))),
        st.tuples(
            st.sampled_from(["and", "or", "xor"]), st.lists(inner, min_size=2, max_size=4)
        ).map(lambda pair: CompoundQuery.of(pair[0], *pair[1])),
        inner.map(lambda q: CompoundQuery.of("or", q, q)),
    ),
    max_leaves=6,
)


@settings(max_examples=examples(150), deadline=None)
@given(graphs(st.one_of(trees(), dags())), compound)
def test_simplify_selects_what_the_query_selects(gf, query):
    simpler = simplify(query)
    assert match_nodes(gf, simpler).tolist() == match_nodes(gf, query).tolist()
    assert len(str(simpler)) <= len(str(query))


@settings(max_examples=examples(100), deadline=None)
@given(compound, st.integers(20, 120))
def test_format_parses_back_to_the_same_query(query, width):
    canonical = parse(str(query))  # the query, with nested ANDs and ORs of one node flat
    text = format(query, width=width)
    assert parse(text) == canonical
    assert "".join(text.split()) == "".join(str(query).split())


@pytest.mark.parametrize(
    ("text", "simpler"),
    [
        (
            '{MATCH (".", n0) WHERE n0.name = "x"} OR {MATCH (".", n0) WHERE n0.name = "y"}',
            'MATCH (".", n0) WHERE n0.name IN ["x", "y"]',
        ),
        (
            'NOT {MATCH ("a")} AND NOT {MATCH ("b")} AND {MATCH ("*")}',
            'NOT {MATCH (".", n0) WHERE n0 IS ROOT AND n0.name IN ["a", "b"]}',
        ),
        ('NOT {NOT {MATCH ("a")}}', 'MATCH ("a")'),
        ('{MATCH ("a")} OR {{MATCH ("a")} AND {MATCH ("b")}}', 'MATCH ("a")'),
        ('{MATCH ("a")} XOR {MATCH ("b")} XOR {MATCH ("a")}', 'MATCH ("b")'),
        (
            'MATCH (n) WHERE n.file = "a" OR n.file = "b" OR n.x > 1',
            'MATCH (".", n0) WHERE (n0.file IN ["a", "b"] OR n0.x > 1)',
        ),
        # a '*' step may hold nodes of both names: no IN list there
        (
            '{MATCH ("*", n) WHERE n.name = "x"} OR {MATCH ("*", n) WHERE n.name = "y"}',
            '{MATCH ("*", n0) WHERE n0.name = "x"} OR {MATCH ("*", n0) WHERE n0.name = "y"}',
        ),
    ],
)
def test_simplify_rewrites(text, simpler):
    assert str(simplify(text)) == simpler


def test_format_splits_long_queries_one_clause_a_line():
    text = (
        '{MATCH ("main/solve")->("*")} AND NOT {MATCH (".", n0) WHERE n0.name IN '
        '["MPI_Wait", "MPI_Waitall", "MPI_Barrier"] AND n0.x > 1}'
    )
    assert format(text, width=60) == "\n".join(
        [
            '{MATCH ("main/solve")->("*")}',
            "AND NOT {",
            '  MATCH (".", n0)',
            '  WHERE n0.name IN ["MPI_Wait", "MPI_Waitall", "MPI_Barrier"]',
            "    AND n0.x > 1",
            "}",
        ]
    )
    assert format(text) == format(text, width=len(text)) == text if len(text) <= 88 else True


def test_a_long_alternative_is_one_line_per_branch():
    text = (
        'MATCH (n) WHERE n.kind = "x" AND (n.name = "a OR b" AND n.x > 1 OR '
        'n.name IN ["c", "d (e)"] AND n.x < 0)'
    )
    assert format(text, width=50) == "\n".join(
        [
            'MATCH (".", n0)',
            'WHERE n0.kind = "x"',
            "  AND (",
            '    n0.name = "a OR b" AND n0.x > 1',
            '    OR n0.name IN ["c", "d (e)"] AND n0.x < 0',
            "  )",
        ]
    )
    assert parse(format(text, width=50)) == parse(text)
    # a condition common to every alternative leaves the OR
    assert str(simplify("MATCH (n) WHERE n.a = 1 AND n.b = 2 OR n.a = 1 AND n.c = 3")) == (
        'MATCH (".", n0) WHERE n0.a = 1 AND (n0.b = 2 OR n0.c = 3)'
    )
