"""Exact comparisons of numeric columns with number literals, for every query dialect
and for trace Filters: an integer column (int64, uint64, bool) is compared with an
integer literal as integers, never through float64 (where 2^53 + 1 equals 2^53), and a
float column with an integer literal as Python compares them (exactly). A literal
beyond the column's range decides the comparison for every row at once. NaN follows
numpy (only ``!=`` holds)."""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from typing import Any

import numpy as np

OPS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def is_number(value: Any) -> bool:
    """Whether ``value`` is an int or float literal (bools count as 0 and 1)."""
    return isinstance(value, int | float | np.integer | np.floating | np.bool_)


def _integers(values: np.ndarray) -> np.ndarray:
    return values.view(np.uint8) if values.dtype.kind == "b" else values


def compare(values: np.ndarray, op: str, literal: Any) -> np.ndarray:
    """``values op literal`` for a numeric array (kind ``b``, ``i``, ``u`` or ``f``) and
    a number, decided exactly."""
    test = OPS[op]
    literal = literal.item() if isinstance(literal, np.generic) else literal
    if values.dtype.kind in "biu":
        values = _integers(values)
        if isinstance(literal, float):
            if literal.is_integer():
                literal = int(literal)
            elif math.isnan(literal) or op in ("==", "!="):
                return np.full(values.size, op == "!=")
            elif math.isinf(literal):
                return np.full(values.size, test(0, literal))
            elif op in ("<", "<="):  # an integer x < f (or <= f) when x <= floor(f)
                op, literal, test = "<=", math.floor(literal), operator.le
            else:  # x > f (or >= f) when x >= ceil(f)
                op, literal, test = ">=", math.ceil(literal), operator.ge
        info = np.iinfo(values.dtype)
        if literal > info.max:
            return np.full(values.size, op in ("!=", "<", "<="))
        if literal < info.min:
            return np.full(values.size, op in ("!=", ">", ">="))
        return np.asarray(test(values, values.dtype.type(literal)), dtype=bool)
    if isinstance(literal, bool) or not isinstance(literal, int):
        with np.errstate(invalid="ignore"):
            return np.asarray(test(values, float(literal)), dtype=bool)
    try:
        near = float(literal)
    except OverflowError:
        near = math.inf if literal > 0 else -math.inf
    with np.errstate(invalid="ignore"):
        out = np.asarray(test(values, near), dtype=bool)
        if float(near) != literal:  # rounded: rows equal to it compare as it does
            out[values == near] = test(near, literal)
    return out


def isin(values: np.ndarray, literals: Iterable[Any]) -> np.ndarray:
    """Whether each value of a numeric array equals one of the number ``literals``
    (others are ignored), decided exactly."""
    numbers = [
        v.item() if isinstance(v, np.generic) else v
        for v in literals
        if is_number(v) and not isinstance(v, str)
    ]
    if values.dtype.kind in "biu":
        values = _integers(values)
        info = np.iinfo(values.dtype)
        whole = [int(v) for v in numbers if not (isinstance(v, float) and not v.is_integer())]
        wanted = np.array([v for v in whole if info.min <= v <= info.max], dtype=values.dtype)
        return np.isin(values, wanted)
    floats = [
        float(v)
        for v in numbers
        if not isinstance(v, int) or isinstance(v, bool) or _exact_float(v)
    ]
    return np.isin(values, np.array(floats, dtype=np.float64))


def _exact_float(value: int) -> bool:
    """Whether the int ``value`` is a float exactly (so a float can equal it)."""
    try:
        return int(float(value)) == value
    except OverflowError:
        return False
