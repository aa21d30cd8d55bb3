"""The call tree as a tree view sees it, and how its queries name a node.

A view shows the depth-first spanning tree of a profile's graph (the graph itself for a
call tree). Queries name a node by its call path from the root, never by its id
(:mod:`glade.query.paths`), so a query saved from one run applies to another run of the
program; nodes with equal frames all the way from the root are indistinguishable by any
query and share every edit. The front end builds the same arrays in ``js/views/cct/calltree.js``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np

from glade.graph import Graph, frame_codes, group_by_depth
from glade.query.engine import DEPTH
from glade.query.paths import CallPathNames


class ViewTree(CallPathNames):
    """A graph's spanning tree with the arrays view edits and queries need.

    On top of :class:`glade.query.paths.CallPathNames` (``parent``, ``depth``,
    ``path_key``, names and the call-path queries): ``child_count``; ``key_rep`` is the
    first node of each key, ``key_parent`` the key of its parent (-1 for a root) and
    ``key_has_children`` whether any node of the key has children; ``frame_code`` is
    equal for nodes with equal frames; ``values`` holds one value per node for each metric
    the view shows; ``columns`` are the names a query of the data can use besides the
    graph's own (a ``depth`` among them is the data's, not the node's depth).
    """

    def __init__(
        self, graph: Graph, values: Mapping[str, np.ndarray], columns: Collection[str] = ()
    ):
        super().__init__(graph)
        n = self.n
        self.child_count = np.bincount(self.parent[self.parent >= 0], minlength=n)
        _, self.key_rep = np.unique(self.path_key, return_index=True)
        rep_parent = self.parent[self.key_rep]
        self.key_parent = np.where(rep_parent >= 0, self.path_key[np.maximum(rep_parent, 0)], -1)
        self.key_count = len(self.key_rep)
        self.key_has_children = np.zeros(self.key_count, dtype=bool)
        self.key_has_children[self.path_key[self.child_count > 0]] = True
        self.key_levels = group_by_depth(self.depth[self.key_rep])
        self.frame_code = frame_codes(graph.frames)
        self.values = dict(values)
        self._node_names: np.ndarray | None = None
        #: The names of the tree's functions, as text.
        self.name_set = frozenset(str(u) for u in self.unique_names)
        #: Whether ``depth`` in a query is the node's depth (the data has no such column).
        self.depth_is_structural = DEPTH not in columns

    @property
    def node_names(self) -> np.ndarray:
        """The name of every node, as text (object array)."""
        if self._node_names is None:
            unique = np.asarray([str(u) for u in self.unique_names], dtype=object)
            self._node_names = unique[self.name_index]
        return self._node_names

    def hot_path(self, start: int, values: np.ndarray, fraction: float = 0.5) -> list[int]:
        """hpcviewer's hot path from node ``start``: the nodes reached by stepping to the
        child with the largest value (the first such child on a tie) while that value is at
        least ``fraction`` of the current node's; ``start`` first. Mirrors ``hotPath`` of
        ``js/views/cct/hotpath.js``."""
        child = np.flatnonzero(self.parent >= 0)
        best = np.full(self.n, -1, dtype=np.int64)
        if child.size:
            key = np.where(np.isnan(values[child]), -np.inf, values[child])
            # per parent, the largest value first and the first child on a tie
            order = np.lexsort((child, -key, self.parent[child]))
            parents = self.parent[child][order]
            first = np.ones(order.size, dtype=bool)
            first[1:] = parents[1:] != parents[:-1]
            best[parents[first]] = child[order][first]
        path = [int(start)]
        node = best[start]
        while node >= 0 and values[node] >= fraction * values[path[-1]] and values[node] > 0:
            path.append(int(node))
            node = best[node]
        return path
