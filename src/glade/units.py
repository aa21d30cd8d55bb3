"""Units of metrics: which unit each metric has, how operations derive it, and how to
write values with it.

Every model records the unit of each metric it knows one of (``gf.units``, ``ens.units``:
metric -> unit) in ``metadata["units"]``, set by its reader from the format's own
definition. A unit is one of :data:`UNITS` (``ns``, ``us``, ``ms``, ``s``, ``B``,
``count``, ``cycles``, ``%``), or a quotient of two of them that arithmetic derived
(``s/count``); a metric without a unit is written as a plain number. Text output
(``tree()``), the views and the plots write a value scaled for reading: a time in the
largest of ns, us, ms and s that keeps it at least 1 (``1234567 ns`` reads ``1.235 ms``),
bytes in units of 1024 (``3.2 GB``), other units with an SI prefix (``3.680M cycles``).
SI suffixes never appear without a unit. The views' JavaScript does the same
(``js/lib/format.js``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from glade.errors import GladeError

#: Seconds per unit, smallest first.
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
#: The units a reader may record.
UNITS = (*TIME_UNITS, "B", "count", "cycles", "%")
#: How formats spell units, and the unit of the vocabulary each spelling means.
SPELLINGS = {
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "msec": "ms",
    "millisecond": "ms",
    "milliseconds": "ms",
    "usec": "us",
    "µs": "us",
    "μs": "us",
    "microsecond": "us",
    "microseconds": "us",
    "nsec": "ns",
    "nanosecond": "ns",
    "nanoseconds": "ns",
    "byte": "B",
    "bytes": "B",
    "calls": "count",
    "cycle": "cycles",
    "percent": "%",
}
_BYTE_PREFIXES = ("B", "KB", "MB", "GB", "TB", "PB")
_SI_PREFIXES = ("", "k", "M", "G", "T", "P")
#: Statistics whose result has its column's unit (others: none, or derived below).
_SAME_UNIT_STATS = frozenset(
    {"mean", "median", "std", "min", "max", "sum", "q1", "q2", "q3", "iqr"}
    | {"lower_fence", "upper_fence"}
)


def normalize_unit(text: Any) -> str | None:
    """The unit of :data:`UNITS` that a format's spelling ``text`` means (``"sec"`` is
    ``"s"``, ``"bytes"`` is ``"B"``), None for no unit or a spelling not known.

    Parameters
    ----------
    text : object
        A format's spelling of a unit.

    Returns
    -------
    str or None
        The unit, or None.

    Examples
    --------
    >>> normalize_unit("usec"), normalize_unit("B"), normalize_unit("furlong")
    ('us', 'B', None)
    """
    if not isinstance(text, str):
        return None
    word = text.strip()
    if word in UNITS:
        return word
    return SPELLINGS.get(word.lower())


def unit_of(metadata: Mapping[str, Any], metric: Any) -> str | None:
    """The unit of ``metric`` recorded in ``metadata["units"]``, or None.

    Parameters
    ----------
    metadata : Mapping
        A model's metadata.
    metric : Hashable
        A metric column.

    Returns
    -------
    str or None
        The recorded unit (a :data:`UNITS` entry or a derived quotient).
    """
    units = metadata.get("units") if isinstance(metadata, Mapping) else None
    unit = units.get(metric) if isinstance(units, Mapping) else None
    return unit if isinstance(unit, str) and unit else None


def set_units(
    metadata: dict[str, Any], units: Mapping[str, str | None], metrics: Iterable[Any]
) -> None:
    """Record ``units`` (metric -> unit, None to drop one) in ``metadata["units"]``.

    Parameters
    ----------
    metadata : dict
        A model's metadata; changed in place.
    units : mapping of str to str or None
        Metric -> unit (None drops the metric's unit).
    metrics : iterable
        The model's metrics.

    Raises
    ------
    GladeError
        A metric that is not one of ``metrics``, or a unit outside :data:`UNITS` and its
        quotients (``"s/count"``).
    """
    known = set(metrics)
    recorded = dict(metadata.get("units") or {})
    for metric, unit in units.items():
        if metric not in known:
            raise GladeError(f"no metric {metric!r} to give a unit (metrics: {sorted(known)})")
        if unit is None:
            recorded.pop(metric, None)
            continue
        parts = str(unit).replace("*", "/").split("/")
        if not all(part in UNITS or part == "1" for part in parts):
            raise GladeError(f"unit {unit!r} of {metric!r} is not one of {', '.join(UNITS)}")
        recorded[metric] = str(unit)
    metadata["units"] = recorded


def time_unit(metadata: Mapping[str, Any], metric: Any) -> str | None:
    """The time unit of ``metric`` recorded in ``metadata["units"]``, or None when the
    metric is not known to be a time.

    Parameters
    ----------
    metadata : mapping
        A model's metadata.
    metric : object
        The metric.

    Returns
    -------
    str or None
        ``ns``, ``us``, ``ms`` or ``s``, or None.
    """
    unit = unit_of(metadata, metric)
    return unit if unit in TIME_UNITS else None


def combine_unit(op: str, left: str | None, right: str | None) -> str | None:
    """The unit of ``left op right`` for op ``"+"``, ``"-"``, ``"*"`` or ``"/"``.

    A sum or difference keeps a unit both sides share (None when they differ or one side
    has none); a ratio of equal units is unitless; ``s / count`` is ``"s/count"``; a
    product keeps the one unit present, else ``"s*count"``.

    Parameters
    ----------
    op : {"+", "-", "*", "/"}
        The operation.
    left, right : str or None
        The operands' units.

    Returns
    -------
    str or None
        The result's unit (None: no unit).

    Examples
    --------
    >>> combine_unit("/", "s", "count"), combine_unit("/", "s", "s"), combine_unit("-", "s", "s")
    ('s/count', None, 's')
    """
    if op in ("+", "-"):
        return left if left == right else None
    if op == "/":
        if left == right:
            return None
        if right is None:
            return left
        return f"{left or '1'}/{right}"
    if op == "*":
        if left is None or right is None:
            return left or right
        return f"{left}*{right}"
    raise GladeError(f"no unit rule for operator {op!r}")


def stat_unit(unit: str | None, stat: str) -> str | None:
    """The unit of statistic ``stat`` (``"mean"``, ``"var"``...) of a column in ``unit``:
    the same for location and spread, squared for the variance, none for the others
    (normality, correlation, counts of outliers).

    Parameters
    ----------
    unit : str or None
        The column's unit.
    stat : str
        The statistic (``"mean"``, ``"var"``, ``"p25"``, ``"ci95_low"``...).

    Returns
    -------
    str or None
        The statistic's unit (None: none).
    """
    if unit is None:
        return None
    percentile = stat.startswith("p") and stat[1:].replace(".", "", 1).isdigit()
    interval = stat.startswith("ci") and stat.endswith(("_low", "_high"))
    if stat in _SAME_UNIT_STATS or percentile or interval:
        return unit
    if stat == "var":
        return f"{unit}^2"
    return None


def merge_units(mappings: Iterable[Mapping[str, Any] | None]) -> dict[str, str]:
    """One unit per metric from several models' units (an ensemble's profiles): a metric
    keeps the unit every model that names it agrees on; metrics with conflicting units
    are left out (shown as plain numbers).

    Parameters
    ----------
    mappings : iterable of mapping or None
        Each model's metric -> unit (None for a model without units).

    Returns
    -------
    dict of str to str
        Metric -> the unit all agree on.
    """
    found: dict[str, set[str]] = {}
    for units in mappings:
        for metric, unit in (units or {}).items():
            if isinstance(unit, str) and unit:
                found.setdefault(metric, set()).add(unit)
    return {metric: units.pop() for metric, units in found.items() if len(units) == 1}


def _check(unit: str) -> float:
    if unit not in TIME_UNITS:
        raise ValueError(f"unknown time unit {unit!r}; use one of {', '.join(TIME_UNITS)}")
    return TIME_UNITS[unit]


def scale_for(values: Any, unit: str) -> tuple[str, float]:
    """The unit that writes the largest magnitude of ``values`` (given in ``unit``) as at
    least 1, and the factor that converts ``values`` to it: for an axis or a column whose
    values share one unit. Times go to ns..s, bytes to B..PB (units of 1024), other units
    get an SI prefix (``"M cycles"``); a value without a unit (``unit`` ``""``) is kept.

    Parameters
    ----------
    values : array_like
        Values sharing one unit.
    unit : str
        Their unit (``""`` for none).

    Returns
    -------
    tuple of (str, float)
        The display unit and the factor to multiply the values by.

    Examples
    --------
    >>> scale_for([10, 999_999], "ns")
    ('us', 0.001)
    >>> scale_for([3.5e6], "cycles")
    ('M cycles', 1e-06)
    """
    finite = np.abs(np.asarray(values, dtype=np.float64))
    finite = finite[np.isfinite(finite)]
    top = float(finite.max()) if finite.size else 0.0
    if unit in TIME_UNITS:
        seconds = TIME_UNITS[unit]
        best = "ns"
        for name, size in TIME_UNITS.items():
            if top * seconds >= size:
                best = name
        return best, seconds / TIME_UNITS[best]
    if not unit:
        return "", 1.0
    base, prefixes, suffix = (
        (1024.0, _BYTE_PREFIXES, "") if unit == "B" else (1000.0, _SI_PREFIXES, f" {unit}")
    )
    tier = 0
    while tier < len(prefixes) - 1 and top >= base ** (tier + 1):
        tier += 1
    if unit == "B":
        return prefixes[tier], base**-tier
    return (f"{prefixes[tier]}{suffix}".strip() if tier else unit), base**-tier


def format_times(values: Any, unit: str, precision: int = 3) -> np.ndarray:
    """Each value (a time in ``unit``) written in its own best unit with ``precision``
    decimals (``"1.235 ms"``), as an object array of str; NaN and infinities are
    ``"nan"``, ``"inf"`` and ``"-inf"``.

    Parameters
    ----------
    values : array_like
        Times.
    unit : str
        Their time unit (``ns``, ``us``, ``ms`` or ``s``).
    precision : int, default 3
        Decimals.

    Returns
    -------
    numpy.ndarray
        An object array of str, one per value.

    Raises
    ------
    ValueError
        When ``unit`` is not a time unit.
    """
    seconds = _check(unit)
    values = np.asarray(values, dtype=np.float64)
    magnitude = np.abs(values) * seconds
    names = np.array(list(TIME_UNITS), dtype=object)
    sizes = np.array(list(TIME_UNITS.values()))
    # the largest unit not above the magnitude (ns below 1 ns, zero included)
    which = np.clip(np.searchsorted(sizes, magnitude, side="right") - 1, 0, len(sizes) - 1)
    which[~np.isfinite(magnitude)] = 0
    scaled = values * seconds / sizes[which]
    return _with_odd(values, np.char.mod(f"%.{precision}f ", scaled).astype(object) + names[which])


def _with_odd(values: np.ndarray, text: np.ndarray) -> np.ndarray:
    odd = ~np.isfinite(values)
    text[odd] = np.char.mod("%f", values[odd]).astype(object)  # nan, inf, -inf
    return text


def _prefixed(values: np.ndarray, base: float, names: np.ndarray, precision: int) -> np.ndarray:
    """Each value over the largest power of ``base`` not above it, with that power's name."""
    magnitude = np.abs(values)
    with np.errstate(divide="ignore"):
        tier = np.floor(np.log(np.where(magnitude > 0, magnitude, 1.0)) / np.log(base))
    tier = np.clip(np.nan_to_num(tier), 0, len(names) - 1).astype(np.int64)
    scaled = values / base**tier
    return np.char.mod(f"%.{precision}f", scaled).astype(object) + names[tier]


