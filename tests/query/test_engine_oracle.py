"""The engine against brute force: enumerate every downward path (walks, where the
graph has cycles) and let Python's ``re`` decide whether the path splits into
segments that satisfy the query; a node is selected when some matching path
passes through it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from glade import GraphFrame
from glade.query import And, Not, Or, Query, QueryNode, col, is_leaf, is_root
from tests.hypothesis_budget import examples

NAMES = ["a", "b", "c"]
SPINE_NAMES = ["a", "b"]


def build(n: int, edges: list[tuple[int, int]], names: list[str], x: list[int]) -> GraphFrame:
    frames = pd.DataFrame({"name": names})
    rows = pd.DataFrame({"node": np.arange(n), "x": x})
    src = [e[0] for e in edges]
    dst = [e[1] for e in edges]
    return GraphFrame.from_tables(frames, src, dst, rows, exc_metrics=["x"])


@st.composite
def trees(draw):
    n = draw(st.integers(1, 9))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    edges = [(parent[i], i) for i in range(1, n)]
    return n, edges


@st.composite
def dags(draw):
    n = draw(st.integers(1, 8))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=12)) if pairs else []
    return n, edges


@st.composite
def cyclic(draw):
    n = draw(st.integers(1, 4))
    pairs = [(i, j) for i in range(n) for j in range(n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=6))
    return n, edges


@st.composite
def graphs(draw, shapes, alphabet=NAMES):
    n, edges = draw(shapes)
    names = draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n))
    x = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return build(n, edges, names, x)


atoms = st.one_of(
    st.sampled_from(NAMES).map(lambda s: col("name") == s),
    st.integers(0, 3).map(lambda k: col("x") > k),
    st.integers(0, 3).map(lambda k: col("x") <= k),
    st.just(is_leaf()),
    st.just(is_root()),
)
predicates = st.recursive(
    atoms,
    lambda inner: st.one_of(
        inner.map(Not),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: Or(tuple(xs))),
    ),
    max_leaves=4,
)
query_nodes = st.builds(
    QueryNode,
    st.sampled_from([".", "*", "+", 1, 2]),
    st.one_of(st.none(), predicates),
)
queries = st.lists(query_nodes, min_size=1, max_size=4).map(Query)


def holds(pred, gf: GraphFrame, nid: int) -> bool:
    """Plain-Python truth of a predicate on one node (the brute-force side)."""
    from glade.query import Always, Compare, Structure

    if pred is None or isinstance(pred, Always):
        return True
    if isinstance(pred, Compare):
        value = gf.dataframe.loc[nid, pred.column]
        return {"==": value == pred.value, ">": value > pred.value, "<=": value <= pred.value}[
            pred.op
        ]
    if isinstance(pred, Structure):
        if pred.kind == "leaf":
            return len(gf.graph.children_of(nid)) == 0
        return nid in set(gf.graph.root_ids.tolist())
    if isinstance(pred, Not):
        return not holds(pred.item, gf, nid)
    if isinstance(pred, And):
        return all(holds(p, gf, nid) for p in pred.items)
    if isinstance(pred, Or):
        return any(holds(p, gf, nid) for p in pred.items)
    raise AssertionError(pred)


def path_regex(gf: GraphFrame, query: Query) -> tuple[re.Pattern, list[str]]:
    """The query as a regular expression over paths spelled one character per node,
    and those characters."""
    n = len(gf.graph)
    char = [chr(0x100 + i) for i in range(n)]
    parts = []
    for node in query.nodes:
        members = "".join(char[i] for i in range(n) if holds(node.predicate, gf, i))
        cls = f"[{members}]" if members else "(?!)"
        quant = node.quantifier
        if quant == ".":
            parts.append(cls)
        elif quant == "*":
            parts.append(f"{cls}*" if members else "")
        elif quant == "+":
            parts.append(f"{cls}{cls}*" if members else "(?!)")
        else:
            parts.append(f"(?:{cls}){{{quant}}}")
    return re.compile("".join(parts)), char


def oracle(gf: GraphFrame, query: Query, max_len: int) -> set[int]:
    n = len(gf.graph)
    regex, char = path_regex(gf, query)
    selected: set[int] = set()
    stack = [[v] for v in range(n)]
    while stack:
        walk = stack.pop()
        if regex.fullmatch("".join(char[v] for v in walk)):
            selected.update(walk)
        if len(walk) < max_len:
            stack.extend([*walk, int(c)] for c in gf.graph.children_of(walk[-1]))
    return selected


def check(gf: GraphFrame, query: Query, max_len: int):
    got = {node.nid for node in gf.match(query)}
    assert got == oracle(gf, query, max_len)


@st.composite
def chains(draw):
    """Long thin trees (a spine with a few side branches): where segments of several
    nodes and inner wildcards matter most."""
    n = draw(st.integers(2, 10))
    parent = [-1] + [
        i - 1 if draw(st.integers(0, 3)) else draw(st.integers(0, i - 1)) for i in range(1, n)
    ]
    return n, [(parent[i], i) for i in range(1, n)]


name_only = st.builds(
    QueryNode,
    st.sampled_from([".", "*", "+", 2]),
    st.one_of(st.none(), st.sampled_from(["a", "b"]).map(lambda s: col("name") == s)),
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(chains(), SPINE_NAMES), st.lists(name_only, min_size=1, max_size=4).map(Query))
def test_chains_match_brute_force(gf, query):
    check(gf, query, max_len=len(gf.graph))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(trees()), queries)
def test_trees_match_brute_force(gf, query):
    check(gf, query, max_len=len(gf.graph))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(dags()), queries)
def test_dags_match_brute_force(gf, query):
    check(gf, query, max_len=len(gf.graph))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(cyclic()), st.lists(query_nodes, min_size=1, max_size=2).map(Query))
def test_cycles_match_brute_force(gf, query):
    # On a shortest witness no (node, query position) state repeats before or after
    # the node of interest, so walks of 2 x nodes x positions cover every match.
    positions = sum(
        2 if q.quantifier == "+" else (q.quantifier if isinstance(q.quantifier, int) else 1)
        for q in query.nodes
    )
    assume(positions <= 2)
    check(gf, query, max_len=2 * len(gf.graph) * positions)


def test_inner_star_is_neither_lazy_nor_greedy():
    # a -> b -> a -> b -> c : the query a * c must select the whole chain, and
    # a b* a must select both b's and both a's (every match counts).
    gf = build(5, [(0, 1), (1, 2), (2, 3), (3, 4)], ["a", "b", "a", "b", "c"], [0] * 5)
    q = Query().match(".", col("name") == "a").rel("*").rel(".", col("name") == "c")
    assert [n.nid for n in gf.match(q)] == [0, 1, 2, 3, 4]
    q2 = (
        Query()
        .match(".", col("name") == "a")
        .rel("*", col("name") == "b")
        .rel(".", col("name") == "a")
    )
    assert [n.nid for n in gf.match(q2)] == [0, 1, 2]


def test_cycle_reaches_itself():
    # a -> b -> a (a cycle, with a root r above): "b then a" matches through the back edge
    gf = build(3, [(0, 1), (1, 2), (2, 1)], ["r", "a", "b"], [0, 0, 0])
    q = Query().match(".", col("name") == "b").rel(".", col("name") == "a")
    assert sorted(n.nid for n in gf.match(q)) == sorted(
        int(i) for i in np.flatnonzero(gf.graph.frames["name"].isin(["a", "b"]))
    )


def tree_oracle(gf: GraphFrame, query: Query) -> set[int]:
    """:func:`oracle` for trees, where a downward path is a node and one of its
    ancestors: every start on every root path, matched in place (no walk is built)."""
    regex, char = path_regex(gf, query)
    selected: set[int] = set()
    for end in range(len(gf.graph)):
        path = gf.graph.path_ids(end)
        spelled = "".join(char[v] for v in path)
        for start in range(len(path)):
            if regex.fullmatch(spelled, start):
                selected.update(path[start:])
    return selected


@st.composite
def deep_trees(draw):
    """Deep chains (a spine of up to 150 nodes) and caterpillars (the same spine with
    up to two leaves hanging off every spine node): where the engine once did Python
    work per depth, and where queries longer than 64 positions span several words."""
    spine = draw(st.integers(2, 150))
    legs = (
        draw(st.lists(st.integers(0, 2), min_size=spine, max_size=spine))
        if draw(st.booleans())
        else [0] * spine
    )
    edges, count, spine_node = [], 1, 0
    for i in range(spine):
        for _ in range(legs[i]):
            edges.append((spine_node, count))
            count += 1
        if i < spine - 1:
            edges.append((spine_node, count))
            spine_node, count = count, count + 1
    return count, edges


deep_query_nodes = st.builds(
    QueryNode,
    st.sampled_from([".", "*", "+", 1, 2, 3, 40, 70]),
    st.one_of(
        st.none(),
        st.sampled_from(NAMES).map(lambda s: col("name") == s),
        st.sampled_from(NAMES).map(lambda s: Not(col("name") == s)),
        st.just(is_leaf()),
        st.just(is_root()),
    ),
)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    graphs(deep_trees(), ["a", "a", "a", "b", "c"]),
    st.lists(deep_query_nodes, min_size=1, max_size=4).map(Query),
)
def test_deep_chains_and_caterpillars_match_brute_force(gf, query):
    got = {node.nid for node in gf.match(query)}
    assert got == tree_oracle(gf, query)
