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

- ``count``: number of samples; ``sum`` their sum;
- ``mean``, ``median``, ``min``, ``max``;
- ``ci95_low`` and ``ci95_high``: a confidence interval of the mean (Student's t, or
  the normal distribution as Thicket);
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
- comparisons of two sides (one metric over two groups of profiles, or two metrics,
  see :mod:`glade.ensemble.comparisons`): ``bhattacharyya`` and ``hellinger``
  distances of normal distributions with the sides' means and variances (``ddof``
  as above), Welch's t-test (``welch_t``, ``welch_p``), Thicket's scores
  (``score_bhattacharyya``, ``score_hellinger``, ``delta_stdnorm``, ``delta_cv``)
  and ``preferred`` (the significantly better side);
- temporal patterns of time series: ``temporal_score`` and ``pattern``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.ensemble.samples import Label, flat_label, label_list, make_recipe
from glade.errors import GladeError, MetricError

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

Metrics = Label | Sequence[Label] | None
#: A group of profiles: their ids, or metadata values they must have ({column: value}).
Group = Iterable[Hashable] | Mapping[Label, object]

__all__ = [
    "bhattacharyya",
    "boxplot",
    "calc_temporal_pattern",
    "confidence_interval",
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
    "preference",
    "score_bhattacharyya",
    "score_delta_mean_delta_coefficient_of_variation",
    "score_delta_mean_delta_stdnorm",
    "score_hellinger",
    "std",
    "sum",
    "temporal_pattern",
    "total",
    "var",
    "welch_ttest",
]


def _ensemble(ens: object) -> Ensemble:
    from glade.ensemble.model import Ensemble

    if not isinstance(ens, Ensemble):
        raise GladeError(f"statistics need a glade.Ensemble, not {type(ens).__name__}")
    return ens


def chosen_metrics(ens: Ensemble, metrics: Metrics) -> list[Label]:
    if metrics is None:
        chosen = [m for m in ens.metric_columns if m in set(ens.inc_metrics + ens.exc_metrics)]
        if not chosen:
            raise MetricError("<default metrics>", ens.metric_columns)
        return chosen
    chosen = label_list(metrics)
    if not chosen:
        raise GladeError("no metrics given")
    for metric in chosen:
        if metric not in ens.metric_columns:
            raise MetricError(metric, ens.metric_columns)
    return chosen


def _add(ens: Ensemble, kind: str, metrics: Sequence[Label], **params: object) -> pd.DataFrame:
    return _ensemble(ens)._add_recipe(make_recipe(kind, metrics, **params))


