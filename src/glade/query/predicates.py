"""Predicates on the rows of a node: what a query node asks of the nodes it matches.

Predicates are immutable expression trees (comparisons, string tests, special
values, structure) combined with ``&``, ``|`` and ``~``. Every predicate except
:class:`CallablePredicate` can be written in the string dialect and evaluated
with one vectorized mask over all rows. Build them with :func:`col`,
:func:`is_leaf` and :func:`is_root`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from glade.errors import QueryError
from glade.query.regex import compile_regex

#: Deepest nesting of ``&``/``|``/``~`` (and of compound queries) a query may have.
MAX_NESTING = 200

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
STRING_TESTS = ("regex", "startswith", "endswith", "contains")
SPECIALS = ("nan", "inf", "none")
STRUCTURE = ("leaf", "root")

#: Nanoseconds per time unit of the string dialect (``9.54 ms``, ``450 us``).
TIME_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


@dataclass(frozen=True)
class TimeValue:
    """A time in a query: ``amount`` of ``unit``, absolute or counted from the trace's start.

    With ``from_start``, the time counts from the start of the trace the query runs on
    (``START + 20 ms``), so that a window saved on one run means the same phase of another
    run whose clock starts elsewhere.

    Parameters
    ----------
    amount : str
        The number as written (plain decimal, exact).
    unit : {"ns", "us", "ms", "s"}, default "ns"
        Its unit.
    from_start : bool, default False
        Count from the start of the trace (``START + amount unit``).

    Examples
    --------
    >>> TimeValue("9.54", "ms").ns
    9540000
    >>> TimeValue("20", "ms", from_start=True).text()
    'START + 20 ms'
    """

    amount: str
    unit: str = "ns"
    from_start: bool = False

    def __post_init__(self):
        if self.unit not in TIME_UNITS:
            raise QueryError(f"unknown time unit {self.unit!r} (use {', '.join(TIME_UNITS)})")
        try:
            exact = Decimal(str(self.amount))
        except InvalidOperation:
            raise QueryError(f"{self.amount!r} is not a number of {self.unit}") from None
        if not exact.is_finite() or abs(exact) > Decimal(10) ** 30:
            raise QueryError(f"{self.amount!r} {self.unit} is not a finite time")
        object.__setattr__(self, "amount", _plain(exact))

    @classmethod
    def of_ns(cls, ns: int | float, unit: str, from_start: bool = False) -> TimeValue:
        """A time of ``ns`` nanoseconds written in ``unit``, exactly.

        Parameters
        ----------
        ns : int or float
            The time in ns.
        unit : {"ns", "us", "ms", "s"}
            The unit to write it in.
        from_start : bool, default False
            Count from the start of the trace.

        Returns
        -------
        TimeValue
            E.g. ``of_ns(1500, "us")`` is ``1.5 us``.
        """
        return cls(_plain(Decimal(repr(ns)) / TIME_UNITS[unit]), unit, from_start)

    @property
    def ns(self) -> int | float:
        """The time in nanoseconds (an integer when whole)."""
        value = Decimal(self.amount) * TIME_UNITS[self.unit]
        return int(value) if value == value.to_integral_value() else float(value)

    def text(self) -> str:
        """The time as the string dialect writes it.

        Returns
        -------
        str
            ``"9.54 ms"``, or ``"START + 20 ms"`` from the start.
        """
        own = f"{self.amount} {self.unit}"
        if not self.from_start:
            return own
        if self.amount.startswith("-"):
            return f"START - {self.amount[1:]} {self.unit}"
        return "START" if Decimal(self.amount) == 0 else f"START + {own}"


def _plain(value: Decimal) -> str:
    """``value`` in plain decimal notation without trailing zeros (``"9.54"``, ``"20"``)."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


Scalar = str | int | float | bool | TimeValue


def check_scalar(value: Any, where: str) -> Scalar:
    """``value`` if it is a literal a query can hold (str, bool, int, finite float, or a
    :class:`TimeValue`)."""
    if isinstance(value, bool | str | TimeValue):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QueryError(f"{where}: {value!r} is not a finite number (use isnan/isinf)")
        return float(value)
    if hasattr(value, "item") and not isinstance(value, list | tuple | dict):
        return check_scalar(value.item(), where)
    raise QueryError(f"{where}: {value!r} is not a string, number or boolean")


