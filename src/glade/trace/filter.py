"""Selecting the events of a trace.

Two kinds of conditions:

- :class:`Filter` objects (Pipit's): ``Filter(field, operator, value)`` on any column,
  combined with ``&``, ``|`` and ``~``. Each becomes one vectorized boolean mask;
  nothing is ever evaluated as code. Operators: ``==``, ``!=``, ``<``, ``<=``,
  ``>``, ``>=``, ``in``, ``not-in``, ``between`` (inclusive bounds) and ``matches``
  (a regular expression matching the whole value, run by RE2 in linear time, see
  :mod:`glade.query.regex`; an invalid one is a QueryError). On timestamp and time
  columns a value may carry a unit: ``"1.5 ms"``, ``"200us"``, ``"3s"``, ``"10 ns"``.
  An Enter and its Leave are kept together: a call stays only when both pass.
- call-path queries in any form of :mod:`glade.query`, run on the trace's calling
  context tree (:func:`glade.trace.cct.to_graphframe`): the Enter and Leave
  events of the calls whose node matches are kept, and the instants that occur
  directly inside such a call.

The result is a new Trace holding the selected recorded columns; derived columns
(``_matching_event``, ``time.exc``, ...) are recomputed on demand, so exclusive
times describe the selected calls (a removed callee's time counts for its caller).
"""

from __future__ import annotations

import copy
import operator
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import MetricError, QueryError, TraceError
from glade.query import exact
from glade.query.regex import compile_regex
from glade.trace.events import INSTANT, TIMESTAMP

if TYPE_CHECKING:
    from glade.trace.model import Trace

OPERATORS = ("==", "!=", "<", "<=", ">", ">=", "in", "not-in", "between", "matches")
TIME_FIELDS = (TIMESTAMP, "_matching_timestamp", "time.inc", "time.exc")
_COMPARISONS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
_TIME_VALUE = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(ns|us|µs|ms|s)?\s*")


def time_value(text: str) -> float:
    """Nanoseconds of a duration or time written with an optional unit (``"1.5 ms"``)."""
    found = _TIME_VALUE.fullmatch(text)
    if found is None:
        raise TraceError(f"{text!r} is not a time (a number with an optional unit ns, us, ms or s)")
    return float(found.group(1)) * _UNITS[found.group(2) or "ns"]


def time_ns(value: Any, what: str) -> int:
    """Nanoseconds of a time given as a number or as text with a unit (``"1.5 ms"``)."""
    if isinstance(value, str):
        return round(time_value(value))
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise QueryError(f"{what} is a time in ns or a text such as '1.5 ms', not {value!r}")
    return round(float(value))


class BaseFilter(ABC):
    """A condition on events that gives one boolean per event; combine with ``&``,
    ``|`` and ``~``."""

    @abstractmethod
    def mask(self, events: pd.DataFrame) -> np.ndarray:
        """One boolean per row of ``events``: whether the event passes."""

    def __and__(self, other: BaseFilter) -> And:
        return And(self, other)

    def __or__(self, other: BaseFilter) -> Or:
        return Or(self, other)

    def __invert__(self) -> Not:
        return Not(self)


def _is_time_field(field: str) -> bool:
    return field in TIME_FIELDS or field.startswith("Timestamp")


