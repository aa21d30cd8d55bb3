"""The queries that select a supernode's CCT nodes (``sg.query_of(g)``) and the call
paths through them (``sg.query_of(g, flow=True)``: its callers, its nodes and everything
they call, what a focus on g keeps).

- a supernode of a name, module or mapping grouping has a predicate γ on frames
  (``p.module = "M"``, ``p.name =~ "..."``): its nodes are ``MATCH (".", p) WHERE γ(p)``;
- a part of a split holds the *runs* of a supernode entered through one entry function f:
  the entry (γ and ``name = f``, under a caller outside the supernode, or under a given
  caller supernode for a split by callee) and the nodes of γ below it, reached without
  leaving γ: ``MATCH (".", a)->(".", e)->("*", q) WHERE NOT γ(a) AND γ(e) AND e.name = "f"
  AND γ(q)``, intersected with γ (which drops the caller a);
- what is left of a supernode after parts were carved out of it is γ minus the parts;
- "other" supernodes are the union of their members;
- anything else (a grouping by a function, a split of a part) is named by call paths:
  each run is the subtree of its entry minus the subtrees of the calls that leave it
  (:mod:`glade.query.paths`), exact on this run and valid on another run of the program.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from glade.graph import Graph
from glade.query.model import BaseQuery, CompoundQuery, Query
from glade.query.paths import CallPathNames, equals
from glade.query.predicates import Predicate, is_root


class PathContext:
    """The graph a supergraph's queries name nodes of (its call-path names built once,
    when a query needs them)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self._names: CallPathNames | None = None

    @property
    def names(self) -> CallPathNames:
        if self._names is None:
            self._names = CallPathNames(self.graph)
        return self._names


def _union(queries: Sequence[BaseQuery]) -> BaseQuery:
    return queries[0] if len(queries) == 1 else CompoundQuery.of("or", *queries)


class Selector(ABC):
    """How one supernode's nodes are named (see the module)."""

    @abstractmethod
    def members(self, context: PathContext) -> BaseQuery:
        """The query of the supernode's nodes."""

    @abstractmethod
    def flow(self, context: PathContext) -> BaseQuery:
        """The query of the nodes on call paths through the supernode."""


@dataclass(frozen=True)
class Predicated(Selector):
    """The nodes whose frame satisfies ``predicate``."""

    predicate: Predicate

    def members(self, context: PathContext) -> BaseQuery:
        return Query().match(".", self.predicate)

    def flow(self, context: PathContext) -> BaseQuery:
        return Query().match("*").rel(".", self.predicate).rel("*")


@dataclass(frozen=True)
class EntryRuns(Selector):
    """The runs of the supernode of predicate ``group`` entered through a function named
    ``name``, under a caller satisfying ``caller`` (None: any caller outside the group,
    and the roots)."""

    group: Predicate
    name: object
    caller: Predicate | None

    def _entry(self) -> Predicate:
        return self.group & equals("name", self.name)

    def members(self, context: PathContext) -> BaseQuery:
        entry = self._entry()
        if self.caller is None:
            runs = _union(
                [
                    Query().match(".", ~self.group).rel(".", entry).rel("*", self.group),
                    Query().match(".", is_root() & entry).rel("*", self.group),
                ]
            )
        else:
            runs = Query().match(".", self.caller).rel(".", entry).rel("*", self.group)
        return CompoundQuery.of("and", runs, Query().match(".", self.group))

    def flow(self, context: PathContext) -> BaseQuery:
        entry = self._entry()
        if self.caller is None:
            return _union(
                [
                    Query().match("*").rel(".", ~self.group).rel(".", entry).rel("*"),
                    Query().match(".", is_root() & entry).rel("*"),
                ]
            )
        return Query().match("*").rel(".", self.caller).rel(".", entry).rel("*")


@dataclass(frozen=True)
class CallPaths(Selector):
    """The supernode of the CCT nodes ``nodes``, named by call paths."""

    nodes: np.ndarray = field(compare=False)

    def _runs(self, context: PathContext) -> tuple[np.ndarray, dict[int, list[int]]]:
        """The entries of the node set and, per entry, the calls that leave its run."""
        graph = context.graph
        parent = graph.tree_parent
        inside = np.zeros(len(graph), dtype=bool)
        inside[self.nodes] = True
        has_parent = parent >= 0
        parent_inside = has_parent & inside[np.maximum(parent, 0)]
        entry = inside & ~parent_inside
        exits = np.flatnonzero(~inside & parent_inside)
        run_of = graph.nearest_kept(entry)
        leaving: dict[int, list[int]] = {}
        for x, e in zip(exits.tolist(), run_of[parent[exits]].tolist(), strict=True):
            leaving.setdefault(e, []).append(x)
        return np.flatnonzero(entry), leaving

    def members(self, context: PathContext) -> BaseQuery:
        names = context.names
        entries, leaving = self._runs(context)
        runs = []
        for e in entries.tolist():
            run = names.subtree_query(e)
            if e in leaving:
                run = CompoundQuery.of(
                    "and", run, ~_union([names.subtree_query(x) for x in leaving[e]])
                )
            runs.append(run)
        return _union(runs)

    def flow(self, context: PathContext) -> BaseQuery:
        names = context.names
        entries, _ = self._runs(context)
        return _union([names.path_query(e, "*") for e in entries.tolist()])


@dataclass(frozen=True)
class Remainder(Selector):
    """The nodes of ``base`` outside the ``carved`` parts (``nodes`` are what is left, for
    the query of the paths through them)."""

    base: Predicated
    carved: tuple[Selector, ...]
    nodes: np.ndarray = field(compare=False)

    def members(self, context: PathContext) -> BaseQuery:
        return CompoundQuery.of(
            "and",
            self.base.members(context),
            ~_union([part.members(context) for part in self.carved]),
        )

    def flow(self, context: PathContext) -> BaseQuery:
        return CallPaths(self.nodes).flow(context)


@dataclass(frozen=True)
class Union(Selector):
    """The nodes of any of ``parts`` (an "other" supernode, or parts that got one name)."""

    parts: tuple[Selector, ...]

    def members(self, context: PathContext) -> BaseQuery:
        return _union([part.members(context) for part in self.parts])

    def flow(self, context: PathContext) -> BaseQuery:
        return _union([part.flow(context) for part in self.parts])