def format_values(values: Any, unit: str | None, precision: int = 3) -> np.ndarray:
    """Each value written with its unit, scaled for reading, with ``precision`` decimals
    (an object array of str): times as :func:`format_times`, bytes in units of 1024
    (``"3.200 GB"``), ``%`` as ``"12.500%"``, other units with an SI prefix
    (``"3.680M cycles"``, ``"8.000 count"``); a value without a unit is a plain number
    (``"3680000.000"``). NaN and infinities are ``"nan"``, ``"inf"``, ``"-inf"``.

    Parameters
    ----------
    values : array_like
        The values.
    unit : str or None
        Their unit (None or ``""``: none).
    precision : int, default 3
        Decimals.

    Returns
    -------
    numpy.ndarray
        An object array of str, one per value.

    Examples
    --------
    >>> format_values([1536, 3.2 * 2**30], "B", 1).tolist()
    ['1.5 KB', '3.2 GB']
    >>> format_values([3.68e6], "cycles").tolist(), format_values([3.68e6], None).tolist()
    (['3.680M cycles'], ['3680000.000'])
    """
    values = np.asarray(values, dtype=np.float64)
    if unit in TIME_UNITS:
        return format_times(values, unit, precision)
    if unit is None or unit == "":
        text = np.char.mod(f"%.{precision}f", values).astype(object)
    elif unit == "%":
        text = np.char.mod(f"%.{precision}f%%", values).astype(object)
    elif unit == "B":
        names = np.array([f" {p}" for p in _BYTE_PREFIXES], dtype=object)
        text = _prefixed(values, 1024.0, names, precision)
    else:
        names = np.array([f"{p} {unit}" for p in _SI_PREFIXES], dtype=object)
        text = _prefixed(values, 1000.0, names, precision)
    return _with_odd(values, text)


