"""Canonical string-dialect text of a query: ``parse(render_query(q)) == q``.

Canonical choices: upper-case keywords; query node variables ``n0, n1, ...``
named by position (only nodes with conditions, or returned, get one); a first run of
steps that name a call path from a root (``IS ROOT`` and ``name = "main"``, then one
``name = ...`` a step) as one call-path literal ``("main/solve")``; bare property names
when they are simple identifiers, quoted otherwise; ``=`` and ``<>``;
double-quoted strings; times with their unit; conditions of one node joined by AND in
node order; ``RETURN`` when only some nodes are kept; compounds as ``{...} AND NOT {...}``.
"""

from __future__ import annotations

import re

from glade.errors import QueryError
from glade.query.model import BaseQuery, CompoundQuery, Query
from glade.query.predicates import (
    Always,
    And,
    Compare,
    IsIn,
    IsSpecial,
    Not,
    Or,
    Predicate,
    StringTest,
    Structure,
    TimeValue,
)

KEYWORDS = {
    "MATCH",
    "WHERE",
    "AND",
    "OR",
    "XOR",
    "NOT",
    "IS",
    "IN",
    "STARTS",
    "ENDS",
    "WITH",
    "CONTAINS",
    "TRUE",
    "FALSE",
    "NAN",
    "INF",
    "NONE",
    "LEAF",
    "ROOT",
    "RETURN",
}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPS = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_TESTS = {
    "regex": "=~",
    "startswith": "STARTS WITH",
    "endswith": "ENDS WITH",
    "contains": "CONTAINS",
}
_PREC_OR, _PREC_AND, _PREC_NOT = 1, 2, 3


