"""The readable form of a query: :func:`simplify` (shorter, same meaning on every graph)
and :func:`format` (pretty-printed text, one clause a line when long).

Every rewrite of :func:`simplify` holds on every graph, for every data and rank mode,
because every query selects only nodes that have rows (``NOT`` is the complement within
them):

- nested compounds of one operator are flattened, and repeated operands dropped
  (``A AND A`` is ``A``; in ``XOR`` a pair cancels: an edit and its undo);
- ``NOT {NOT {A}}`` is ``A``; ``MATCH ("*")`` (every node) drops out of an ``AND``;
- De Morgan: ``NOT {A} AND NOT {B}`` is ``NOT {A OR B}`` (and ``OR`` likewise);
- absorption: ``A OR {A AND B}`` is ``A``, ``A AND {A OR B}`` is ``A``;
- common conditions leave an OR: ``(a AND b) OR (a AND c)`` is ``a AND (b OR c)``;
- ``IN`` lists: alternatives that differ only in the name of one single-node step
  (``{MATCH (n) WHERE n.name = "a"} OR {MATCH (n) WHERE n.name = "b"}``) are one query
  with ``n.name IN ["a", "b"]`` (a name is a frame attribute: one value per node, so
  this holds for every rank mode), and within one condition
  ``p.x = "a" OR p.x = "b"`` is ``p.x IN ["a", "b"]``.
"""

from __future__ import annotations

from typing import Any

from glade.query.model import EVERYTHING, BaseQuery, CompoundQuery, Query, QueryNode
from glade.query.parse import parse
from glade.query.predicates import Always, And, Compare, IsIn, Not, Or, Predicate
from glade.query.render import plain_clauses, render_query

#: Lines longer than this are split by :func:`format`.
WIDTH = 88
_INDENT = "  "


def simplify(query: Any) -> BaseQuery:
    """A shorter query that selects exactly the nodes ``query`` selects, on every graph.

    Parameters
    ----------
    query : BaseQuery, str or list
        A query in any form (see :func:`glade.query.parse`).

    Returns
    -------
    BaseQuery
        The simplified query (``query`` itself when nothing applies). The rewrites are
        listed in :mod:`glade.query.readable`.

    Raises
    ------
    QueryError
        When ``query`` is not a query.

    Examples
    --------
    >>> from glade.query import simplify
    >>> str(simplify('NOT {MATCH (".", a) WHERE a.name = "x"} AND '
    ...              'NOT {MATCH (".", b) WHERE b.name = "y"}'))
    'NOT {MATCH (".", n0) WHERE n0.name IN ["x", "y"]}'
    """
    parsed = parse(query)
    for _ in range(8):
        simpler = _simplify(parsed)
        if simpler == parsed:
            break
        parsed = simpler
    return parsed


def _simplify(query: BaseQuery) -> BaseQuery:
    if isinstance(query, Query):
        nodes = tuple(QueryNode(n.quantifier, _predicate(n.predicate)) for n in query.nodes)
        return Query(nodes, query.returns)
    if not isinstance(query, CompoundQuery):
        return query
    items = [_simplify(q) for q in query.queries]
    if query.op == "not":
        inner = items[0]
        if isinstance(inner, CompoundQuery) and inner.op == "not":
            return inner.queries[0]
        return CompoundQuery("not", (inner,))
    flat: list[BaseQuery] = []
    for item in items:
        parts = item.queries if isinstance(item, CompoundQuery) and item.op == query.op else [item]
        for part in parts:
            if query.op == "xor" and part in flat:
                flat.remove(part)
            elif part not in flat:
                flat.append(part)
    if query.op == "xor":
        return _compound("xor", flat) if flat else query
    if query.op == "and":
        everything = parse(EVERYTHING)
        flat = [q for q in flat if q != everything] or [everything]
    flat = _absorb(query.op, flat)
    flat = _de_morgan(query.op, flat)
    if query.op == "or":
        flat = _in_lists(flat)
    return _compound(query.op, flat)


def _compound(op: str, items: list[BaseQuery]) -> BaseQuery:
    return items[0] if len(items) == 1 else CompoundQuery.of(op, *items)


def _absorb(op: str, items: list[BaseQuery]) -> list[BaseQuery]:
    """Drop each operand that is a compound of the other operator holding another operand
    (``A OR {A AND B}`` is ``A``)."""
    other = "and" if op == "or" else "or"
    return [
        q
        for q in items
        if not (
            isinstance(q, CompoundQuery)
            and q.op == other
            and any(p is not q and p in q.queries for p in items)
        )
    ]


