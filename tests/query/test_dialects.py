"""The three forms of a query mean the same thing, on real and synthetic data."""

from __future__ import annotations

import numpy as np
import pytest

import glade
from glade.datasets import synthetic_profile
from glade.query import (
    And,
    Compare,
    IsIn,
    IsSpecial,
    Not,
    Or,
    Query,
    QueryNode,
    StringTest,
    Structure,
    col,
    is_leaf,
    is_root,
    parse,
)

# The seed paper's Figure 2: MPI calls with more than 5 L2 misses, and everything below them.
FIGURE2_STRING = 'MATCH (".", p)->("*") WHERE p."name" =~ "P?MPI_.*" AND p."PAPI_L2_TCM" > 5'
FIGURE2_OBJECT = [(".", {"name": "P?MPI_.*", "PAPI_L2_TCM": "> 5"}), "*"]
FIGURE2_BUILDER = (
    Query().match(".", col("name").matches("P?MPI_.*") & (col("PAPI_L2_TCM") > 5)).rel("*")
)


def ids(gf, query, **kw):
    return [n.nid for n in gf.match(query, **kw)]


def test_figure2_three_forms_are_one_query():
    assert parse(FIGURE2_STRING) == parse(FIGURE2_OBJECT) == FIGURE2_BUILDER


def test_figure2_on_synthetic_profile_with_papi_counter():
    gf = synthetic_profile(3000, seed=3)
    found = ids(gf, FIGURE2_STRING)
    assert found == ids(gf, FIGURE2_OBJECT) == ids(gf, FIGURE2_BUILDER)
    # by hand: the starts are MPI-named nodes with more than 5 misses; every other
    # selected node lies below one of them
    df = gf.dataframe
    starts = set(np.flatnonzero(df["name"].str.fullmatch("P?MPI_.*") & (df["PAPI_L2_TCM"] > 5)))
    assert starts and starts <= set(found)
    for nid in found:
        path = gf.graph.path_ids(nid)
        assert any(a in starts for a in path)


def test_figure2_on_hpctoolkit_cpi(hatchet_data):
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    string = 'MATCH (".", p)->("*") WHERE p.name =~ "P?MPI_.*" AND p."time (inc)" >= 0'
    obj = [(".", {"name": "P?MPI_.*", "time (inc)": ">= 0"}), "*"]
    mpi = col("name").matches("P?MPI_.*") & (col("time (inc)") >= 0)
    builder = Query().match(".", mpi).rel("*")
    found = ids(gf, string)
    assert found == ids(gf, obj) == ids(gf, builder)
    names = gf.graph.frames["name"]
    # MPI_Init and MPI_Finalize (procedures named as such, their call-site lines 27 and
    # 62 a frame attribute of their own) and all below them, PMPI_Init and PMPI_Finalize
    # included.
    starts = [i for i in found if names[i] in ("MPI_Init", "MPI_Finalize")]
    assert len(starts) == 2
    assert {names[i] for i in found} >= {"PMPI_Init", "PMPI_Finalize"}
    below = set()
    for s in starts:
        below.update(range(s, int(gf.graph.subtree_end[s])))
    assert set(found) == below


def test_regex_is_a_full_match_in_every_form():
    gf = synthetic_profile(500, seed=2)
    partial = ids(gf, [{"name": "MPI"}])
    assert partial == []
    assert ids(gf, 'MATCH (p) WHERE p.name =~ "MPI"') == []
    assert ids(gf, Query().match(".", col("name").matches("MPI"))) == []
    assert ids(gf, [{"name": "MPI.*"}]) == ids(gf, 'MATCH (p) WHERE p.name STARTS WITH "MPI"')


def test_object_dialect_conditions():
    assert parse([{"x": "> 5"}]) == Query([QueryNode(".", Compare("x", ">", 5))])
    assert parse([{"x": "<= 2.5"}]) == Query([QueryNode(".", Compare("x", "<=", 2.5))])
    assert parse([{"x": "!= 3"}]) == Query([QueryNode(".", Compare("x", "!=", 3))])
    assert parse([{"x": 3}]) == Query([QueryNode(".", Compare("x", "==", 3))])
    assert parse([{"x": None}]) == Query([QueryNode(".", IsSpecial("x", "none"))])
    assert parse([{"x": ["> 1", "< 4"]}]) == Query(
        [QueryNode(".", And((Compare("x", ">", 1), Compare("x", "<", 4))))]
    )
    assert parse([("+", {"name": "a.*"}), 2, "*"]) == Query(
        [
            QueryNode("+", StringTest("name", "regex", "a.*")),
            QueryNode(2, None),
            QueryNode("*", None),
        ]
    )


