"""Canonical text round trips, and every way a query can be wrong."""

from __future__ import annotations

import builtins
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import glade
from glade.errors import QueryError, QuerySyntaxError
from glade.query import (
    And,
    CompoundQuery,
    IsIn,
    IsSpecial,
    Not,
    Or,
    Query,
    QueryNode,
    StringTest,
    col,
    is_leaf,
    is_root,
    parse,
)
from tests.hypothesis_budget import examples

# ------------------------------------------------------------------ strategies
columns = st.one_of(
    st.sampled_from(["name", "time", "time (inc)", "PAPI_L2_TCM", "in", "rank", "a.b", 'q"uote']),
    st.text(min_size=1, max_size=8),
)
texts = st.text(max_size=12)
finite = st.floats(allow_nan=False, allow_infinity=False)
scalars = st.one_of(texts, st.integers(-(10**12), 10**12), finite, st.booleans())
regexes = st.sampled_from(["P?MPI_.*", "a|b", r"\d+", "[x-z]+", "", "main", r"std::.*<.*>"])

atoms = st.one_of(
    st.builds(
        lambda c, op, v: {
            "==": col(c) == v,
            "!=": col(c) != v,
            "<": col(c) < v,
            "<=": col(c) <= v,
            ">": col(c) > v,
            ">=": col(c) >= v,
        }[op],
        columns,
        st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
        scalars,
    ),
    st.builds(lambda c, p: StringTest(c, "regex", p), columns, regexes),
    st.builds(
        lambda c, kind, p: StringTest(c, kind, p),
        columns,
        st.sampled_from(["startswith", "endswith", "contains"]),
        texts,
    ),
    st.builds(lambda c, vs: IsIn(c, tuple(vs)), columns, st.lists(scalars, max_size=4)),
    st.builds(IsSpecial, columns, st.sampled_from(["nan", "inf", "none"])),
    st.sampled_from([is_leaf(), is_root()]),
)
predicates = st.recursive(
    atoms,
    lambda inner: st.one_of(
        inner.map(Not),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: And.of(*xs)),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: Or.of(*xs)),
    ),
    max_leaves=6,
)
plain_queries = st.lists(
    st.builds(
        QueryNode,
        st.one_of(st.sampled_from([".", "*", "+"]), st.integers(1, 5)),
        st.one_of(st.none(), predicates),
    ),
    min_size=1,
    max_size=4,
).map(Query)
queries = st.recursive(
    plain_queries,
    lambda inner: st.one_of(
        inner.map(lambda q: ~q),
        st.builds(
            lambda op, qs: CompoundQuery.of(op, *qs),
            st.sampled_from(["and", "or", "xor"]),
            st.lists(inner, min_size=2, max_size=3),
        ),
    ),
    max_leaves=4,
)


@settings(max_examples=examples(200), deadline=None)
@given(queries)
def test_render_then_parse_gives_the_same_query(query):
    text = str(query)
    assert parse(text) == query
    assert str(parse(text)) == text  # canonical: one text per query


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([".", "*", "+", 2]),
            st.dictionaries(
                st.sampled_from(["name", "time", "x"]),
                st.one_of(
                    regexes, st.integers(0, 9), finite, st.sampled_from(["> 5", "<= 2.5", "!= 3"])
                ),
                max_size=2,
            ),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_object_dialect_renders_canonically(spec):
    query = parse([tuple(item) for item in spec])
    assert parse(str(query)) == query


def test_canonical_text_examples():
    q = parse('match (".", p)->("*")->(2, q) where p."name" =~ "P?MPI_.*" and q.time > 5')
    assert str(q) == ('MATCH (".", n0)->("*")->(2, n2) WHERE n0.name =~ "P?MPI_.*" AND n2.time > 5')
    q = Query().match(".", (col("time (inc)") >= 1.5) | col("name").startswith('say "hi"'))
    assert str(q) == (
        'MATCH (".", n0) WHERE (n0."time (inc)" >= 1.5 OR n0.name STARTS WITH "say \\"hi\\"")'
    )
    assert str(~parse('MATCH ("*")')) == 'NOT {MATCH ("*")}'


