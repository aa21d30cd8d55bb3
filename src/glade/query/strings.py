"""The string dialect: text parsed by lark (LALR) straight into query objects.

Conditions on one variable become that query node's predicate. A WHERE clause
whose OR (or NOT over AND) spans several variables means exactly what it says:
it is expanded into a union of queries, one per alternative.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import cast

import lark
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

from glade.errors import QueryError, QuerySyntaxError
from glade.query.model import BaseQuery, CompoundQuery, Query, QueryNode
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

#: Most alternatives a WHERE clause mixing variables under OR may expand to.
MAX_ALTERNATIVES = 64

_CMP = {"=": "==", "==": "==", "<>": "!=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}
_TOKEN_TEXT = {
    "_MATCH": "MATCH",
    "_WHERE": "WHERE",
    "_AND": "AND",
    "_OR": "OR",
    "_XOR": "XOR",
    "NOT": "NOT",
    "_IS": "IS",
    "_IN": "IN",
    "_STARTS": "STARTS",
    "_ENDS": "ENDS",
    "_WITH": "WITH",
    "_CONTAINS": "CONTAINS",
    "_RETURN": "RETURN",
    "START": "START",
    "UNIT": "a time unit (ns us ms s)",
    "SIGN": "'+' or '-'",
    "TRUE": "TRUE",
    "FALSE": "FALSE",
    "SPECIAL": "NAN/INF/NONE",
    "SHAPE": "LEAF/ROOT",
    "_ARROW": "'->'",
    "REGEX_OP": "'=~'",
    "CMP": "a comparison (= <> < <= > >=)",
    "NAME": "a name",
    "STRING": "a quoted string",
    "INT": "an integer",
    "NUMBER": "a number",
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "DOT": "'.'",
    "$END": "end of text",
}


def unquote(token: str) -> str:
    r"""The text of a quoted string literal: backslash escapes ``\\ \" \' \n \t
    \r \uXXXX`` are decoded, any other backslash is kept (so regexes read naturally)."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            if nxt == "u" and i + 6 <= len(body):
                digits = body[i + 2 : i + 6]
                if all(c in "0123456789abcdefABCDEF" for c in digits):
                    out.append(chr(int(digits, 16)))
                    i += 6
                    continue
        out.append(ch)
        i += 1
    return "".join(out)


# ---------------------------------------------------------------- WHERE formulas
@dataclass(frozen=True)
class _Atom:
    var: str
    predicate: Predicate
    token: Token


@dataclass(frozen=True)
class _Formula:
    op: str  # "and", "or", "not"
    items: tuple

    @property
    def variables(self) -> frozenset:
        return frozenset().union(*(_variables(i) for i in self.items))


def _variables(formula) -> frozenset:
    return frozenset([formula.var]) if isinstance(formula, _Atom) else formula.variables


def _single(formula) -> Predicate:
    """The predicate of a formula over one variable."""
    if isinstance(formula, _Atom):
        return formula.predicate
    parts = [_single(i) for i in formula.items]
    if formula.op == "and":
        return And.of(*parts)
    if formula.op == "or":
        return Or.of(*parts)
    return Not(parts[0])


def _negate(formula):
    """NOT formula, pushed below AND/OR until it sits on one-variable parts."""
    if len(_variables(formula)) == 1:
        return _Formula("not", (formula,))
    if formula.op == "not":
        return formula.items[0]
    flipped = "or" if formula.op == "and" else "and"
    return _Formula(flipped, tuple(_negate(i) for i in formula.items))


def _alternatives(formula) -> list[dict[str, Predicate]]:
    """The formula as a union of alternatives, each a predicate per variable."""
    if len(_variables(formula)) == 1:
        (var,) = _variables(formula)
        return [{var: _single(formula)}]
    if formula.op == "not":
        return _alternatives(_negate(formula.items[0]))
    if formula.op == "or":
        out = [alt for item in formula.items for alt in _alternatives(item)]
    else:
        out = [{}]
        for item in formula.items:
            out = [_merge(left, right) for left in out for right in _alternatives(item)]
            if len(out) > MAX_ALTERNATIVES:
                break
    if len(out) > MAX_ALTERNATIVES:
        raise QueryError(
            f"the WHERE clause expands into more than {MAX_ALTERNATIVES} alternatives; "
            "split it into compound queries"
        )
    return out


def _merge(left: dict, right: dict) -> dict:
    merged = dict(left)
    for var, pred in right.items():
        merged[var] = And.of(merged[var], pred) if var in merged else pred
    return merged