def test_string_dialect_extensions():
    base = parse('MATCH (".", p)->("*", q) WHERE p.name = "main" AND q.time > 1')
    variants = [
        'match (".", p)->("*", q) where p."name" = "main" and q."time" > 1',
        'MaTcH (".", p)->("*", q) WhErE (p.name = "main") AND (q.time > 1)',
    ]
    for text in variants:
        assert parse(text) == base
    assert parse("MATCH (p) WHERE p.x <> 1") == parse("MATCH (p) WHERE p.x != 1")
    assert parse('MATCH (p) WHERE p.x IN ["a", 2, 2.5, TRUE]') == Query(
        [QueryNode(".", IsIn("x", ("a", 2, 2.5, True)))]
    )
    assert parse("MATCH (p) WHERE p IS LEAF") == Query().match(".", is_leaf())
    assert parse("MATCH (p) WHERE p IS NOT ROOT") == Query().match(".", ~is_root())
    assert parse("MATCH (p) WHERE p.x IS NOT NAN") == Query().match(".", ~col("x").isnan())
    assert parse('MATCH ("*")') == Query().match("*")  # WHERE is optional
    assert parse("MATCH (p)") == Query().match(".")
    assert parse("MATCH (3, p) WHERE p.a = 1 OR p.b = 2 OR NOT p.c = 3") == Query().match(
        3, Or((Compare("a", "==", 1), Compare("b", "==", 2), Not(Compare("c", "==", 3))))
    )


def test_or_across_variables_means_or():
    gf = synthetic_profile(800, seed=5)
    text = 'MATCH (".", p)->(".", q) WHERE p.name = "main" OR q."time (inc)" > 100'
    left = Query().match(".", col("name") == "main").rel(".")
    right = Query().match(".").rel(".", col("time (inc)") > 100)
    assert parse(text) == (left | right)
    assert ids(gf, text) == sorted(set(ids(gf, left)) | set(ids(gf, right)))
    # and not silently AND:
    both = Query().match(".", col("name") == "main").rel(".", col("time (inc)") > 100)
    assert set(ids(gf, both)) < set(ids(gf, text))


def test_not_over_mixed_variables_is_pushed_down():
    text = 'MATCH (".", p)->(".", q) WHERE NOT (p.a = 1 AND q.b = 2)'
    expected = Query().match(".", ~(col("a") == 1)).rel(".") | Query().match(".").rel(
        ".", ~(col("b") == 2)
    )
    assert parse(text) == expected


def test_compound_queries_in_text_and_python():
    a = 'MATCH (p) WHERE p.name = "a"'
    b = 'MATCH (p) WHERE p.name = "b"'
    qa, qb = parse(a), parse(b)
    assert parse(f"{{{a}}} AND {{{b}}}") == (qa & qb)
    assert parse(f"{{{a}}} or {{{b}}}") == (qa | qb)
    assert parse(f"{{{a}}} XOR {{{b}}}") == (qa ^ qb)
    assert parse(f"NOT {{{a}}}") == ~qa
    nested = parse(f"{{ {{{a}}} OR {{{b}}} }} AND NOT {{{a}}}")
    assert nested == ((qa | qb) & ~qa)
    # precedence: AND binds tighter than XOR, XOR than OR
    assert parse(f"{{{a}}} OR {{{b}}} AND {{{a}}}") == (qa | (qb & qa))


def test_compound_semantics_on_nodes():
    gf = synthetic_profile(600, seed=9)
    mpi = parse([{"name": "MPI_.*"}, "*"])
    deep = parse([".", ".", ".", ("+", {})])
    s_mpi, s_deep = set(ids(gf, mpi)), set(ids(gf, deep))
    everything = set(range(len(gf.graph)))
    assert set(ids(gf, mpi & deep)) == s_mpi & s_deep
    assert set(ids(gf, mpi | deep)) == s_mpi | s_deep
    assert set(ids(gf, mpi ^ deep)) == s_mpi ^ s_deep
    assert set(ids(gf, ~mpi)) == everything - s_mpi


def test_rank_mode_any_and_all():
    gf = synthetic_profile(300, ranks=4, seed=4)
    df = gf.dataframe
    threshold = float(df["time"].median())
    per_node = (df["time"] > threshold).groupby(level="node")
    any_expected = sorted(per_node.any()[lambda s: s].index)
    all_expected = sorted(per_node.all()[lambda s: s].index)
    q = [{"time": f"> {threshold!r}"}]
    assert ids(gf, q, rank_mode="any") == any_expected
    assert ids(gf, q, rank_mode="all") == all_expected
    assert set(all_expected) < set(any_expected)
    # conditions combine per row first: a node where one rank is slow and another rank
    # is cheap in L2 misses does not satisfy "slow AND cheap" unless one rank is both.
    both = (df["time"] > threshold) & (df["PAPI_L2_TCM"] < df["PAPI_L2_TCM"].median())
    expected = sorted(both.groupby(level="node").any()[lambda s: s].index)
    q2 = Query().match(
        ".", (col("time") > threshold) & (col("PAPI_L2_TCM") < float(df["PAPI_L2_TCM"].median()))
    )
    assert ids(gf, q2) == expected
    with pytest.raises(glade.QueryError, match="rank_mode"):
        gf.match(q, rank_mode="most")