class Predicate:
    """Base of every predicate; supports ``&``, ``|`` and ``~``."""

    __slots__ = ()

    depth = 1

    def __and__(self, other: Predicate) -> Predicate:
        return And.of(self, _as_predicate(other))

    def __rand__(self, other: Predicate) -> Predicate:
        return And.of(_as_predicate(other), self)

    def __or__(self, other: Predicate) -> Predicate:
        return Or.of(self, _as_predicate(other))

    def __ror__(self, other: Predicate) -> Predicate:
        return Or.of(_as_predicate(other), self)

    def __invert__(self) -> Predicate:
        return Not(self)

    def __bool__(self) -> bool:
        raise QueryError(
            "a predicate has no truth value: combine predicates with &, | and ~ "
            "(not and/or/not), and parenthesize comparisons: (col('a') > 1) & (col('b') < 2)"
        )

    @property
    def serializable(self) -> bool:
        """True when the predicate can be written as text (no Python callables)."""
        return True

    def columns(self) -> set[str]:
        """Names of the columns this predicate reads.

        Returns
        -------
        set of str
            The column names (empty for a predicate that reads none).
        """
        return set()


def _as_predicate(value: Any) -> Predicate:
    if isinstance(value, Predicate):
        return value
    if callable(value):
        return CallablePredicate(value)
    raise QueryError(f"{value!r} is not a predicate")


@dataclass(frozen=True, eq=True, repr=False)
class Always(Predicate):
    """True for every node (a query node without conditions)."""

    def __repr__(self) -> str:
        return "Always()"


@dataclass(frozen=True, repr=False)
class Compare(Predicate):
    """``column op value`` with ``op`` one of ``== != < <= > >=``.

    Built by comparing a :func:`col`: ``col("time") > 5``.

    Parameters
    ----------
    column : str
        The column compared.
    op : {"==", "!=", "<", "<=", ">", ">="}
        The comparison.
    value : str, bool, int, float or TimeValue
        The literal compared with.

    Raises
    ------
    QueryError
        When ``op`` is unknown or ``value`` is not a literal a query can hold.
    """

    column: str
    op: str
    value: Scalar

    def __post_init__(self):
        if self.op not in COMPARISONS:
            raise QueryError(f"unknown comparison {self.op!r}")
        object.__setattr__(self, "value", check_scalar(self.value, f"column {self.column!r}"))

    def columns(self) -> set[str]:
        """Names of the columns this predicate reads.

        Returns
        -------
        set of str
            ``{column}``.
        """
        return {self.column}

    def __repr__(self) -> str:
        return f"(col({self.column!r}) {self.op} {self.value!r})"


@dataclass(frozen=True, repr=False)
class StringTest(Predicate):
    """A test on string values: full regex match, prefix, suffix or substring.

    Parameters
    ----------
    column : str
        The column tested.
    test : {"regex", "startswith", "endswith", "contains"}
        The test.
    pattern : str
        The regular expression (RE2 syntax, matched in full), prefix, suffix or substring.

    Raises
    ------
    QueryError
        When ``test`` is unknown or the pattern is not a valid regular expression.
    """

    column: str
    test: str
    pattern: str

    def __post_init__(self):
        if self.test not in STRING_TESTS:
            raise QueryError(f"unknown string test {self.test!r}")
        if not isinstance(self.pattern, str):
            raise QueryError(f"column {self.column!r}: {self.pattern!r} is not a string")
        if self.test == "regex":
            compile_regex(self.pattern)

    def columns(self) -> set[str]:
        """Names of the columns this predicate reads.

        Returns
        -------
        set of str
            ``{column}``.
        """
        return {self.column}

    def __repr__(self) -> str:
        name = "matches" if self.test == "regex" else self.test
        return f"col({self.column!r}).{name}({self.pattern!r})"


@dataclass(frozen=True, repr=False)
class IsIn(Predicate):
    """The value is one of ``values``.

    Parameters
    ----------
    column : str
        The column tested.
    values : tuple
        The literals it may equal.

    Raises
    ------
    QueryError
        When a value is not a literal a query can hold.
    """

    column: str
    values: tuple

    def __post_init__(self):
        where = f"column {self.column!r}"
        if isinstance(self.values, str | bytes) or not isinstance(self.values, Iterable):
            raise QueryError(f"{where}: isin needs a list of values")
        object.__setattr__(self, "values", tuple(check_scalar(v, where) for v in self.values))

    def columns(self) -> set[str]:
        """Names of the columns this predicate reads.

        Returns
        -------
        set of str
            ``{column}``.
        """
        return {self.column}

    def __repr__(self) -> str:
        return f"col({self.column!r}).isin({list(self.values)!r})"


@dataclass(frozen=True, repr=False)
class IsSpecial(Predicate):
    """The value is NaN (``nan``), infinite (``inf``) or missing (``none``: None or NaN).

    Parameters
    ----------
    column : str
        The column tested.
    kind : {"nan", "inf", "none"}
        Which special value.

    Raises
    ------
    QueryError
        When ``kind`` is none of the three.
    """

    column: str
    kind: str

    def __post_init__(self):
        if self.kind not in SPECIALS:
            raise QueryError(f"unknown special value {self.kind!r}")

    def columns(self) -> set[str]:
        """Names of the columns this predicate reads.

        Returns
        -------
        set of str
            ``{column}``.
        """
        return {self.column}

    def __repr__(self) -> str:
        name = {"nan": "isnan", "inf": "isinf", "none": "isnull"}[self.kind]
        return f"col({self.column!r}).{name}()"


