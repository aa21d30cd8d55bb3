"""The one rule for nodes that share a call path (glade.profile.merge): on the HPCToolkit
cpi database, whose three sibling ``<unknown procedure>`` frames share a call path, and
on random profiles with repeated sibling frames against brute-force oracles."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import glade
from glade import Ensemble, GraphFrame
from glade.profile.merge import merge_rows
from tests.hypothesis_budget import examples

#: Total exclusive time of the cpi database (4 ranks), summed by hand from its rows.
CPI_TOTAL = 3_998_242.0


@pytest.fixture(scope="module")
def cpi(hatchet_data):
    return glade.read(hatchet_data / "hpctoolkit-cpi-database")


def test_cpi_has_nodes_that_share_a_call_path(cpi):
    paths = [n.path() for n in cpi.graph.nodes()]
    assert len(cpi.graph) == 34 and len(set(paths)) == 28
    assert cpi.dataframe["time"].sum() == CPI_TOTAL


def test_cpi_arithmetic_keeps_every_row(cpi):
    twice = cpi + cpi
    assert len(twice.graph) == 28
    assert twice.dataframe["time"].sum() == 2 * CPI_TOTAL == 7_996_484
    # so do the inclusive times of the root, per rank
    np.testing.assert_allclose(
        twice.dataframe.loc[0, "time (inc)"].to_numpy(),
        2 * cpi.dataframe.loc[0, "time (inc)"].to_numpy(),
    )
    zero = cpi - cpi
    assert (zero.dataframe[["time", "time (inc)"]].to_numpy() == 0).all()


def test_cpi_unify_keeps_each_side(cpi):
    a, b = cpi.unify(cpi)
    assert a.graph is b.graph and len(a.graph) == 28
    assert a.dataframe["time"].sum() == b.dataframe["time"].sum() == CPI_TOTAL
    # nodes 21, 23 and 25 of the file are sibling "<unknown procedure>" frames; their
    # "<unknown file>:0" children 22, 24 and 30 share a call path too (rank 0 of the
    # file: 298,806 + 316,840 + 47,965)
    tail = ("<unknown procedure>",) * 4 + ("<unknown file>:0",)
    leaf = next(n for n in a.graph.nodes() if n.path()[7:] == tail)
    assert a.dataframe.loc[(leaf.nid, 0), "time"] == 298_806 + 316_840 + 47_965
    # a non-additive column keeps the first node's value
    assert a.dataframe.loc[(leaf.nid, 0), "nid"] == cpi.dataframe.loc[(22, 0), "nid"] == 44


def test_cpi_ensemble_has_one_sample_per_call_path(cpi):
    ens = Ensemble.from_graphframes([cpi], labels=["cpi"])
    assert len(ens.graph) == 28 and len(ens.dataframe) == 28 * 4
    assert not ens.dataframe.index.has_duplicates
    assert ens.dataframe["time"].sum() == CPI_TOTAL
    twice = Ensemble.concat([ens, Ensemble.from_graphframes([cpi], labels=["again"])])
    assert len(twice.graph) == 28 and twice.dataframe["time"].sum() == 2 * CPI_TOTAL


# ------------------------------------------------------------- merge_rows
@settings(max_examples=examples(75), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.one_of(st.none(), st.floats(-100, 100)),
            st.one_of(st.none(), st.sampled_from(["x", "y", "z"])),
        ),
        max_size=30,
    )
)
def test_merge_rows_sums_additive_and_keeps_the_first_other_value(rows):
    cells = np.array([c for c, _, _ in rows], dtype=np.int64)
    time = np.array([np.nan if t is None else t for _, t, _ in rows], dtype=np.float64)
    label = np.array([s for _, _, s in rows], dtype=object)
    first, merged = merge_rows(cells, {"time": time, "label": label}, {"time"})
    order = list(dict.fromkeys(cells.tolist()))
    assert cells[first].tolist() == order
    for i, cell in enumerate(order):
        mine = [r for r in rows if r[0] == cell]
        values = [t for _, t, _ in mine if t is not None]
        if values:
            assert merged["time"][i] == pytest.approx(sum(values))
        else:
            assert np.isnan(merged["time"][i])
        labels = [s for _, _, s in mine if s is not None]
        assert merged["label"][i] == (labels[0] if labels else None)


def test_merge_rows_keeps_integers_exact():
    first, merged = merge_rows(np.array([3, 1, 3]), {"n": np.array([2**60, 5, 1])}, {"n"})
    assert first.tolist() == [0, 1]
    assert merged["n"].dtype == np.int64 and merged["n"].tolist() == [2**60 + 1, 5]


# ------------------------------------------------------- random profiles
@st.composite
def repeated_trees(draw, max_nodes=30):
    """A random tree whose names come from a small alphabet, so that sibling frames
    repeat often: (frames, edge sources, edge targets)."""
    n = draw(st.integers(1, max_nodes))
    parent = np.array([-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)])
    names = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    child = np.arange(1, n)
    return pd.DataFrame({"name": names}), parent[child], child


@st.composite
def profiles_on(draw, tree, ranks):
    """A profile of ``tree`` with random exclusive ``time`` per rank (whole numbers, so
    sums are exact) and its inclusive sums."""
    frames, src, dst = tree
    n = len(frames)
    exc = draw(st.lists(st.integers(0, 1000), min_size=n * ranks, max_size=n * ranks))
    rows = pd.DataFrame(
        {
            "node": np.repeat(np.arange(n), ranks),
            "rank": np.tile(np.arange(ranks), n),
            "time": np.array(exc, dtype=np.float64),
        }
    )
    return GraphFrame.from_tables(
        frames, src, dst, rows, ["time"], index=("node", "rank"), fill_inclusive=True
    )


@st.composite
def repeated_profiles(draw, ranks=None):
    """A random profile with repeated sibling frames."""
    return draw(profiles_on(draw(repeated_trees()), ranks or draw(st.integers(1, 3))))


@st.composite
def same_paths(draw):
    """Two profiles with the same call paths and different values; the second lists its
    nodes and edges in another order, so its siblings (repeated frames among them)
    come in another order."""
    frames, src, dst = draw(repeated_trees())
    ranks = draw(st.integers(1, 3))
    a = draw(profiles_on((frames, src, dst), ranks))
    new_id = np.array(draw(st.permutations(range(len(frames)))), dtype=np.int64)
    shuffled = frames.iloc[np.argsort(new_id)].reset_index(drop=True)
    edges = np.array(draw(st.permutations(range(len(src)))), dtype=np.int64)
    b = draw(profiles_on((shuffled, new_id[src][edges], new_id[dst][edges]), ranks))
    return a, b


def by_path(gf: GraphFrame, metric: str = "time") -> dict[tuple, float]:
    """Brute force: (call path, rank) -> sum of ``metric`` over the nodes of that path."""
    out: dict[tuple, float] = defaultdict(float)
    for (nid, rank), value in gf.dataframe[metric].items():
        if not np.isnan(value):
            out[(gf.graph.node(nid).path(), rank)] += value
    return dict(out)


@settings(max_examples=examples(50), deadline=None)
@given(same_paths())
def test_total_of_a_sum_is_the_sum_of_totals(pair):
    a, b = pair
    for metric in ("time", "time (inc)"):
        total = (a + b).dataframe[metric]
        assert not total.isna().any()
        assert total.sum() == a.dataframe[metric].sum() + b.dataframe[metric].sum()
    difference = (a - b).dataframe["time"].sum()
    assert difference == a.dataframe["time"].sum() - b.dataframe["time"].sum()


@settings(max_examples=examples(50), deadline=None)
@given(repeated_profiles(ranks=2), repeated_profiles(ranks=2))
def test_a_sum_over_different_paths_is_nan_where_one_side_lacks_a_path(a, b):
    total = (a + b).dataframe["time"]
    mine, theirs = by_path(a), by_path(b)
    both = set(mine) & set(theirs)
    assert total.sum() == sum(mine[k] + theirs[k] for k in both)
    assert int(total.notna().sum()) == len(both)


@settings(max_examples=examples(50), deadline=None)
@given(repeated_profiles(), repeated_profiles())
def test_unify_keeps_each_sides_values_per_call_path(a, b):
    left, right = a.unify(b)
    assert left.graph is right.graph
    assert left.dataframe["time"].sum() == pytest.approx(a.dataframe["time"].sum())
    assert right.dataframe["time"].sum() == pytest.approx(b.dataframe["time"].sum())
    assert by_path(left) == pytest.approx(by_path(a))
    assert by_path(left, "time (inc)") == pytest.approx(by_path(a, "time (inc)"))
    assert by_path(right) == pytest.approx(by_path(b))
    paths = [n.path() for n in left.graph.nodes()]
    assert len(paths) == len(set(paths))


@settings(max_examples=examples(50), deadline=None)
@given(repeated_profiles())
def test_ensemble_of_one_profile_has_its_values_as_means(gf):
    ens = Ensemble.from_graphframes([gf], labels=["only"])
    glade.stats.mean(ens, ["time", "time (inc)"])
    for metric in ("time", "time (inc)"):
        per_rank = by_path(gf, metric)
        expected: dict[tuple, list[float]] = defaultdict(list)
        for (path, _), value in per_rank.items():
            expected[path].append(value)
        means = {
            node.path(): ens.stats.loc[node.nid, f"{metric}_mean"] for node in ens.graph.nodes()
        }
        assert means == pytest.approx({p: np.mean(v) for p, v in expected.items()})
    counts = ens.dataframe.groupby(level=["node", "profile"]).size()
    assert (counts == gf.dataframe.index.get_level_values("rank").nunique()).all()