class Filter(BaseFilter):
    """Events whose ``field`` compares to ``value`` with ``operator``.

    Filters combine with ``&``, ``|`` and ``~``; ``trace.filter(f)`` keeps the events a
    filter passes (an Enter and its Leave stay together).

    Parameters
    ----------
    field : str
        An events column (``"Name"``, ``"Process"``, ``"Timestamp (ns)"``...).
    operator : str
        One of :data:`OPERATORS`: ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``,
        ``not-in``, ``between``, ``matches``.
    value : object
        The value; for ``in`` / ``not-in`` a list, for ``between`` a pair ``(low, high)``,
        for ``matches`` a regular expression; a time may be text with a unit.

    Raises
    ------
    TraceError
        When the operator is unknown or the value does not suit it.

    Examples
    --------
    >>> from glade import Filter
    >>> from glade.datasets import synthetic_trace
    >>> trace = synthetic_trace(4, 3)
    >>> kept = trace.filter(Filter("Process", "in", [0, 1]))
    >>> sorted(kept.events["Process"].unique().tolist())
    [0, 1]
    """

    def __init__(self, field: str, operator: str, value: Any):
        if operator not in OPERATORS:
            raise TraceError(f"unknown filter operator {operator!r}; use one of {OPERATORS}")
        if operator in ("in", "not-in") and (
            isinstance(value, str) or not isinstance(value, Sequence | set | np.ndarray)
        ):
            raise TraceError(f"operator {operator!r} needs a list of values, not {value!r}")
        if operator == "between" and (isinstance(value, str) or len(value) != 2):
            raise TraceError(f"operator 'between' needs a pair (low, high), not {value!r}")
        if operator == "matches":
            if not isinstance(value, str):
                raise TraceError(f"operator 'matches' needs a regular expression, not {value!r}")
            self._regex = compile_regex(value)
        self.field = field
        self.operator = operator
        self.value = value

    def __repr__(self) -> str:
        return f"Filter({self.field!r}, {self.operator!r}, {self.value!r})"

    def _operand(self) -> Any:
        """The value with time units converted to ns on time fields."""
        if not _is_time_field(self.field):
            return self.value
        if isinstance(self.value, str):
            return time_value(self.value)
        if self.operator in ("in", "not-in", "between"):
            return [time_value(v) if isinstance(v, str) else v for v in self.value]
        return self.value

    def _test(self, values: np.ndarray) -> np.ndarray:
        """The condition on an array of values (the distinct values of a column, or the
        column itself)."""
        op, value = self.operator, self._operand()
        if op == "matches":
            return self._regex.matches(values)
        numeric = values.dtype.kind in "biuf"
        try:
            if numeric and op in ("in", "not-in") and all(exact.is_number(v) for v in value):
                found = exact.isin(values, value)
                return found if op == "in" else ~found
            if op == "in":
                return np.isin(values, list(value))
            if op == "not-in":
                return ~np.isin(values, list(value))
            if numeric and op == "between" and all(exact.is_number(v) for v in value):
                return exact.compare(values, ">=", value[0]) & exact.compare(values, "<=", value[1])
            if op == "between":
                return (values >= value[0]) & (values <= value[1])
            if numeric and exact.is_number(value):
                return exact.compare(values, op, value)
            result = _COMPARISONS[op](values, value)
        except TypeError as exc:
            raise TraceError(
                f"cannot compare column {self.field!r} with {value!r}: {exc}"
            ) from None
        return np.asarray(result, dtype=bool)

    def mask(self, events: pd.DataFrame) -> np.ndarray:
        """Per row of ``events``: whether its ``field`` passes the comparison.

        Parameters
        ----------
        events : pandas.DataFrame
            A trace's events.

        Returns
        -------
        numpy.ndarray
            One bool per row.

        Raises
        ------
        MetricError
            When the events have no column ``field``.
        """
        if self.field not in events.columns:
            raise MetricError(self.field, list(events.columns), what="column")
        column = events[self.field]
        if isinstance(column.dtype, pd.CategoricalDtype):
            passed = self._test(np.asarray(column.cat.categories, dtype=object))
            codes = column.cat.codes.to_numpy()
            return (codes >= 0) & passed[np.maximum(codes, 0)]
        values = column.to_numpy()
        if values.dtype.kind in "OUT":
            codes, uniques = pd.factorize(values)
            passed = self._test(np.asarray(uniques, dtype=object))
            return (codes >= 0) & passed[np.maximum(codes, 0)]
        return self._test(values)


class And(BaseFilter):
    """Events that pass every one of ``filters``."""

    def __init__(self, *filters: BaseFilter):
        self.filters = filters

    def mask(self, events: pd.DataFrame) -> np.ndarray:
        """Per row of ``events``: whether it passes every filter."""
        return np.logical_and.reduce([f.mask(events) for f in self.filters])

    def __repr__(self) -> str:
        return " & ".join(f"({f!r})" for f in self.filters)


