"""Handles on the nodes of a :class:`~glade.graph.Graph`: one node (:class:`Node`) and a
set of nodes held as an array of ids (:class:`NodeSet`), so that a query matching a
million nodes builds no million Python objects."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from glade.errors import GraphError

if TYPE_CHECKING:
    from glade.graph import Graph


class Node(int):
    """A handle on node ``nid`` of ``graph``.

    Two handles are equal only when they point into the same graph object and
    have the same id. A handle is also the integer ``nid`` (an ``int`` subclass), so that
    the tables, indexed by node id, take it as Hatchet's take its nodes:
    ``gf.dataframe.loc[node]`` is every row of the node.

    Parameters
    ----------
    graph : Graph
        The graph the node belongs to.
    nid : int
        The node's id in ``graph`` (its pre-order position, ``0 .. len(graph) - 1``).

    Examples
    --------
    >>> import glade
    >>> gf = glade.datasets.synthetic_profile(ranks=2)
    >>> root = gf.graph.roots[0]
    >>> root.nid, root.name
    (0, 'main')
    >>> len(gf.dataframe.loc[root])   # one row per rank
    2
    """

    graph: Graph
    nid: int

    def __new__(cls, graph: Graph, nid: int) -> Node:
        """The handle, an ``int`` of value ``nid`` that also carries ``graph``."""
        node = super().__new__(cls, nid)
        node.graph = graph
        node.nid = int(nid)
        return node

    def __reduce__(self):
        return type(self), (self.graph, self.nid)

    def __bool__(self) -> bool:  # a handle is a node, never false (node 0 included)
        return True

    @property
    def children(self) -> list[Node]:
        """Child handles, in profile order."""
        return [Node(self.graph, int(c)) for c in self.graph.children_of(self.nid)]

    @property
    def parents(self) -> list[Node]:
        """Parent handles (one in a tree, several in a DAG, none for a root)."""
        return [Node(self.graph, int(p)) for p in self.graph.parents_of(self.nid)]

    @property
    def frame(self) -> dict:
        """The frame attributes of this node (name, type, file, line, ...)."""
        return self.graph.frame_of(self.nid)

    @property
    def name(self) -> str:
        """The node's name."""
        return self.graph.name_of(self.nid)

    @property
    def depth(self) -> int:
        """Depth along the first call path (a root is 0)."""
        return int(self.graph.depth[self.nid])

    def path(self) -> tuple[str, ...]:
        """Names from the root down to this node, along the first call path.

        Returns
        -------
        tuple of str
            The names, the root's first.
        """
        return tuple(self.graph.name_of(i) for i in self.graph.path_ids(self.nid))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other.graph is self.graph and other.nid == self.nid

    def __hash__(self) -> int:
        return hash((id(self.graph), self.nid))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Node) or other.graph is not self.graph:
            return NotImplemented
        return self.nid < other.nid

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Node) or other.graph is not self.graph:
            return NotImplemented
        return self.nid > other.nid

    def __le__(self, other: object) -> bool:
        return self == other or self < other

    def __ge__(self, other: object) -> bool:
        return self == other or self > other

    def __repr__(self) -> str:
        return f"Node({self.nid}, {self.name!r})"


def _frozen(ids: np.ndarray) -> np.ndarray:
    ids.flags.writeable = False
    return ids