@dataclass(frozen=True, repr=False)
class Structure(Predicate):
    """The node is a leaf (no children) or a root.

    Built by :func:`is_leaf` and :func:`is_root`.

    Parameters
    ----------
    kind : {"leaf", "root"}
        Which structure.

    Raises
    ------
    QueryError
        When ``kind`` is neither.
    """

    kind: str

    def __post_init__(self):
        if self.kind not in STRUCTURE:
            raise QueryError(f"unknown structural test {self.kind!r}")

    def __repr__(self) -> str:
        return f"is_{self.kind}()"


def nested_depth(items: tuple) -> int:
    """The nesting depth of a node combining ``items``; QueryError past MAX_NESTING."""
    depth = 1 + max((getattr(i, "depth", 1) for i in items), default=0)
    if depth > MAX_NESTING:
        raise QueryError(f"the query nests more than {MAX_NESTING} levels deep")
    return depth


@dataclass(frozen=True, repr=False)
class _Junction(Predicate):
    """Items combined on the same row: the shared part of And and Or."""

    items: tuple
    symbol = "?"

    def __post_init__(self):
        for item in self.items:
            if not isinstance(item, Predicate):
                raise QueryError(f"{item!r} is not a predicate")
        object.__setattr__(self, "depth", nested_depth(self.items))

    @property
    def serializable(self) -> bool:
        """True when every item can be written as text."""
        return all(i.serializable for i in self.items)

    def columns(self) -> set[str]:
        """Names of the columns this predicate reads.

        Returns
        -------
        set of str
            The columns of every item.
        """
        return set().union(*(i.columns() for i in self.items))

    def __repr__(self) -> str:
        return "(" + f" {self.symbol} ".join(repr(i) for i in self.items) + ")"


@dataclass(frozen=True, repr=False)
class And(_Junction):
    """Every item holds (on the same row). Built by ``p & q``.

    Parameters
    ----------
    items : tuple of Predicate
        The predicates (at least two; see :meth:`of`).
    """

    symbol = "&"

    @classmethod
    def of(cls, *items: Predicate) -> Predicate:
        """The conjunction, flattened; ``Always`` items are dropped.

        Parameters
        ----------
        *items : Predicate
            The predicates.

        Returns
        -------
        Predicate
            An And, the one item left, or ``Always`` when none is.
        """
        flat: list[Predicate] = []
        for item in items:
            if isinstance(item, And):
                flat.extend(item.items)
            elif not isinstance(item, Always):
                flat.append(item)
        if not flat:
            return Always()
        return flat[0] if len(flat) == 1 else cls(tuple(flat))


@dataclass(frozen=True, repr=False)
class Or(_Junction):
    """At least one item holds (on the same row). Built by ``p | q``.

    Parameters
    ----------
    items : tuple of Predicate
        The predicates (at least two; see :meth:`of`).
    """

    symbol = "|"

    @classmethod
    def of(cls, *items: Predicate) -> Predicate:
        """The disjunction, flattened; ``Always`` makes it ``Always``.

        Parameters
        ----------
        *items : Predicate
            The predicates.

        Returns
        -------
        Predicate
            An Or, the one item given, or ``Always``.
        """
        flat: list[Predicate] = []
        for item in items:
            if isinstance(item, Always):
                return Always()
            flat.extend(item.items if isinstance(item, Or) else [item])
        return flat[0] if len(flat) == 1 else cls(tuple(flat))


@dataclass(frozen=True, repr=False)
class Not(Predicate):
    """The item does not hold. Built by ``~p``.

    Parameters
    ----------
    item : Predicate
        The predicate negated.
    """

    item: Predicate

    def __post_init__(self):
        if not isinstance(self.item, Predicate):
            raise QueryError(f"{self.item!r} is not a predicate")
        if isinstance(self.item, Always):
            raise QueryError(
                "negating a node without conditions matches nothing; "
                "use a compound query (~query) to exclude nodes"
            )
        object.__setattr__(self, "depth", nested_depth((self.item,)))

    @property
    def serializable(self) -> bool:
        """True when the item can be written as text."""
        return self.item.serializable

    def columns(self) -> set[str]:
        """Names of the columns this predicate reads.

        Returns
        -------
        set of str
            The item's columns.
        """
        return self.item.columns()

    def __repr__(self) -> str:
        return f"~{self.item!r}"


