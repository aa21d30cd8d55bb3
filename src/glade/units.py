"""Times with units: which metrics are times (and in which unit), and how to write them.

A model names the unit of its time metrics in ``metadata["units"]`` (``{"time": "ns",
"time (inc)": "ns"}``: a trace's call tree does); a metric with no unit there is shown as
a plain number. Text output (``tree()``), the views (through the unit they receive) and
the plots write a time in the largest of ns, us, ms and s that keeps it at least 1, so
``1234567 ns`` reads ``1.235 ms``. The views' JavaScript does the same
(``js/lib/format.js``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

#: Seconds per unit, smallest first.
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def time_unit(metadata: Mapping[str, Any], metric: Any) -> str | None:
    """The time unit of ``metric`` recorded in ``metadata["units"]``, or None when the
    metric is not known to be a time."""
    units = metadata.get("units") if isinstance(metadata, Mapping) else None
    unit = units.get(metric) if isinstance(units, Mapping) else None
    return unit if unit in TIME_UNITS else None


def _check(unit: str) -> float:
    if unit not in TIME_UNITS:
        raise ValueError(f"unknown time unit {unit!r}; use one of {', '.join(TIME_UNITS)}")
    return TIME_UNITS[unit]


def scale_for(values: Any, unit: str) -> tuple[str, float]:
    """The unit that writes the largest magnitude of ``values`` (given in ``unit``) as at
    least 1, and the factor that converts ``values`` to it: for an axis or a column whose
    values share one unit."""
    seconds = _check(unit)
    finite = np.abs(np.asarray(values, dtype=np.float64))
    finite = finite[np.isfinite(finite)]
    peak = float(finite.max()) * seconds if finite.size else 0.0
    best = "ns"
    for name, size in TIME_UNITS.items():
        if peak >= size:
            best = name
    return best, seconds / TIME_UNITS[best]


def format_times(values: Any, unit: str, precision: int = 3) -> np.ndarray:
    """Each value (a time in ``unit``) written in its own best unit with ``precision``
    decimals (``"1.235 ms"``), as an object array of str; NaN and infinities are
    ``"nan"``, ``"inf"`` and ``"-inf"``."""
    seconds = _check(unit)
    values = np.asarray(values, dtype=np.float64)
    magnitude = np.abs(values) * seconds
    names = np.array(list(TIME_UNITS), dtype=object)
    sizes = np.array(list(TIME_UNITS.values()))
    # the largest unit not above the magnitude (ns below 1 ns, zero included)
    which = np.clip(np.searchsorted(sizes, magnitude, side="right") - 1, 0, len(sizes) - 1)
    which[~np.isfinite(magnitude)] = 0
    scaled = values * seconds / sizes[which]
    text = np.char.mod(f"%.{precision}f ", scaled).astype(object) + names[which]
    odd = ~np.isfinite(values)
    text[odd] = np.char.mod("%f", values[odd]).astype(object)  # nan, inf, -inf
    return text


def format_time(value: float, unit: str, precision: int = 3) -> str:
    """One time in ``unit`` written in its best unit (see :func:`format_times`)."""
    return str(format_times([value], unit, precision)[0])
