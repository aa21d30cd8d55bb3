"""The object dialect: queries as Python lists, dicts and tuples (Hatchet's Grammar 1).

``[(".", {"name": "P?MPI_.*", "PAPI_L2_TCM": "> 5"}), "*"]``: each item is a
quantifier alone, a dict of conditions (quantifier "."), or a (quantifier,
conditions) pair. A string condition is a regular expression matched against
the whole value, unless it reads as a numeric comparison (``"> 5"``,
``"<= 2.5"``, ``"== 3"``, ``"!= 3"``); a number or boolean means equality;
None means missing; a list means all of its conditions. Nothing is evaluated.
"""

from __future__ import annotations

import re
from typing import Any

from glade.errors import QueryError
from glade.query.model import Query, QueryNode, check_quantifier
from glade.query.predicates import (
    MAX_NESTING,
    Always,
    And,
    CallablePredicate,
    Compare,
    IsSpecial,
    Predicate,
    StringTest,
)

_NUMERIC_CONDITION = re.compile(
    r"\s*(==|!=|<=|>=|<|>)\s*([+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)\s*"
)


def condition(column: str, value: Any, where: str) -> Predicate:
    """The predicate that ``{column: value}`` means in the object dialect."""
    if not isinstance(column, str) or not column:
        raise QueryError(f"{where}: condition keys are column names, not {column!r}")
    if isinstance(value, str):
        found = _NUMERIC_CONDITION.fullmatch(value)
        if found:
            op, number = found.groups()
            numeric = float(number) if any(c in number for c in ".eE") else int(number)
            return Compare(column, op, numeric)
        return StringTest(column, "regex", value)
    if value is None:
        return IsSpecial(column, "none")
    if isinstance(value, list | tuple):
        return And.of(*(condition(column, v, where) for v in _flatten(value, column, where)))
    if isinstance(value, bool | int | float):
        return Compare(column, "==", value)
    raise QueryError(
        f"{where}: column {column!r} has a condition of type "
        f"{type(value).__name__} (use a string, number, boolean, None or a list)"
    )


def _flatten(values: list | tuple, column: str, where: str) -> list:
    """The conditions of a (possibly nested) list, in order, without recursion."""
    out: list = []
    stack = [(iter(values), 1)]
    while stack:
        items, depth = stack[-1]
        item = next(items, _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, list | tuple):
            if depth >= MAX_NESTING:
                raise QueryError(
                    f"{where}: the conditions of column {column!r} nest more "
                    f"than {MAX_NESTING} lists deep"
                )
            stack.append((iter(item), depth + 1))
        else:
            out.append(item)
    if not out:
        raise QueryError(f"{where}: column {column!r} has an empty list of conditions")
    return out


_END = object()


def _conditions(spec: Any, where: str) -> Predicate:
    if isinstance(spec, dict):
        if not spec:
            return Always()
        return And.of(*(condition(k, v, where) for k, v in spec.items()))
    if isinstance(spec, Predicate):
        return spec
    if callable(spec):
        return CallablePredicate(spec)
    raise QueryError(f"{where}: conditions must be a dict, not {type(spec).__name__}")


def parse_object(spec: list) -> Query:
    """A query from the object dialect."""
    if not isinstance(spec, list):
        raise QueryError(f"an object-dialect query is a list, not {type(spec).__name__}")
    if not spec:
        raise QueryError("an object-dialect query needs at least one query node")
    nodes = []
    for i, item in enumerate(spec):
        where = f"query node {i}"
        if isinstance(item, dict | Predicate) or (callable(item) and not isinstance(item, str)):
            nodes.append(QueryNode(".", _conditions(item, where)))
        elif isinstance(item, tuple | list):
            if len(item) != 2:
                raise QueryError(
                    f"{where}: a pair (quantifier, conditions) has 2 items, not {len(item)}"
                )
            quantifier = _quantifier(item[0], where)
            nodes.append(QueryNode(quantifier, _conditions(item[1], where)))
        else:
            nodes.append(QueryNode(_quantifier(item, where), Always()))
    return Query(nodes)


def _quantifier(value: Any, where: str):
    try:
        return check_quantifier(value)
    except QueryError as exc:
        raise QueryError(f"{where}: {exc}") from None
