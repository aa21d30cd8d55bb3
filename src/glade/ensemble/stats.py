"""Statistics of an ensemble, one row per node (``ens.stats``).

Each function computes its statistic for every node at once, adds the columns to
``ens.stats`` (named ``"<metric>_<stat>"``; ``(header, "<metric>_<stat>")`` in a
columnar ensemble), and returns them. The ensemble remembers the call (see
``ens.stats_recipes``) and makes it again after any operation that changes its
nodes or profiles, so ``stats`` is never stale. Computing a column again replaces
it.

A node's samples are its rows' values of the metric: one per profile, or one per
profile and rank when the ensemble keeps ranks. Missing values (NaN rows, absent
rows) are not samples. A statistic that needs more samples than a node has is NaN.
``metrics`` is a metric name or a list of them; by default the ensemble's
inclusive and exclusive metrics.

Columns:

- ``count``: number of samples;
- ``mean``, ``median``, ``min``, ``max``;
- ``var`` and ``std``: sample variance and standard deviation with divisor
  ``n - ddof`` (``ddof=1`` by default: the unbiased variance; ``ddof=0`` is the
  population formula);
- ``p<q>`` for each percentile ``q`` (in percent): linear interpolation between
  order statistics, numpy's default method;
- box plot: ``q1``, ``q2``, ``q3``, ``iqr``, ``lower_fence`` (q1 - whis x iqr),
  ``upper_fence`` (q3 + whis x iqr), ``outliers`` (how many samples lie outside the
  fences); the outlying samples themselves are rows of ``ens.outliers`` (node,
  profile, metric, value, side) rather than lists in cells, so they can be
  filtered and joined with the metadata like any table;
- normality (Shapiro–Wilk): ``normal`` (p-value > alpha; missing with fewer than
  3 samples or all samples equal), ``shapiro_w``, ``shapiro_p``;
- correlation of two metrics over a node's samples: ``<a>_vs_<b>_<method>``
  (Pearson or Spearman);
- comparisons of two groups of profiles: ``bhattacharyya`` and ``hellinger``
  distances of normal distributions with the groups' means and variances
  (``ddof`` as above), and Welch's t-test (``welch_t``, ``welch_p``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.ensemble.samples import Label, make_recipe
from glade.errors import GladeError, MetricError

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

Metrics = Label | Sequence[Label] | None
#: A group of profiles: their ids, or metadata values they must have ({column: value}).
Group = Iterable[Hashable] | Mapping[Label, object]

__all__ = [
    "bhattacharyya",
    "boxplot",
    "correlation",
    "count",
    "hellinger",
    "max",
    "maximum",
    "mean",
    "median",
    "min",
    "minimum",
    "normality",
    "percentiles",
    "std",
    "var",
    "welch_ttest",
]


def _ensemble(ens: object) -> Ensemble:
    from glade.ensemble.model import Ensemble

    if not isinstance(ens, Ensemble):
        raise GladeError(f"statistics need a glade.Ensemble, not {type(ens).__name__}")
    return ens


def _metrics(ens: Ensemble, metrics: Metrics) -> list[Label]:
    if metrics is None:
        chosen = [m for m in ens.metric_columns if m in set(ens.inc_metrics + ens.exc_metrics)]
        if not chosen:
            raise MetricError("<default metrics>", ens.metric_columns)
        return chosen
    chosen = [metrics] if isinstance(metrics, str | tuple) else list(metrics)
    if not chosen:
        raise GladeError("no metrics given")
    for metric in chosen:
        if metric not in ens.metric_columns:
            raise MetricError(metric, ens.metric_columns)
    return chosen


def _add(ens: Ensemble, kind: str, metrics: Sequence[Label], **params: object) -> pd.DataFrame:
    return _ensemble(ens)._add_recipe(make_recipe(kind, metrics, **params))


def count(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Number of samples of each node: ``"<metric>_count"``."""
    return _add(ens, "count", _metrics(_ensemble(ens), metrics))


