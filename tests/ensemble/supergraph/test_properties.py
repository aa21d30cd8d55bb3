"""Property tests of supergraphs on random ensembles, against a brute-force oracle that
walks every node's ancestors in plain Python: exact values, flow conservation, totals
kept by threshold and split, queries that select exactly a supernode's nodes, rank
imbalance, and a layout that is the same byte for byte."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from glade.ensemble import Ensemble
from glade.profile import GraphFrame
from tests.hypothesis_budget import examples

MODULES = ["A", "B", "C"]
NAMES = ["f", "g", "h", "k"]
SETTINGS = settings(
    max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def random_ensemble(seed: int, n_nodes: int, n_profiles: int, ranks: int | None) -> Ensemble:
    """Profiles of one random tree (names from a small set, so that call paths repeat
    names and modules re-enter), each missing a few subtrees, with random times."""
    rng = np.random.default_rng(seed)
    parent = np.full(n_nodes, -1)
    parent[1:] = [rng.integers(0, i) for i in range(1, n_nodes)]
    names = [f"{NAMES[rng.integers(len(NAMES))]}{i}" for i in range(n_nodes)]
    modules = [MODULES[rng.integers(len(MODULES))] for _ in range(n_nodes)]
    frames = pd.DataFrame({"name": names, "module": modules})
    gfs = []
    for _ in range(n_profiles):
        keep = np.ones(n_nodes, dtype=bool)
        for node in range(1, n_nodes):
            keep[node] = keep[parent[node]] and rng.random() > 0.15
        nodes = np.flatnonzero(keep)
        local = np.full(n_nodes, -1)
        local[nodes] = np.arange(len(nodes))
        child = np.flatnonzero(parent[nodes] >= 0)
        if ranks:
            rows = pd.DataFrame(
                {
                    "node": np.repeat(np.arange(len(nodes)), ranks),
                    "rank": np.tile(np.arange(ranks), len(nodes)),
                    "time": rng.integers(0, 9, size=len(nodes) * ranks) * 1.0,
                }
            )
            index = ("node", "rank")
        else:
            rows = pd.DataFrame(
                {"node": np.arange(len(nodes)), "time": rng.integers(0, 9, size=len(nodes)) * 1.0}
            )
            index = ("node",)
        gfs.append(
            GraphFrame.from_tables(
                frames.iloc[nodes].reset_index(drop=True),
                local[parent[nodes[child]]],
                child,
                rows,
                exc_metrics=["time"],
                index=index,
                fill_inclusive=True,
            )
        )
    return Ensemble.from_graphframes(gfs, labels=[f"p{i}" for i in range(n_profiles)])


def node_values(ens: Ensemble, metric: str) -> dict[tuple[int, int], float]:
    """(node, profile position) -> the mean over the node's rows (0 without rows)."""
    sums: dict[tuple[int, int], list[float]] = defaultdict(list)
    position = {p: i for i, p in enumerate(ens.profiles)}
    for (node, profile, *_), value in ens.dataframe[metric].items():
        sums[(node, position[profile])].append(value)
    return defaultdict(float, {k: float(np.mean(v)) for k, v in sums.items()})


def oracle(ens: Ensemble, key_of: list[str]):
    """Supernode inclusive/exclusive values and edges by walking ancestors."""
    graph = ens.graph
    inc, exc = node_values(ens, "time (inc)"), node_values(ens, "time")
    inclusive = defaultdict(lambda: np.zeros(ens.num_profiles))
    exclusive = defaultdict(lambda: np.zeros(ens.num_profiles))
    edges = defaultdict(lambda: np.zeros(ens.num_profiles))
    for node in range(len(graph)):
        key = key_of[node]
        ancestors = graph.path_ids(node)[:-1]
        parent = ancestors[-1] if ancestors else -1
        top = all(key_of[a] != key for a in ancestors)
        entry = parent < 0 or key_of[parent] != key
        for p in range(ens.num_profiles):
            exclusive[key][p] += exc[(node, p)]
            if entry and top:
                inclusive[key][p] += inc[(node, p)]
            if entry and parent >= 0:
                edges[(key_of[parent], key, not top)][p] += inc[(node, p)]
    return inclusive, exclusive, edges


ensembles = hs.builds(
    random_ensemble,
    hs.integers(0, 2**32 - 1),
    hs.integers(1, 30),
    hs.integers(1, 4),
    hs.sampled_from([None, None, 2, 3]),
)


def check_flows(sg) -> None:
    """Incoming call edges plus root flow equal inclusive values; roots sum to the total."""
    values = sg.values()
    index = {key: i for i, key in enumerate(sg.supernodes)}
    incoming = np.zeros_like(values)
    root = np.zeros_like(values)
    edge_values = sg.edge_values()
    for i, row in enumerate(sg.edges.itertuples()):
        if not row.reentry:
            incoming[index[row.target]] += edge_values[i]
    root[:] = sg.nodes["root_mean"].to_numpy()[:, None]
    np.testing.assert_allclose(
        sg.nodes["root_mean"] + incoming.mean(axis=1), sg.nodes["inclusive_mean"], atol=1e-9
    )
    without_callers = incoming.sum(axis=1) == 0
    np.testing.assert_allclose(
        values[without_callers].sum(axis=0) if without_callers.any() else 0, sg.total, atol=1e-9
    )