def count(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Number of samples of each node: ``"<metric>_count"``.

    A node's samples are its values in every profile (and rank) that has data there.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 20))
    >>> glade.stats.count(ens, "time").columns.tolist()
    ['time_count']
    """
    return _add(ens, "count", chosen_metrics(_ensemble(ens), metrics))


def mean(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Mean of each node's samples: ``"<metric>_mean"``.

    A node's samples are its values in every profile (and rank) that has data there.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 20))
    >>> glade.stats.mean(ens, "time").columns.tolist()
    ['time_mean']
    """
    return _add(ens, "mean", chosen_metrics(_ensemble(ens), metrics))


def median(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Median of each node's samples: ``"<metric>_median"``.

    A node's samples are its values in every profile (and rank) that has data there.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 20))
    >>> glade.stats.median(ens, "time").columns.tolist()
    ['time_median']
    """
    return _add(ens, "median", chosen_metrics(_ensemble(ens), metrics))


def var(ens: Ensemble, metrics: Metrics = None, ddof: int = 1) -> pd.DataFrame:
    """Variance of each node's samples with divisor ``n - ddof``: ``"<metric>_var"``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.
    """
    return _add(ens, "var", chosen_metrics(_ensemble(ens), metrics), ddof=ddof)


def std(ens: Ensemble, metrics: Metrics = None, ddof: int = 1) -> pd.DataFrame:
    """Standard deviation of each node's samples (divisor ``n - ddof``): ``"<metric>_std"``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.
    """
    return _add(ens, "std", chosen_metrics(_ensemble(ens), metrics), ddof=ddof)


def minimum(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Smallest sample of each node: ``"<metric>_min"`` (``glade.stats.min``).

    A node's samples are its values in every profile (and rank) that has data there.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 20))
    >>> glade.stats.min(ens, "time").columns.tolist()
    ['time_min']
    """
    return _add(ens, "min", chosen_metrics(_ensemble(ens), metrics))


def maximum(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Largest sample of each node: ``"<metric>_max"`` (``glade.stats.max``).

    A node's samples are its values in every profile (and rank) that has data there.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 20))
    >>> glade.stats.max(ens, "time").columns.tolist()
    ['time_max']
    """
    return _add(ens, "max", chosen_metrics(_ensemble(ens), metrics))


def percentiles(
    ens: Ensemble, metrics: Metrics = None, q: float | Sequence[float] = (25, 50, 75)
) -> pd.DataFrame:
    """Percentiles of each node's samples, linearly interpolated: ``"<metric>_p<q>"``
    (``time_p25``, ``time_p99.9``).

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.
    q : float or sequence of float, default (25, 50, 75)
        Percentiles, in percent (0 to 100).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble, or a percentile is not from 0 to 100.
    """
    values = [q] if isinstance(q, int | float) else list(q)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float) or not (0 <= value <= 100):
            raise GladeError(f"percentiles are numbers from 0 to 100, not {value!r}")
    return _add(
        ens,
        "percentiles",
        chosen_metrics(_ensemble(ens), metrics),
        q=tuple(float(v) for v in values),
    )


def boxplot(ens: Ensemble, metrics: Metrics = None, whis: float = 1.5) -> pd.DataFrame:
    """Box-plot statistics of each node.

    ``q1``, ``q2``, ``q3``, ``iqr``, ``lower_fence`` = q1 - whis x iqr, ``upper_fence`` = q3
    + whis x iqr and the number of ``outliers`` outside the fences (``"<metric>_q1"``...);
    the outlying samples (with their profiles) are rows of ``ens.outliers``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.
    whis : float, default 1.5
        The fences' distance from the quartiles, in interquartile ranges.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble, or ``whis`` is negative.
    """
    if isinstance(whis, bool) or not isinstance(whis, int | float) or whis < 0:
        raise GladeError(f"whis must be a non-negative number, not {whis!r}")
    return _add(ens, "boxplot", chosen_metrics(_ensemble(ens), metrics), whis=float(whis))


def normality(ens: Ensemble, metrics: Metrics = None, alpha: float = 0.05) -> pd.DataFrame:
    """Shapiro-Wilk test of each node's samples.

    ``"<metric>_normal"`` (True when the p-value exceeds ``alpha``, i.e. normality is not
    rejected), ``"<metric>_shapiro_w"`` and ``"<metric>_shapiro_p"``; missing for fewer than
    3 samples or samples that are all equal.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.
    alpha : float, default 0.05
        The significance level (between 0 and 1).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble, or ``alpha`` is not between 0 and 1.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise GladeError(f"alpha must be between 0 and 1, not {alpha!r}")
    return _add(ens, "normality", chosen_metrics(_ensemble(ens), metrics), alpha=float(alpha))


def correlation(
    ens: Ensemble, first: Label, second: Label, method: str = "pearson"
) -> pd.DataFrame:
    """Correlation of two metrics over each node's samples (rows where both have a value).

    Column ``"<first>_vs_<second>_<method>"``; missing with fewer than 2 pairs or a
    constant metric.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    first, second : str
        The two metric columns.
    method : {"pearson", "spearman"}, default "pearson"
        Pearson's r, or Spearman's rho (ranks with ties averaged).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble, or ``method`` is neither.
    """
    if method not in ("pearson", "spearman"):
        raise GladeError(f"method must be 'pearson' or 'spearman', not {method!r}")
    ensemble = _ensemble(ens)
    metrics = chosen_metrics(ensemble, [first]) + chosen_metrics(ensemble, [second])
    return _add(ensemble, "correlation", metrics, method=method)


def group_ids(metadata: pd.DataFrame, group: Hashable | Group, which: str) -> tuple[Hashable, ...]:
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
        raise GladeError(
            f"group {which} must be profile ids or a {{column: value}} mapping, not {group!r}"
        )
    else:
        ids = tuple(group)
        unknown = [p for p in ids if p not in metadata.index]
        if unknown:
            raise GladeError(
                f"group {which} names profile {unknown[0]!r}, which is not in the ensemble"
            )
    if not ids:
        raise GladeError(f"group {which} holds no profile")
    return ids


def _sides(
    ens: Ensemble, metric: Label | list[Label], a: Group | None, b: Group | None
) -> tuple[list[Label], tuple]:
    """The metrics and profile groups of the two sides of a comparison: one metric
    and two groups, or a list of two metrics (each over all profiles, or over the
    groups when given)."""
    if isinstance(metric, list):
        if len(metric) != 2:
            raise GladeError(f"a comparison of metrics needs two of them, not {metric!r}")
        metrics = chosen_metrics(ens, metric[:1]) + chosen_metrics(ens, metric[1:])
        if (a is None) != (b is None):
            raise GladeError("give both groups a and b, or neither")
    else:
        metrics = chosen_metrics(ens, [metric])
        if a is None or b is None:
            raise GladeError(
                "comparing one metric needs two groups of profiles, a and b "
                "(or give a list of two metrics)"
            )
    groups = (
        (None, None)
        if a is None or b is None
        else (group_ids(ens.metadata, a, "a"), group_ids(ens.metadata, b, "b"))
    )
    return metrics, groups


def _compare(
    ens: Ensemble,
    kind: str,
    metric: Label | list[Label],
    a: Group | None,
    b: Group | None,
    name: str | None,
    **params: object,
) -> pd.DataFrame:
    ensemble = _ensemble(ens)
    if name is not None and (not isinstance(name, str) or not name):
        raise GladeError(f"name must be a non-empty string, not {name!r}")
    metrics, groups = _sides(ensemble, metric, a, b)
    return _add(ensemble, kind, metrics, groups=groups, name=name, **params)


def bhattacharyya(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    ddof: int = 1,
    name: str | None = None,
) -> pd.DataFrame:
    """Bhattacharyya distance between two sides at each node.

    For normal distributions with the sides' means and variances:
    ``1/4 ln(1/4 (v1/v2 + v2/v1 + 2)) + 1/4 (m1 - m2)^2 / (v1 + v2)``. Column
    ``"<metric>_bhattacharyya"`` (one metric), or ``"<first>_vs_<second>_bhattacharyya"``
    (two metrics).

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile.
    """
    return _compare(ens, "bhattacharyya", metric, a, b, name, ddof=ddof)


def hellinger(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    ddof: int = 1,
    name: str | None = None,
) -> pd.DataFrame:
    """Hellinger distance (0 to 1) between two sides at each node.

    For normal distributions with the sides' means and variances: ``sqrt(1 - sqrt(2 s1 s2 /
    (v1 + v2)) exp(-(m1 - m2)^2 / (4 (v1 + v2))))``. Columns as in :func:`bhattacharyya`
    (``_hellinger``).

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile.
    """
    return _compare(ens, "hellinger", metric, a, b, name, ddof=ddof)


def welch_ttest(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    name: str | None = None,
) -> pd.DataFrame:
    """Welch's t-test (unequal variances) of two sides at each node.

    Columns ``_welch_t`` and ``_welch_p`` (two-sided; ``_<name>_t``/``_p``); missing when a
    side has fewer than 2 samples.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile.
    """
    return _compare(ens, "welch", metric, a, b, name)


def score_bhattacharyya(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    ddof: int = 1,
    name: str | None = None,
) -> pd.DataFrame:
    """Thicket's ``score_bhattacharyya`` of two sides at each node.

    The Bhattacharyya distance (see :func:`bhattacharyya`), negative where side a's mean is
    lower than side b's. Column ``_score_bhattacharyya``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile.
    """
    return _compare(ens, "score_bhattacharyya", metric, a, b, name, ddof=ddof)


def score_hellinger(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    ddof: int = 1,
    name: str | None = None,
) -> pd.DataFrame:
    """Thicket's ``score_hellinger`` of two sides at each node.

    The Hellinger distance (see :func:`hellinger`; Thicket's is its square), negative where
    side a's mean is lower. Column ``_score_hellinger``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile.
    """
    return _compare(ens, "score_hellinger", metric, a, b, name, ddof=ddof)


def score_delta_mean_delta_stdnorm(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    ddof: int = 1,
    name: str | None = None,
) -> pd.DataFrame:
    """Thicket's score ``(m1 - m2) + (s1 - s2) / |m1 - m2|`` of two sides at each node.

    Means m and standard deviations s with divisor ``n - ddof``. Column
    ``_delta_stdnorm``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile.
    """
    return _compare(ens, "delta_stdnorm", metric, a, b, name, ddof=ddof)


def score_delta_mean_delta_coefficient_of_variation(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    ddof: int = 1,
    name: str | None = None,
) -> pd.DataFrame:
    """Thicket's score ``(m1 - m2) + s1 / m1 - s2 / m2`` of two sides at each node.

    The difference of the means plus the difference of the coefficients of variation.
    Column ``_delta_cv``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    ddof : int, default 1
        The variances' divisor is ``n - ddof``.
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile.
    """
    return _compare(ens, "delta_cv", metric, a, b, name, ddof=ddof)


def _side_names(
    ens: Ensemble, metric: Label | list[Label], a: Group | None, b: Group | None
) -> tuple[str, str]:
    """Default names of the two sides: a group's metadata values, else its metric,
    else ``"a"`` and ``"b"``."""
    names = []
    for i, group in enumerate((a, b)):
        if isinstance(group, Mapping):
            names.append(", ".join(str(v) for v in group.values()))
        elif isinstance(metric, list) and group is None:
            names.append(str(flat_label(metric[i])))
        else:
            names.append("ab"[i])
    if names[0] == names[1]:
        return "a", "b"
    return names[0], names[1]


def preference(
    ens: Ensemble,
    metric: Label | list[Label],
    a: Group | None = None,
    b: Group | None = None,
    alpha: float = 0.05,
    prefer: str = "lower",
    labels: Sequence[str] | None = None,
    name: str | None = None,
) -> pd.DataFrame:
    """Thicket's ``preference``: which of two sides is better at each node.

    Welch's t-test compares the sides' means; where its two-sided p-value is below
    ``alpha``, the preferred side is the one with the lower mean (``prefer="lower"``, e.g.
    time) or the higher (``"higher"``, e.g. a rate); elsewhere ``"none"``. Columns
    ``_preferred`` (the side's name) and ``_preferred_p`` (Welch's p).

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metric : str or list of two str
        One metric compared over the profile groups ``a`` and ``b``, or a list of two
        metrics (``[("quartz", "time"), ("lassen", "time")]`` in a columnar ensemble)
        compared over all profiles, or over the groups when given.
    a, b : list or mapping, optional
        The two groups of profiles: ids, or ``{metadata column: value}``; the ids are
        kept, so after a filter the groups hold the profiles that remain.
    alpha : float, default 0.05
        The significance level (between 0 and 1).
    prefer : {"lower", "higher"}, default "lower"
        Which mean is better.
    labels : sequence of two str, optional
        The sides' names (default: a group's metadata values, or the metric of each
        side).
    name : str, optional
        The column suffix instead of the statistic's (``"<metric>_<name>"``).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric or a group's metadata column is not a column.
    GladeError
        When the sides are not two (one metric without both groups, a list of other than
        two metrics), a group is empty or names an unknown profile, or ``alpha``,
        ``prefer`` or ``labels`` is out of range.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(6, 20, seed=1))
    >>> a, b = ens.profiles[:3], ens.profiles[3:]
    >>> glade.stats.preference(ens, "time", a, b).columns.tolist()
    ['time_preferred', 'time_preferred_p']
    """
    ensemble = _ensemble(ens)
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise GladeError(f"alpha must be between 0 and 1, not {alpha!r}")
    if prefer not in ("lower", "higher"):
        raise GladeError(f"prefer must be 'lower' or 'higher', not {prefer!r}")
    labels = _side_names(ensemble, metric, a, b) if labels is None else tuple(labels)
    if (
        len(labels) != 2
        or len(set(labels)) != 2
        or not all(isinstance(label, str) and label and label != "none" for label in labels)
    ):
        raise GladeError(
            f"labels must be two different non-empty names other than 'none', not {labels!r}"
        )
    return _compare(
        ensemble, "preference", metric, a, b, name, alpha=float(alpha), prefer=prefer, labels=labels
    )


def total(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Sum of each node's samples: ``"<metric>_sum"`` (``glade.stats.sum``; missing without
    samples).

    A node's samples are its values in every profile (and rank) that has data there.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 20))
    >>> glade.stats.sum(ens, "time").columns.tolist()
    ['time_sum']
    """
    return _add(ens, "sum", chosen_metrics(_ensemble(ens), metrics))


def confidence_interval(
    ens: Ensemble, metrics: Metrics = None, level: float = 0.95, distribution: str = "t"
) -> pd.DataFrame:
    """Confidence interval of the mean of each node's samples.

    ``mean -/+ q s / sqrt(n)``, with s the sample standard deviation (ddof 1) and q the
    ``(1 + level) / 2`` quantile of Student's t with n - 1 degrees of freedom or of the
    normal distribution. Columns ``"<metric>_ci95_low"`` and ``"<metric>_ci95_high"``
    (``ci90``... for other levels); missing below 2 samples.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.
    level : float, default 0.95
        The confidence level (between 0 and 1).
    distribution : {"t", "normal"}, default "t"
        Student's t (exact for normal samples), or the normal distribution (Thicket's
        choice, too narrow for few samples).

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble, ``level`` is not between 0 and 1 or
        ``distribution`` is neither.
    """
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
        raise GladeError(f"level must be between 0 and 1, not {level!r}")
    if distribution not in ("t", "normal"):
        raise GladeError(f"distribution must be 't' or 'normal', not {distribution!r}")
    return _add(
        ens,
        "confidence_interval",
        chosen_metrics(_ensemble(ens), metrics),
        level=float(level),
        distribution=distribution,
    )


def temporal_pattern(ens: Ensemble, metrics: Metrics = None) -> pd.DataFrame:
    """Thicket's ``calc_temporal_pattern``, for time series.

    For one profile per iteration (:meth:`Ensemble.from_timeseries`): the temporal score
    ``1 - mean / max`` of each node's samples (0 when every iteration costs the same, near 1
    when one iteration dominates) in ``"<metric>_temporal_score"``, and its pattern in
    ``"<metric>_pattern"``: ``constant`` below 0.2, ``phased`` below 0.4, ``dynamic`` below
    0.6, else ``sporadic``; ``none`` where the score is undefined (no samples, or a largest
    value of 0). ``glade.stats.calc_temporal_pattern`` is the same function.

    Parameters
    ----------
    ens : Ensemble
        The ensemble; the columns are added to ``ens.stats`` (in place) and computed again
        after every operation that changes it.
    metrics : str or sequence of str, optional
        The metric columns (default: every exclusive and inclusive metric). Thicket's
        ``columns=`` is accepted, with a :class:`~glade.errors.SpellingWarning`.

    Returns
    -------
    pandas.DataFrame
        The new stats columns, one row per node.

    Raises
    ------
    MetricError
        When a metric is not a column of the ensemble (or there is no additive metric to
        default to).
    GladeError
        When ``ens`` is not an Ensemble.
    """
    return _add(ens, "temporal_pattern", chosen_metrics(_ensemble(ens), metrics))


# Thicket's names; glade.stats.min, max and sum read as the statistics they compute.
calc_temporal_pattern = temporal_pattern
min = minimum
max = maximum
sum = total