def quote(text: str) -> str:
    """``text`` as a double-quoted string literal."""
    out = ['"']
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def literal(value) -> str:
    """A value as a literal: TRUE/FALSE, an integer, a float that reads back exactly,
    or a quoted string."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, TimeValue):
        return value.text()
    return quote(value)


def prop(var: str, column: str) -> str:
    """``var.column``, the column quoted unless it is a plain identifier."""
    bare = _IDENT.fullmatch(column) and column.upper() not in KEYWORDS
    return f"{var}.{column}" if bare else f"{var}.{quote(column)}"


def render_predicate(predicate: Predicate, var: str, outer: int = 0) -> str:
    """The condition text of ``predicate`` on variable ``var``."""
    if isinstance(predicate, Compare):
        return f"{prop(var, predicate.column)} {_OPS[predicate.op]} {literal(predicate.value)}"
    if isinstance(predicate, StringTest):
        return f"{prop(var, predicate.column)} {_TESTS[predicate.test]} {quote(predicate.pattern)}"
    if isinstance(predicate, IsIn):
        values = ", ".join(literal(v) for v in predicate.values)
        return f"{prop(var, predicate.column)} IN [{values}]"
    if isinstance(predicate, IsSpecial):
        return f"{prop(var, predicate.column)} IS {predicate.kind.upper()}"
    if isinstance(predicate, Structure):
        return f"{var} IS {predicate.kind.upper()}"
    if isinstance(predicate, Not):
        inner = predicate.item
        if isinstance(inner, IsSpecial):
            return f"{prop(var, inner.column)} IS NOT {inner.kind.upper()}"
        if isinstance(inner, Structure):
            return f"{var} IS NOT {inner.kind.upper()}"
        return "NOT " + render_predicate(inner, var, _PREC_NOT)
    if isinstance(predicate, And | Or):
        prec = _PREC_AND if isinstance(predicate, And) else _PREC_OR
        word = " AND " if prec == _PREC_AND else " OR "
        text = word.join(render_predicate(item, var, prec) for item in predicate.items)
        return f"({text})" if outer >= prec else text
    if isinstance(predicate, Always):
        raise QueryError("a condition-free predicate has no text inside an expression")
    raise QueryError(f"{predicate!r} cannot be written as text (a Python function?)")


def _path_name(predicate: Predicate) -> str | None:
    """The name a call-path literal may hold for a step whose predicate is ``name = x``
    (None when it is anything else, or a name a literal cannot spell)."""
    if not (isinstance(predicate, Compare) and predicate.column == "name"):
        return None
    name = predicate.value
    if predicate.op != "==" or not isinstance(name, str) or not name or "/" in name:
        return None
    return None if name in (".", "*", "+") else name


def call_path_prefix(query: Query) -> tuple[list[str], Predicate]:
    """The names of the longest first run of steps a call-path literal spells (empty when
    the query does not start at a root with a name), and the further conditions on its
    last step (``Always()`` when none)."""
    names: list[str] = []
    rest: Predicate = Always()
    for position, node in enumerate(query.nodes):
        if node.quantifier != "." or (
            query.returns is not None and position - 1 in query.returns and names
        ):
            break
        items = list(node.predicate.items) if isinstance(node.predicate, And) else [node.predicate]
        if position == 0:
            if not items or items[0] != Structure("root"):
                break
            items = items[1:]
        name = _path_name(items[0]) if items else None
        if name is None:
            break
        names.append(name)
        rest = And.of(*items[1:])
        if not isinstance(rest, Always):
            break
    return names, rest


def plain_clauses(query: Query) -> tuple[str, list[str], list[str]]:
    """The parts of a plain query's canonical text: the ``MATCH`` pattern, the conditions
    the ``WHERE`` clause joins with AND, and the returned variables."""
    if not query.nodes:
        raise QueryError("an empty query has no text")
    names, rest = call_path_prefix(query)
    parts, conditions, returned = [], [], []
    steps = list(enumerate(query.nodes))
    kept = set(query.returns or ())
    if names:
        last = len(names) - 1
        literal_text = quote("/".join(names))
        steps = steps[len(names) :]
        named = not isinstance(rest, Always) or last in kept
        parts.append(f"({literal_text}, n{last})" if named else f"({literal_text})")
        conditions += _conditions(rest, f"n{last}")
        returned += [f"n{last}"] if last in kept else []
    for i, node in steps:
        quant = str(node.quantifier) if isinstance(node.quantifier, int) else quote(node.quantifier)
        if isinstance(node.predicate, Always) and i not in kept:
            parts.append(f"({quant})")
            continue
        var = f"n{i}"
        parts.append(f"({quant}, {var})")
        conditions += _conditions(node.predicate, var)
        returned += [var] if i in kept else []
    return "MATCH " + "->".join(parts), conditions, returned


def _conditions(predicate: Predicate, var: str) -> list[str]:
    """The texts a WHERE clause joins with AND for ``predicate`` on ``var``."""
    if isinstance(predicate, Always):
        return []
    items = predicate.items if isinstance(predicate, And) else (predicate,)
    return [render_predicate(item, var, _PREC_AND) for item in items]


def _render_plain(query: Query) -> str:
    pattern, conditions, returned = plain_clauses(query)
    text = pattern
    if conditions:
        text += " WHERE " + " AND ".join(conditions)
    if returned:
        text += " RETURN " + ", ".join(returned)
    return text


def render_query(query: BaseQuery) -> str:
    """The canonical text of ``query``; QueryError if it holds Python callables."""
    if not query.serializable:
        raise QueryError(
            "a query with Python function predicates cannot be written as text; "
            "use col(...) expressions instead"
        )
    return _render(query)


def _render(query: BaseQuery) -> str:
    """The text of a query known to be serializable."""
    if isinstance(query, Query):
        return _render_plain(query)
    if not isinstance(query, CompoundQuery):
        raise QueryError(f"{query!r} is not a query")
    blocks = [_operand(q) for q in query.queries]
    if query.op == "not":
        return "NOT " + blocks[0]
    return f" {query.op.upper()} ".join(blocks)


def _operand(query: BaseQuery) -> str:
    """An operand of a compound: ``{...}``, or ``NOT {...}`` (NOT binds tightest)."""
    if isinstance(query, CompoundQuery) and query.op == "not":
        return "NOT " + _operand(query.queries[0])
    return "{" + _render(query) + "}"
