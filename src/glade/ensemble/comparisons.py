"""Comparisons of two sides of an ensemble at every node: distances, scores, Welch's
t-test and a preference.

A side is a metric over a group of profiles: the recipe holds one metric and two
groups (profile ids; the same metric over two groups of runs), or two metrics and
no groups (two columns of a columnar ensemble over all profiles, Thicket's form),
or both. Each side's samples give a count n, a mean m and a variance v with
divisor ``n - ddof`` (s its square root); all formulas are computed for every
node at once from those moments.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from glade.ensemble.samples import (
    Label,
    Recipe,
    Result,
    SampleTable,
    check_ddof,
    moments,
    pair_label,
    stat_label,
    variance,
)


def sides(
    table: SampleTable, recipe: Recipe, ddof: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per node: (count, mean, variance) of each of the recipe's two sides."""
    metrics = recipe.metrics
    out = []
    for i, group in enumerate(recipe.param("groups")):
        metric = metrics[i] if len(metrics) > 1 else metrics[0]
        rows = None if group is None else table.group_rows(group)
        count, mean, squares = moments(table, metric, rows)
        out.append((count, mean, variance(count, squares, ddof)))
    return out


def comparison_label(recipe: Recipe, stat: str) -> Label:
    """The stats column of a comparison: ``"<metric>_<stat>"`` for two groups of one
    metric, ``"<first>_vs_<second>_<stat>"`` for two metrics."""
    if len(recipe.metrics) == 1:
        return stat_label(recipe.metrics[0], stat)
    return pair_label(recipe.metrics[0], recipe.metrics[1], stat)


def _named(recipe: Recipe, stat: str) -> str:
    """The recipe's ``name`` if the user gave one, else ``stat``."""
    return recipe.param("name") or stat


def _finite(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    values[~np.isfinite(values)] = np.nan
    return values


def _bhattacharyya(m1, v1, m2, v2) -> np.ndarray:
    """``1/4 ln(1/4 (v1/v2 + v2/v1 + 2)) + 1/4 (m1 - m2)^2 / (v1 + v2)``."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _finite(
            0.25 * np.log(0.25 * (v1 / v2 + v2 / v1 + 2.0)) + 0.25 * (m1 - m2) ** 2 / (v1 + v2)
        )


def _hellinger(m1, v1, m2, v2) -> np.ndarray:
    """``sqrt(1 - sqrt(2 s1 s2 / (v1 + v2)) exp(-(m1 - m2)^2 / (4 (v1 + v2))))``."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        total = v1 + v2
        overlap = np.sqrt(2.0 * np.sqrt(v1 * v2) / total) * np.exp(-0.25 * (m1 - m2) ** 2 / total)
        return _finite(np.sqrt(np.maximum(1.0 - overlap, 0.0)))


def _distance_kernel(kind: str, formula, signed: bool):
    def kernel(table: SampleTable, recipe: Recipe) -> Result:
        (_, m1, v1), (_, m2, v2) = sides(table, recipe, check_ddof(recipe.param("ddof")))
        value = formula(m1, v1, m2, v2)
        if signed:
            value = np.where(m1 < m2, -value, value)
        return Result({comparison_label(recipe, _named(recipe, kind)): value}, {})

    return kernel


bhattacharyya_kernel = _distance_kernel("bhattacharyya", _bhattacharyya, signed=False)
hellinger_kernel = _distance_kernel("hellinger", _hellinger, signed=False)


def delta_stdnorm_kernel(table: SampleTable, recipe: Recipe) -> Result:
    """Thicket's ``score_delta_mean_delta_stdnorm``: ``(m1 - m2) + (s1 - s2) /
    |m1 - m2|``."""
    (_, m1, v1), (_, m2, v2) = sides(table, recipe, check_ddof(recipe.param("ddof")))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (m1 - m2) + (np.sqrt(v1) - np.sqrt(v2)) / np.abs(m1 - m2)
    return Result({comparison_label(recipe, _named(recipe, "delta_stdnorm")): _finite(value)}, {})


def delta_cv_kernel(table: SampleTable, recipe: Recipe) -> Result:
    """Thicket's ``score_delta_mean_delta_coefficient_of_variation``: ``(m1 - m2) +
    s1 / m1 - s2 / m2``."""
    (_, m1, v1), (_, m2, v2) = sides(table, recipe, check_ddof(recipe.param("ddof")))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (m1 - m2) + np.sqrt(v1) / m1 - np.sqrt(v2) / m2
    return Result({comparison_label(recipe, _named(recipe, "delta_cv")): _finite(value)}, {})


def _score(kind: str, formula):
    """Thicket's ``score_<kind>``: the distance, negative where side a's mean is lower."""
    return _distance_kernel(kind, formula, signed=True)


score_bhattacharyya_kernel = _score("score_bhattacharyya", _bhattacharyya)
score_hellinger_kernel = _score("score_hellinger", _hellinger)


def welch(
    n1: np.ndarray, m1: np.ndarray, v1: np.ndarray, n2: np.ndarray, m2: np.ndarray, v2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Welch's t and two-sided p from two sides' sample counts, means and (ddof=1)
    variances, element-wise (the Welch-Satterthwaite degrees of freedom); NaN where a
    side has fewer than 2 samples or t is not finite."""
    from scipy.special import stdtr  # Student's t CDF; scipy.stats takes seconds to import

    n1, n2 = (np.atleast_1d(np.asarray(n, dtype=np.float64)) for n in (n1, n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        share1, share2 = np.asarray(v1) / n1, np.asarray(v2) / n2
        t = (np.asarray(m1) - np.asarray(m2)) / np.sqrt(share1 + share2)
        freedom = (share1 + share2) ** 2 / (share1**2 / (n1 - 1) + share2**2 / (n2 - 1))
        p = 2.0 * stdtr(freedom, -np.abs(t))
    t, p = np.atleast_1d(t).astype(np.float64), np.atleast_1d(p).astype(np.float64)
    undefined = (n1 < 2) | (n2 < 2) | ~np.isfinite(t)
    t[undefined] = np.nan
    p[undefined] = np.nan
    return t, p


def _welch_test(table: SampleTable, recipe: Recipe):
    """Welch's t and two-sided p per node (NaN where a side has fewer than 2 samples),
    and the two sides' means."""
    (n1, m1, v1), (n2, m2, v2) = sides(table, recipe, 1)
    t, p = welch(n1, m1, v1, n2, m2, v2)
    return t, p, m1, m2


def welch_kernel(table: SampleTable, recipe: Recipe) -> Result:
    """Welch's t statistic and its p-value per node, as the recipe's two columns."""
    t, p, _, _ = _welch_test(table, recipe)
    name = _named(recipe, "welch")
    return Result(
        {comparison_label(recipe, f"{name}_t"): t, comparison_label(recipe, f"{name}_p"): p}, {}
    )


def preference_kernel(table: SampleTable, recipe: Recipe) -> Result:
    """The side whose mean is lower (``prefer="lower"``) or higher, where Welch's test
    rejects equal means at level ``alpha``; ``"none"`` where it does not or cannot."""
    _, p, m1, m2 = _welch_test(table, recipe)
    first_wins = m1 < m2 if recipe.param("prefer") == "lower" else m1 > m2
    labels = np.array([*recipe.param("labels"), "none"], dtype=object)
    which = np.where(first_wins, 0, 1)
    which[~(p < float(recipe.param("alpha")))] = 2
    name = _named(recipe, "preferred")
    return Result(
        {
            comparison_label(recipe, name): pd.array(labels[which], dtype="string"),
            comparison_label(recipe, f"{name}_p"): p,
        },
        {},
    )
