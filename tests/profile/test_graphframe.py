"""GraphFrame operations: hand-computed examples and properties on random profiles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import glade
from glade import GraphFrame
from glade.errors import MetricError
from glade.units import format_value
from tests.hypothesis_budget import examples

# The literal of Hatchet's docs: A(0) -> B(5) -> C(5) -> D(1); A -> E(10) -> H(9)
LITERAL = [
    {
        "frame": {"name": "A", "type": "function"},
        "metrics": {"time (inc)": 30.0, "time": 0.0},
        "children": [
            {
                "frame": {"name": "B", "type": "function"},
                "metrics": {"time (inc)": 11.0, "time": 5.0},
                "children": [
                    {
                        "frame": {"name": "C", "type": "function"},
                        "metrics": {"time (inc)": 6.0, "time": 5.0},
                        "children": [
                            {
                                "frame": {"name": "D", "type": "function"},
                                "metrics": {"time (inc)": 1.0, "time": 1.0},
                            }
                        ],
                    }
                ],
            },
            {
                "frame": {"name": "E", "type": "function"},
                "metrics": {"time (inc)": 19.0, "time": 10.0},
                "children": [
                    {
                        "frame": {"name": "H", "type": "function"},
                        "metrics": {"time (inc)": 9.0, "time": 9.0},
                    }
                ],
            },
        ],
    }
]


@pytest.fixture
def small():
    return GraphFrame.from_literal(LITERAL)


def values(gf, metric="time (inc)"):
    return dict(zip(gf.dataframe["name"], gf.dataframe[metric], strict=True))


def test_from_literal(small):
    assert list(small.dataframe["name"]) == ["A", "B", "C", "D", "E", "H"]
    assert small.exc_metrics == ["time"] and small.inc_metrics == ["time (inc)"]
    assert small.default_metric == "time (inc)"
    assert [n.name for n in small.graph.roots[0].children] == ["B", "E"]


def test_squash_bypasses_and_recomputes(small):
    no_c = small.filter(lambda row: row["name"] != "C", squash=False)
    assert len(no_c.dataframe) == 5 and len(no_c.graph) == 6
    sq = no_c.squash()
    assert [n.path() for n in sq.graph.nodes()] == [
        ("A",),
        ("A", "B"),
        ("A", "B", "D"),
        ("A", "E"),
        ("A", "E", "H"),
    ]
    # C's own 5 are gone: B = 5 + D's 1, A = 0 + 6 + 19
    assert values(sq) == {"A": 25.0, "B": 6.0, "D": 1.0, "E": 19.0, "H": 9.0}


def test_squash_fold_keeps_inclusive_values(small):
    sq = small.filter(lambda row: row["name"] != "C", squash=False).squash(fold=True)
    assert values(sq) == {"A": 30.0, "B": 11.0, "D": 1.0, "E": 19.0, "H": 9.0}
    # C's exclusive 5 went to B
    assert values(sq, "time") == {"A": 0.0, "B": 10.0, "D": 1.0, "E": 10.0, "H": 9.0}


def test_squash_merges_identical_siblings():
    # A -> X -> C(2) and A -> Y -> C(3); removing X and Y makes two C's siblings
    literal = [
        {
            "frame": {"name": "A"},
            "metrics": {"time": 1.0},
            "children": [
                {
                    "frame": {"name": "X"},
                    "metrics": {"time": 1.0},
                    "children": [{"frame": {"name": "C"}, "metrics": {"time": 2.0}}],
                },
                {
                    "frame": {"name": "Y"},
                    "metrics": {"time": 1.0},
                    "children": [{"frame": {"name": "C"}, "metrics": {"time": 3.0}}],
                },
            ],
        }
    ]
    gf = GraphFrame.from_literal(literal).update_inclusive_columns()
    sq = gf.query([{"name": "A|C"}])
    assert [n.path() for n in sq.graph.nodes()] == [("A",), ("A", "C")]
    assert values(sq, "time") == {"A": 1.0, "C": 5.0}
    assert values(sq) == {"A": 6.0, "C": 5.0}
    folded = gf.query([{"name": "A|C"}], fold=True)
    assert values(folded) == {"A": 8.0, "C": 5.0}
    assert values(folded, "time") == {"A": 3.0, "C": 5.0}


def test_update_inclusive_on_shared_nodes_counts_them_once():
    literal = [
        {
            "frame": {"name": "r"},
            "metrics": {"t": 1, "_hatchet_nid": 0},
            "children": [
                {
                    "frame": {"name": "a"},
                    "metrics": {"t": 2, "_hatchet_nid": 1},
                    "children": [{"frame": {"name": "s"}, "metrics": {"t": 4, "_hatchet_nid": 3}}],
                },
                {
                    "frame": {"name": "b"},
                    "metrics": {"t": 8, "_hatchet_nid": 2},
                    "children": [{"frame": {"name": "s"}, "metrics": {"t": 4, "_hatchet_nid": 3}}],
                },
            ],
        }
    ]
    gf = GraphFrame.from_literal(literal)
    assert len(gf.graph) == 4 and not gf.graph.is_tree()
    inc = values(gf.update_inclusive_columns(), "t (inc)")
    assert inc == {"r": 15, "a": 6, "s": 4, "b": 12}
    assert gf.update_inclusive_columns().dataframe["t (inc)"].dtype == np.int64


def test_literal_round_trip_with_shared_nodes():
    gf = GraphFrame.from_literal(
        [
            {
                "frame": {"name": "r"},
                "metrics": {"t": 1.0},
                "children": [
                    {
                        "frame": {"name": "a"},
                        "metrics": {"t": 2.0},
                        "children": [
                            {"frame": {"name": "s"}, "metrics": {"t": 4.0, "_hatchet_nid": 9}}
                        ],
                    },
                    {
                        "frame": {"name": "b"},
                        "metrics": {"t": 8.0},
                        "children": [
                            {"frame": {"name": "s"}, "metrics": {"t": 4.0, "_hatchet_nid": 9}}
                        ],
                    },
                ],
            }
        ]
    )
    again = GraphFrame.from_literal(gf.to_literal())
    assert again.dataframe.equals(gf.dataframe)
    assert list(zip(*again.graph.edges(), strict=True)) == list(zip(*gf.graph.edges(), strict=True))


def test_hatchet_json_export(hatchet_data):
    gf = GraphFrame.from_json(hatchet_data / "json" / "hatchet-graph-literal.json")
    assert len(gf.graph) == 24 and len(gf.graph.roots) == 2
    # from the file: node 0 "foo" has time (inc) 135 and time 0, root 2 "waldo" 30
    assert gf.dataframe.loc[0, "time (inc)"] == 135 and gf.dataframe.loc[0, "time"] == 0
    assert [r.name for r in gf.graph.roots] == ["foo", "waldo"]
    assert glade.read(hatchet_data / "json" / "hatchet-graph-literal.json").dataframe.equals(
        gf.dataframe
    )


def test_arithmetic_over_the_union(small):
    other = GraphFrame.from_literal(
        [
            {
                "frame": {"name": "A", "type": "function"},
                "metrics": {"time (inc)": 3.0, "time": 1.0},
                "children": [
                    {
                        "frame": {"name": "Z", "type": "function"},
                        "metrics": {"time (inc)": 2.0, "time": 2.0},
                    }
                ],
            }
        ]
    )
    diff = small - other
    assert [n.path() for n in diff.graph.nodes()] == [
        ("A",),
        ("A", "B"),
        ("A", "B", "C"),
        ("A", "B", "C", "D"),
        ("A", "E"),
        ("A", "E", "H"),
        ("A", "Z"),
    ]
    got = values(diff)
    assert got["A"] == 27.0
    assert np.isnan(got["B"]) and np.isnan(got["Z"])  # missing on one side: NaN, never kept
    zero = small - small
    assert (zero.dataframe[["time", "time (inc)"]] == 0).all().all()
    a, b = small.unify(other)
    assert a.graph is b.graph and len(a.dataframe) == len(b.dataframe) == 7
    assert np.isnan(b.dataframe.loc[1, "time"])


def test_multirank_arithmetic_and_drop_index_levels():
    gf = glade.datasets.synthetic_profile(60, ranks=3, seed=2)
    twice = gf + gf
    np.testing.assert_allclose(twice.dataframe["time"], 2 * gf.dataframe["time"])
    mean = gf.drop_index_levels()
    assert mean.dataframe.index.names == ["node"]
    expected = gf.dataframe["time"].groupby(level="node").mean()
    np.testing.assert_allclose(mean.dataframe["time"], expected)
    assert list(mean.dataframe["name"]) == list(gf.graph.frames["name"])
    top = gf.drop_index_levels("max")
    np.testing.assert_allclose(
        top.dataframe["time"], gf.dataframe["time"].groupby(level="node").max()
    )


def test_groupby_aggregate_by_module():
    gf = glade.datasets.synthetic_profile(300, seed=4)
    grouped = gf.groupby_aggregate("module")
    modules = set(gf.graph.frames["module"])
    assert set(grouped.graph.frames["name"]) == modules
    by_hand = gf.dataframe.groupby("module")["time"].sum()
    got = grouped.dataframe.set_index("name")["time"]
    for module in modules:
        assert got[module] == pytest.approx(by_hand[module])
    # app calls MPI: an edge app -> libmpi
    app = next(n for n in grouped.graph.nodes() if n.name == "app")
    assert "libmpi.so.12" in {c.name for c in app.children}


def test_flat_profile_does_not_double_count_recursion():
    # main -> f -> f -> g: f's inclusive counts only the outer f
    g = {"frame": {"name": "g"}, "metrics": {"time": 4.0}}
    inner = {"frame": {"name": "f"}, "metrics": {"time": 3.0}, "children": [g]}
    outer = {"frame": {"name": "f"}, "metrics": {"time": 2.0}, "children": [inner]}
    main = {"frame": {"name": "main"}, "metrics": {"time": 1.0}, "children": [outer]}
    gf = GraphFrame.from_literal([main]).update_inclusive_columns()
    flat = gf.flat_profile()
    assert flat.loc["f", "time"] == 5.0
    assert flat.loc["f", "time (inc)"] == 9.0
    assert flat.loc["main", "time (inc)"] == 10.0
    assert list(flat.index) == ["f", "g", "main"]


def test_tree_text(small):
    text = small.tree()
    assert text == (
        "time (inc)\n"
        "30.000 A\n"
        "├─ 11.000 B\n"
        "│  └─ 6.000 C\n"
        "│     └─ 1.000 D\n"
        "└─ 19.000 E\n"
        "   └─ 9.000 H\n"
    )
    assert small.tree(depth=1).splitlines()[1:] == ["30.000 A", "├─ 11.000 B", "└─ 19.000 E"]
    assert small.tree(threshold=0.31).splitlines()[1:] == [  # hides H (9 < 9.3), C, D
        "30.000 A",
        "├─ 11.000 B",
        "└─ 19.000 E",
    ]
    assert "5.000 B" in small.tree(metric="time", precision=3)
    assert "\033[" in small.tree(color=True) and "Legend" in small.tree(color=True)
    long = GraphFrame.from_literal([{"frame": {"name": "x" * 50}, "metrics": {"t": 1.0}}])
    assert long.tree(name_width=10).splitlines()[1] == "1.000 xxxxxxxxx…"


def test_tree_marks_shared_nodes_once():
    gf = GraphFrame.from_literal(
        [
            {
                "frame": {"name": "r"},
                "metrics": {"t": 1.0},
                "children": [
                    {
                        "frame": {"name": "a"},
                        "metrics": {"t": 2.0},
                        "children": [
                            {
                                "frame": {"name": "s"},
                                "metrics": {"t": 4.0, "_hatchet_nid": 9},
                                "children": [{"frame": {"name": "leaf"}, "metrics": {"t": 1.0}}],
                            }
                        ],
                    },
                    {
                        "frame": {"name": "b"},
                        "metrics": {"t": 8.0},
                        "children": [
                            {"frame": {"name": "s"}, "metrics": {"t": 4.0, "_hatchet_nid": 9}}
                        ],
                    },
                ],
            }
        ]
    )
    lines = gf.tree().splitlines()
    assert lines[1:] == [
        "1.000 r",
        "├─ 2.000 a",
        "│  └─ 4.000 s",
        "│     └─ 1.000 leaf",
        "└─ 8.000 b",
        "   └─ ↪ s",
        "↪ shared node, shown in full at its first call path",
    ]


def test_tree_of_multirank_profile_says_how_rows_are_reduced():
    gf = glade.datasets.synthetic_profile(20, ranks=4)
    assert gf.tree().splitlines()[0] == "time (inc) (mean over ranks)"
    assert gf.tree(rank=2).splitlines()[0] == "time (inc) (rank 2)"
    root_rank2 = gf.dataframe.loc[(0, 2), "time (inc)"]
    # the synthetic profile's times are in us, written in the unit that reads best
    assert gf.tree(rank=2).splitlines()[1].startswith(f"{format_value(root_rank2, 'us')} main")


def test_exports(small):
    dot = small.to_dot()
    assert dot.startswith("digraph glade {") and '"0" -> "1";' in dot
    assert 'label="A\\n30"' in dot
    assert small.to_flamegraph() == "B 5\nA;B;C 5\nA;B;C;D 1\nA;E 10\nA;E;H 9\n".replace(
        "B 5\n", "A;B 5\n", 1
    )
    with pytest.raises(MetricError):
        small.to_flamegraph(metric="time (inc)")


def test_missing_metric_errors(small):
    with pytest.raises(MetricError, match="no metric named 'tme'"):
        small.tree(metric="tme")
    with pytest.raises(MetricError):
        small.flat_profile("tme")
    with pytest.raises(MetricError):
        small.update_inclusive_columns(["tme"])


# --------------------------------------------------------------- properties
@st.composite
def random_profiles(draw, max_nodes=40):
    n = draw(st.integers(1, max_nodes))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    names = draw(st.lists(st.sampled_from(["a", "b", "c", "MPI_Send"]), min_size=n, max_size=n))
    ranks = draw(st.integers(1, 3))
    exc = draw(st.lists(st.floats(0, 100), min_size=n * ranks, max_size=n * ranks))
    frames = pd.DataFrame({"name": names})
    rows = pd.DataFrame(
        {"node": np.repeat(np.arange(n), ranks), "rank": np.tile(np.arange(ranks), n), "time": exc}
    )
    child = np.arange(1, n)
    return GraphFrame.from_tables(
        frames,
        np.array(parent)[child],
        child,
        rows,
        ["time"],
        index=("node", "rank"),
        fill_inclusive=True,
    )


@settings(max_examples=examples(75), deadline=None)
@given(random_profiles(), st.data())
def test_fold_keeps_totals_and_inclusive_values(gf, data):
    keep = np.array(
        data.draw(st.lists(st.booleans(), min_size=len(gf.graph), max_size=len(gf.graph)))
    )
    keep[0] = True  # the root stays, so every removed node has a kept ancestor
    folded = gf._keep(keep, squash=True, fold=True)
    total = gf.dataframe["time"].groupby(level="rank").sum()
    np.testing.assert_allclose(folded.dataframe["time"].groupby(level="rank").sum(), total)
    # each kept node's inclusive value equals the sum of the originals merged into it
    new_id = {node.path(): node.nid for node in folded.graph.nodes()}
    expected: dict[tuple, np.ndarray] = {}
    for k in np.flatnonzero(keep):
        path = _kept_path(gf, keep, int(k))
        value = gf.dataframe.loc[int(k), "time (inc)"].to_numpy()
        expected[path] = expected.get(path, 0) + value
    assert set(expected) == set(new_id)
    for path, value in expected.items():
        np.testing.assert_allclose(
            folded.dataframe.loc[new_id[path], "time (inc)"].to_numpy(), value
        )


def _kept_path(gf, keep, nid):
    ids = [i for i in gf.graph.path_ids(nid) if keep[i]]
    return tuple(gf.graph.names[i] for i in ids)


@settings(max_examples=examples(75), deadline=None)
@given(random_profiles())
def test_inclusive_is_exclusive_plus_childrens_inclusive(gf):
    gf = gf.update_inclusive_columns()
    df = gf.dataframe
    for node in gf.graph.nodes():
        children = [c.nid for c in node.children]
        expected = df.loc[node.nid, "time"].to_numpy().copy()
        for c in children:
            expected += df.loc[c, "time (inc)"].to_numpy()
        np.testing.assert_allclose(df.loc[node.nid, "time (inc)"].to_numpy(), expected)


@settings(max_examples=examples(50), deadline=None)
@given(random_profiles())
def test_a_minus_a_is_zero(gf):
    zero = gf - gf
    assert (zero.dataframe[["time", "time (inc)"]].to_numpy() == 0).all()
    assert len(zero.graph) <= len(gf.graph)


@settings(max_examples=examples(50), deadline=None)
@given(random_profiles(), st.data())
def test_squash_without_fold_keeps_kept_exclusive_time(gf, data):
    keep = np.array(
        data.draw(st.lists(st.booleans(), min_size=len(gf.graph), max_size=len(gf.graph)))
    )
    sq = gf._keep(keep, squash=True, fold=False)
    kept = np.flatnonzero(keep)
    np.testing.assert_allclose(
        sq.dataframe["time"].sum(), gf.dataframe.loc[kept, "time"].sum() if kept.size else 0.0
    )
