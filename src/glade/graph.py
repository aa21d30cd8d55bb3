"""Call graph structure: Graph (arrays) and Node (a light handle).

A Graph holds n nodes numbered ``0..n-1`` in depth-first pre-order, with
children and parents as CSR arrays, so a call tree, a DAG (gprof) or a graph
with cycles (cProfile recursion) all fit. Every traversal is a numpy or scipy
operation, never Python recursion.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numba import types
from numba.typed import Dict
from scipy.sparse.csgraph import connected_components, depth_first_order

from glade.compiled import kernel
from glade.errors import GraphError, other_spelling
from glade.nodes import Node, NodeSet
from glade.pandas_compat import copy_on_write

__all__ = [
    "Graph",
    "Node",
    "NodeSet",
    "children_sums",
    "depth_from_parent",
    "frame_codes",
    "group_by_depth",
    "subtree_sums",
]

_INDEX = np.int64


def _read_only(array: np.ndarray) -> np.ndarray:
    """``array``, marked read-only (a graph never changes, so it is shared freely)."""
    array.flags.writeable = False
    return array


def _csr(n: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group ``dst`` by ``src`` keeping the given order within each group."""
    order = np.argsort(src, kind="stable")
    ptr = np.zeros(n + 1, dtype=_INDEX)
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    return ptr, dst[order].astype(_INDEX, copy=False)