# ----------------------------------------------------------------- syntax errors
@pytest.mark.parametrize(
    ("text", "line", "column", "expected"),
    [
        ('MATCH (".", p WHERE p.x = 1', 1, 15, "')'"),
        ('MATCH (".", p)->', 1, 17, "'('"),
        ("MATCH (p) WHERE p.x = ", 1, 23, "a number"),
        ("MATCH (p)\nWHERE p.x ~ 1", 2, 11, None),
        ("{MATCH (p)} AND", 1, 16, "'{'"),
        ("SELECT * FROM t", 1, 1, "MATCH"),
    ],
)
def test_syntax_errors_say_where_and_what(text, line, column, expected):
    with pytest.raises(QuerySyntaxError) as info:
        parse(text)
    err = info.value
    assert (err.line, err.column) == (line, column)
    if expected:
        assert expected in err.expected
    shown_line = text.splitlines()[line - 1]
    assert shown_line in str(err)
    assert "\n  " + " " * (column - 1) + "^" in str(err)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('MATCH (".", p) WHERE q.x = 1', "variable q is not declared"),
        ('MATCH (".", p)->("*", p)', "declared twice"),
        ('MATCH ("a//b", p)', "is neither a quantifier"),
        ('MATCH (".")->("main", p)', "a call path names nodes from a root"),
        ("MATCH (p) RETURN q", "variable q is not declared"),
        ("MATCH (0, p)", "at least 1"),
        ('MATCH (p) WHERE p.x =~ "("', "invalid regular expression"),
        ("MATCH (p) WHERE p.x > 1e400", "not a finite number"),
        ('MATCH (p) WHERE p."" = 1', "cannot be empty"),
    ],
)
def test_semantic_errors(text, message):
    with pytest.raises(QueryError, match=message):
        parse(text)


def test_object_dialect_errors():
    cases = [
        ([], "at least one query node"),
        ([("x", {})], "not a quantifier"),
        ([(".", {"a": 1}, 3)], "2 items"),
        ([(".", {"a": {"b": 1}})], "condition of type dict"),
        ([(".", {"a": []})], "empty list"),
        ([(".", {"a": "("})], "invalid regular expression"),
        ([(".", "name")], "must be a dict"),
        ([(".", {"a": float("nan")})], "not a finite number"),
        ([True], "not a quantifier"),
    ]
    for spec, message in cases:
        with pytest.raises(QueryError, match=message):
            parse(spec)
    with pytest.raises(QueryError, match="not dict"):
        parse({"name": "x"})


def test_builder_errors():
    with pytest.raises(QueryError, match="start the query with match"):
        Query().rel("*")
    with pytest.raises(QueryError, match="no truth value"):
        bool(col("a") > 1)
    with pytest.raises(QueryError, match="is empty"):
        glade.datasets.synthetic_profile(5).match(Query())
    with pytest.raises(QueryError, match="matches nothing"):
        Not(glade.query.Always())
    with pytest.raises(QueryError, match="Python function"):
        str(Query().match(".", lambda row: True))
    deep = col("a") > 1
    with pytest.raises(QueryError, match="nests more than"):
        for _ in range(300):
            deep = ~deep


def test_deep_nesting_in_text_is_refused_cleanly():
    text = "MATCH (p) WHERE " + "NOT " * 500 + "p.x = 1"
    with pytest.raises(QueryError):
        parse(text)
    text = "MATCH (p) WHERE " + "(" * 600 + "p.x = 1" + ")" * 600
    assert parse(text) == Query().match(".", col("x") == 1)


# ------------------------------------------------------------------------ fuzzing
alphabet = string.ascii_letters + string.digits + " \t\n.,;:'\"()[]{}<>=!~*+-_/\\|&^%$#@?"
fragments = st.sampled_from(
    [
        "MATCH",
        "WHERE",
        "AND",
        "OR",
        "XOR",
        "NOT",
        "IS",
        "IN",
        "LEAF",
        "ROOT",
        "NAN",
        "NONE",
        "STARTS WITH",
        "ENDS WITH",
        "CONTAINS",
        "=~",
        "->",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ",",
        '"."',
        '"*"',
        '"+"',
        "3",
        "1e5",
        "p",
        "q",
        "p.name",
        'p."time (inc)"',
        '"x"',
        "=",
        "<>",
        ">",
        "__import__('os').system('echo pwned')",
        "TRUE",
        "999999999999999999999999",
    ]
)


def _assert_only_query_errors(text: str):
    try:
        result = parse(text)
    except QueryError:
        return
    assert isinstance(result, glade.query.BaseQuery)
    assert parse(str(result)) == result


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=alphabet, max_size=80))
def test_fuzz_random_text(text):
    _assert_only_query_errors(text)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(fragments, max_size=25).map(" ".join))
def test_fuzz_token_soup(text):
    _assert_only_query_errors(text)


@settings(max_examples=examples(150), deadline=None)
@given(queries, st.integers(0, 200), st.sampled_from([*list(alphabet), ""]))
def test_fuzz_mutated_valid_queries(query, position, char):
    text = str(query)
    position %= len(text) + 1
    _assert_only_query_errors(text[:position] + char + text[position + 1 :])


def test_nothing_in_a_query_is_evaluated(monkeypatch, tmp_path):
    def forbidden(*args, **kwargs):
        raise AssertionError("query text reached eval/exec")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    gf = glade.datasets.synthetic_profile(50)
    marker = tmp_path / "pwned"
    payload = f"__import__('os').system('touch {marker}')"
    assert gf.match(f'MATCH (p) WHERE p.name = "{payload}"') == []
    assert gf.match([{"name": payload}, {"time": "> 1; import os"}]) == []
    with pytest.raises(QueryError):
        gf.match(f"MATCH (p) WHERE p.name = {payload}")
    assert not marker.exists()
