"""Caliper's attribute names as glade's metric columns: Hatchet's names, aliases, and
the metric kinds Caliper's aggregation operators imply; the parsed profile both formats
hand to the assembly; numbers out of record columns."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.units import normalize_unit

RANK = "mpi.rank"
KINDS = ("exclusive", "inclusive", "other")

#: Caliper attribute -> column name, where Hatchet renames it.
HATCHET_NAMES = {
    "sum#time.duration": "time",
    "sum#avg#sum#time.duration": "time",
    "inclusive#sum#time.duration": "time (inc)",
    "sum#avg#inclusive#sum#time.duration": "time (inc)",
    "module#cali.sampler.pc": "module",
}

_ORDER_ALIAS = "Node order"
_ORDER_NATIVE = re.compile(r"^(?:[a-z_]+#)*aggregate\.slot$|^region\.order$")
_OPS = {
    "count",
    "sum",
    "ratio",
    "percent_total",
    "inclusive",
    "min",
    "max",
    "avg",
    "scale",
    "iscale",
    "ipercent_total",
    "any",
    "scount",
    "iratio",
    "imin",
    "imax",
    "variance",
}
_INCLUSIVE_OPS = {"inclusive", "iscale", "ipercent_total", "iratio", "imin", "imax"}
_LINEAR_OPS = {"sum", "avg", "scale", "percent_total", "inclusive", "iscale", "ipercent_total"}
_EXCLUSIVE_OF = {"iscale": "scale", "ipercent_total": "percent_total"}


@dataclass
class Metric:
    """One numeric column of the rows: its final name, Caliper name and kind."""

    name: str
    native: str
    kind: str
    values: np.ndarray
    unit: str | None = None


@dataclass
class Profile:
    """What a format parser found, in local node ids (parents before children)."""

    frames: pd.DataFrame
    parent: np.ndarray
    appear: np.ndarray
    row_node: np.ndarray
    row_rank: np.ndarray | None
    row_order: np.ndarray | None
    metrics: list[Metric]
    others: dict[str, np.ndarray]
    metadata: dict[str, Any]
    #: per row, the name and type of the GPU activity it measures (None for host rows)
    activity: tuple[np.ndarray, np.ndarray] | None = None


def check_kinds(metric_kinds: Mapping[str, str] | None) -> dict[str, str]:
    """The user's ``metric_kinds`` as a dict, each value one of ``KINDS``."""
    kinds = dict(metric_kinds or {})
    bad = {k: v for k, v in kinds.items() if v not in KINDS}
    if bad:
        raise ValueError(f"metric_kinds values must be one of {KINDS}; got {bad}")
    return kinds


def _split_ops(native: str) -> tuple[list[str], str] | None:
    """Caliper's aggregation operators of an attribute name (outermost first) and
    the aggregated attribute; None when the name is not an aggregation result."""
    parts = native.split("#")
    ops = parts[:-1]
    if any(op not in _OPS for op in ops):
        return None
    return ops, parts[-1]


def kind_from_name(native: str, meta: Mapping[str, Any]) -> str:
    """Metric kind that a Caliper attribute (or json-split column title) implies."""
    if native.endswith(" (inc)"):
        return "inclusive"
    if native in ("time", "count", "scount"):
        return "exclusive"
    split = _split_ops(native)
    if split is None:
        return "other"
    ops, _ = split
    if not ops:
        return "exclusive" if _aggregatable(meta) else "other"
    if ops[-1] == "avg" or any(op not in _LINEAR_OPS for op in ops):
        return "other"
    return "inclusive" if any(op in _INCLUSIVE_OPS for op in ops) else "exclusive"


def _aggregatable(meta: Mapping[str, Any]) -> bool:
    """Whether attribute metadata marks the attribute as an aggregatable metric."""
    for key in ("is_aggregatable", "class.aggregatable", "aggregatable"):
        if str(meta.get(key, "")).lower() in ("true", "1"):
            return True
    return "aggregatable" in str(meta.get("attribute.properties", ""))