def mean(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Mean of each node's samples: ``"<metric>_mean"``."""
    return _add(ens, "mean", _metrics(_ensemble(ens), metrics))


def median(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Median of each node's samples: ``"<metric>_median"``."""
    return _add(ens, "median", _metrics(_ensemble(ens), metrics))


def var(ens: Ensemble, metrics: Metrics = None, ddof: int = 1) -> pd.DataFrame:
    """Variance of each node's samples with divisor ``n - ddof``: ``"<metric>_var"``."""
    return _add(ens, "var", _metrics(_ensemble(ens), metrics), ddof=ddof)


def std(ens: Ensemble, metrics: Metrics = None, ddof: int = 1) -> pd.DataFrame:
    """Standard deviation (square root of the variance with divisor ``n - ddof``):
    ``"<metric>_std"``."""
    return _add(ens, "std", _metrics(_ensemble(ens), metrics), ddof=ddof)


def minimum(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Smallest sample of each node: ``"<metric>_min"``."""
    return _add(ens, "min", _metrics(_ensemble(ens), metrics))


def maximum(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Largest sample of each node: ``"<metric>_max"``."""
    return _add(ens, "max", _metrics(_ensemble(ens), metrics))


def percentiles(ens: Ensemble, metrics: Metrics = None,
                q: float | Sequence[float] = (25, 50, 75)) -> pd.DataFrame:
    """Percentiles ``q`` (in percent, 0 to 100) of each node's samples, linearly
    interpolated: ``"<metric>_p<q>"`` (``time_p25``, ``time_p99.9``)."""
    values = [q] if isinstance(q, int | float) else list(q)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float) or not (
                0 <= value <= 100):
            raise GladeError(f"percentiles are numbers from 0 to 100, not {value!r}")
    return _add(ens, "percentiles", _metrics(_ensemble(ens), metrics),
                q=tuple(float(v) for v in values))


def boxplot(ens: Ensemble, metrics: Metrics = None, whis: float = 1.5) -> pd.DataFrame:
    """Box-plot statistics of each node: ``q1``, ``q2``, ``q3``, ``iqr``,
    ``lower_fence`` = q1 - whis x iqr, ``upper_fence`` = q3 + whis x iqr and the
    number of ``outliers`` outside the fences; the outlying samples (with their
    profiles) are rows of ``ens.outliers``."""
    if isinstance(whis, bool) or not isinstance(whis, int | float) or whis < 0:
        raise GladeError(f"whis must be a non-negative number, not {whis!r}")
    return _add(ens, "boxplot", _metrics(_ensemble(ens), metrics), whis=float(whis))


def normality(ens: Ensemble, metrics: Metrics = None, alpha: float = 0.05) -> pd.DataFrame:
    """Shapiro–Wilk test of each node's samples: ``"<metric>_normal"`` (True when the
    p-value exceeds ``alpha``, i.e. normality is not rejected), ``"<metric>_shapiro_w"``
    and ``"<metric>_shapiro_p"``. Undefined (missing) for fewer than 3 samples or
    samples that are all equal."""
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise GladeError(f"alpha must be between 0 and 1, not {alpha!r}")
    return _add(ens, "normality", _metrics(_ensemble(ens), metrics), alpha=float(alpha))


def correlation(ens: Ensemble, first: Label, second: Label, method: str = "pearson"
                ) -> pd.DataFrame:
    """Correlation of two metrics over each node's samples (rows where both have a
    value): ``"<first>_vs_<second>_<method>"``, Pearson's r or Spearman's rho (ranks
    with ties averaged); missing with fewer than 2 pairs or a constant metric."""
    if method not in ("pearson", "spearman"):
        raise GladeError(f"method must be 'pearson' or 'spearman', not {method!r}")
    ensemble = _ensemble(ens)
    metrics = _metrics(ensemble, [first]) + _metrics(ensemble, [second])
    return _add(ensemble, "correlation", metrics, method=method)


def group_ids(metadata: pd.DataFrame, group: Group, which: str) -> tuple[Hashable, ...]:
    """The profile ids (``metadata``'s index) of a group given as ids or as ``{metadata
    column: value}``; a GladeError naming group ``which`` when it is empty or names an
    unknown profile or column."""
    if isinstance(group, Mapping):
        mask = np.ones(len(metadata), dtype=bool)
        for column, value in group.items():
            if column not in metadata.columns:
                raise MetricError(column, metadata.columns, what="metadata column")
            mask &= (metadata[column] == value).to_numpy(dtype=bool, na_value=False)
        ids = tuple(np.asarray(metadata.index, dtype=object)[mask].tolist())
    elif isinstance(group, str) or not isinstance(group, Iterable):
        raise GladeError(f"group {which} must be profile ids or a {{column: value}} mapping, "
                         f"not {group!r}")
    else:
        ids = tuple(group)
        unknown = [p for p in ids if p not in metadata.index]
        if unknown:
            raise GladeError(f"group {which} names profile {unknown[0]!r}, which is not in "
                             "the ensemble")
    if not ids:
        raise GladeError(f"group {which} holds no profile")
    return ids


def _compare(ens: Ensemble, kind: str, metric: Label, a: Group, b: Group,
             name: str | None, **params: object) -> pd.DataFrame:
    ensemble = _ensemble(ens)
    if name is not None and (not isinstance(name, str) or not name):
        raise GladeError(f"name must be a non-empty string, not {name!r}")
    groups = (group_ids(ensemble.metadata, a, "a"), group_ids(ensemble.metadata, b, "b"))
    return _add(ensemble, kind, _metrics(ensemble, [metric]), groups=groups, name=name,
                **params)


def bhattacharyya(ens: Ensemble, metric: Label, a: Group, b: Group, ddof: int = 1,
                  name: str | None = None) -> pd.DataFrame:
    """Bhattacharyya distance between the samples of profile groups ``a`` and ``b``
    at each node, for normal distributions with the groups' means and variances
    (divisor ``n - ddof``): ``1/4 ln(1/4 (v1/v2 + v2/v1 + 2)) + 1/4 (m1 - m2)^2 /
    (v1 + v2)``. Column ``"<metric>_bhattacharyya"`` (or ``"<metric>_<name>"``).
    A group is a list of profile ids or ``{metadata column: value}``; the ids are
    kept, so after a filter the groups hold the profiles that remain."""
    return _compare(ens, "bhattacharyya", metric, a, b, name, ddof=ddof)


def hellinger(ens: Ensemble, metric: Label, a: Group, b: Group, ddof: int = 1,
              name: str | None = None) -> pd.DataFrame:
    """Hellinger distance (0 to 1) between normal distributions with the means and
    variances of profile groups ``a`` and ``b`` at each node: ``sqrt(1 - sqrt(2 s1 s2
    / (v1 + v2)) exp(-(m1 - m2)^2 / (4 (v1 + v2))))``. Groups as in
    :func:`bhattacharyya`. Column ``"<metric>_hellinger"`` (or ``"<metric>_<name>"``)."""
    return _compare(ens, "hellinger", metric, a, b, name, ddof=ddof)


def welch_ttest(ens: Ensemble, metric: Label, a: Group, b: Group,
                name: str | None = None) -> pd.DataFrame:
    """Welch's t-test (unequal variances) of the samples of profile groups ``a`` and
    ``b`` at each node: ``"<metric>_welch_t"`` and ``"<metric>_welch_p"`` (two-sided),
    or ``"<metric>_<name>_t"``/``_p``; missing when a group has fewer than 2 samples.
    Groups as in :func:`bhattacharyya`."""
    return _compare(ens, "welch", metric, a, b, name)


# glade.stats.min and glade.stats.max read as the statistics they compute.
min = minimum
max = maximum