def children_sums(parent: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per node (axis 0 of ``values``), the sum of its children's values, the children
    given by ``parent`` (-1 marks roots)."""
    child = np.flatnonzero(parent >= 0)
    if values.ndim == 2 and values.dtype == np.float64:
        # one sparse product: each row adds its children in id order, as np.add.at would
        # (so the sums are the same bit for bit), without add.at's cost per element
        n = len(parent)
        pointer, index = _csr(n, parent[child], child)
        return np.asarray(
            sp.csr_matrix((np.ones(child.size), index, pointer), shape=(n, n)) @ values
        )
    below = np.zeros_like(values)
    np.add.at(below, parent[child], values[child])
    return below


def depth_from_parent(parent: np.ndarray) -> np.ndarray:
    """Distance of every node to its root along ``parent`` (-1 marks roots), by pointer jumping."""
    n = len(parent)
    dist = (parent >= 0).astype(_INDEX)
    jump = parent.astype(_INDEX, copy=True)
    active = np.flatnonzero(jump >= 0)
    while active.size:
        target = jump[active]
        dist[active] += dist[target]
        jump[active] = jump[target]
        active = active[jump[active] >= 0]
    assert dist.shape == (n,)
    return dist


def group_by_depth(depth: np.ndarray) -> list[np.ndarray]:
    """Ids grouped by ``depth`` value, shallowest first, ascending ids within a group."""
    if depth.size == 0:
        return []
    by_depth = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[by_depth], np.arange(depth.max() + 2))
    return [by_depth[bounds[d] : bounds[d + 1]] for d in range(len(bounds) - 1)]


def _parents_first(parent: np.ndarray) -> bool:
    """True when every node's parent has a smaller id (a pre-order), so one pass in id
    order meets every parent before its children."""
    return bool(np.all(parent < np.arange(parent.size)))


@kernel
def _call_path_pass(parent: np.ndarray, codes: np.ndarray, nframes: int) -> np.ndarray:
    """Per node, the smallest id with the same chain of frame codes from its root; parents
    come before their children (``_parents_first``)."""
    n = parent.size
    keys = np.empty(n, dtype=np.int64)
    first = Dict.empty(key_type=types.int64, value_type=types.int64)
    for i in range(n):
        p = parent[i]
        above = keys[p] + 1 if p >= 0 else 0
        combined = above * nframes + codes[i]
        key = first.get(combined, -1)
        if key < 0:
            first[combined] = i
            key = i
        keys[i] = key
    return keys


@kernel
def _in_preorder(n: int, src: np.ndarray, dst: np.ndarray) -> bool:
    """Whether the edges make one tree rooted at 0 whose ids are its depth-first
    pre-order, children in edge order: edge ``k`` enters node ``k + 1`` from a node on
    the path from the root to node ``k``."""
    if n == 0 or dst.size != n - 1:
        return False
    path = np.empty(n, dtype=np.int64)
    path[0] = 0
    top = 1
    for k in range(n - 1):
        if dst[k] != k + 1:
            return False
        while top > 0 and path[top - 1] != src[k]:
            top -= 1
        if top == 0:
            return False
        path[top] = k + 1
        top += 1
    return True


@kernel
def siblings_repeat(parent: np.ndarray, codes: np.ndarray) -> bool:
    """Whether two nodes with one parent (or two roots) share a code: when no siblings
    share even a name, no call paths are equal and merging them changes nothing.

    One pass with a hash table of (parent, code) pairs, no sort.

    Parameters
    ----------
    parent : numpy.ndarray
        Each node's parent (int64, -1 for a root).
    codes : numpy.ndarray
        A code per node (int64, at least 0), e.g. of its name.

    Returns
    -------
    bool
        True when some siblings share a code.

    Examples
    --------
    >>> import numpy as np
    >>> bool(siblings_repeat(np.array([-1, 0, 1, 0]), np.array([0, 1, 2, 2])))
    False
    >>> bool(siblings_repeat(np.array([-1, 0, 1, 0]), np.array([0, 1, 2, 1])))
    True
    """
    n = parent.size
    size = 16
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int64)
    for i in range(n):
        h = (np.uint64(parent[i] + 1) * np.uint64(0x9E3779B97F4A7C15)) ^ (
            np.uint64(codes[i]) * np.uint64(0xC2B2AE3D27D4EB4F)
        )
        slot = (h >> np.uint64(17)) & mask
        while True:
            other = table[slot]
            if other < 0:
                table[slot] = i
                break
            if parent[other] == parent[i] and codes[other] == codes[i]:
                return True
            slot = (slot + np.uint64(1)) & mask
    return False


@kernel
def _add_children_up(child_ptr: np.ndarray, child_idx: np.ndarray, out: np.ndarray) -> None:
    """Each node's row of ``out`` plus its children's totals, bottom up in one pass over
    ids in reverse (children have larger ids), children added in ascending id order as
    level-by-level ``np.add.at`` adds them (so float sums are the same bit for bit)."""
    for p in range(out.shape[0] - 1, -1, -1):
        for e in range(child_ptr[p], child_ptr[p + 1]):
            c = child_idx[e]
            for k in range(out.shape[1]):
                out[p, k] += out[c, k]


def _tree_children(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR of every node's children along ``parent``, in ascending id order."""
    child = np.flatnonzero(parent >= 0)
    return _csr(len(parent), parent[child], child)


def _frame_table(frames: pd.DataFrame | Sequence[dict] | None, n: int) -> pd.DataFrame:
    if frames is None:
        raise GraphError("a graph needs a frame table with a 'name' column")
    table = frames if isinstance(frames, pd.DataFrame) else pd.DataFrame(list(frames))
    if "name" not in table.columns:
        raise GraphError("the frame table has no 'name' column")
    if len(table) != n:
        raise GraphError(f"the frame table has {len(table)} rows for {n} nodes")
    return table.reset_index(drop=True)


def frame_codes(frames: pd.DataFrame) -> np.ndarray:
    """One integer per row: rows with equal frames (all columns, NaN equal to NaN) share it."""
    if len(frames) == 0:
        return np.zeros(0, dtype=_INDEX)
    codes = np.zeros(len(frames), dtype=_INDEX)
    distinct = 1
    for col in frames.columns:
        col_codes, uniques = pd.factorize(frames[col], use_na_sentinel=False)
        width = max(len(uniques), 1)
        if distinct * width > 2**62:
            codes, seen = pd.factorize(codes)
            distinct = len(seen)
        codes = codes * width + col_codes
        distinct *= width
    return codes.astype(_INDEX)


class Graph:
    """Structure of a call graph, stored as arrays in depth-first pre-order.

    ``frames`` is a table indexed by node id with a ``name`` column and any
    other frame attributes (``type``, ``file``, ``line``, ``module``...).
    Build one with :meth:`from_edges` or :meth:`from_parents`; the constructor takes the
    arrays as they are stored.

    A graph never changes: its arrays are read-only and :attr:`frames` gives a copy
    of the frame table, so models share one graph without copying it.

    Parameters
    ----------
    frames : pandas.DataFrame
        One row per node (pre-order ids), taken over: no one else may keep it.
    child_ptr, child_idx : numpy.ndarray
        The child lists as compressed sparse rows (children in profile order).
    parent_ptr, parent_idx : numpy.ndarray
        The parent lists, likewise.
    roots : numpy.ndarray
        The root ids, in order.
    tree_parent : numpy.ndarray
        Each node's parent along its first call path (-1 for a root).
    depth : numpy.ndarray, optional
        Each node's depth along ``tree_parent`` (computed when not given).

    Examples
    --------
    >>> from glade import Graph
    >>> graph, ids = Graph.from_parents([{"name": "main"}, {"name": "solve"}], [-1, 0])
    >>> [node.name for node in graph.nodes()]
    ['main', 'solve']
    """

    __slots__ = (
        "_child_idx",
        "_child_ptr",
        "_depth",
        "_frames",
        "_parent_idx",
        "_parent_ptr",
        "_roots",
        "_subtree_end",
        "_tree_parent",
    )

    def __init__(
        self,
        frames: pd.DataFrame,
        child_ptr: np.ndarray,
        child_idx: np.ndarray,
        parent_ptr: np.ndarray,
        parent_idx: np.ndarray,
        roots: np.ndarray,
        tree_parent: np.ndarray,
        depth: np.ndarray | None = None,
    ):
        """A graph of these arrays, made read-only (see the class docstring)."""
        self._frames = frames
        self._child_ptr = _read_only(child_ptr)
        self._child_idx = _read_only(child_idx)
        self._parent_ptr = _read_only(parent_ptr)
        self._parent_idx = _read_only(parent_idx)
        self._roots = _read_only(roots)
        self._tree_parent = _read_only(tree_parent)
        self._depth = _read_only(depth_from_parent(tree_parent) if depth is None else depth)
        self._subtree_end: np.ndarray | None = None

    # ------------------------------------------------------------------ build
    @classmethod
    def from_edges(
        cls,
        frames: pd.DataFrame | Sequence[dict],
        src: Sequence[int] | np.ndarray,
        dst: Sequence[int] | np.ndarray,
        roots: Sequence[int] | np.ndarray | None = None,
    ) -> tuple[Graph, np.ndarray]:
        """Build a graph from edges over local ids ``0..n-1`` (n = rows of ``frames``).

        Children keep the order in which their edges are given. Nodes reachable from no root
        (a cycle nobody calls) become extra roots.

        Parameters
        ----------
        frames : pandas.DataFrame or sequence of dict
            One row (or dict) of frame attributes per local id, with a ``name``.
        src, dst : sequence of int or numpy.ndarray
            The edges: parent ``src[i]`` -> child ``dst[i]``.
        roots : sequence of int or numpy.ndarray, optional
            The roots, in order (default: the nodes without parents, in id order).

        Returns
        -------
        tuple of (Graph, numpy.ndarray)
            The graph and the array mapping each local id to its pre-order id.

        Raises
        ------
        GraphError
            When the edge arrays differ in length, an edge or root names a node outside
            ``0..n-1``, or ``frames`` has no ``name``.
        """
        n = len(frames)
        table = _frame_table(frames, n)
        src = np.asarray(src, dtype=_INDEX).reshape(-1)
        dst = np.asarray(dst, dtype=_INDEX).reshape(-1)
        if src.shape != dst.shape:
            raise GraphError("edge arrays differ in length")
        if src.size and (src.min() < 0 or dst.min() < 0 or src.max() >= n or dst.max() >= n):
            raise GraphError(f"an edge names a node outside 0..{n - 1}")
        if roots is None:
            has_parent = np.zeros(n, dtype=bool)
            has_parent[dst] = True
            root_ids = np.flatnonzero(~has_parent)
        else:
            root_ids = np.asarray(roots, dtype=_INDEX).reshape(-1)
            if root_ids.size and (root_ids.min() < 0 or root_ids.max() >= n):
                raise GraphError(f"a root names a node outside 0..{n - 1}")
        if root_ids.tolist() == [0] and _in_preorder(n, src, dst):
            # a tree already numbered in pre-order (as a reader walking a file makes
            # it): no search, no duplicate edges, every node's one parent in id order
            tree_parent = np.full(n, -1, dtype=_INDEX)
            tree_parent[dst] = src
            child_ptr, child_idx = _csr(n, src, dst)
            parent_ptr, parent_idx = _csr(n, dst, src)
            graph = cls(table, child_ptr, child_idx, parent_ptr, parent_idx, root_ids, tree_parent)
            return graph, np.arange(n, dtype=_INDEX)
        order, pred, root_ids = cls._preorder(n, src, dst, root_ids)
        new_id = np.empty(n, dtype=_INDEX)
        new_id[order] = np.arange(n, dtype=_INDEX)
        tree_parent = np.where(pred[order] >= 0, new_id[np.maximum(pred[order], 0)], -1)
        nsrc, ndst = new_id[src], new_id[dst]
        if nsrc.size:
            _, first = np.unique(nsrc * n + ndst, return_index=True)
            keep = np.sort(first)
            nsrc, ndst = nsrc[keep], ndst[keep]
        child_ptr, child_idx = _csr(n, nsrc, ndst)
        by_dst = np.lexsort((nsrc, ndst))
        parent_ptr, parent_idx = _csr(n, ndst[by_dst], nsrc[by_dst])
        new_frames = table.iloc[order].reset_index(drop=True)
        graph = cls(
            new_frames,
            child_ptr,
            child_idx,
            parent_ptr,
            parent_idx,
            new_id[root_ids],
            tree_parent.astype(_INDEX),
        )
        return graph, new_id

    @classmethod
    def from_parents(
        cls, frames: pd.DataFrame | Sequence[dict], parent: Sequence[int] | np.ndarray
    ) -> tuple[Graph, np.ndarray]:
        """Build a tree from one parent id per node; siblings keep id order.

        Parameters
        ----------
        frames : pandas.DataFrame or sequence of dict
            One row (or dict) of frame attributes per node, with a ``name``.
        parent : sequence of int or numpy.ndarray
            Each node's parent id (-1 for a root).

        Returns
        -------
        tuple of (Graph, numpy.ndarray)
            The tree and the array mapping each given id to its pre-order id.

        Raises
        ------
        GraphError
            When there is not one parent per frame row, or a parent is out of range.
        """
        parent = np.asarray(parent, dtype=_INDEX).reshape(-1)
        if parent.size != len(frames):
            raise GraphError(f"{parent.size} parent ids for {len(frames)} frame rows")
        child = np.flatnonzero(parent >= 0)
        return cls.from_edges(frames, parent[child], child, roots=np.flatnonzero(parent < 0))

    @staticmethod
    def _preorder(
        n: int, src: np.ndarray, dst: np.ndarray, roots: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Depth-first pre-order from the roots in order, children in edge order, and the
        first-visit parent of every node (-1 for roots); nodes no root reaches (a cycle
        nothing calls) are reached from extra roots, also returned. Linear in nodes and
        edges (see :meth:`_dfs`)."""
        roots = np.asarray(roots, dtype=_INDEX)
        order, pred = Graph._dfs(n, src, dst, roots)
        if order.size < n:
            roots = np.concatenate([roots, Graph._unreached_sources(n, src, dst, order)])
            order, pred = Graph._dfs(n, src, dst, roots)
        return order, pred, roots

    @staticmethod
    def _dfs(
        n: int, src: np.ndarray, dst: np.ndarray, roots: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Pre-order of the nodes reached from ``roots`` and each node's first-visit
        parent (-1 for roots and unreached nodes).

        scipy's depth-first search rescans a node's children from the first one each time
        it comes back to it, which is quadratic in the fan-out. So every node's out-edges
        become a chain of helper nodes, one per edge: the node points to the helper of its
        first edge, and each helper to the edge's target, then to the next helper. Every
        node then has at most two children, the search is linear, and it visits targets
        in edge order exactly as before. A virtual node ``n`` points to the roots the same
        way. scipy keeps children in CSR order as long as it need not convert the matrix
        (float64 data, int32 indices), which would sort the indices.
        """
        ptr, idx = _csr(
            n + 1,
            np.concatenate([np.full(roots.size, n, dtype=_INDEX), src]),
            np.concatenate([roots, dst]).astype(_INDEX),
        )
        m = idx.size
        count = np.diff(ptr)
        first_helper = n + 1 + ptr[:-1]
        last = np.zeros(m, dtype=bool)
        last[ptr[1:][count > 0] - 1] = True
        degree = np.concatenate([(count > 0).astype(_INDEX), 2 - last.astype(_INDEX)])
        aug_ptr = np.zeros(n + 2 + m, dtype=_INDEX)
        np.cumsum(degree, out=aug_ptr[1:])
        aug_idx = np.empty(int(aug_ptr[-1]), dtype=_INDEX)
        aug_idx[aug_ptr[: n + 1][count > 0]] = first_helper[count > 0]
        helper_at = aug_ptr[n + 1 : -1]
        aug_idx[helper_at] = idx
        aug_idx[helper_at[~last] + 1] = n + 2 + np.flatnonzero(~last)
        size = n + 1 + m
        matrix = sp.csr_matrix(
            (np.ones(aug_idx.size), aug_idx.astype(np.int32), aug_ptr.astype(np.int32)),
            shape=(size, size),
        )
        order, pred = depth_first_order(matrix, n, directed=True, return_predecessors=True)
        order = order[order < n].astype(_INDEX)
        owner = np.repeat(np.arange(n + 1, dtype=_INDEX), count)
        helper = pred[:n].astype(_INDEX) - (n + 1)
        parent = np.full(n, -1, dtype=_INDEX)
        reached = helper >= 0
        parent[reached] = owner[helper[reached]]
        return order, np.where(parent == n, -1, parent)

    @staticmethod
    def _unreached_sources(n: int, src: np.ndarray, dst: np.ndarray, order: np.ndarray):
        """One node (the smallest id) of every unreached cycle that nothing outside calls."""
        reached = np.zeros(n, dtype=bool)
        reached[order] = True
        matrix = sp.csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
        _, comp = connected_components(matrix, directed=True, connection="strong")
        entered = np.zeros(comp.max() + 1, dtype=bool)
        entered[comp[dst[comp[src] != comp[dst]]]] = True
        candidate = np.flatnonzero(~reached & ~entered[comp])
        _, first = np.unique(comp[candidate], return_index=True)
        return candidate[np.sort(first)]

    # ----------------------------------------------------------------- access
    def __len__(self) -> int:
        return len(self._tree_parent)

    def __repr__(self) -> str:
        kind = "tree" if self.is_tree() else "graph"
        return f"<glade.Graph ({kind}): {len(self)} nodes, {len(self._roots)} roots>"

    @property
    def roots(self) -> list[Node]:
        """The root nodes, in profile order."""
        return [Node(self, int(r)) for r in self._roots]

    @property
    def root_ids(self) -> np.ndarray:
        """Ids of the roots, in profile order."""
        return self._roots

    @property
    def depth(self) -> np.ndarray:
        """Depth of every node along its first call path (roots are 0)."""
        return self._depth

    @property
    def tree_parent(self) -> np.ndarray:
        """Parent of every node in the depth-first spanning tree (-1 for roots)."""
        return self._tree_parent

    @property
    def frames(self) -> pd.DataFrame:
        """The frame attributes of every node (``name``, ``type``, ``file``...), indexed
        by node id: a copy, so editing it never changes the graph (a cheap lazy copy
        under pandas' copy-on-write, the default from pandas 3)."""
        return self._frames.copy(deep=not copy_on_write())

    @property
    def frame_attributes(self) -> list[str]:
        """The names of the frame attributes (the columns of :attr:`frames`)."""
        return list(self._frames.columns)

    def frame_values(self, attribute: str) -> np.ndarray:
        """The values of one frame attribute of every node, by id.

        Parameters
        ----------
        attribute : str
            The frame attribute (``name``, ``type``, ``file``...).

        Returns
        -------
        numpy.ndarray
            One value per node (read-only).

        Raises
        ------
        GraphError
            When the graph has no such attribute.
        """
        if attribute not in self._frames.columns:
            raise GraphError(
                f"no frame attribute {attribute!r}; attributes: "
                f"{', '.join(map(str, self._frames.columns))}"
            )
        return _read_only(self._frames[attribute].to_numpy().view())

    def frame_rows(self, ids: np.ndarray) -> pd.DataFrame:
        """The frame attributes of some nodes.

        Parameters
        ----------
        ids : numpy.ndarray
            Node ids.

        Returns
        -------
        pandas.DataFrame
            A new table (dtypes kept), one row per id, numbered from 0.
        """
        table = self._frames.take(np.asarray(ids, dtype=_INDEX))
        table.index = pd.RangeIndex(len(table))
        return table

    def frame_of(self, nid: int) -> dict:
        """The non-missing frame attributes of a node.

        Parameters
        ----------
        nid : int
            The node id.

        Returns
        -------
        dict
            Attribute -> value.
        """
        row = self._frames.iloc[nid]
        return {k: v for k, v in row.items() if not pd.isna(v)}

    def name_of(self, nid: int) -> str:
        """The name of a node.

        Parameters
        ----------
        nid : int
            The node id.

        Returns
        -------
        str
            Its ``name`` frame attribute.
        """
        return self._frames["name"].iat[nid]

    @property
    def names(self) -> np.ndarray:
        """Name of every node, by id (read-only)."""
        return self.frame_values("name")

    def node(self, nid: int) -> Node:
        """The handle of a node.

        Parameters
        ----------
        nid : int
            The node id.

        Returns
        -------
        Node
            The handle (also the integer ``nid``).

        Raises
        ------
        GraphError
            When ``nid`` is not a node of the graph.
        """
        if not 0 <= nid < len(self):
            raise GraphError(f"no node {nid} in a graph of {len(self)} nodes")
        return Node(self, int(nid))

    def nodes(self) -> Iterator[Node]:
        """Every node, in pre-order.

        Returns
        -------
        iterator of Node
            The handles.
        """
        return (Node(self, i) for i in range(len(self)))

    def traverse(self) -> Iterator[Node]:
        """Hatchet's name of :meth:`nodes`: accepted, with a note naming glade's.

        Returns
        -------
        iterator of Node
            What ``graph.nodes()`` returns.
        """
        other_spelling("graph.traverse()", "graph.nodes()")
        return self.nodes()

    def children_of(self, nid: int) -> np.ndarray:
        """Ids of the children of a node, in profile order.

        Parameters
        ----------
        nid : int
            The node id.

        Returns
        -------
        numpy.ndarray
            The child ids (a read-only view).
        """
        return self._child_idx[self._child_ptr[nid] : self._child_ptr[nid + 1]]

    def parents_of(self, nid: int) -> np.ndarray:
        """Ids of the parents of a node.

        Parameters
        ----------
        nid : int
            The node id.

        Returns
        -------
        numpy.ndarray
            The parent ids (none for a root; several in a DAG).
        """
        return self._parent_idx[self._parent_ptr[nid] : self._parent_ptr[nid + 1]]

    def children_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """The child lists as compressed sparse rows.

        Returns
        -------
        tuple of numpy.ndarray
            ``(pointer, index)``: the children of node ``i`` are
            ``index[pointer[i]:pointer[i + 1]]``, in profile order (read-only arrays).
        """
        return self._child_ptr, self._child_idx

    def parents_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """The parent lists as compressed sparse rows, as :meth:`children_csr`.

        Returns
        -------
        tuple of numpy.ndarray
            ``(pointer, index)`` (read-only arrays).
        """
        return self._parent_ptr, self._parent_idx

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Every edge, grouped by parent, children in order.

        Returns
        -------
        tuple of numpy.ndarray
            ``(parent ids, child ids)``.
        """
        src = np.repeat(np.arange(len(self), dtype=_INDEX), np.diff(self._child_ptr))
        return src, self._child_idx

    @property
    def num_children(self) -> np.ndarray:
        """Number of children of every node."""
        return np.diff(self._child_ptr)

    @property
    def num_parents(self) -> np.ndarray:
        """Number of parents of every node."""
        return np.diff(self._parent_ptr)

    def is_tree(self) -> bool:
        """Whether every node has at most one parent and roots have none.

        Returns
        -------
        bool
            True for a tree (or forest).
        """
        return len(self._child_idx) == int((self._tree_parent >= 0).sum())

    @property
    def subtree_end(self) -> np.ndarray:
        """End (exclusive) of each node's spanning-tree subtree: ``range(i, end[i])``."""
        if self._subtree_end is None:
            n = len(self)
            size = np.ones(n, dtype=_INDEX)
            if _parents_first(self._tree_parent):
                _add_children_up(*_tree_children(self._tree_parent), size.reshape(n, 1))
            else:
                for level in self.levels()[:0:-1]:
                    np.add.at(size, self._tree_parent[level], size[level])
            self._subtree_end = _read_only(np.arange(n, dtype=_INDEX) + size)
        return self._subtree_end

    def levels(self) -> list[np.ndarray]:
        """Node ids grouped by depth, shallowest first.

        Returns
        -------
        list of numpy.ndarray
            One array of ids (ascending) per depth.
        """
        return group_by_depth(self._depth)

    def path_ids(self, nid: int) -> list[int]:
        """Ids on the first call path from a root down to a node.

        Parameters
        ----------
        nid : int
            The node id.

        Returns
        -------
        list of int
            The ids, the root first and ``nid`` last.
        """
        out = []
        cur = int(nid)
        while cur >= 0:
            out.append(cur)
            cur = int(self._tree_parent[cur])
        return out[::-1]

    def call_path_keys(self) -> np.ndarray:
        """One integer per node: nodes with the same chain of frames from the root share it.

        Returns
        -------
        numpy.ndarray
            The keys (0 .. distinct call paths - 1).
        """
        keys = np.empty(len(self), dtype=_INDEX)
        codes = frame_codes(self._frames)
        nframes = int(codes.max()) + 1 if len(codes) else 1
        if _parents_first(self._tree_parent):
            # one pass in id order; a key per level would overflow int64 on deep chains
            codes, seen = pd.factorize(codes)  # below n, so keys times codes fit
            keys = _call_path_pass(
                np.asarray(self._tree_parent, dtype=np.int64),
                codes.astype(np.int64),
                max(len(seen), 1),
            )
            return pd.factorize(keys)[0].astype(_INDEX)
        for level in self.levels():
            parent = self._tree_parent[level]
            parent_key = np.where(parent >= 0, keys[np.maximum(parent, 0)] + 1, 0)
            keys[level] = parent_key * nframes + codes[level]
        return pd.factorize(keys)[0].astype(_INDEX)

    def reachability(self) -> sp.csr_matrix:
        """Which nodes are reachable from which.

        Returns
        -------
        scipy.sparse.csr_matrix
            Boolean R with R[i, j] true when j is reachable from i (i included).
        """
        n = len(self)
        src, dst = self.edges()
        step = sp.csr_matrix((np.ones(len(src), dtype=bool), (src, dst)), shape=(n, n))
        reach = (sp.identity(n, dtype=bool, format="csr") + step).astype(bool)
        while True:
            nxt = (reach @ reach).astype(bool)
            if nxt.nnz == reach.nnz:
                return nxt
            reach = nxt

    # -------------------------------------------------------------- reshaping
    def nearest_kept(self, keep: np.ndarray) -> np.ndarray:
        """For every node, the nearest kept node at or above it on its first call path.

        Parameters
        ----------
        keep : numpy.ndarray
            One bool per node.

        Returns
        -------
        numpy.ndarray
            Per node the id of that node (-1 when there is none).
        """
        n = len(self)
        keep = np.asarray(keep, dtype=bool)
        near = np.where(keep, np.arange(n, dtype=_INDEX), self._tree_parent)
        active = np.flatnonzero(near >= 0)
        active = active[~keep[near[active]]]
        while active.size:
            near[active] = near[near[active]]
            active = active[near[active] >= 0]
            active = active[~keep[near[active]]]
        return near

    def _lifted_edges(self, keep: np.ndarray, near: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Edges between kept nodes after removed nodes are bypassed."""
        if self.is_tree():
            child = np.flatnonzero(keep & (self._tree_parent >= 0))
            parent = near[self._tree_parent[child]]
            ok = parent >= 0
            return parent[ok], child[ok]
        n = len(self)
        src, dst = self.edges()
        into_kept = keep[dst]
        src, dst = src[into_kept], dst[into_kept]
        done_src, done_dst = [src[keep[src]]], [dst[keep[src]]]
        front_src, front_dst = src[~keep[src]], dst[~keep[src]]
        seen = np.unique(front_src * n + front_dst)
        counts_all = self.num_parents
        while front_src.size:
            counts = counts_all[front_src]
            starts = np.repeat(self._parent_ptr[front_src] - np.cumsum(counts) + counts, counts)
            up = self._parent_idx[starts + np.arange(counts.sum())]
            down = np.repeat(front_dst, counts)
            code = up * n + down
            code, first = np.unique(code, return_index=True)
            fresh = ~np.isin(code, seen)
            seen = np.union1d(seen, code[fresh])
            up, down = up[first][fresh], down[first][fresh]
            done_src.append(up[keep[up]])
            done_dst.append(down[keep[up]])
            front_src, front_dst = up[~keep[up]], down[~keep[up]]
        return np.concatenate(done_src), np.concatenate(done_dst)

    def squash(self, keep: np.ndarray) -> tuple[Graph, np.ndarray]:
        """The graph of the kept nodes.

        Each kept node hangs under its nearest kept ancestors, and siblings with the same frame
        are merged (recursively).

        Parameters
        ----------
        keep : numpy.ndarray
            One bool per node.

        Returns
        -------
        tuple of (Graph, numpy.ndarray)
            The new graph and the new id of every old node (-1 if removed).

        Raises
        ------
        GraphError
            When ``keep`` does not have one value per node.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (len(self),):
            raise GraphError(f"keep mask has shape {keep.shape}, expected ({len(self)},)")
        src, dst = self._lifted_edges(keep, self.nearest_kept(keep))
        kept = np.flatnonzero(keep)
        local = np.full(len(self), -1, dtype=_INDEX)
        local[kept] = np.arange(kept.size, dtype=_INDEX)
        order = np.lexsort((dst, src))
        sub, sub_map = Graph.from_edges(self.frame_rows(kept), local[src[order]], local[dst[order]])
        merged, merge_map = sub.merge_equal_paths()
        new_id = np.full(len(self), -1, dtype=_INDEX)
        new_id[kept] = merge_map[sub_map]
        return merged, new_id

    def merge_equal_paths(self) -> tuple[Graph, np.ndarray]:
        """Merge nodes that have the same call path (chain of frames from the root).

        Returns
        -------
        tuple of (Graph, numpy.ndarray)
            The merged graph and the new id of every old node; when nothing merges, the graph
            itself and the identity map.
        """
        keys = self.call_path_keys()
        n_keys = int(keys.max()) + 1 if len(keys) else 0
        if n_keys == len(self):
            return self, np.arange(len(self), dtype=_INDEX)
        first = np.zeros(n_keys, dtype=_INDEX)
        first[keys[::-1]] = np.arange(len(self) - 1, -1, -1, dtype=_INDEX)
        src, dst = self.edges()
        ksrc, kdst = keys[src], keys[dst]
        order = np.lexsort((dst, src))
        roots = np.unique(keys[self._roots])
        roots = roots[np.argsort(first[roots], kind="stable")]
        merged, local_map = Graph.from_edges(
            self.frame_rows(first), ksrc[order], kdst[order], roots=roots
        )
        return merged, local_map[keys]

    @staticmethod
    def union(graphs: Sequence[Graph]) -> tuple[Graph, list[np.ndarray]]:
        """One graph holding every call path of every input graph, matched by frames.

        Nodes keep the order of their first appearance (first graph first).

        Parameters
        ----------
        graphs : sequence of Graph
            The graphs.

        Returns
        -------
        tuple of (Graph, list of numpy.ndarray)
            The union and, for each input, the union id of each of its nodes.

        Raises
        ------
        GraphError
            When no graph is given.
        """
        if not graphs:
            raise GraphError("union of no graphs")
        offsets = np.cumsum([0] + [len(g) for g in graphs])
        frames = pd.concat([g._frames for g in graphs], ignore_index=True)
        src = np.concatenate([g.edges()[0] + o for g, o in zip(graphs, offsets, strict=False)])
        dst = np.concatenate([g.edges()[1] + o for g, o in zip(graphs, offsets, strict=False)])
        roots = np.concatenate([g.root_ids + o for g, o in zip(graphs, offsets, strict=False)])
        forest, forest_map = Graph.from_edges(frames, src, dst, roots=roots)
        merged, merge_map = forest.merge_equal_paths()
        full = merge_map[forest_map]
        return merged, [full[offsets[i] : offsets[i + 1]] for i in range(len(graphs))]

    def copy(self) -> Graph:
        """The graph itself: a graph never changes, so a copy would be equal to it in every way.

        Kept so code written for mutable graphs keeps working.

        Returns
        -------
        Graph
            ``self``.
        """
        return self


def subtree_sums(graph: Graph, block: np.ndarray) -> np.ndarray:
    """Sum of ``block`` rows (axis 0 = nodes) over each node and its descendants,
    each descendant counted once (DAGs and cycles included)."""
    if graph.is_tree():
        out = block.copy()
        parent = graph.tree_parent
        if out.dtype.kind in "iuf" and out.size and _parents_first(parent):
            _add_children_up(*_tree_children(parent), out.reshape(len(parent), -1))
            return out
        with np.errstate(invalid="ignore", over="ignore"):  # sums may be inf or NaN
            for level in graph.levels()[:0:-1]:
                np.add.at(out, parent[level], out[level])
        return out
    reach = graph.reachability()
    flat = block.reshape(block.shape[0], -1)
    return np.asarray(reach @ flat).reshape(block.shape)