def _de_morgan(op: str, items: list[BaseQuery]) -> list[BaseQuery]:
    """Several ``NOT`` operands as one: ``NOT {A} AND NOT {B}`` is ``NOT {A OR B}``."""
    negated = [q for q in items if isinstance(q, CompoundQuery) and q.op == "not"]
    if len(negated) < 2:
        return items
    other = "or" if op == "and" else "and"
    inner = _simplify(
        _compound(other, [q.queries[0] for q in negated if isinstance(q, CompoundQuery)])
    )
    merged = CompoundQuery("not", (inner,))
    first = items.index(negated[0])
    rest = [q for q in items if q not in negated]
    return [*rest[:first], merged, *rest[first:]]


def _in_lists(items: list[BaseQuery]) -> list[BaseQuery]:
    """Alternatives that differ only in the name one single-node step asks for, as one
    query with an ``IN`` list of the names."""
    out: list[BaseQuery] = []
    for query in items:
        for position, kept in enumerate(out):
            merged = _merge_names(kept, query)
            if merged is not None:
                out[position] = merged
                break
        else:
            out.append(query)
    return out


def _split_name(predicate: Predicate) -> tuple[list[str], Predicate] | None:
    """The string names a predicate asks for (``name = x``, or ``name IN [...]``, alone or
    first of an AND) and the rest of it."""
    items = list(predicate.items) if isinstance(predicate, And) else [predicate]
    for index, item in enumerate(items):
        names = None
        if isinstance(item, Compare) and item.column == "name" and item.op == "==":
            names = [item.value] if isinstance(item.value, str) else None
        elif isinstance(item, IsIn) and item.column == "name":
            names = list(item.values) if all(isinstance(v, str) for v in item.values) else None
        if names is not None:
            return names, And.of(*items[:index], Always(), *items[index + 1 :])
    return None


def _merge_names(a: BaseQuery, b: BaseQuery) -> Query | None:
    """``a OR b`` as one query, when they differ only in the names of one single-node
    step (None otherwise)."""
    if not (isinstance(a, Query) and isinstance(b, Query)):
        return None
    if len(a.nodes) != len(b.nodes) or a.returns != b.returns:
        return None
    differ = [i for i, (x, y) in enumerate(zip(a.nodes, b.nodes, strict=True)) if x != y]
    if len(differ) != 1 or a.nodes[differ[0]].quantifier != ".":
        return None
    position = differ[0]
    left = _split_name(a.nodes[position].predicate)
    right = _split_name(b.nodes[position].predicate)
    if left is None or right is None or left[1] != right[1]:
        return None
    names = left[0] + [n for n in right[0] if n not in left[0]]
    ask = Compare("name", "==", names[0]) if len(names) == 1 else IsIn("name", tuple(names))
    original = a.nodes[position].predicate
    items = list(original.items) if isinstance(original, And) else [original]
    index = next(i for i, item in enumerate(items) if _split_name(item) is not None)
    items[index] = ask
    nodes = list(a.nodes)
    nodes[position] = QueryNode(".", And.of(*items))
    return Query(nodes, a.returns)


def _predicate(predicate: Predicate) -> Predicate:
    """Within one row: ``NOT NOT p`` is ``p``; string equalities on one column under OR
    are one ``IN`` list; repeated items of AND and OR are dropped."""
    if isinstance(predicate, Not):
        inner = _predicate(predicate.item)
        return inner.item if isinstance(inner, Not) else Not(inner)
    if not isinstance(predicate, And | Or):
        return predicate
    items: list[Predicate] = []
    for item in (_predicate(i) for i in predicate.items):
        if item not in items:
            items.append(item)
    if isinstance(predicate, And):
        return And.of(*items)
    common = _common_items(items)
    if common:  # (a AND b) OR (a AND c) is a AND (b OR c), on the same row
        rests = [And.of(*(i for i in _items(item) if i not in common)) for item in items]
        if not any(isinstance(rest, Always) for rest in rests):
            return And.of(*common, _predicate(Or.of(*rests)))
    merged: list[Predicate] = []
    columns: dict[str, int] = {}
    for item in items:
        values = _equal_strings(item)
        if values is None:
            merged.append(item)
            continue
        column, strings = values
        if column in columns:
            _, before = _equal_strings(merged[columns[column]])  # type: ignore[misc]
            union = before + [v for v in strings if v not in before]
            merged[columns[column]] = IsIn(column, tuple(union))
        else:
            columns[column] = len(merged)
            merged.append(item)
    return Or.of(*merged)


