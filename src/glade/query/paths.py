"""Queries that name nodes by their call path from a root, never by their id, so a query
saved from one run applies to another run of the program:

    MATCH (".", n0)->(".", n1) WHERE n0 IS ROOT AND n0.name = "main" AND n1.name = "solve"

Where siblings share a name, a step also names the frame attributes (``file``, ``line``,
...) that tell them apart. Siblings here are the children of every node with the same call
path, so the conditions single out exactly the nodes of one call path (a "call-path key");
nodes with equal frames all the way from the root are indistinguishable by any query.
Views (the CCT view's edits) and models (the supergraph's supernodes) build their queries
from :class:`CallPathNames`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from glade.graph import Graph
from glade.query.model import CompoundQuery, Query, QueryNode
from glade.query.predicates import And, Compare, IsSpecial, Predicate, check_scalar, is_root


def equals(column: str, value: object) -> Predicate:
    """The predicate "``column`` has ``value``" (missing values: ``IS NONE``)."""
    if isinstance(value, np.generic):
        value = value.item()
    if pd.api.types.is_scalar(value) and pd.isna(value):
        return IsSpecial(column, "none")
    if isinstance(value, float) and math.isinf(value):
        return IsSpecial(column, "inf")
    return Compare(column, "==", check_scalar(value, f"column {column!r}"))


class CallPathNames:
    """How queries name the nodes of a graph's spanning tree by call path.

    ``parent`` (-1 for roots), ``depth``; ``path_key`` numbers the call paths in pre-order
    of first use; ``name_index`` and ``unique_names`` factorize the names; ``extra`` holds,
    for each node that shares its name with another child of its parent's call path, the
    conditions on the other frame attributes that tell them apart.
    """

    def __init__(self, graph: Graph):
        self.graph = graph
        self.n = len(graph)
        self.parent = np.asarray(graph.tree_parent, dtype=np.int64)
        self.depth = np.asarray(graph.depth, dtype=np.int64)
        self.path_key = graph.call_path_keys()
        names = graph.names
        self.name_index, self.unique_names = pd.factorize(names, use_na_sentinel=False)
        self.name_predicates = [equals("name", u) for u in self.unique_names]
        self.extra = self._disambiguation()

    def _disambiguation(self) -> dict[int, list[Predicate]]:
        """For each node that shares its name with another child of its parent's call path,
        the conditions on the other frame attributes that differ among those nodes."""
        sibling = np.where(self.parent >= 0, self.path_key[np.maximum(self.parent, 0)], -1)
        group = (sibling + 1) * (len(self.unique_names) + 1) + self.name_index
        group = pd.factorize(group)[0]
        shared = np.flatnonzero(np.bincount(group)[group] > 1)
        extra: dict[int, list[Predicate]] = {}
        if shared.size == 0:
            return extra
        for column in self.graph.frame_attributes:
            if column == "name":
                continue
            values = self.graph.frame_values(column)
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

    def path_query(self, node: int, tail: str | None = None) -> Query:
        """P(node): the call path from the root to ``node``, anchored with IS ROOT,
        optionally followed by a ``"+"`` or ``"*"`` step."""
        steps = [
            QueryNode(
                ".", And.of(*([is_root()] if position == 0 else []), *self.step_predicates(step))
            )
            for position, step in enumerate(self.path_ids(node))
        ]
        if tail:
            steps.append(QueryNode(tail, None))
        return Query(steps)

    def subtree_query(self, node: int) -> Query | CompoundQuery:
        """The nodes of ``node``'s subtree (the node and everything below it):
        ``MATCH ("main/solve", x)->("*", d) RETURN x, d``. On a graph that is not a tree,
        where a node of the parent's call path can also lie below, those are subtracted:
        ``{...} AND NOT {P(parent)}``."""
        last = int(self.depth[node])
        below = self.path_query(node, "*").returning(last, last + 1)
        parent = int(self.parent[node])
        if parent < 0 or self.graph.is_tree():
            return below
        return CompoundQuery.of("and", below, ~self.path_query(parent))
