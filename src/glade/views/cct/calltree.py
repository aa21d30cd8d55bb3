"""The call tree as a tree view sees it, and how its queries name a node.

A view shows the depth-first spanning tree of a profile's graph (the graph itself for a
call tree). Queries name a node by its call path from the root, never by its id, so a
query saved from one run applies to another run of the program:

    MATCH (".", n0)->(".", n1) WHERE n0 IS ROOT AND n0.name = "main" AND n1.name = "solve"

Where siblings share a name, the step also names the frame attributes (``file``,
``line``, ...) that tell them apart. Siblings here are the children of every node with
the same call path, so the conditions single out exactly the nodes with one call path
(a "call-path key"); nodes with equal frames all the way from the root are
indistinguishable by any query and share every edit. This module mirrors
``js/lib/calltree.js``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from glade.graph import Graph, frame_codes, group_by_depth
from glade.query import Query, QueryNode, is_root
from glade.query.predicates import And, Compare, IsSpecial, Predicate
from glade.query.render import render_predicate


def equals(column: str, value: object) -> Predicate:
    """The predicate "``column`` has ``value``" (missing values: ``IS NONE``)."""
    if isinstance(value, np.generic):
        value = value.item()
    if pd.api.types.is_scalar(value) and pd.isna(value):
        return IsSpecial(column, "none")
    if isinstance(value, float) and math.isinf(value):
        return IsSpecial(column, "inf")
    return Compare(column, "==", value)


def fragment(predicate: Predicate) -> str:
    """The condition text of ``predicate`` without its variable: ``.name = "main"``."""
    return render_predicate(predicate, "")


class ViewTree:
    """A graph's spanning tree with the arrays view edits and queries need.

    ``parent`` (-1 for roots), ``depth``, ``child_count``; ``path_key`` numbers the call
    paths in pre-order of first use, ``key_rep`` is the first node of each key,
    ``key_parent`` the key of its parent (-1 for a root) and ``key_has_children`` whether
    any node of the key has children; ``frame_code`` is equal for nodes with equal
    frames; ``values`` holds one value per node for each metric the view shows.
    """

    def __init__(self, graph: Graph, values: Mapping[str, np.ndarray]):
        n = len(graph)
        self.graph = graph
        self.n = n
        self.parent = np.asarray(graph.tree_parent, dtype=np.int64)
        self.depth = np.asarray(graph.depth, dtype=np.int64)
        self.child_count = np.bincount(self.parent[self.parent >= 0], minlength=n)
        self.path_key = graph.call_path_keys()
        _, self.key_rep = np.unique(self.path_key, return_index=True)
        rep_parent = self.parent[self.key_rep]
        self.key_parent = np.where(rep_parent >= 0, self.path_key[np.maximum(rep_parent, 0)], -1)
        self.key_count = len(self.key_rep)
        self.key_has_children = np.zeros(self.key_count, dtype=bool)
        self.key_has_children[self.path_key[self.child_count > 0]] = True
        self.key_levels = group_by_depth(self.depth[self.key_rep])
        self.frame_code = frame_codes(graph.frames)
        self.values = dict(values)
        names = graph.frames["name"].to_numpy()
        self.name_index, self.unique_names = pd.factorize(names, use_na_sentinel=False)
        self.name_predicates = [equals("name", u) for u in self.unique_names]
        self.extra = self._disambiguation()
        self._node_names: np.ndarray | None = None

    def _disambiguation(self) -> dict[int, list[Predicate]]:
        """For each node that shares its name with another child of its parent's call path,
        the conditions on the other frame attributes that differ among those nodes."""
        frames = self.graph.frames
        sibling = np.where(self.parent >= 0, self.path_key[np.maximum(self.parent, 0)], -1)
        group = (sibling + 1) * (len(self.unique_names) + 1) + self.name_index
        group = pd.factorize(group)[0]
        shared = np.flatnonzero(np.bincount(group)[group] > 1)
        extra: dict[int, list[Predicate]] = {}
        if shared.size == 0:
            return extra
        for column in frames.columns:
            if column == "name":
                continue
            values = frames[column].to_numpy()
            codes = pd.factorize(values[shared], use_na_sentinel=False)[0]
            pairs = np.unique(np.stack([group[shared], codes], axis=1), axis=0)
            differing = np.flatnonzero(np.bincount(pairs[:, 0], minlength=group.max() + 1) > 1)
            for node in shared[np.isin(group[shared], differing)]:
                extra.setdefault(int(node), []).append(equals(column, values[node]))
        return dict(sorted(extra.items()))

    def step_predicates(self, node: int) -> list[Predicate]:
        """The conditions a query step puts on ``node``: its name, then the attributes
        that tell it apart from same-name siblings."""
        return [self.name_predicates[self.name_index[node]], *self.extra.get(node, [])]

    def path_ids(self, node: int) -> list[int]:
        """Ids from the root down to ``node``."""
        return self.graph.path_ids(node)

    @property
    def node_names(self) -> np.ndarray:
        """The name of every node, as text (object array)."""
        if self._node_names is None:
            unique = np.asarray([str(u) for u in self.unique_names], dtype=object)
            self._node_names = unique[self.name_index]
        return self._node_names

    def path_query(self, node: int, tail: str | None = None) -> Query:
        """P(node): the call path from the root to ``node``, anchored with IS ROOT,
        optionally followed by a ``"+"`` or ``"*"`` step."""
        steps = [QueryNode(".", And.of(*([is_root()] if position == 0 else []),
                                       *self.step_predicates(step)))
                 for position, step in enumerate(self.path_ids(node))]
        if tail:
            steps.append(QueryNode(tail, None))
        return Query(steps)

    def condition_table(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The condition fragments as the front end receives them: the texts (the name
        condition of every unique name first, then the extra conditions), and the CSR
        arrays (ptr over nodes, indices into the texts) of each node's extra conditions."""
        texts = [fragment(p) for p in self.name_predicates]
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        index = []
        for node, predicates in self.extra.items():
            ptr[node + 1] = len(predicates)
            for predicate in predicates:
                index.append(len(texts))
                texts.append(fragment(predicate))
        return texts, np.cumsum(ptr), np.asarray(index, dtype=np.int64)
