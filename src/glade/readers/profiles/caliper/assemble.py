"""The GraphFrame of a parsed Caliper profile: siblings in region order, metric kinds
settled, missing exclusive or inclusive partners derived, values checked."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from glade.graph import children_sums, depth_from_parent, group_by_depth
from glade.profile.graphframe import GraphFrame
from glade.profile.table import inclusive_name
from glade.readers.profiles.caliper.activities import split_activities
from glade.readers.profiles.caliper.names import Metric, Profile, exclusive_native, unique_names
from glade.readers.profiles.checks import clamp_negative, record_repairs


def assemble(source: str, profile: Profile, kinds: dict[str, str]) -> GraphFrame:
    """Order siblings, settle metric kinds, derive missing partners, build the frame."""
    split_activities(profile)
    frames, parent = profile.frames, profile.parent
    n = len(frames)
    for m in profile.metrics:
        m.kind = kinds.get(m.name, kinds.get(m.native, m.kind))
    reserved = {"node", "rank", *frames.columns}
    profile.others = {
        (f"{name} (attribute)" if name in reserved else name): values
        for name, values in profile.others.items()
    }
    taken = reserved | set(profile.others)
    unique_names(source, profile.metrics, taken)

    key = _sibling_keys(n, parent, profile.appear, profile.row_node, profile.row_order)
    child = np.flatnonzero(parent >= 0)
    child = child[np.lexsort((profile.appear[child], key[child], parent[child]))]
    roots = np.flatnonzero(parent < 0)
    roots = roots[np.lexsort((profile.appear[roots], key[roots]))]

    index = ["node"] if profile.row_rank is None else ["node", "rank"]
    rows: dict[str, np.ndarray] = {"node": profile.row_node}
    if profile.row_rank is not None:
        rows["rank"] = profile.row_rank
    cell = _cells(profile.row_node, profile.row_rank)
    exc, inc, fill = [], [], []
    units = {m.name: m.unit for m in profile.metrics if m.unit is not None}
    repairs: dict[str, int] = {}
    names = {m.name for m in profile.metrics}
    natives = {m.native: m for m in profile.metrics}
    for m in profile.metrics:
        values = m.values
        if m.kind == "other":
            rows[m.name] = values
            continue
        values = np.where(pd.isna(values), 0, values)
        if values.dtype == object:
            values = values.astype(np.float64)
        rows[m.name] = values
        if m.kind == "exclusive":
            exc.append(m.name)
            partner_name = inclusive_name(m.name)
            if partner_name not in names | taken and not _has_inclusive(m, natives):
                fill.append(m.name)
                if m.unit is not None:
                    units[partner_name] = m.unit
            continue
        inc.append(m.name)
        partner = natives.get(exclusive_native(m.native))
        partner_name = _exclusive_name(m.name)
        has_partner = partner is not None and partner is not m and partner.kind == "exclusive"
        if has_partner or partner_name in names or partner_name in taken:
            continue
        rows[partner_name] = clamp_negative(
            _exclusive_from_inclusive(n, parent, cell, np.asarray(m.values, dtype=np.float64)),
            repairs,
            "negative_exclusive_values",
        )
        exc.append(partner_name)
        names.add(partner_name)
        if m.unit is not None:
            units[partner_name] = m.unit
    rows.update(profile.others)
    table = pd.DataFrame(rows)
    gf = GraphFrame.from_tables(
        frames,
        parent[child],
        child,
        table,
        exc,
        inc,
        roots=roots,
        index=index,
        metadata={**profile.metadata, "units": units},
    )
    if fill:
        gf = gf.update_inclusive_columns(fill)
    gf.default_metric = _default_metric(gf)
    record_repairs(gf.metadata, repairs, source)
    return gf


def _exclusive_name(inclusive: str) -> str:
    """Name of the exclusive metric derived from ``inclusive`` (Hatchet's names):
    ``X (inc)`` -> ``X``, any other ``X`` -> ``X (exc)``."""
    suffix = " (inc)"
    return inclusive[: -len(suffix)] if inclusive.endswith(suffix) else inclusive + " (exc)"


def _has_inclusive(metric: Metric, natives: Mapping[str, Metric]) -> bool:
    """Whether the file has an inclusive attribute whose exclusive form is ``metric``."""
    return any(
        other.kind == "inclusive" and exclusive_native(native) == metric.native
        for native, other in natives.items()
    )


def _cells(row_node: np.ndarray, row_rank: np.ndarray | None) -> tuple[np.ndarray, int]:
    """Each row's (node, rank) cell as one integer, and the number of rank keys."""
    if row_rank is None:
        return row_node.copy(), 1
    codes, uniques = pd.factorize(row_rank, sort=True)
    return row_node * len(uniques) + codes, len(uniques)


def _exclusive_from_inclusive(
    n: int, parent: np.ndarray, cells: tuple[np.ndarray, int], inclusive: np.ndarray
) -> np.ndarray:
    """Per row: the node's inclusive value minus its children's (per rank), on the
    first row of each (node, rank) cell; 0 where the node has no inclusive value."""
    cell, num_keys = cells
    present = ~np.isnan(inclusive)
    total: np.ndarray = np.zeros(n * num_keys)
    np.add.at(total, cell, np.where(present, inclusive, 0.0))
    has = np.zeros(n * num_keys, dtype=bool)
    has[cell[present]] = True
    total = total.reshape(n, num_keys)
    exclusive = np.where(has, (total - children_sums(parent, total)).reshape(-1), 0.0)
    first = np.zeros(len(cell), dtype=bool)
    first[np.unique(cell, return_index=True)[1]] = True
    return np.where(first, exclusive[cell], 0.0)


def _sibling_keys(
    n: int,
    parent: np.ndarray,
    appear: np.ndarray,
    row_node: np.ndarray,
    row_order: np.ndarray | None,
) -> np.ndarray:
    """Region order of each node: the smallest order value of its rows, or for a
    node without one the smallest of its subtree (a region is entered before its
    children); all equal when the profile records no order (first appearance
    decides)."""
    if row_order is None or not np.isfinite(row_order).any():
        return np.zeros(n)
    own = np.full(n, np.inf)
    np.minimum.at(own, row_node, np.where(np.isfinite(row_order), row_order, np.inf))
    subtree = own.copy()
    for level in group_by_depth(depth_from_parent(parent))[:0:-1]:
        np.minimum.at(subtree, parent[level], subtree[level])
    return np.where(np.isfinite(own), own, subtree)


def _default_metric(gf: GraphFrame) -> str | None:
    """``time (inc)``, else ``time``, else the first inclusive, else exclusive metric."""
    for name in ("time (inc)", "time"):
        if name in gf.inc_metrics or name in gf.exc_metrics:
            return name
    candidates = [*gf.inc_metrics, *gf.exc_metrics]
    return candidates[0] if candidates else None