# ------------------------------------------------------------------ transformer
@v_args(inline=False)
class _Build(Transformer):
    """Builds query objects while lark parses (no intermediate tree)."""

    def start(self, items):
        return items[0]

    # compound queries
    def c_or(self, items):
        return items[0] if len(items) == 1 else CompoundQuery.of("or", *items)

    def c_xor(self, items):
        return items[0] if len(items) == 1 else CompoundQuery.of("xor", *items)

    def c_and(self, items):
        return items[0] if len(items) == 1 else CompoundQuery.of("and", *items)

    def c_not(self, items):
        return CompoundQuery("not", (items[1],))

    def c_block(self, items):
        return items[0]

    # path pattern
    def quantifier(self, items):
        token = items[0]
        if token.type == "INT":
            try:
                return int(token), token
            except ValueError as exc:
                raise _at(token, f"quantifier {token[:20]}... is too large") from exc
        text = unquote(token)
        if text in (".", "*", "+"):
            return text, token
        names = text.split("/")
        if not all(names):
            raise _at(
                token,
                f'{text!r} is neither a quantifier (".", "*", "+" or a number) nor a call '
                'path ("main/solve": names from a root, none of them empty)',
            )
        return CallPath(tuple(names)), token

    def qnode_anonymous(self, items):
        return items[0][0], None, items[0][1]

    def qnode_named(self, items):
        return items[0][0], items[1], items[0][1]

    def qnode_single(self, items):
        return ".", items[0], items[0]

    def pattern(self, items):
        return items

    def returns(self, items):
        return _Returns(tuple(items))

    def plain(self, items):
        pattern = items[0]
        rest = items[1:]
        returned = rest.pop() if rest and isinstance(rest[-1], _Returns) else None
        where = rest[0] if rest else None
        declared: dict[str, int] = {}
        steps: list[tuple[str | int, Predicate]] = []
        for position, (quant, name, token) in enumerate(pattern):
            if isinstance(quant, CallPath):
                if position:
                    raise _at(token, "a call path names nodes from a root: it comes first")
                steps += [(".", p) for p in quant.predicates()]
                quant, fixed = steps.pop()
            else:
                fixed = Always()
            if name is not None:
                if str(name) in declared:
                    raise _at(name, f"variable {name!s} is declared twice")
                declared[str(name)] = len(steps)
            steps.append((quant, fixed))
        positions = None
        if returned is not None:
            for name in returned.names:
                if str(name) not in declared:
                    raise _at(name, f"variable {name!s} is not declared in MATCH")
            positions = [declared[str(name)] for name in returned.names]
        if where is None:
            alternatives = [{}]
        else:
            for atom in _atoms(where):
                if atom.var not in declared:
                    raise _at(atom.token, f"variable {atom.var} is not declared in MATCH")
            alternatives = _alternatives(where)
        variable_at = {position: name for name, position in declared.items()}
        queries: list[Query] = []
        for alternative in alternatives:
            nodes = [
                QueryNode(quant, And.of(fixed, alternative.get(variable_at.get(i, ""), Always())))
                for i, (quant, fixed) in enumerate(steps)
            ]
            query = Query(nodes, positions)
            if query not in queries:
                queries.append(query)
        return queries[0] if len(queries) == 1 else CompoundQuery.of("or", *queries)

    # conditions
    def or_cond(self, items):
        return items[0] if len(items) == 1 else _Formula("or", tuple(items))

    def and_cond(self, items):
        return items[0] if len(items) == 1 else _Formula("and", tuple(items))

    def cond_not(self, items):
        inner = items[1]
        if isinstance(inner, _Atom):
            return _Atom(inner.var, Not(inner.predicate), inner.token)
        return _Formula("not", (inner,))

    def prop(self, items):
        var, name = items
        column = unquote(name) if name.type == "STRING" else str(name)
        if not column:
            raise _at(name, "a property name cannot be empty")
        return var, column

    def time_absolute(self, items):
        number, unit = items
        return _time(number, unit, False)

    def time_relative(self, items):
        _, sign, number, unit = items
        if number is None:
            return TimeValue("0", "ns", True)
        return _time(number, unit, True, negative=str(sign) == "-")

    def value(self, items):
        token = items[0]
        if isinstance(token, TimeValue):
            return token
        if token.type == "STRING":
            return unquote(token)
        if token.type == "TRUE":
            return True
        if token.type == "FALSE":
            return False
        text = str(token)
        try:
            if any(c in text for c in ".eE"):
                return float(text)
            return int(text)
        except ValueError as exc:
            raise _at(token, f"number {text[:20]}... is out of range") from exc

    def compare(self, items):
        (var, column), op, value = items
        return _atom(var, lambda: Compare(column, _CMP[str(op)], value))

    def starts_with(self, items):
        (var, column), text = items
        return _atom(var, lambda: StringTest(column, "startswith", unquote(text)))

    def ends_with(self, items):
        (var, column), text = items
        return _atom(var, lambda: StringTest(column, "endswith", unquote(text)))

    def contains(self, items):
        (var, column), text = items
        return _atom(var, lambda: StringTest(column, "contains", unquote(text)))

    def regex(self, items):
        (var, column), _, text = items
        return _atom(var, lambda: StringTest(column, "regex", unquote(text)))

    def isin(self, items):
        (var, column), *values = items
        values = [v for v in values if v is not None]
        return _atom(var, lambda: IsIn(column, tuple(values)))

    def is_special(self, items):
        (var, column), negated, kind = items
        return _atom(var, lambda: _maybe_not(IsSpecial(column, str(kind).lower()), negated))

    def is_shape(self, items):
        var, negated, kind = items
        return _atom(var, lambda: _maybe_not(Structure(str(kind).lower()), negated))