def _items(predicate: Predicate) -> tuple[Predicate, ...]:
    return predicate.items if isinstance(predicate, And) else (predicate,)


def _common_items(items: list[Predicate]) -> list[Predicate]:
    """The items of the first AND that every other item (an AND or a single condition)
    has too."""
    first = _items(items[0])
    return [i for i in first if all(i in _items(other) for other in items[1:])]


def _equal_strings(predicate: Predicate) -> tuple[str, list[str]] | None:
    if isinstance(predicate, Compare) and predicate.op == "==" and isinstance(predicate.value, str):
        return predicate.column, [predicate.value]
    if isinstance(predicate, IsIn) and all(isinstance(v, str) for v in predicate.values):
        return predicate.column, list(predicate.values)
    return None


def format(query: Any, width: int = WIDTH) -> str:
    """The canonical text of ``query``, pretty-printed: on one line when it fits in
    ``width`` characters, else one clause a line (``MATCH``, ``WHERE``, each further
    condition as ``AND ...``, ``RETURN``) and one operand of a compound a line, nested
    blocks indented. Only white space differs from ``str(query)``, so it parses back to
    an equal query.

    Parameters
    ----------
    query : BaseQuery, str or list
        A query in any form (see :func:`glade.query.parse`).
    width : int
        The longest line kept whole.

    Returns
    -------
    str
        The text.

    Raises
    ------
    QueryError
        When ``query`` holds Python functions (it has no text).

    Examples
    --------
    >>> from glade.query import format
    >>> print(format('{MATCH ("main")->("*")} AND NOT {MATCH (n) WHERE n.depth > 2}', width=30))
    {MATCH ("main")->("*")}
    AND NOT {
      MATCH (".", n0)
      WHERE n0.depth > 2
    }
    """
    parsed = parse(query)
    render_query(parsed)  # the error for queries without text
    return "\n".join(_lines(parsed, 0, width))


def _lines(query: BaseQuery, indent: int, width: int) -> list[str]:
    """The lines of ``query`` at ``indent`` levels."""
    pad = _INDENT * indent
    text = str(query)
    if len(pad) + len(text) <= width:
        return [pad + text]
    if isinstance(query, Query):
        pattern, conditions, returned = plain_clauses(query)
        clauses = [pad + pattern]
        for i, condition in enumerate(conditions):
            lead = pad + ("WHERE " if i == 0 else "  AND ")
            clauses += _condition_lines(condition, lead, pad, width)
        if returned:
            clauses.append(pad + "RETURN " + ", ".join(returned))
        return clauses
    assert isinstance(query, CompoundQuery)
    if query.op == "not":
        return _block(query, "", indent, width)
    lines: list[str] = []
    for i, operand in enumerate(query.queries):
        lines += _block(operand, "" if i == 0 else query.op.upper() + " ", indent, width)
    return lines


def _condition_lines(condition: str, lead: str, pad: str, width: int) -> list[str]:
    """One condition of a WHERE clause; a long ``(a OR b)`` one alternative a line."""
    if len(lead) + len(condition) <= width or not condition.startswith("("):
        return [lead + condition]
    alternatives = _split_top(condition[1:-1], " OR ")
    if len(alternatives) < 2:
        return [lead + condition]
    inner = pad + "    "
    return [
        lead + "(",
        inner + alternatives[0],
        *(inner + "OR " + alternative for alternative in alternatives[1:]),
        pad + "  )",
    ]


def _split_top(text: str, word: str) -> list[str]:
    """``text`` split at ``word`` where it is outside parentheses, brackets and quotes."""
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and text.startswith(word, i):
            parts.append(text[start:i])
            start = i + len(word)
            i = start
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _block(query: BaseQuery, lead: str, indent: int, width: int) -> list[str]:
    """``lead {query}`` on one line when it fits, else ``lead {`` ... ``}`` (``NOT``
    written before the braces, as the renderer does)."""
    while isinstance(query, CompoundQuery) and query.op == "not":
        lead += "NOT "
        query = query.queries[0]
    pad = _INDENT * indent
    text = f"{pad}{lead}{{{query}}}"
    if len(text) <= width:
        return [text]
    return [f"{pad}{lead}{{", *_lines(query, indent + 1, width), pad + "}"]