@SETTINGS
@given(ensembles, hs.sampled_from(["module", "name"]))
def test_values_match_the_oracle(ens, by):
    sg = ens.supergraph(by=by)
    key_of = list(ens.graph.frames[by])
    inclusive, exclusive, edges = oracle(ens, key_of)
    assert set(sg.supernodes) == set(key_of)
    for i, key in enumerate(sg.supernodes):
        np.testing.assert_allclose(sg.values()[i], inclusive[key], atol=1e-9)
        np.testing.assert_allclose(sg.values("exclusive")[i], exclusive[key], atol=1e-9)
    found = {
        (r.source, r.target, r.reentry): sg.edge_values()[i]
        for i, r in enumerate(sg.edges.itertuples())
    }
    assert set(found) == set(edges)
    for key, value in edges.items():
        np.testing.assert_allclose(found[key], value, atol=1e-9)
    check_flows(sg)


@SETTINGS
@given(ensembles, hs.floats(0.0, 0.5))
def test_threshold_and_split_conserve_totals(ens, fraction):
    sg = ens.supergraph()
    total = sg.total
    small = sg.threshold(fraction)
    np.testing.assert_allclose(small.total, total)
    np.testing.assert_allclose(
        small.values("exclusive").sum(axis=0), sg.values("exclusive").sum(axis=0), atol=1e-9
    )
    check_flows(small)
    for supernode in sg.supernodes:
        for how in ("entry", "callee"):
            if how == "callee" and not (sg.edges["source"] == supernode).any():
                continue
            split = sg.split(supernode, by=how)
            np.testing.assert_allclose(
                split.values("exclusive").sum(axis=0), sg.values("exclusive").sum(axis=0), atol=1e-9
            )
            check_flows(split)


@SETTINGS
@given(ensembles)
def test_queries_select_exactly_the_members(ens):
    sg = ens.supergraph()
    first = sg.supernodes[0]
    for derived in (sg, sg.split(first, by="entry"), sg.threshold(0.2)):
        for supernode in derived.supernodes:
            matched = sorted(n.nid for n in ens.match(derived.query_of(supernode)))
            assert matched == derived.members(supernode).tolist(), supernode
    if (sg.edges["source"] == first).any():
        callee = sg.split(first, by="callee")
        for supernode in callee.supernodes:
            matched = sorted(n.nid for n in ens.match(callee.query_of(supernode)))
            assert matched == callee.members(supernode).tolist(), supernode


@SETTINGS
@given(ensembles)
def test_rank_imbalance_matches_the_oracle(ens):
    if ens.dataframe.index.nlevels < 3:
        return
    sg = ens.supergraph()
    graph = ens.graph
    key_of = list(graph.frames["module"])
    position = {p: i for i, p in enumerate(ens.profiles)}
    per_rank: dict[tuple[str, int, int], float] = defaultdict(float)
    ranks: dict[int, set] = defaultdict(set)
    for (node, profile, rank), value in ens.dataframe["time (inc)"].items():
        p = position[profile]
        ranks[p].add(rank)
        key = key_of[node]
        if all(key_of[a] != key for a in graph.path_ids(node)[:-1]):
            per_rank[(key, p, rank)] += value
    for key in sg.supernodes:
        imbalances = []
        for p in range(ens.num_profiles):
            values = [per_rank[(key, p, r)] for r in ranks[p]]
            mean = np.mean(values)
            if mean:
                imbalances.append((max(values) - mean) / mean)
        expected = np.mean(imbalances) if imbalances else np.nan
        assert sg.nodes.loc[key, "inclusive_imbalance"] == pytest.approx(expected, nan_ok=True)


@SETTINGS
@given(ensembles)
def test_layout_is_the_same_byte_for_byte(ens):
    first = ens.supergraph(by="name").threshold(0.05)
    again = ens.copy().supergraph(by="name").threshold(0.05)
    assert first.layout.digest() == again.layout.digest()
    lay = first.layout
    assert (lay.y0 <= lay.y1).all() and lay.y1.max(initial=0) <= 1 + 1e-12
    # call edges that are not loops go from a lower level to a higher one
    level = dict(zip(first.supernodes, lay.level, strict=True))
    forward = ~lay.loop & ~first.edges["reentry"].to_numpy()
    for row in first.edges[forward].itertuples():
        assert level[row.source] < level[row.target]
    # no loop is dropped: every back edge of the graph is drawn as a loop
    assert np.isfinite(lay.loop_y[lay.loop]).all()