_SCALED = {"scale", "iscale"}
_PERCENT = {"percent_total", "ipercent_total"}
_NO_UNIT = {"ratio", "iratio", "variance"}


def caliper_unit(native: str, stated: Any, timed: bool) -> str | None:
    """The unit of Caliper attribute ``native``: the ``attribute.unit`` it states
    (``"sec"``), else what its aggregation operators and base attribute imply.

    ``count`` and ``*.count`` are counts; ``percent_total#`` gives ``%``; ratios and
    variances have none; a ``*.ns`` attribute is in ns; CUPTI durations are in ns unless
    ``scale#`` turned them into seconds; ``time.*`` attributes (``time.duration``) are
    in seconds when ``timed`` (a ``.cali`` file, which records Caliper's version: this
    unit was fixed in Caliper 2), else unknown (json-split output does not say it).
    ``min#``, ``max#``, ``sum#``, ``avg#`` and ``inclusive#`` keep the unit.
    """
    unit = normalize_unit(stated)
    if unit is not None:
        return unit
    split = _split_ops(native)
    ops, base = split if split is not None else ([], native)
    if _NO_UNIT & set(ops):
        return None
    if _PERCENT & set(ops):
        return "%"
    if base in ("count", "scount") or base.endswith(".count") or (ops and ops[0] == "count"):
        return "count"
    if base.endswith(".ns"):
        return "ns"
    if base.endswith("bytes") or base.endswith(".size"):
        return "B"
    if base.startswith("cupti.") and base.endswith("duration"):
        return "s" if _SCALED & set(ops) else "ns"
    if base.lower().startswith("papi."):
        return "cycles" if base.upper().endswith("_CYC") else "count"
    if base.startswith("time.") and timed:
        return "s"
    return None


def exclusive_native(native: str) -> str:
    """The Caliper name of the exclusive counterpart of inclusive attribute ``native``."""
    split = _split_ops(native)
    if split is None:
        return native
    ops, base = split
    kept = [_EXCLUSIVE_OF.get(op, op) for op in ops if op != "inclusive"]
    return "#".join([*kept, base])


def is_order(native: str, alias: str | None) -> bool:
    """True for the attribute that records Caliper's region order."""
    return alias == _ORDER_ALIAS or native == _ORDER_ALIAS or bool(_ORDER_NATIVE.match(native))


def column_name(native: str, alias: str | None, use_native: bool) -> str:
    """The column name of a Caliper attribute: its native name or its alias."""
    if use_native:
        return native
    if alias:
        return alias
    return HATCHET_NAMES.get(native, native)


def unique_names(source: str, metrics: list[Metric], taken: set[str]) -> None:
    """Give every metric a name no other column has (falling back to the Caliper name)."""
    for m in metrics:
        if m.name in taken:
            if m.native in taken:
                raise ReaderError(source, f"two columns are both named {m.name!r}")
            m.name = m.native
        taken.add(m.name)


def as_numbers(source: str, column: pd.Series, what: str) -> np.ndarray:
    """``column`` as numbers; a value that is not one names the file and ``what``."""
    try:
        values = pd.to_numeric(column, errors="raise")
    except (ValueError, TypeError) as exc:
        raise ReaderError(source, f"{what} holds a non-numeric value") from exc
    return values.to_numpy()


def as_integers(source: str, column: pd.Series, what: str) -> np.ndarray:
    """``column`` as integers; every record must have one."""
    values = np.asarray(as_numbers(source, column, what), dtype=np.float64)
    missing = int(np.isnan(values).sum())
    if missing:
        raise ReaderError(source, f"{missing} of {len(values)} records have no {what}")
    if not np.array_equal(values, np.round(values)):
        raise ReaderError(source, f"{what} holds a non-integer value")
    return values.astype(np.int64)