class CallablePredicate(Predicate):
    """A Python function of a node's row, evaluated once per node; cannot be written as text.

    The function gets the node's row (a Series), or its rows (a DataFrame) when the node
    has several.

    Parameters
    ----------
    function : callable
        Returns a bool.

    Raises
    ------
    QueryError
        When ``function`` is not callable.
    """

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Any], bool]):
        if not callable(function):
            raise QueryError(f"{function!r} is not callable")
        self.function = function

    @property
    def serializable(self) -> bool:
        """False: a Python function cannot be written as text."""
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CallablePredicate) and other.function is self.function

    def __hash__(self) -> int:
        return hash(("callable", id(self.function)))

    def __repr__(self) -> str:
        return f"CallablePredicate({getattr(self.function, '__name__', self.function)!r})"


class Column:
    """A column named in a predicate: compare it or test it to get a :class:`Predicate`.

    Built by :func:`col`.

    Parameters
    ----------
    name : str
        The column's name.

    Raises
    ------
    QueryError
        When ``name`` is not a non-empty string.
    """

    __slots__ = ("name",)

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise QueryError(f"a column name must be a non-empty string, not {name!r}")
        self.name = name

    def __eq__(self, value: Any) -> Predicate:  # type: ignore[override]
        return Compare(self.name, "==", value)

    def __ne__(self, value: Any) -> Predicate:  # type: ignore[override]
        return Compare(self.name, "!=", value)

    def __lt__(self, value: Any) -> Predicate:
        return Compare(self.name, "<", value)

    def __le__(self, value: Any) -> Predicate:
        return Compare(self.name, "<=", value)

    def __gt__(self, value: Any) -> Predicate:
        return Compare(self.name, ">", value)

    def __ge__(self, value: Any) -> Predicate:
        return Compare(self.name, ">=", value)

    __hash__ = None  # type: ignore[assignment]

    def matches(self, pattern: str) -> Predicate:
        """The whole string value matches the regular expression ``pattern``.

        Parameters
        ----------
        pattern : str
            A regular expression (RE2 syntax), matched in full.

        Returns
        -------
        Predicate
            The test.
        """
        return StringTest(self.name, "regex", pattern)

    def startswith(self, prefix: str) -> Predicate:
        """The string value starts with ``prefix``.

        Parameters
        ----------
        prefix : str
            The prefix.

        Returns
        -------
        Predicate
            The test.
        """
        return StringTest(self.name, "startswith", prefix)

    def endswith(self, suffix: str) -> Predicate:
        """The string value ends with ``suffix``.

        Parameters
        ----------
        suffix : str
            The suffix.

        Returns
        -------
        Predicate
            The test.
        """
        return StringTest(self.name, "endswith", suffix)

    def contains(self, part: str) -> Predicate:
        """The string value contains ``part``.

        Parameters
        ----------
        part : str
            The substring.

        Returns
        -------
        Predicate
            The test.
        """
        return StringTest(self.name, "contains", part)

    def isin(self, values: Iterable[Scalar]) -> Predicate:
        """The value is one of ``values``.

        Parameters
        ----------
        values : iterable
            Literals (str, bool, int, float).

        Returns
        -------
        Predicate
            The test.
        """
        return IsIn(self.name, tuple(values))

    def isnan(self) -> Predicate:
        """The value is a floating-point NaN.

        Returns
        -------
        Predicate
            The test.
        """
        return IsSpecial(self.name, "nan")

    def isinf(self) -> Predicate:
        """The value is +inf or -inf.

        Returns
        -------
        Predicate
            The test.
        """
        return IsSpecial(self.name, "inf")

    def isnull(self) -> Predicate:
        """The value is missing (None or NaN).

        Returns
        -------
        Predicate
            The test.
        """
        return IsSpecial(self.name, "none")

    def __repr__(self) -> str:
        return f"col({self.name!r})"


def col(name: str) -> Column:
    """A column, to build vectorized predicates of the query builder.

    Parameters
    ----------
    name : str
        A metric, a frame attribute such as ``name``, or an index level such as
        ``rank``.

    Returns
    -------
    Column
        Compares with ``== != < <= > >=`` and has ``.matches(regex)``,
        ``.startswith``, ``.endswith``, ``.contains``, ``.isin``, ``.isnan()``,
        ``.isinf()``, ``.isnull()``; combine predicates with ``&``, ``|``, ``~``.

    Examples
    --------
    >>> from glade.query import Query, col
    >>> q = Query().match(".", col("name").matches("MPI_.*") & (col("time") > 5)).rel("*")
    >>> str(q).startswith("MATCH")
    True
    """
    return Column(name)


def is_leaf() -> Predicate:
    """The node has no children.

    Returns
    -------
    Predicate
        The test, for a query node: ``Query().match("*").rel(".", is_leaf())``.
    """
    return Structure("leaf")


def is_root() -> Predicate:
    """The node is a root of the graph.

    Returns
    -------
    Predicate
        The test.
    """
    return Structure("root")
