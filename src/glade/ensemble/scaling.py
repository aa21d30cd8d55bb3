"""Scaling models of an ensemble: Extra-P's performance models, fitted natively.

``ens.model(parameter, metric)`` fits, at every node, Extra-P's single-parameter
performance model ``f(p) = c + a * p^i * log2(p)^j`` (or a constant) of a metric
against a numeric metadata column p (problem size, ranks, threads), choosing the
exponents as Extra-P does; :mod:`glade.ensemble.pmnf` fits all nodes at once and
describes the hypotheses, the selection rule and the statistics. A node's
measurements are its profiles' values (the mean of their ranks' rows when the
ensemble keeps ranks); profiles with the same p are repetitions, summarized by their
``measure`` (mean or median). A model needs at least :data:`MIN_POINTS` distinct
values of p: nodes with fewer get no model (missing columns).

The result is a statistics recipe like any other, so the models are fitted again
after every operation, and its columns are plain values (no model objects in
cells), per metric m:

- ``m_model``: the model as Extra-P writes it, in terms of the column's name;
- ``m_model_constant`` (c), ``m_model_coefficient1`` (a), ``m_model_poly1`` (i) and
  ``m_model_log1`` (j; a, i and j are missing for a constant model), so
  :meth:`predict` evaluates models for every node at once;
- ``m_model_points``: how many distinct values of p the fit used;
- Extra-P's fit statistics: ``m_model_rss`` (residual sum of squares), ``m_model_rrss``
  (relative RSS), ``m_model_nrss`` (normalized RSS), ``m_model_smape`` (symmetric mean
  absolute percentage error), ``m_model_ar2`` (adjusted R squared) and ``m_model_re``
  (relative error).

Extra-P itself is not needed (the tests compare with it when it is installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from glade.ensemble.pmnf import MIN_POINTS, STATISTICS, Fits, fit, measures, term_values
from glade.ensemble.samples import Label, Recipe, Result, SampleTable, make_recipe, stat_label
from glade.errors import GladeError, MetricError

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

MEASURES = ("mean", "median")


def parameter_values(metadata: pd.DataFrame, parameter: Label) -> np.ndarray:
    """The value of metadata column ``parameter`` for every profile, as floats; NaN
    where it is missing, not a number or not positive (Extra-P's terms need p > 0)."""
    if parameter not in metadata.columns:
        raise MetricError(parameter, metadata.columns, what="metadata column")
    values = pd.to_numeric(metadata[parameter], errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    return np.where(values > 0, values, np.nan)


def _columns(metric: Label, fits: Fits, parameter: str) -> dict[Label, Any]:
    """The stats columns of the models of ``metric``."""
    out: dict[Label, Any] = {
        stat_label(metric, "model"): pd.array(fits.formulas(parameter), dtype="string"),
        stat_label(metric, "model_constant"): fits.constant,
        stat_label(metric, "model_coefficient1"): fits.coefficient,
        stat_label(metric, "model_poly1"): fits.poly,
        stat_label(metric, "model_log1"): fits.log,
        stat_label(metric, "model_points"): fits.points,
    }
    out.update({stat_label(metric, f"model_{key}"): getattr(fits, key) for key in STATISTICS})
    return out


def model_kernel(table: SampleTable, recipe: Recipe) -> Result:
    """The ``model`` recipe: the scaling models of the recipe's metrics at every node."""
    parameter = recipe.param("parameter")
    x = parameter_values(table.metadata, parameter)
    out = {}
    for metric in recipe.metrics:
        xs, values = measures(table.profile_means(metric), x, recipe.param("measure"))
        out.update(_columns(metric, fit(xs, values), str(parameter)))
    return Result(out, {})


def evaluate(stats: pd.DataFrame, metric: Label, values: np.ndarray) -> np.ndarray:
    """(nodes x values) of the models of ``metric`` in a stats table."""
    column = {
        kind: stats[stat_label(metric, f"model_{kind}")].to_numpy(
            dtype=np.float64, na_value=np.nan
        )[:, None]
        for kind in ("constant", "coefficient1", "poly1", "log1")
    }
    x = np.asarray(values, dtype=np.float64)[None, :]
    term = column["coefficient1"] * term_values(x, column["poly1"], column["log1"])
    return column["constant"] + np.where(np.isnan(column["coefficient1"]), 0.0, term)


class ScalingModels:
    """Scaling models, mixed into :class:`glade.Ensemble`; see
    :mod:`glade.ensemble.scaling`."""

    def model(
        self, parameter: Label, metric: Label | Sequence[Label] | None = None, measure: str = "mean"
    ) -> pd.DataFrame:
        """Fit Extra-P's scaling model of ``metric`` against a metadata parameter, per node.

        Adds the model columns to the stats table (see :mod:`glade.ensemble.scaling`),
        refitted after every operation.

        Parameters
        ----------
        parameter : str
            The metadata column (positive numbers, at least 5 distinct values, as in
            Extra-P).
        metric : str or sequence of str, optional
            The metric or metrics (default: the default metric).
        measure : {"mean", "median"}, default "mean"
            How the repetitions at one parameter value are summarized.

        Returns
        -------
        pandas.DataFrame
            The model columns, one row per node.

        Raises
        ------
        GladeError
            When ``measure`` is neither or the parameter has too few distinct values.
        MetricError
            When a metric or ``parameter`` is not a column.
        """
        from glade.ensemble.stats import chosen_metrics

        ens = cast("Ensemble", self)
        if measure not in MEASURES:
            raise GladeError(f"measure must be 'mean' or 'median', not {measure!r}")
        x = parameter_values(ens.metadata, parameter)
        distinct = np.unique(x[~np.isnan(x)])
        if len(distinct) < MIN_POINTS:
            raise GladeError(
                f"metadata column {parameter!r} has {len(distinct)} distinct positive "
                f"values ({', '.join(f'{v:g}' for v in distinct[:8])}); a model needs at "
                f"least {MIN_POINTS} (as in Extra-P)"
            )
        metrics = chosen_metrics(ens, ens.default_metric if metric is None else metric)
        return ens._add_recipe(make_recipe("model", metrics, parameter=parameter, measure=measure))

    def predict(self, values: float | Sequence[float], metric: Label | None = None) -> pd.DataFrame:
        """The models of ``metric`` evaluated at parameter ``values``.

        Parameters
        ----------
        values : float or sequence of float
            Positive parameter values.
        metric : str, optional
            A modelled metric (default: the first one modelled).

        Returns
        -------
        pandas.DataFrame
            One row per node: ``name``, then one column per value; missing where a node has no
            model.

        Raises
        ------
        GladeError
            When nothing is modelled yet or a value is not positive.
        MetricError
            When ``metric`` is not modelled.
        """
        ens = cast("Ensemble", self)
        modelled = [m for r in ens._recipes if r.kind == "model" for m in r.metrics]
        if not modelled:
            raise GladeError("no scaling model yet: call ens.model(parameter, metric) first")
        metric = modelled[0] if metric is None else metric
        if metric not in modelled:
            raise MetricError(metric, modelled, what="modelled metric")
        points = [values] if isinstance(values, int | float) else list(values)
        x = np.asarray(points, dtype=np.float64)
        if not len(x) or not (x > 0).all():
            raise GladeError(f"models are evaluated at positive parameter values, not {points!r}")
        stats = ens.stats
        table = pd.DataFrame(evaluate(stats, metric, x), index=stats.index, columns=points)
        table.insert(0, stats.columns[0], stats.iloc[:, 0])
        return table