def format_value(value: float, unit: str | None, precision: int = 3) -> str:
    """One value with its unit (see :func:`format_values`).

    Parameters
    ----------
    value : float
        The value.
    unit : str or None
        Its unit (None or ``""``: none).
    precision : int, default 3
        Decimals.

    Returns
    -------
    str
        The value as :func:`format_values` writes it.
    """
    return str(format_values([value], unit, precision)[0])


def format_time(value: float, unit: str, precision: int = 3) -> str:
    """One time in ``unit`` written in its best unit (see :func:`format_times`).

    Parameters
    ----------
    value : float
        The time.
    unit : str
        Its time unit (``ns``, ``us``, ``ms`` or ``s``).
    precision : int, default 3
        Decimals.

    Returns
    -------
    str
        E.g. ``"1.235 ms"``.

    Raises
    ------
    ValueError
        When ``unit`` is not a time unit.
    """
    return str(format_times([value], unit, precision)[0])


def axis_label(name: str, unit: str) -> str:
    """An axis or legend title for ``name`` in display unit ``unit``: ``"time (ms)"``, or
    ``name`` alone when there is no unit.

    Parameters
    ----------
    name : str
        The metric's name.
    unit : str
        The display unit (``""`` for none).

    Returns
    -------
    str
        The title.
    """
    return f"{name} ({unit})" if unit else str(name)