def _time(number: Token, unit: Token, from_start: bool, negative: bool = False) -> TimeValue:
    amount = str(number)
    if negative:
        amount = amount[1:] if amount.startswith("-") else "-" + amount.lstrip("+")
    try:
        return TimeValue(amount, "us" if str(unit) == "\u00b5s" else str(unit), from_start)
    except QueryError as exc:
        raise _at(number, str(exc)) from None


@dataclass(frozen=True)
class _Returns:
    names: tuple


@dataclass(frozen=True)
class CallPath:
    """A call-path literal, ``"main/solve"``: one step per name, the first a root."""

    names: tuple[str, ...]

    def predicates(self) -> list[Predicate]:
        """The condition of each step: ``IS ROOT`` and the name, then the names."""
        first = And.of(Structure("root"), Compare("name", "==", self.names[0]))
        return [first, *(Compare("name", "==", name) for name in self.names[1:])]


def _maybe_not(predicate: Predicate, negated) -> Predicate:
    return Not(predicate) if negated is not None else predicate


def _atom(var: Token, build) -> _Atom:
    try:
        return _Atom(str(var), build(), var)
    except QueryError as exc:
        raise _at(var, str(exc)) from None


def _atoms(formula):
    stack = [formula]
    while stack:
        item = stack.pop()
        if isinstance(item, _Atom):
            yield item
        else:
            stack.extend(item.items)


class _PositionedError(QueryError):
    """A semantic error found while parsing, at a token's position."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line = line
        self.column = column


def _at(token: Token, message: str) -> _PositionedError:
    return _PositionedError(
        message, getattr(token, "line", 0) or 0, getattr(token, "column", 0) or 0
    )


_GRAMMAR = resources.files("glade.query").joinpath("grammar.lark").read_text(encoding="utf-8")


def cache_directory() -> Path:
    """Where glade keeps what it computes once per user: ``$XDG_CACHE_HOME/glade`` or
    ``~/.cache/glade`` (the user's own, so it works for root in a container, for a normal
    user, and beside a read-only install)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "glade"


def build_parser(directory: Path | None) -> Lark:
    """The grammar's LALR parser. Building its tables takes tens of milliseconds (most of
    a fresh kernel's first query); lark keeps them in a file in ``directory`` and loads
    them from there next time (a few milliseconds), checking the file against the
    grammar, the options and lark's and Python's versions. Where the directory cannot be
    made or written, or the file is unreadable or damaged, the parser is built as without
    a cache: nothing is said and every query parses the same. The file is a pickle, so
    it is used only in a directory that is the user's own and that nobody else may write
    to (anyone who could write it could run code in the user's kernel)."""
    cache: str | bool = False
    if directory is not None and _private(directory):
        version = f"lark{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
        cache = str(directory / f"query-grammar-{version}.cache")
    return Lark(_GRAMMAR, parser="lalr", transformer=_Build(), maybe_placeholders=True, cache=cache)


def _private(directory: Path) -> bool:
    """Make ``directory`` if needed; whether it exists, belongs to this user and no one
    else may write to it (ownership is not checked where the system has no user ids)."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = directory.stat()
    except OSError:
        return False
    if not hasattr(os, "getuid"):
        return True
    return status.st_uid == os.getuid() and not status.st_mode & 0o022


_PARSER = build_parser(cache_directory())


def parse_string(text: str) -> BaseQuery:
    """A query from string-dialect text; syntax errors raise QuerySyntaxError (line,
    column, expected tokens, the text with a caret), other mistakes QueryError."""
    if not isinstance(text, str):
        raise QueryError(f"a string-dialect query is text, not {type(text).__name__}")
    if not text.strip():
        raise QuerySyntaxError("empty query", text, 1, 1, ["MATCH", "'{'", "NOT"])
    return _parse_cached(text)


@functools.lru_cache(maxsize=512)
def _parse_cached(text: str) -> BaseQuery:
    """Parse ``text`` (queries are immutable, so views resending one reuse the result)."""
    try:
        return cast(BaseQuery, _PARSER.parse(text))  # the transformer builds the query
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text) from None
    except _PositionedError as exc:  # the transformer runs inside the parser: no VisitError
        raise QuerySyntaxError(str(exc), text, exc.line, exc.column) from None
    except RecursionError:
        raise QueryError("the query nests too deeply") from None


def _syntax_error(exc: UnexpectedInput, text: str) -> QuerySyntaxError:
    token = getattr(exc, "token", None)
    if isinstance(exc, UnexpectedEOF) or (token is not None and token.type == "$END"):
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
        expected = getattr(exc, "expected", None) or ()
        message = "the query ends too early"
    else:
        line, column = exc.line, exc.column
        expected = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()
        if isinstance(exc, UnexpectedCharacters):
            message = f"unexpected character {text[exc.pos_in_stream or 0]!r}"
        else:
            message = f"unexpected {str(token)!r}"
    names = sorted({_TOKEN_TEXT.get(name, name) for name in expected})
    return QuerySyntaxError(message, text, max(line, 1), max(column, 1), names)
