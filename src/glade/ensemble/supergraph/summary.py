"""Statistics across profiles of ``items x profiles`` arrays (supernodes or edges):
mean, min, quartiles, max, standard deviation, box-plot outliers, histograms, the value
of a target profile, and the comparison of two profile groups.

Quartiles interpolate linearly between order statistics (numpy's default, as
``glade.stats.percentiles``); ``std`` divides by ``n - ddof`` (``ddof=1``, as
``glade.stats.std``); outliers lie more than ``whis`` interquartile ranges outside the
quartiles (``glade.stats.boxplot``). Each item's histogram has ``bins`` equal bins from
its smallest to its largest value (numpy's rule: a range of one value v is
``[v - 0.5, v + 0.5]``); the same edges serve its target line and both diff groups.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from glade.ensemble.comparisons import welch
from glade.ensemble.samples import Sorted

STATS = ("mean", "min", "q1", "median", "q3", "max", "std")


def describe(
    values: np.ndarray, prefix: str, target: int | None, whis: float, ddof: int = 1
) -> dict[str, np.ndarray]:
    """Columns ``<prefix>_<stat>`` for each stat of :data:`STATS`, ``<prefix>_outliers``
    (how many profiles lie outside the fences) and ``<prefix>_target`` (the value of the
    profile at position ``target``; NaN without one)."""
    count, num_profiles = values.shape
    if num_profiles == 0:
        empty = np.full(count, np.nan)
        return {f"{prefix}_{s}": empty for s in (*STATS, "outliers", "target")}
    ordered = sorted_rows(values)
    q1, median, q3 = (ordered.quantile(q) for q in (0.25, 0.5, 0.75))
    with np.errstate(invalid="ignore", divide="ignore"):
        std = values.std(axis=1, ddof=ddof) if num_profiles > ddof else np.full(count, np.nan)
    low, high = fences(q1, q3, whis)
    outside = (values < low[:, None]) | (values > high[:, None])
    return {
        f"{prefix}_mean": values.mean(axis=1),
        f"{prefix}_min": ordered.quantile(0.0),
        f"{prefix}_q1": q1,
        f"{prefix}_median": median,
        f"{prefix}_q3": q3,
        f"{prefix}_max": ordered.quantile(1.0),
        f"{prefix}_std": std,
        f"{prefix}_outliers": outside.sum(axis=1),
        f"{prefix}_target": target_values(values, target),
    }


def target_values(values: np.ndarray, target: int | None) -> np.ndarray:
    """The column of the target profile (NaN without a target)."""
    return values[:, target].copy() if target is not None else np.full(len(values), np.nan)


def sorted_rows(values: np.ndarray) -> Sorted:
    """The rows of an ``items x profiles`` array sorted, as the quantiles of
    :class:`glade.ensemble.samples.Sorted` read them (one sort beats a partition per
    quantile)."""
    count, num_profiles = values.shape
    return Sorted(
        np.sort(values, axis=1).reshape(-1),
        np.arange(values.size),
        np.arange(count) * num_profiles,
        np.full(count, num_profiles),
    )


def fences(q1: np.ndarray, q3: np.ndarray, whis: float) -> tuple[np.ndarray, np.ndarray]:
    """The box plot's fences: ``q1 - whis * iqr`` and ``q3 + whis * iqr``."""
    iqr = q3 - q1
    return q1 - whis * iqr, q3 + whis * iqr


def outlier_rows(
    values: np.ndarray, labels: Sequence[Hashable], profiles: pd.Index, whis: float, label_name: str
) -> pd.DataFrame:
    """One row per value outside its item's fences: ``<label_name>``, ``profile``,
    ``value``, ``side`` ("low" or "high")."""
    if values.shape[1] == 0:
        item = position = np.zeros(0, dtype=np.int64)
        side = np.zeros(0, dtype=bool)
    else:
        ordered = sorted_rows(values)
        low, high = fences(ordered.quantile(0.25), ordered.quantile(0.75), whis)
        below = values < low[:, None]
        outside = below | (values > high[:, None])
        item, position = np.nonzero(outside)
        side = below[item, position]
    return pd.DataFrame(
        {
            label_name: np.asarray(labels, dtype=object)[item]
            if len(item)
            else pd.Series(dtype=object),
            "profile": np.asarray(profiles, dtype=object)[position]
            if len(item)
            else pd.Series(dtype=object),
            "value": values[item, position],
            "side": np.where(side, "low", "high").astype(object),
        }
    )


def histograms(values: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Per item (row): the counts of its values in ``bins`` equal bins over its range,
    and the bin edges (``items x bins`` and ``items x (bins + 1)``), as ``np.histogram``
    gives them row by row."""
    count, num_profiles = values.shape
    lo = values.min(axis=1) if num_profiles else np.zeros(count)
    hi = values.max(axis=1) if num_profiles else np.ones(count)
    flat = lo == hi
    lo = np.where(flat, lo - 0.5, lo)
    hi = np.where(flat, hi + 0.5, hi)
    edges = lo[:, None] + (hi - lo)[:, None] * (np.arange(bins + 1) / bins)[None, :]
    edges[:, -1] = hi
    index = ((values - lo[:, None]) * (bins / (hi - lo))[:, None]).astype(np.int64)
    index = np.clip(index, 0, bins - 1)
    rows = np.arange(count)[:, None]
    index -= values < edges[rows, index]
    index += (values >= edges[rows, index + 1]) & (index != bins - 1)
    counts = np.bincount((rows * bins + index).reshape(-1), minlength=count * bins)
    return counts.reshape(count, bins), edges


def compare_groups(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """Per item: the means of the profile positions ``a`` and ``b``, their difference
    (b - a) and ratio (b / a), and Welch's t (positive when b is larger, like the
    difference) and two-sided p (NaN when a group has fewer than two profiles)."""
    first, second = values[:, a], values[:, b]
    mean_a, mean_b = first.mean(axis=1), second.mean(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        var_a = first.var(axis=1, ddof=1) if len(a) > 1 else np.full(len(values), np.nan)
        var_b = second.var(axis=1, ddof=1) if len(b) > 1 else np.full(len(values), np.nan)
        ratio = np.where(mean_a != 0, mean_b / mean_a, np.nan)
    t, p = welch(
        np.full(len(values), len(b)), mean_b, var_b, np.full(len(values), len(a)), mean_a, var_a
    )
    return {
        "mean_a": mean_a,
        "mean_b": mean_b,
        "difference": mean_b - mean_a,
        "ratio": ratio,
        "welch_t": t,
        "welch_p": p,
    }