def test_histograms_match_numpy():
    rng = np.random.default_rng(3)
    values = rng.lognormal(size=(40, 17))
    values[3] = 2.5
    values[7, :5] = values[7, 5]
    from glade.ensemble.supergraph.summary import histograms

    counts, edges = histograms(values, 20)
    for row in range(len(values)):
        expected, expected_edges = np.histogram(values[row], bins=20)
        np.testing.assert_array_equal(counts[row], expected)
        np.testing.assert_allclose(edges[row], expected_edges, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_sparse_values_give_the_same_supergraph(seed, monkeypatch):
    from glade.ensemble.supergraph import values

    ens = random_ensemble(seed, 40, 5, 2 if seed % 2 else None)
    dense = ens.supergraph(by="name").split(ens.graph.frames["name"].iloc[0])
    monkeypatch.setattr(values, "DENSE_LIMIT", 0)
    sparse = ens.supergraph(by="name").split(ens.graph.frames["name"].iloc[0])
    pd.testing.assert_frame_equal(dense.nodes, sparse.nodes)
    pd.testing.assert_frame_equal(dense.edges, sparse.edges)
    pd.testing.assert_frame_equal(dense.entries, sparse.entries)
    assert dense.layout.digest() == sparse.layout.digest()
    np.testing.assert_array_equal(dense.total, sparse.total)


def test_layout_does_not_depend_on_the_process():
    """Two interpreters with different hash seeds lay the same supergraph out byte for
    byte (nothing depends on set or dict order of strings)."""
    import os
    import subprocess
    import sys

    code = (
        "from glade.datasets import synthetic_ensemble\n"
        "from glade.ensemble import Ensemble\n"
        "ens = Ensemble.from_graphframes(synthetic_ensemble(8, 300))\n"
        "sg = ens.supergraph(by='name').threshold(0.01)\n"
        "print(sg.split(sg.supernodes[1]).layout.digest())"
    )
    digests = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1 and len(digests.pop()) == 64


@SETTINGS
@given(hs.lists(hs.tuples(hs.integers(0, 12), hs.integers(0, 12)), max_size=60))
def test_loop_bands_are_the_lowest_free_band(spans):
    """The compiled pass gives every loop the band a plain scan over the bands would: the
    lowest one whose loops all end before the loop starts; no two loops of a band overlap,
    and there are as many bands as loops over the most crowded column."""
    from glade.ensemble.supergraph.layout import loop_bands

    first = np.asarray([min(a, b) for a, b in spans], dtype=np.int64)
    last = np.asarray([max(a, b) for a, b in spans], dtype=np.int64)
    ends: list[int] = []
    expected = np.zeros(len(spans), dtype=np.int64)
    for k in sorted(range(len(spans)), key=lambda k: (first[k], last[k], k)):
        free = next((b for b, end in enumerate(ends) if end < first[k]), len(ends))
        if free == len(ends):
            ends.append(int(last[k]))
        else:
            ends[free] = int(last[k])
        expected[k] = free
    band = loop_bands(first, last)
    np.testing.assert_array_equal(band, expected)
    for a in range(len(spans)):
        for b in range(a):
            if band[a] == band[b]:
                assert last[a] < first[b] or last[b] < first[a]
    crowded = max((int(((first <= c) & (last >= c)).sum()) for c in range(13)), default=0)
    assert (int(band.max()) + 1 if len(band) else 0) == crowded


@SETTINGS
@given(
    hs.integers(1, 12).flatmap(
        lambda n: hs.tuples(
            hs.just(n),
            hs.lists(hs.tuples(hs.integers(0, n - 1), hs.integers(0, n - 1)), max_size=40),
            hs.sets(hs.integers(0, n - 1), max_size=3),
        )
    )
)
def test_back_edges_and_levels_are_those_of_a_recursive_search(case):
    """The compiled search finds the back edges a recursive depth-first search does (from
    the roots in id order, then from every node not reached, children in id order: an
    edge into a node on the current path is a back edge), and the levels are the longest
    paths over the other edges (relaxed until nothing changes)."""
    from glade.ensemble.supergraph.layout import back_edges, longest_path_levels

    count, edges, roots = case
    source = np.asarray([a for a, _ in edges], dtype=np.int64)
    target = np.asarray([b for _, b in edges], dtype=np.int64)
    children = defaultdict(list)
    for k in sorted(range(len(edges)), key=lambda k: (edges[k], k)):
        children[edges[k][0]].append(k)
    on_path, seen = set(), set()
    expected = np.zeros(len(edges), dtype=bool)

    def visit(u):
        seen.add(u)
        on_path.add(u)
        for k in children[u]:
            v = edges[k][1]
            if v in on_path:
                expected[k] = True
            elif v not in seen:
                visit(v)
        on_path.discard(u)

    for u in [*sorted(roots), *range(count)]:
        if u not in seen:
            visit(u)
    back = back_edges(count, source, target, np.asarray(sorted(roots), dtype=np.int64))
    np.testing.assert_array_equal(back, expected)
    level = np.zeros(count, dtype=np.int64)
    for _ in range(count):
        for a, b in zip(source[~back], target[~back], strict=True):
            level[b] = max(level[b], level[a] + 1)
    np.testing.assert_array_equal(longest_path_levels(count, source[~back], target[~back]), level)
