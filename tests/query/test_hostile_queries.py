"""Queries a colleague sends you: none may freeze the kernel or escape as anything but a
QueryError. Regular expressions run on RE2 (linear time), long chains of steps cost
linear time, deep nesting is refused without recursion, and the text tree of a very
deep chain stays linear in size."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade import Filter, GraphFrame
from glade.datasets import synthetic_trace
from glade.errors import QueryError, QuerySyntaxError
from glade.profile.text_tree import DEEP_MARK, MAX_INDENT
from glade.query import Query, QueryNode, col, parse
from glade.query.regex import compile_regex
from tests.hypothesis_budget import examples

EVIL = "(a+)+$"


@pytest.fixture(scope="module")
def cpi(hatchet_data):
    return glade.read(hatchet_data / "hpctoolkit-cpi-database")


def chain(n: int, names=None) -> GraphFrame:
    """A single call chain of n nodes, f0 -> f1 -> ... (time 1 each)."""
    frames = pd.DataFrame({"name": names if names is not None else [f"f{i}" for i in range(n)]})
    rows = pd.DataFrame({"node": np.arange(n), "time": np.ones(n)})
    return GraphFrame.from_tables(
        frames, np.arange(n - 1), np.arange(1, n), rows, exc_metrics=["time"]
    )


# ------------------------------------------------------------- regex denial of service
def test_catastrophic_pattern_runs_in_linear_time_on_real_names(cpi):
    # Python's re needs about 12 s for 28 characters and 4x more per 2 more; these
    # 60-character names would take centuries with backtracking.
    names = ["a" * 60 + "!", "a" * 60]
    gf = chain(2, names)
    assert [n.name for n in gf.match(f'MATCH (".", p) WHERE p.name =~ "{EVIL}"')] == ["a" * 60]
    assert list(gf.match([(".", {"name": EVIL})])) == list(
        gf.match(Query().match(".", col("name").matches(EVIL)))
    )
    assert len(cpi.match([(".", {"name": EVIL})])) == 0
    trace = synthetic_trace(2, 2)
    assert len(trace.filter(Filter("Name", "matches", EVIL)).events) == 0


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(MPI)_\1", "backreferences"),
        (r"(?P<x>MPI)(?P=x)", "backreferences"),
        ("MPI_(?=Init)", "lookahead"),
        ("MPI_(?!Init).*", "lookahead"),
        ("(?<=P)MPI_.*", "lookbehind"),
        ("(?<!P)MPI_.*", "lookbehind"),
        ("(?>MPI)", "atomic"),
        (r"MPI\Z", r"\\Z"),
        ("a{99999999999}", "larger than 1000"),
        ("a{2,99999999999}", "larger than 1000"),
        ("a{1001}", "at most 1000"),
        ("(", "missing"),
    ],
)
def test_unsupported_or_invalid_regex_is_a_query_error_in_every_form(cpi, pattern, reason):
    quoted = pattern.replace("\\", "\\\\")
    forms = [
        lambda: col("name").matches(pattern),
        lambda: parse([(".", {"name": pattern})]),
        lambda: parse(f'MATCH (".", p) WHERE p.name =~ "{quoted}"'),
        lambda: Filter("Name", "matches", pattern),
        lambda: cpi.query([(".", {"name": pattern})]),
    ]
    for form in forms:
        with pytest.raises(QueryError, match=reason) as info:
            form()
        assert repr(pattern[:15])[1:-1] in str(info.value)


def test_literal_braces_and_deep_groups_are_fine():
    # an escaped brace is text, not a repetition
    assert compile_regex(r"x\{99999999999}").fullmatch("x{99999999999}")
    assert compile_regex("[{]9{3}").fullmatch("{999")
    assert compile_regex("a{1000}").fullmatch("a" * 1000)
    deep = "(" * 5000 + "a" + ")" * 5000
    assert compile_regex(deep).fullmatch("a")
    trace = synthetic_trace(2, 2)
    kept = trace.filter(Filter("Name", "matches", "(" * 5000 + "MPI_.*" + ")" * 5000))
    assert set(kept.events["Name"].astype(str)) == {
        n for n in trace.events["Name"].astype(str) if n.startswith("MPI_")
    }


def test_whole_value_match_odd_text():
    regex = compile_regex("f.o")
    assert regex.fullmatch("f\u00e9o") and not regex.fullmatch("f\u00e9o ")
    assert regex.fullmatch("f\ud800o")  # a lone surrogate (hostile JSON) is one character
    assert not regex.fullmatch(3) and not regex.fullmatch(None)
    assert list(regex.matches(["foo", "fo", np.nan, "fxo"])) == [True, False, False, True]
    with pytest.raises(QueryError, match="surrogate"):
        compile_regex("\ud800")
    with pytest.raises(QueryError, match="is a string"):
        compile_regex(b"foo")


# ------------------------------------------------------------------ nesting
def test_deep_nesting_is_refused_without_recursion():
    value: object = "a"
    for _ in range(100_000):
        value = [value]
    with pytest.raises(QueryError, match="nest more than"):
        parse([(".", {"name": value})])
    assert parse([(".", {"time": [["> 1", ["< 5"]], "!= 3"]})]) == parse(
        [(".", {"time": ["> 1", "< 5", "!= 3"]})]
    )
    with pytest.raises(QueryError, match="nests"):
        parse('MATCH (".", p) WHERE ' + "NOT " * 5000 + "p.x = 1")
    # parentheses that only group are no nesting at all
    assert parse('MATCH (".", p) WHERE ' + "(" * 5000 + "p.x = 1" + ")" * 5000) == parse(
        'MATCH (".", p) WHERE p.x = 1'
    )
    assert parse("{" * 5000 + 'MATCH (".")' + "}" * 5000) == parse('MATCH (".")')
    with pytest.raises(QuerySyntaxError, match="ends too early") as info:
        parse("{" * 5000 + 'MATCH (".")' + "}" * 4999)
    assert len(str(info.value)) < 400  # the text around the caret, not 10^4 characters


# ------------------------------------------------------------ long chains of steps
def test_long_star_chains(cpi):
    # 20,000 "*" steps: the transitions are built in linear time (they were quadratic)
    everything = cpi.match(["*"] * 20_000)
    assert len(everything) == len(cpi.graph)
    text = "MATCH " + "->".join(['("*")'] * 5_000) + '->(".", p) WHERE p.name = "main"'
    assert [n.name for n in cpi.match(text)] == ["<program root>", "main"]
    alternating = [("*", {"name": "a"}), ("*", {"name": "b"})] * 3_000
    gf = chain(6, ["a", "b", "a", "b", "c", "a"])
    assert [n.nid for n in gf.match(alternating)] == [0, 1, 2, 3, 5]


def nfa_oracle(gf: GraphFrame, positions: list[tuple[bool, set[int]]]) -> set[int]:
    """Nodes on a matching downward path, found by walking every path of the tree and
    simulating the query positions node by node (the engine's bit sets are not used)."""
    m = len(positions)
    star = [s for s, _ in positions]
    selected: set[int] = set()
    stack = [[v] for v in range(len(gf.graph))]
    while stack:
        path = stack.pop()
        occupied = [False] * m  # the positions the last node of the path may hold
        for k, v in enumerate(path):
            # run: some earlier position can reach this one past zero-length stars
            run, nxt = k == 0, []
            for i in range(m):
                nxt.append((run or (occupied[i] and star[i])) and v in positions[i][1])
                run = (run and star[i]) if k == 0 else (occupied[i] or (run and star[i]))
            occupied = nxt
        if any(occupied[i] and all(star[i + 1 :]) for i in range(m)):
            selected.update(path)
        stack.extend([*path, int(c)] for c in gf.graph.children_of(path[-1]))
    return selected


@st.composite
def long_queries(draw):
    n = draw(st.integers(2, 9))
    parent = [-1] + [
        i - 1 if draw(st.booleans()) else draw(st.integers(0, i - 1)) for i in range(1, n)
    ]
    names = draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))
    frames = pd.DataFrame({"name": names})
    rows = pd.DataFrame({"node": np.arange(n), "time": np.ones(n)})
    gf = GraphFrame.from_tables(frames, parent[1:], list(range(1, n)), rows, exc_metrics=["time"])
    # blocks of up to 90 equal stars, each followed by a single step: long runs of
    # stars across 64-bit words, and queries that still select only some nodes
    steps: list = []
    for _ in range(draw(st.integers(1, 3))):
        star = draw(st.sampled_from([None, "a", "b", "a", "b"]))
        steps += [("*", star)] * draw(st.integers(0, 90))
        steps.append((".", draw(st.sampled_from("ab"))))
    steps += [("*", draw(st.sampled_from([None, "a", "b"])))] * draw(st.integers(0, 90))
    return gf, steps


@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_queries())
def test_long_queries_match_brute_force(case):
    # up to 360 positions: bit sets of several words, long runs of stars
    gf, steps = case
    names = gf.graph.names
    every = set(range(len(names)))
    positions = [
        (q == "*", every if name is None else set(np.flatnonzero(names == name)))
        for q, name in steps
    ]
    query = Query(
        [QueryNode(q, None if name is None else col("name") == name) for q, name in steps]
    )
    assert {n.nid for n in gf.match(query)} == nfa_oracle(gf, positions)


# ------------------------------------------------------------------ text tree
def test_tree_of_a_deep_chain_is_linear_in_size():
    n = 100_000
    text = chain(n).tree()
    lines = text.splitlines()
    assert len(lines) == n + 2  # header, one line per node, the note on elided depth
    assert max(len(line) for line in lines) < 3 * MAX_INDENT + 40
    assert lines[MAX_INDENT + 1].endswith(f"└─ 1.000 f{MAX_INDENT}")
    assert lines[-2].endswith(f"{DEEP_MARK}{n - 1} └─ 1.000 f{n - 1}")
    assert f"deeper than {MAX_INDENT} levels" in lines[-1]
    shallow = chain(MAX_INDENT + 1).tree()
    assert DEEP_MARK not in shallow