def test_rank_is_a_column():
    gf = synthetic_profile(50, ranks=3, seed=1)
    q = Query().match(".", (col("rank") == 2) & (col("time") > 30))
    expected = gf.dataframe.xs(2, level="rank")["time"] > 30
    assert ids(gf, q) == sorted(expected[expected].index)


def nan_frame():
    import pandas as pd

    # an object column keeps None and NaN apart (a pandas string column would not)
    frames = pd.DataFrame(
        {
            "name": ["root", "a", "b", "c", "d"],
            "kind": pd.Series(["x", None, "y", np.nan, "x"], dtype=object),
        }
    )
    rows = pd.DataFrame(
        {
            "node": range(5),
            "m": [1.0, np.nan, np.inf, -np.inf, 2.0],
            "label": ["u", None, "v", 3, "w"],
        }
    )
    return glade.GraphFrame.from_tables(frames, [0, 0, 0, 0], [1, 2, 3, 4], rows, exc_metrics=["m"])


def test_nan_inf_none_and_type_mismatches():
    gf = nan_frame()
    names = lambda q: sorted(gf.graph.frames["name"][i] for i in ids(gf, q))  # noqa: E731
    assert names(Query().match(".", col("m").isnan())) == []  # NaN exclusive is stored as 0
    assert names(Query().match(".", col("m").isinf())) == ["b", "c"]
    assert names(Query().match(".", col("kind").isnull())) == ["a", "c"]
    assert names(Query().match(".", col("kind").isnan())) == ["c"]
    assert names(Query().match(".", col("label") == 3)) == ["c"]
    assert names(Query().match(".", col("label").matches(".*"))) == ["b", "d", "root"]
    assert names(Query().match(".", col("name") > 5)) == []  # str vs number: false
    assert names(Query().match(".", col("m") > 0)) == ["b", "d", "root"]
    assert names(Query().match(".", col("label").isin(["u", 3]))) == ["c", "root"]
    assert names('MATCH (p) WHERE p.kind <> "x"') == ["b"]
    assert names('MATCH (p) WHERE NOT p.kind = "x"') == ["a", "b", "c"]


def test_unknown_column_is_a_clear_error():
    gf = synthetic_profile(20)
    with pytest.raises(glade.QueryError, match="no column named 'tme'"):
        gf.match("MATCH (p) WHERE p.tme > 5")


def test_callable_predicates_run_once_per_node():
    gf = synthetic_profile(200, seed=6)
    calls = []

    def slow(row):
        calls.append(row.name)
        return row["time (inc)"] > 50

    found = ids(gf, Query().match(".", slow).rel("*"))
    assert len(calls) == len(gf.graph)
    assert found == ids(gf, Query().match(".", col("time (inc)") > 50).rel("*"))


def test_callable_predicates_on_several_rows_per_node():
    gf = synthetic_profile(100, ranks=3, seed=6)
    found_all = ids(gf, Query().match(".", lambda rows: (rows["time"] > 5).all()))
    vector = ids(gf, Query().match(".", col("time") > 5), rank_mode="all")
    assert found_all == vector
    found_rows = ids(gf, Query().match(".", lambda rows: rows["time"] > 5), rank_mode="all")
    assert found_rows == vector


def test_query_and_filter_accept_every_form():
    gf = synthetic_profile(400, seed=8)
    forms = [
        FIGURE2_STRING.replace("5", "50"),
        [(".", {"name": "P?MPI_.*", "PAPI_L2_TCM": "> 50"}), "*"],
        Query().match(".", col("name").matches("P?MPI_.*") & (col("PAPI_L2_TCM") > 50)).rel("*"),
    ]
    results = [gf.query(f) for f in forms] + [gf.filter(f) for f in forms]
    first = results[0].dataframe
    for other in results[1:]:
        assert other.dataframe.equals(first)
    matched = ids(gf, forms[0])
    unsquashed = gf.query(forms[0], squash=False)
    assert sorted(unsquashed.dataframe.index) == matched
    # squashing merges the matched MPI subtrees that became sibling roots with the same
    # name, but keeps their exclusive time
    assert len(results[0].graph) < len(matched)
    total = gf.dataframe.loc[matched, "time"].sum()
    assert results[0].dataframe["time"].sum() == pytest.approx(total)


def test_structure_predicates():
    gf = synthetic_profile(100, seed=1)
    leaves = ids(gf, Query().match(".", is_leaf()))
    assert leaves == sorted(np.flatnonzero(gf.graph.num_children == 0))
    assert ids(gf, Query().match(".", is_root())) == [0]
    assert Structure("leaf") == is_leaf()