class Or(BaseFilter):
    """Events that pass any of ``filters``."""

    def __init__(self, *filters: BaseFilter):
        self.filters = filters

    def mask(self, events: pd.DataFrame) -> np.ndarray:
        """Per row of ``events``: whether it passes any filter."""
        return np.logical_or.reduce([f.mask(events) for f in self.filters])

    def __repr__(self) -> str:
        return " | ".join(f"({f!r})" for f in self.filters)


class Not(BaseFilter):
    """Events that do not pass ``inner``."""

    def __init__(self, inner: BaseFilter):
        self.inner = inner

    def mask(self, events: pd.DataFrame) -> np.ndarray:
        """Per row of ``events``: whether it fails ``inner``."""
        return ~self.inner.mask(events)

    def __repr__(self) -> str:
        return f"~({self.inner!r})"


def _pairs_together(trace: Trace, mask: np.ndarray) -> np.ndarray:
    """``mask`` where a matched Enter or Leave passes only when both of the call's
    events pass."""
    kind = trace.event_kinds()
    if not (kind != INSTANT).any():
        return mask
    matching = trace._call_structure().matching
    paired = np.flatnonzero((kind != INSTANT) & (matching >= 0))
    out = mask.copy()
    out[paired] = mask[paired] & mask[matching[paired]]
    return out


def query_mask(trace: Trace, query: Any, rank_mode: str = "any") -> np.ndarray:
    """Per event: whether it belongs to a call whose CCT node ``query`` matches (Enter
    and Leave rows of the call, instants directly inside it)."""
    from glade.trace.cct import cct_graphframe

    gf, node = cct_graphframe(trace)
    return events_of_nodes(node, matched_nodes(gf, query, rank_mode))


def matched_nodes(gf: Any, query: Any, rank_mode: str = "any") -> np.ndarray:
    """Per node of the GraphFrame ``gf``: whether ``query`` matches it."""
    from glade.query import match_nodes

    keep = np.zeros(len(gf.graph), dtype=bool)
    keep[match_nodes(gf, query, rank_mode=rank_mode)] = True
    return keep


def events_of_nodes(node: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Per event (whose CCT node is ``node``, -1 for none): whether ``keep`` keeps its
    node."""
    kept = np.zeros(len(node), dtype=bool)
    kept[node >= 0] = keep[node[node >= 0]]
    return kept


def selected_metadata(metadata: dict) -> dict:
    """The metadata of a selection of a trace with ``metadata``: a copy, without the
    counts that describe the whole trace's matching."""
    metadata = copy.deepcopy(metadata)
    for key in ("repairs", "unmatched_messages"):
        metadata.pop(key, None)
    return metadata


def subset(trace: Trace, mask: np.ndarray) -> Trace:
    """A new Trace with the recorded columns of the rows where ``mask`` is true."""
    from glade.trace.model import Trace

    events = trace.events.loc[mask, trace.recorded_columns()]
    definitions = None if trace.definitions is None else trace.definitions.copy()
    return Trace(events, definitions, selected_metadata(trace.metadata), copy=False)


def filter_mask(trace: Trace, condition: Any, rank_mode: str = "any") -> np.ndarray:
    """Per event: whether it passes ``condition`` (a Filter, or a call-path query in any
    form; see the module doc)."""
    if isinstance(condition, BaseFilter):
        return _pairs_together(trace, np.asarray(condition.mask(trace.events), dtype=bool))
    check_query(condition)
    return query_mask(trace, condition, rank_mode)


def check_query(condition: Any) -> None:
    """QueryError when ``condition`` is a plain function rather than a call-path query."""
    if callable(condition) and not hasattr(condition, "to_string"):
        raise QueryError("a trace filter is a Filter or a call-path query, not a function")


def apply_filter(trace: Trace, condition: Any, rank_mode: str = "any") -> Trace:
    """The events of ``trace`` that pass ``condition`` (a Filter, or a call-path query in
    any form), as a new Trace (see the module doc)."""
    return subset(trace, filter_mask(trace, condition, rank_mode))
