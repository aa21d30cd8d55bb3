"""Queries: a sequence of query nodes (quantifier + predicate), and compounds of queries.

A match of a :class:`Query` is a downward path split into consecutive segments,
one per query node (one node for ``"."``, zero or more for ``"*"``, one or
more for ``"+"``, exactly n for an integer n), every node of a segment
satisfying that query node's predicate. The query selects every node lying on
at least one match. A :class:`CompoundQuery` combines the node sets of queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from glade.errors import QueryError
from glade.query.predicates import (
    Always,
    CallablePredicate,
    Predicate,
    nested_depth,
)

Quantifier = str | int
QUANTIFIERS = (".", "*", "+")


def check_quantifier(quantifier: Any) -> Quantifier:
    """A valid quantifier (``"."``, ``"*"``, ``"+"`` or a positive integer), or a QueryError."""
    if isinstance(quantifier, bool):
        raise QueryError(f"{quantifier!r} is not a quantifier")
    if isinstance(quantifier, int):
        if quantifier < 1:
            raise QueryError(f"an integer quantifier must be at least 1, not {quantifier}")
        if quantifier > 10_000:
            raise QueryError(f"the integer quantifier {quantifier} is too large")
        return int(quantifier)
    if quantifier in QUANTIFIERS:
        return quantifier
    raise QueryError(f"{quantifier!r} is not a quantifier (use '.', '*', '+' or an integer)")


def to_predicate(predicate: Predicate | Callable | None) -> Predicate:
    """``predicate`` as a Predicate: None means always true, a callable is wrapped."""
    if predicate is None:
        return Always()
    if isinstance(predicate, Predicate):
        return predicate
    if callable(predicate):
        return CallablePredicate(predicate)
    raise QueryError(f"{predicate!r} is not a predicate (use col(...) expressions or a function)")


@dataclass(frozen=True, init=False)
class QueryNode:
    """One step of a query: how many nodes (``quantifier``) and what they satisfy.

    Parameters
    ----------
    quantifier : {".", "*", "+"} or int
        One node, any number (zero included), one or more, or exactly that many.
    predicate : Predicate or callable
        What each node satisfies (a function of a row becomes a
        :class:`CallablePredicate`; None: anything).

    Raises
    ------
    QueryError
        When the quantifier or the predicate is invalid.
    """

    quantifier: Quantifier
    predicate: Predicate

    def __init__(self, quantifier: Quantifier, predicate: Predicate | Callable | None):
        object.__setattr__(self, "quantifier", check_quantifier(quantifier))
        object.__setattr__(self, "predicate", to_predicate(predicate))


class BaseQuery:
    """What every query offers: combination with ``& | ^ ~`` and canonical text."""

    __slots__ = ()

    depth = 1

    @property
    def serializable(self) -> bool:
        """True when the query can be written as text (no Python callables)."""
        return True

    def __and__(self, other: BaseQuery) -> CompoundQuery:
        return CompoundQuery.of("and", self, _as_query(other))

    def __or__(self, other: BaseQuery) -> CompoundQuery:
        return CompoundQuery.of("or", self, _as_query(other))

    def __xor__(self, other: BaseQuery) -> CompoundQuery:
        return CompoundQuery.of("xor", self, _as_query(other))

    def __invert__(self) -> CompoundQuery:
        return CompoundQuery("not", (self,))

    def to_string(self) -> str:
        """The canonical string-dialect text of this query.

        Returns
        -------
        str
            The text; ``parse`` of it gives an equal query.

        Raises
        ------
        QueryError
            When the query holds a Python function (``serializable`` is False).
        """
        from glade.query.render import render_query

        return render_query(self)

    def __str__(self) -> str:
        return self.to_string()


def _as_query(value: Any) -> BaseQuery:
    from glade.query.parse import parse

    return parse(value)


class Query(BaseQuery):
    """A path pattern: a sequence of :class:`QueryNode`.

    Build it with ``Query().match(".", pred).rel("*").rel(2, pred)``: each call
    returns a new query. ``pred`` is an expression such as
    ``col("name").matches("MPI_.*") & (col("time") > 5)`` or a Python function
    of a row.

    Parameters
    ----------
    nodes : sequence of QueryNode, default ()
        The steps.
    returns : iterable of int, optional
        The positions of the steps whose nodes the query keeps (default: every step's;
        see :meth:`returning`).

    Raises
    ------
    QueryError
        When a step is not a QueryNode or a position is out of range.

    Examples
    --------
    >>> from glade.query import Query, col
    >>> print(Query().match(".", col("name") == "main").rel("*"))
    MATCH (".", n0)->("*") WHERE n0.name = "main"
    """

    __slots__ = ("nodes", "returns")

    def __init__(
        self,
        nodes: tuple[QueryNode, ...] | list[QueryNode] = (),
        returns: Iterable[int] | None = None,
    ):
        nodes = tuple(nodes)
        for node in nodes:
            if not isinstance(node, QueryNode):
                raise QueryError(f"{node!r} is not a QueryNode")
        self.nodes = nodes
        self.returns = _check_returns(returns, len(nodes))

    def match(
        self, quantifier: Quantifier = ".", predicate: Predicate | Callable | None = None
    ) -> Query:
        """A query whose first node is (``quantifier``, ``predicate``).

        Parameters
        ----------
        quantifier : {".", "*", "+"} or int, default "."
            How many nodes the step matches.
        predicate : Predicate or callable, optional
            What they satisfy (default: anything).

        Returns
        -------
        Query
            A new query of one step.

        Raises
        ------
        QueryError
            When the quantifier or the predicate is invalid.
        """
        return Query((QueryNode(quantifier, predicate),))

    def rel(
        self, quantifier: Quantifier = ".", predicate: Predicate | Callable | None = None
    ) -> Query:
        """This query followed by one more node, a child of the previous one's match.

        Parameters
        ----------
        quantifier : {".", "*", "+"} or int, default "."
            How many nodes the step matches.
        predicate : Predicate or callable, optional
            What they satisfy (default: anything).

        Returns
        -------
        Query
            A new query; this one is unchanged.

        Raises
        ------
        QueryError
            When the query has no first step (start with :meth:`match`).
        """
        if not self.nodes:
            raise QueryError("rel() follows match(): start the query with match()")
        return Query((*self.nodes, QueryNode(quantifier, predicate)), self.returns)

    def returning(self, *positions: int) -> Query:
        """This query keeping only the nodes matched at the given positions (0 is the
        first query node), as Cypher's ``RETURN`` does: ``Query().match(".",
        col("name") == "solve").rel("+").returning(1)`` is the descendants of ``solve``.

        Parameters
        ----------
        *positions : int
            Positions of query nodes; none (or all of them) keeps every matched node.

        Returns
        -------
        Query
            A new query; this one is unchanged.

        Raises
        ------
        QueryError
            When a position is not one of the query's.

        Examples
        --------
        >>> from glade.query import Query, col
        >>> str(Query().match(".", col("name") == "solve").rel("+").returning(1))
        'MATCH (".", n0)->("+", n1) WHERE n0.name = "solve" RETURN n1'
        """
        return Query(self.nodes, positions or None)

    @property
    def returned(self) -> tuple[int, ...]:
        """The positions whose matched nodes the query keeps (every position by default)."""
        return tuple(range(len(self.nodes))) if self.returns is None else self.returns

    @property
    def serializable(self) -> bool:
        """True when the query can be written as text (no Python callables)."""
        return all(node.predicate.serializable for node in self.nodes)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Query) and other.nodes == self.nodes and other.returns == self.returns
        )

    def __hash__(self) -> int:
        return hash(("query", self.nodes, self.returns))

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        if not self.nodes:
            return "Query()"
        parts = [f".match({self.nodes[0].quantifier!r}, {self.nodes[0].predicate!r})"]
        parts += [f".rel({n.quantifier!r}, {n.predicate!r})" for n in self.nodes[1:]]
        if self.returns is not None:
            parts.append(f".returning({', '.join(map(str, self.returns))})")
        return "Query()" + "".join(parts)


def _check_returns(returns: Iterable[int] | None, size: int) -> tuple[int, ...] | None:
    """Sorted distinct returned positions, or None for all of them."""
    if returns is None:
        return None
    if isinstance(returns, str | bytes) or not isinstance(returns, Iterable):
        raise QueryError(f"the returned positions are a list of integers, not {returns!r}")
    positions = set()
    for position in returns:
        if isinstance(position, bool) or not isinstance(position, int):
            raise QueryError(f"{position!r} is not a query position")
        if not 0 <= position < size:
            raise QueryError(f"position {position} is not one of the query's 0..{size - 1}")
        positions.add(int(position))
    if not positions or len(positions) == size:
        return None
    return tuple(sorted(positions))


COMPOUND_OPS = ("and", "or", "xor", "not")
#: The canonical text of the query that keeps every node (what a view without edits emits).
EVERYTHING = 'MATCH ("*")'


class CompoundQuery(BaseQuery):
    """Queries combined by their node sets.

    ``and`` (intersection), ``or`` (union), ``xor`` (nodes in an odd number of them),
    ``not`` (complement of one query). Built by ``q1 & q2``, ``q1 | q2``, ``q1 ^ q2`` and
    ``~q``.

    Parameters
    ----------
    op : {"and", "or", "xor", "not"}
        The operator.
    queries : tuple of BaseQuery
        One query for ``not``, at least two for the others.

    Raises
    ------
    QueryError
        When the operator is unknown, the number of queries is wrong, or one is empty or
        not a query.
    """

    __slots__ = ("depth", "op", "queries")

    def __init__(self, op: str, queries: tuple[BaseQuery, ...]):
        if op not in COMPOUND_OPS:
            raise QueryError(f"unknown compound operator {op!r}")
        queries = tuple(queries)
        if op == "not" and len(queries) != 1:
            raise QueryError("'not' takes exactly one query")
        if op != "not" and len(queries) < 2:
            raise QueryError(f"'{op}' combines at least two queries")
        for query in queries:
            if not isinstance(query, BaseQuery):
                raise QueryError(f"{query!r} is not a query")
            if isinstance(query, Query) and not query.nodes:
                raise QueryError("an empty query cannot be combined")
        self.op = op
        self.queries = queries
        self.depth = nested_depth(queries)

    @classmethod
    def of(cls, op: str, *queries: BaseQuery) -> CompoundQuery:
        """The compound, flattening nested compounds of the same associative operator.

        Parameters
        ----------
        op : {"and", "or", "xor", "not"}
            The operator.
        *queries : BaseQuery
            The queries.

        Returns
        -------
        CompoundQuery
            The compound.

        Raises
        ------
        QueryError
            As for the constructor.
        """
        flat: list[BaseQuery] = []
        for query in queries:
            if isinstance(query, CompoundQuery) and query.op == op and op != "not":
                flat.extend(query.queries)
            else:
                flat.append(query)
        return cls(op, tuple(flat))

    @property
    def serializable(self) -> bool:
        """True when the query can be written as text (no Python callables)."""
        return all(q.serializable for q in self.queries)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, CompoundQuery)
            and other.op == self.op
            and other.queries == self.queries
        )

    def __hash__(self) -> int:
        return hash((self.op, self.queries))

    def __repr__(self) -> str:
        return f"CompoundQuery({self.op!r}, {self.queries!r})"
