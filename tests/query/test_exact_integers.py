"""Integer comparisons are exact in every query dialect and in trace Filters: above
2^53 nothing goes through float64 (where 2^53 + 1 == 2^53), and a literal beyond the
column's range still decides exactly. Checked against Python's own comparisons of
ints and floats."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade import Filter, GraphFrame
from glade.query import Query, col, exact
from glade.query.engine import match_nodes
from tests.hypothesis_budget import examples
from tests.trace.helpers import make_trace

OPS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
STRING_OPS = {"==": "=", "!=": "!="}
EDGES = [
    0,
    1,
    -1,
    2**53 - 1,
    2**53,
    2**53 + 1,
    2**53 + 2,
    -(2**53) - 1,
    2**62,
    2**63 - 1,
    -(2**63),
    2**63 - 2,
]
int64s = st.one_of(
    st.sampled_from(EDGES), st.integers(-(2**63), 2**63 - 1), st.integers(2**53 - 4, 2**53 + 4)
)
literals = st.one_of(
    int64s,
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**63, 2**64]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([2.0**53, 2.0**63, -(2.0**63), 0.5, -0.5]),
)


def chain(values: list[int]) -> GraphFrame:
    """A graph frame of one node per value (a chain), its metric ``x``."""
    node: dict = {}
    root = node
    for i, v in enumerate(values):
        node.update({"frame": {"name": f"n{i}"}, "metrics": {"x": v}, "children": []})
        if i + 1 < len(values):
            node["children"].append({})
            node = node["children"][0]
    return GraphFrame.from_literal([root])


@settings(max_examples=examples(75), deadline=None)
@given(
    values=st.lists(int64s, min_size=1, max_size=6), literal=literals, op=st.sampled_from(list(OPS))
)
def test_every_dialect_compares_int64_exactly(values, literal, op):
    gf = chain(values)
    assert gf.dataframe["x"].dtype == np.int64
    expected = [i for i, v in enumerate(values) if OPS[op](v, literal)]
    text = repr(literal)
    string_op = STRING_OPS.get(op, op)
    assert match_nodes(gf, f"MATCH (p) WHERE p.x {string_op} {text}").tolist() == expected
    assert match_nodes(gf, Query().match(".", OPS[op](col("x"), literal))).tolist() == expected
    if isinstance(literal, int):
        assert match_nodes(gf, [{"x": f"{op} {literal}"}]).tolist() == expected
    trace = make_trace(
        [(i, "Instant", "a", 0) for i in range(len(values))], X=np.array(values, dtype=np.int64)
    )
    assert np.flatnonzero(Filter("X", op, literal).mask(trace.events)).tolist() == expected


@settings(max_examples=examples(75), deadline=None)
@given(
    values=st.lists(
        st.one_of(st.integers(0, 2**64 - 1), st.sampled_from([2**63, 2**64 - 1, 2**53 + 1])),
        min_size=1,
        max_size=6,
    ),
    literal=literals,
    op=st.sampled_from(list(OPS)),
)
def test_uint64_columns_compare_exactly(values, literal, op):
    array = np.array(values, dtype=np.uint64)
    expected = [OPS[op](v, literal) for v in values]
    assert exact.compare(array, op, literal).tolist() == expected


@settings(max_examples=examples(75), deadline=None)
@given(
    values=st.lists(st.floats(allow_nan=False), min_size=1, max_size=6),
    literal=st.one_of(int64s, st.integers(-(2**1100), 2**1100)),
    op=st.sampled_from(list(OPS)),
)
def test_float_columns_compare_with_integers_as_python_does(values, literal, op):
    array = np.array(values, dtype=np.float64)
    assert exact.compare(array, op, literal).tolist() == [OPS[op](v, literal) for v in values]


@settings(max_examples=examples(50), deadline=None)
@given(
    values=st.lists(int64s, min_size=1, max_size=6),
    wanted=st.lists(literals, min_size=1, max_size=4),
)
def test_membership_is_exact(values, wanted):
    gf = chain(values)
    expected = [i for i, v in enumerate(values) if any(v == w for w in wanted)]
    assert match_nodes(gf, Query().match(".", col("x").isin(wanted))).tolist() == expected
    trace = make_trace(
        [(i, "Instant", "a", 0) for i in range(len(values))], X=np.array(values, dtype=np.int64)
    )
    assert np.flatnonzero(Filter("X", "in", wanted).mask(trace.events)).tolist() == expected
    assert np.flatnonzero(Filter("X", "not-in", wanted).mask(trace.events)).tolist() == [
        i for i in range(len(values)) if i not in expected
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("MATCH (p) WHERE p.x = 9007199254740993", [1]),
        ("MATCH (p) WHERE p.x > 9007199254740992", [1]),
        ("MATCH (p) WHERE p.x < 100000000000000000000000", [0, 1, 2]),
        ("MATCH (p) WHERE p.x >= 9223372036854775808", []),
    ],
)
def test_the_reported_cases(query, expected):
    assert match_nodes(chain([2**53, 2**53 + 1, -5]), query).tolist() == expected
    big = make_trace(
        [(0, "Instant", "a", 0), (1, "Instant", "a", 0)],
        X=np.array([2**53, 2**53 + 1], dtype=np.int64),
    )
    assert big.filter(Filter("X", "between", [2**53 + 1, 2**63])).events["X"].tolist() == [
        2**53 + 1
    ]
