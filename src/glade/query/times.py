"""Times from the trace's start (``START + 20 ms``) made absolute, for engines that match a
query piece by piece (a partition of a Dask trace knows only its own first call)."""

from __future__ import annotations

from typing import Any

from glade.query.model import BaseQuery, CompoundQuery, Query, QueryNode
from glade.query.parse import parse
from glade.query.predicates import And, Compare, Not, Or, Predicate, TimeValue


def anchor(query: Any, origin: int | float) -> BaseQuery:
    """``query`` with every time written from ``START`` replaced by the absolute time it
    means when the trace starts at ``origin`` (ns).

    Parameters
    ----------
    query : BaseQuery, str or list
        A query in any form (see :func:`glade.query.parse`).
    origin : int or float
        The trace's start: its first call or instant, in ns.

    Returns
    -------
    BaseQuery
        The query, times from START made absolute (in ns); the same object when it
        has none.

    Raises
    ------
    QueryError
        When ``query`` is not a query.

    Examples
    --------
    >>> from glade.query import anchor
    >>> str(anchor("MATCH (n) WHERE n.start >= START + 2 ms", 10**12))
    'MATCH (".", n0) WHERE n0.start >= 1000002000000 ns'
    """
    parsed = parse(query)
    return _anchor(parsed, origin)


def _anchor(query: BaseQuery, origin: int | float) -> BaseQuery:
    if isinstance(query, CompoundQuery):
        return CompoundQuery(query.op, tuple(_anchor(q, origin) for q in query.queries))
    assert isinstance(query, Query)
    nodes = tuple(QueryNode(n.quantifier, _predicate(n.predicate, origin)) for n in query.nodes)
    return Query(nodes, query.returns)


def _predicate(predicate: Predicate, origin: int | float) -> Predicate:
    if isinstance(predicate, Compare) and isinstance(predicate.value, TimeValue):
        value = predicate.value
        if value.from_start:
            return Compare(predicate.column, predicate.op, TimeValue.of_ns(value.ns + origin, "ns"))
        return predicate
    if isinstance(predicate, And | Or):
        return type(predicate)(tuple(_predicate(p, origin) for p in predicate.items))
    if isinstance(predicate, Not):
        return Not(_predicate(predicate.item, origin))
    return predicate
