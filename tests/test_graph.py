"""Graph structure: pre-order ids, sibling order, DAGs, cycles, deep chains, Node handles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade import Graph, Node
from glade.errors import GraphError
from tests.hypothesis_budget import examples


def frames(names):
    return pd.DataFrame({"name": list(names)})


def test_preorder_keeps_sibling_order_as_given():
    # root r with children given in the order c, a, b (not sorted by id or name)
    g, new_id = Graph.from_edges(frames("rabc"), [0, 0, 0], [3, 1, 2])
    assert list(g.names) == ["r", "c", "a", "b"]
    assert list(g.children_of(0)) == [1, 2, 3]
    assert list(new_id) == [0, 2, 3, 1]


def test_dag_shared_node_and_tree_parent():
    # r -> a -> s, r -> b -> s: s is shared and first reached through a
    g, _ = Graph.from_edges(frames("rabs"), [0, 0, 1, 2], [1, 2, 3, 3])
    assert not g.is_tree()
    assert list(g.names) == ["r", "a", "s", "b"]
    s = g.node(2)
    assert sorted(p.name for p in s.parents) == ["a", "b"]
    assert s.path() == ("r", "a", "s")
    assert s.depth == 2


def test_cycle_without_entry_gets_a_root():
    # x <-> y is a cycle that nothing calls; r -> z is a normal tree
    g, _ = Graph.from_edges(frames("rzxy"), [0, 2, 3], [1, 3, 2])
    assert len(g) == 4
    assert sorted(n.name for n in g.roots) == ["r", "x"]
    x = next(n for n in g.nodes() if n.name == "x")
    assert [p.name for p in x.parents] == ["y"]


def test_recursion_self_loop():
    g, _ = Graph.from_edges(frames("rf"), [0, 1], [1, 1])
    f = g.node(1)
    assert {p.name for p in f.parents} == {"r", "f"}
    assert f.path() == ("r", "f")


def test_deep_chain_without_recursion_limits():
    n = 200_000
    g, _ = Graph.from_parents(frames(["f"] * n), np.arange(-1, n - 1))
    assert g.depth[-1] == n - 1
    assert g.subtree_end[0] == n
    assert len(g.node(n - 1).path()) == n


def test_node_equality_is_by_graph_and_id():
    g1, _ = Graph.from_parents(frames("ab"), [-1, 0])
    g2, _ = Graph.from_parents(frames("ab"), [-1, 0])
    assert g1.node(1) == g1.node(1)
    assert g1.node(1) != g2.node(1)
    assert len({g1.node(1), g1.node(1), g2.node(1)}) == 2
    assert sorted([g1.node(1), g1.node(0)]) == [g1.node(0), g1.node(1)]
    assert isinstance(g1.roots[0], Node)


def test_bad_input():
    with pytest.raises(GraphError, match="name"):
        Graph.from_edges(pd.DataFrame({"x": [1]}), [], [])
    with pytest.raises(GraphError, match="outside"):
        Graph.from_edges(frames("ab"), [0], [5])
    with pytest.raises(GraphError, match="3 parent ids for 2 frame rows"):
        Graph.from_parents(frames("ab"), [-1, 0, 1])
    with pytest.raises(GraphError, match="no node"):
        Graph.from_parents(frames("ab"), [-1, 0])[0].node(7)


@st.composite
def random_trees(draw):
    n = draw(st.integers(1, 40))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    order = draw(st.permutations(range(1, n)))
    return n, parent, order


@settings(max_examples=examples(100), deadline=None)
@given(random_trees())
def test_preorder_matches_a_plain_dfs(case):
    n, parent, order = case
    src = [parent[c] for c in order]
    g, new_id = Graph.from_edges(frames([str(i) for i in range(n)]), src, list(order))
    # brute force: DFS with an explicit stack, children in the order their edges came
    children = {i: [] for i in range(n)}
    for c in order:
        children[parent[c]].append(c)
    expected, stack = [], [0]
    while stack:
        v = stack.pop()
        expected.append(v)
        stack.extend(reversed(children[v]))
    assert [int(s) for s in g.names] == expected
    assert list(new_id[expected]) == list(range(n))
    for v in range(n):
        assert g.subtree_end[v] - v == _subtree_size(children, expected[v])
        assert [int(g.names[c]) for c in g.children_of(v)] == children[expected[v]]


@settings(max_examples=examples(100), deadline=None)
@given(random_trees())
def test_a_tree_numbered_in_preorder_builds_as_in_any_other_numbering(case):
    # the same tree given in its own pre-order (which from_edges takes as it is, with
    # no search) and in a random numbering (searched): the same graph
    n, parent, order = case
    src = [parent[c] for c in order]
    searched, _ = Graph.from_edges(frames([str(i) for i in range(n)]), src, list(order))
    child = np.arange(1, n)
    taken, ids = Graph.from_edges(searched.frames, searched.tree_parent[child], child)
    assert ids.tolist() == list(range(n))
    pd.testing.assert_frame_equal(taken.frames, searched.frames)
    for attribute in ("tree_parent", "depth", "root_ids", "subtree_end"):
        assert getattr(taken, attribute).tolist() == getattr(searched, attribute).tolist()
    for a, b in zip(
        (*taken.children_csr(), *taken.parents_csr(), *taken.edges()),
        (*searched.children_csr(), *searched.parents_csr(), *searched.edges()),
        strict=True,
    ):
        assert a.tolist() == b.tolist() and a.dtype == b.dtype


def test_edges_out_of_preorder_are_searched():
    # 0 -> 2 before 0 -> 1, and a node whose parent is not on the path: pre-order
    # renumbers them
    graph, ids = Graph.from_edges(frames("abc"), [0, 0], [2, 1])
    assert graph.names.tolist() == ["a", "c", "b"] and ids.tolist() == [0, 2, 1]
    graph, ids = Graph.from_edges(frames("abcd"), [0, 1, 0], [1, 2, 3])
    assert graph.names.tolist() == ["a", "b", "c", "d"] and ids.tolist() == [0, 1, 2, 3]
    graph, ids = Graph.from_edges(frames("abcd"), [0, 0, 1], [1, 2, 3])
    assert graph.names.tolist() == ["a", "b", "d", "c"] and ids.tolist() == [0, 1, 3, 2]


def _subtree_size(children, v):
    size, stack = 0, [v]
    while stack:
        size += 1
        stack.extend(children[stack.pop()])
    return size


@settings(max_examples=examples(50), deadline=None)
@given(st.integers(2, 30), st.data())
def test_union_holds_every_call_path_once(n, data):
    def tree(k):
        parent = [-1] + [data.draw(st.integers(0, i - 1)) for i in range(1, k)]
        names = data.draw(st.lists(st.sampled_from("abc"), min_size=k, max_size=k))
        names[0] = "root"
        g, _ = Graph.from_parents(frames(names), parent)
        return g

    g1, g2 = tree(n), tree(data.draw(st.integers(1, 30)))
    union, (m1, m2) = Graph.union([g1, g2])

    def paths(g):
        return {g.node(i).path() for i in range(len(g))}

    assert paths(union) == paths(g1) | paths(g2)
    assert len(union) == len(paths(union))
    for g, m in ((g1, m1), (g2, m2)):
        for i in range(len(g)):
            assert union.node(int(m[i])).path() == g.node(i).path()


def test_reachability_counts_shared_nodes_once():
    g, _ = Graph.from_edges(frames("rabs"), [0, 0, 1, 2], [1, 2, 3, 3])
    reach = g.reachability().toarray()
    assert reach[0].sum() == 4
    assert reach[g.node(1).nid].sum() == 2


def _reference_order(n, src, dst, roots):
    """First-visit depth-first order and parents, the plain way: a DFS that keeps, per
    open node, the position of the next edge to try; extra roots for the strongly
    connected components no root reaches and no other component enters (their smallest
    node, in id order)."""
    out = {v: [] for v in range(n)}
    for s, d in zip(src, dst, strict=True):
        out[s].append(d)

    def dfs(starts):
        order, parent, seen = [], [-1] * n, [False] * n
        for r in starts:
            if seen[r]:
                continue
            seen[r] = True
            order.append(r)
            stack = [(r, 0)]
            while stack:
                v, i = stack.pop()
                if i < len(out[v]):
                    stack.append((v, i + 1))
                    w = out[v][i]
                    if not seen[w]:
                        seen[w] = True
                        parent[w] = v
                        order.append(w)
                        stack.append((w, 0))
        return order, parent

    order, parent = dfs(roots)
    unreached = sorted(set(range(n)) - set(order))
    if unreached:
        reach = {v: set(dfs([v])[0]) for v in unreached}
        component = {
            v: frozenset(w for w in reach[v] if w in reach and v in reach[w]) for v in unreached
        }
        entered = {
            component[d]
            for s, d in zip(src, dst, strict=True)
            if s in component and d in component and component[s] != component[d]
        }
        extra = sorted({min(c) for c in component.values() if c not in entered})
        roots = [*roots, *extra]
        order, parent = dfs(roots)
    return order, parent, roots


@st.composite
def random_graphs(draw):
    """Trees, DAGs and graphs with cycles, self loops and repeated edges; roots given
    (possibly with parents, repeated or reached from others) or left to the graph."""
    n = draw(st.integers(1, 25))
    kind = draw(st.sampled_from(["tree", "dag", "any"]))
    if kind == "tree":
        pairs = [(draw(st.integers(0, c - 1)), c) for c in range(1, n)]
        pairs = draw(st.permutations(pairs))
    else:
        node = st.integers(0, n - 1)
        pairs = draw(st.lists(st.tuples(node, node), max_size=3 * n))
        if kind == "dag":
            pairs = [(min(a, b), max(a, b)) for a, b in pairs if a != b]
    src = [a for a, _ in pairs]
    dst = [b for _, b in pairs]
    roots = None
    if draw(st.booleans()):
        roots = draw(st.lists(st.integers(0, n - 1), max_size=4))
    return n, src, dst, roots


@settings(max_examples=examples(150), deadline=None)
@given(random_graphs())
def test_ordering_matches_a_reference_dfs_on_trees_dags_and_cycles(case):
    n, src, dst, roots = case
    g, new_id = Graph.from_edges(frames([str(i) for i in range(n)]), src, dst, roots=roots)
    if roots is None:
        roots = sorted(set(range(n)) - set(dst))
    order, parent, all_roots = _reference_order(n, src, dst, roots)
    assert [int(s) for s in g.names] == order
    assert list(new_id[order]) == list(range(n))
    assert [int(g.names[r]) for r in g.root_ids] == all_roots
    expected_parent = [-1 if parent[v] < 0 else int(new_id[parent[v]]) for v in order]
    assert list(g.tree_parent) == expected_parent
    for v in range(n):
        kids = [int(g.names[c]) for c in g.children_of(int(new_id[v]))]
        assert kids == list(dict.fromkeys(d for s, d in zip(src, dst, strict=True) if s == v))


@pytest.mark.parametrize("shape", ["star", "roots", "broom"])
def test_wide_graphs_are_ordered(shape):
    # a fan-out or a number of roots of 300,000 took minutes with scipy's search alone
    n = 300_000
    ids = np.arange(n, dtype=np.int64)
    if shape == "star":
        parent = np.where(ids > 0, 0, -1)
    elif shape == "roots":
        parent = np.full(n, -1, dtype=np.int64)
    else:  # a chain whose every node also has a leaf child: 0 -> 1, 0 -> 2 -> 3, 2 -> 4 ...
        parent = np.where(ids % 2 == 1, ids - 1, ids - 2)
        parent[0] = -1
    g, new_id = Graph.from_parents(frames(ids.astype(str)), parent)
    assert np.array_equal(new_id, ids)
    assert np.array_equal(g.tree_parent, parent)
    assert g.num_children.sum() == (parent >= 0).sum()
    assert len(g.root_ids) == (parent < 0).sum()


@given(st.integers(1, 30), st.integers(1, 6), st.data())
def test_children_sums_of_a_matrix_add_children_in_id_order(n, columns, data):
    # the sparse product for nodes x profiles matrices against np.add.at, which adds each
    # child into its parent in id order: the same sums bit for bit (-0.0 and inf too, and
    # NaN where there is one)
    from glade.graph import children_sums

    parent = np.array([-1] + [data.draw(st.integers(-1, i - 1)) for i in range(1, n)])
    cell = st.one_of(
        st.floats(allow_nan=True, allow_infinity=True, width=64),
        st.sampled_from([0.0, -0.0, 1e300, -1e-300]),
    )
    values = np.array(
        data.draw(st.lists(cell, min_size=n * columns, max_size=n * columns)), dtype=np.float64
    ).reshape(n, columns)
    expected = np.zeros_like(values)
    child = np.flatnonzero(parent >= 0)
    np.add.at(expected, parent[child], values[child])
    got = children_sums(parent, values)
    assert got.shape == expected.shape
    assert np.array_equal(got, expected, equal_nan=True)
    # the sign of a NaN made by arithmetic is not specified (IEEE 754): only numbers' signs
    numbers = ~np.isnan(expected)
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))
    assert np.array_equal(children_sums(parent, values[:, 0]), expected[:, 0], equal_nan=True)