class NodeSet:
    """Distinct nodes of one graph, held as their ids (ascending): what ``gf.match(q)`` returns.

    It behaves like the list of :class:`Node` handles it stands for (``len``,
    iteration and indexing in id order, ``in``, equality with a list or set of nodes)
    and like a set (``|``, ``&``, ``-``, ``^`` with another NodeSet of the same graph
    or nodes of it), without building a handle per node until one is asked for:
    ``ids`` is the id array, ``names()`` and ``paths()`` the nodes' names and call
    paths. A NodeSet never changes.

    Parameters
    ----------
    graph : Graph
        The graph of the nodes.
    ids : iterable of int or numpy.ndarray, default ()
        Node ids (in any order, repeats allowed).

    Raises
    ------
    GraphError
        When an id is not an integer or not a node of the graph.

    Examples
    --------
    >>> import glade
    >>> gf = glade.datasets.synthetic_profile(20, seed=1)
    >>> found = gf.match('MATCH (".", p) WHERE p.name = "main"')
    >>> found.names().tolist(), found.ids.tolist()
    (['main'], [0])
    """

    __slots__ = ("_ids", "graph")

    def __init__(self, graph: Graph, ids: Iterable[int] | np.ndarray = ()):
        values = np.asarray(ids if isinstance(ids, np.ndarray) else list(ids))
        if values.size and values.dtype.kind not in "iu":
            raise GraphError(f"node ids must be integers, not {values.dtype}")
        values = values.astype(np.int64).reshape(-1)
        if not (values[1:] > values[:-1]).all():  # ascending and distinct already: keep
            values = np.unique(values)
        if values.size and (values[0] < 0 or values[-1] >= len(graph)):
            raise GraphError(f"node ids must be in 0..{len(graph) - 1}")
        self.graph = graph
        self._ids = _frozen(values)

    @classmethod
    def from_mask(cls, graph: Graph, mask: np.ndarray) -> NodeSet:
        """The nodes where a mask is true.

        Parameters
        ----------
        graph : Graph
            The graph.
        mask : numpy.ndarray
            One bool per node of ``graph``.

        Returns
        -------
        NodeSet
            The set.

        Raises
        ------
        GraphError
            When the mask does not have one value per node.
        """
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (len(graph),):
            raise GraphError(f"a node mask has shape ({len(graph)},), not {mask.shape}")
        out = cls.__new__(cls)
        out.graph = graph
        out._ids = _frozen(np.flatnonzero(mask).astype(np.int64))
        return out

    @property
    def ids(self) -> np.ndarray:
        """The node ids, ascending (a read-only array)."""
        return self._ids

    def mask(self) -> np.ndarray:
        """One boolean per node of the graph: true for the nodes of the set.

        Returns
        -------
        numpy.ndarray
            The mask (a new array).
        """
        out = np.zeros(len(self.graph), dtype=bool)
        out[self._ids] = True
        return out

    def names(self) -> np.ndarray:
        """The names of the nodes, in id order.

        Returns
        -------
        numpy.ndarray
            One name per node of the set.
        """
        return self.graph.names[self._ids]

    def paths(self) -> list[tuple[str, ...]]:
        """The call path of every node, in id order.

        Names from the root along the first call path; each ancestor's path is built once.

        Returns
        -------
        list of tuple of str
            One path per node of the set.
        """
        graph = self.graph
        parent = graph.tree_parent
        needed = np.zeros(len(graph), dtype=bool)
        frontier = self._ids
        while frontier.size:
            needed[frontier] = True
            above = parent[frontier]
            above = np.unique(above[above >= 0])
            frontier = above[~needed[above]]
        nodes = np.flatnonzero(needed)
        names = graph.names[nodes].tolist()
        path: dict[int, tuple[str, ...]] = {}
        # pre-order numbering puts every parent before its children
        for nid, up, name in zip(nodes.tolist(), parent[nodes].tolist(), names, strict=True):
            path[nid] = (*path[up], name) if up >= 0 else (name,)
        return [path[i] for i in self._ids.tolist()]

    # ------------------------------------------------------------ sequence
    def __len__(self) -> int:
        return int(self._ids.size)

    def __iter__(self) -> Iterator[Node]:
        graph = self.graph
        return (Node(graph, i) for i in self._ids.tolist())

    def __getitem__(self, item: int | slice) -> Node | NodeSet:
        if isinstance(item, slice):
            out = NodeSet.__new__(NodeSet)
            out.graph = self.graph
            out._ids = _frozen(np.unique(self._ids[item]))
            return out
        if isinstance(item, bool) or not isinstance(item, int | np.integer):
            raise TypeError(f"NodeSet indices are integers or slices, not {type(item).__name__}")
        return Node(self.graph, int(self._ids[item]))

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, Node) or node.graph is not self.graph:
            return False
        at = int(np.searchsorted(self._ids, node.nid))
        return at < self._ids.size and int(self._ids[at]) == node.nid

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{i}: {name!r}"
            for i, name in zip(self._ids[:6].tolist(), self.names()[:6].tolist(), strict=True)
        )
        more = ", ..." if len(self) > 6 else ""
        return f"NodeSet({len(self)} nodes: {{{shown}{more}}})"

    # ----------------------------------------------------------------- set
    def _other_ids(self, other: Any) -> np.ndarray | None:
        """The ids of ``other`` (a NodeSet or an iterable of nodes of this graph); None
        when it is neither."""
        if isinstance(other, NodeSet):
            if other.graph is not self.graph:
                raise GraphError("the node sets belong to different graphs")
            return other._ids
        if isinstance(other, str) or not isinstance(other, Iterable):
            return None
        items = list(other)
        for item in items:
            if not isinstance(item, Node):
                return None
            if item.graph is not self.graph:
                raise GraphError(f"{item!r} belongs to another graph")
        return np.unique(np.array([item.nid for item in items], dtype=np.int64))

    def _combined(self, other: Any, operation) -> NodeSet:
        ids = self._other_ids(other)
        if ids is None:
            return NotImplemented
        out = NodeSet.__new__(NodeSet)
        out.graph = self.graph
        out._ids = _frozen(operation(self._ids, ids).astype(np.int64))
        return out

    def __or__(self, other: Any) -> NodeSet:
        return self._combined(other, np.union1d)

    def __and__(self, other: Any) -> NodeSet:
        return self._combined(other, lambda a, b: np.intersect1d(a, b, assume_unique=True))

    def __sub__(self, other: Any) -> NodeSet:
        return self._combined(other, lambda a, b: np.setdiff1d(a, b, assume_unique=True))

    def __xor__(self, other: Any) -> NodeSet:
        return self._combined(other, lambda a, b: np.setxor1d(a, b, assume_unique=True))

    __ror__ = __or__
    __rand__ = __and__
    __rxor__ = __xor__

    def __rsub__(self, other: Any) -> NodeSet:
        ids = self._other_ids(other)
        if ids is None:
            return NotImplemented
        return NodeSet(self.graph, np.setdiff1d(ids, self._ids, assume_unique=True))

    def union(self, other: Any) -> NodeSet:
        """Nodes in either set.

        Parameters
        ----------
        other : NodeSet or iterable of Node
            A NodeSet of the same graph, or nodes of it.

        Returns
        -------
        NodeSet
            A new set.

        Raises
        ------
        GraphError
            When ``other`` is neither, or holds nodes of another graph.
        """
        return self._set_method(other, self.__or__)

    def intersection(self, other: Any) -> NodeSet:
        """Nodes in both sets.

        Parameters
        ----------
        other : NodeSet or iterable of Node
            A NodeSet of the same graph, or nodes of it.

        Returns
        -------
        NodeSet
            A new set.

        Raises
        ------
        GraphError
            When ``other`` is neither, or holds nodes of another graph.
        """
        return self._set_method(other, self.__and__)

    def difference(self, other: Any) -> NodeSet:
        """Nodes of this set that are not in ``other``.

        Parameters
        ----------
        other : NodeSet or iterable of Node
            A NodeSet of the same graph, or nodes of it.

        Returns
        -------
        NodeSet
            A new set.

        Raises
        ------
        GraphError
            When ``other`` is neither, or holds nodes of another graph.
        """
        return self._set_method(other, self.__sub__)

    def symmetric_difference(self, other: Any) -> NodeSet:
        """Nodes in exactly one of the sets.

        Parameters
        ----------
        other : NodeSet or iterable of Node
            A NodeSet of the same graph, or nodes of it.

        Returns
        -------
        NodeSet
            A new set.

        Raises
        ------
        GraphError
            When ``other`` is neither, or holds nodes of another graph.
        """
        return self._set_method(other, self.__xor__)

    @staticmethod
    def _set_method(other: Any, operator) -> NodeSet:
        result = operator(other)
        if result is NotImplemented:
            raise GraphError(f"a node set combines with a NodeSet or nodes, not {other!r}")
        return result

    def __eq__(self, other: object) -> bool:
        """Equal to a NodeSet of the same graph, or a list, tuple or set of nodes of the
        graph, that holds the same nodes (each once)."""
        if isinstance(other, NodeSet):
            return other.graph is self.graph and np.array_equal(other._ids, self._ids)
        if not isinstance(other, list | tuple | set | frozenset):
            return NotImplemented
        if len(other) != len(self) or not all(isinstance(n, Node) for n in other):
            return False
        if any(n.graph is not self.graph for n in other):
            return False
        return np.array_equal(
            np.unique(np.array([n.nid for n in other], dtype=np.int64)), self._ids
        )

    __hash__ = None  # type: ignore[assignment]
