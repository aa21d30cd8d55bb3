"""The supergraph of the 18 RAJAPerf profiles grouped into kernel families by a {regex:
module} mapping, checked against numpy on each file's own values (read alone)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats as scipy_stats

from tests.ensemble.oracles import METRIC

FAMILIES = {
    "Basic.*": "Basic",
    "Apps.*": "Apps",
    "Lcals.*": "Lcals",
    "Polybench.*": "Polybench",
    "Stream.*": "Stream",
    "Algorithm.*": "Algorithm",
}
EXCLUSIVE = "Avg time/rank (exc)"


def family(name: str) -> str:
    return next((module for regex, module in FAMILIES.items() if re.fullmatch(regex, name)), name)


def raw_family_values(gf) -> dict[str, tuple[float, float]]:
    """(inclusive, exclusive) per family of one file, with numpy: inclusive sums the
    nodes whose parent is in another family, exclusive sums every node."""
    names = gf.graph.frames["name"].to_numpy()
    node = gf.dataframe.index.get_level_values("node").to_numpy()
    inclusive = np.zeros(len(gf.graph))
    exclusive = np.zeros(len(gf.graph))
    inclusive[node] = gf.dataframe[METRIC].to_numpy()
    exclusive[node] = gf.dataframe[EXCLUSIVE].to_numpy()
    groups = np.array([family(n) for n in names], dtype=object)
    parent = gf.graph.tree_parent
    entry = (parent < 0) | (groups[np.maximum(parent, 0)] != groups)
    return {
        g: (float(inclusive[entry & (groups == g)].sum()), float(exclusive[groups == g].sum()))
        for g in np.unique(groups)
    }


@pytest.fixture(scope="module")
def supergraph(rajaperf_ensemble):
    return rajaperf_ensemble.supergraph(by=FAMILIES, metric=METRIC)


@pytest.fixture(scope="module")
def raw_values(rajaperf_ensemble, raw_profiles, supergraph):
    """supernodes x profiles arrays of (inclusive, exclusive) from the raw files."""
    path_of = rajaperf_ensemble.metadata["path"]
    by_path = {str(p): raw_family_values(gf) for p, gf in raw_profiles.items()}
    inclusive = np.zeros((len(supergraph), supergraph.num_profiles))
    exclusive = np.zeros_like(inclusive)
    for j, profile in enumerate(supergraph.profiles):
        values = by_path[path_of[profile]]
        for i, key in enumerate(supergraph.supernodes):
            inclusive[i, j], exclusive[i, j] = values.get(key, (0.0, 0.0))
    return inclusive, exclusive


def test_families(supergraph):
    assert supergraph.supernodes == [
        "RAJAPerf",
        "Basic",
        "Apps",
        "Polybench",
        "Stream",
        "Lcals",
        "Algorithm",
    ] or set(supergraph.supernodes) == {"RAJAPerf", *FAMILIES.values()}
    assert set(supergraph.edges["source"]) == {"RAJAPerf"}
    assert not supergraph.edges["reentry"].any()


def test_values_match_numpy(supergraph, raw_values):
    inclusive, exclusive = raw_values
    np.testing.assert_allclose(supergraph.values("inclusive"), inclusive, rtol=1e-12)
    np.testing.assert_allclose(supergraph.values(EXCLUSIVE), exclusive, rtol=1e-12)
    nodes = supergraph.nodes
    np.testing.assert_allclose(nodes["inclusive_mean"], inclusive.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(nodes["inclusive_std"], inclusive.std(axis=1, ddof=1), rtol=1e-12)
    for stat, q in (("q1", 25), ("median", 50), ("q3", 75)):
        np.testing.assert_allclose(
            nodes[f"inclusive_{stat}"], np.percentile(inclusive, q, axis=1), rtol=1e-12
        )
    np.testing.assert_allclose(nodes["inclusive_min"], inclusive.min(axis=1))
    np.testing.assert_allclose(nodes["inclusive_max"], inclusive.max(axis=1))
    np.testing.assert_allclose(nodes["exclusive_mean"], exclusive.mean(axis=1), rtol=1e-12)
    # every family hangs under RAJAPerf: its one edge carries its inclusive value
    edges = supergraph.edge_values()
    for i, row in enumerate(supergraph.edges.itertuples()):
        np.testing.assert_allclose(edges[i], inclusive[supergraph.supernodes.index(row.target)])


def test_outliers_and_histograms_match_numpy(supergraph, raw_values):
    inclusive, _ = raw_values
    q1, q3 = np.percentile(inclusive, [25, 75], axis=1)
    low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    expected = {
        (supergraph.supernodes[i], supergraph.profiles[j])
        for i, j in zip(
            *np.nonzero((inclusive < low[:, None]) | (inclusive > high[:, None])), strict=True
        )
    }
    found = supergraph.outliers[supergraph.outliers["which"] == "inclusive"]
    assert set(zip(found["supernode"], found["profile"], strict=True)) == expected
    assert expected, "RAJAPerf's large problem sizes stand out"
    np.testing.assert_array_equal(
        supergraph.nodes["inclusive_outliers"],
        ((inclusive < low[:, None]) | (inclusive > high[:, None])).sum(axis=1),
    )
    counts, edges = supergraph.histograms()
    for i in range(len(supergraph)):
        numpy_counts, numpy_edges = np.histogram(inclusive[i], bins=20)
        np.testing.assert_array_equal(counts[i], numpy_counts)
        np.testing.assert_allclose(edges[i], numpy_edges, rtol=1e-12)


def test_diff_of_two_compilers_matches_scipy(supergraph, raw_values, rajaperf_ensemble):
    inclusive, _ = raw_values
    compiler = rajaperf_ensemble.metadata["compiler"].reindex(supergraph.profiles).to_numpy()
    clang, gcc = compiler == "clang++-10.0.1", compiler == "g++-10.3.1"
    diff = supergraph.diff({"compiler": "clang++-10.0.1"}, {"compiler": "g++-10.3.1"})
    np.testing.assert_allclose(diff["mean_a"], inclusive[:, clang].mean(axis=1))
    np.testing.assert_allclose(
        diff["difference"], inclusive[:, gcc].mean(axis=1) - inclusive[:, clang].mean(axis=1)
    )
    t, p = scipy_stats.ttest_ind(inclusive[:, clang], inclusive[:, gcc], axis=1, equal_var=False)
    np.testing.assert_allclose(diff["welch_t"], -t, rtol=1e-9)
    np.testing.assert_allclose(diff["welch_p"], p, rtol=1e-9)


def test_family_queries_select_the_families(supergraph, rajaperf_ensemble):
    for key in supergraph.supernodes:
        matched = sorted(n.nid for n in rajaperf_ensemble.match(supergraph.query_of(key)))
        assert matched == supergraph.members(key).tolist()
    assert str(supergraph.query_of("Stream")) == 'MATCH (".", n0) WHERE n0.name =~ "Stream.*"'
