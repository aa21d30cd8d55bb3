"""Canonical string-dialect text of a query: ``parse(render_query(q)) == q``.

Canonical choices: upper-case keywords; query node variables ``n0, n1, ...``
named by position (only nodes with conditions get one); bare property names
when they are simple identifiers, quoted otherwise; ``=`` and ``<>``;
double-quoted strings; conditions of one node joined by AND in node order;
compounds as ``{...} AND {...}``.
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


def _render_plain(query: Query) -> str:
    if not query.nodes:
        raise QueryError("an empty query has no text")
    parts, conditions = [], []
    for i, node in enumerate(query.nodes):
        quant = str(node.quantifier) if isinstance(node.quantifier, int) else quote(node.quantifier)
        if isinstance(node.predicate, Always):
            parts.append(f"({quant})")
            continue
        var = f"n{i}"
        parts.append(f"({quant}, {var})")
        conditions.append(render_predicate(node.predicate, var, _PREC_OR))
    text = "MATCH " + "->".join(parts)
    if conditions:
        text += " WHERE " + " AND ".join(conditions)
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
    blocks = ["{" + _render(q) + "}" for q in query.queries]
    if query.op == "not":
        return "NOT " + blocks[0]
    return f" {query.op.upper()} ".join(blocks)
