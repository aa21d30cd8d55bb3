"""Scaling models of an ensemble with Extra-P (Thicket's ``model_extrap``).

``ens.model(parameter, metric)`` fits, at every node, Extra-P's performance model
``f(p) = c + a1 p^i1 log2(p)^j1 + ...`` of a metric against a numeric metadata
column p (problem size, ranks, threads). A node's measurements are its profiles'
values (the mean of their ranks' rows when the ensemble keeps ranks); profiles with
the same p are repetitions, summarized by Extra-P's ``measure`` (mean or median).
Extra-P needs at least :data:`MIN_POINTS` distinct values of p: nodes with fewer
get no model (missing columns).

The result is a statistics recipe like any other, so the models are fitted again
after every operation, and its columns are plain values (no model objects in
cells), per metric m:

- ``m_model``: the model as Extra-P writes it, in terms of the column's name;
- ``m_model_constant`` (c) and, for each term k, ``m_model_coefficient<k>`` (a_k),
  ``m_model_poly<k>`` (i_k) and ``m_model_log<k>`` (j_k), so :meth:`predict`
  evaluates models for every node at once without Extra-P;
- ``m_model_points``: how many distinct values of p the fit used;
- Extra-P's fit quality: ``m_model_rss`` (residual sum of squares), ``m_model_rrss``
  (relative RSS), ``m_model_smape`` (symmetric mean absolute percentage error),
  ``m_model_ar2`` (adjusted R squared) and ``m_model_re`` (relative error).

Extra-P is an optional extra (``pip install 'glade[extrap]'``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.ensemble.samples import Label, Recipe, Result, SampleTable, make_recipe, stat_label
from glade.errors import GladeError, MetricError

#: Fewest distinct parameter values Extra-P models from (it warns and gives up below).
MIN_POINTS = 5
#: Extra-P's fit quality measures: column suffix -> attribute of its hypothesis.
FIT_QUALITY = {"rss": "RSS", "rrss": "rRSS", "smape": "SMAPE", "ar2": "AR2", "re": "RE"}
MEASURES = ("mean", "median")
#: Seconds before the progress bar of a fit appears.
PROGRESS_DELAY = 1.0


def _extrap() -> Any:
    """Extra-P's modules, or a clear error when it is not installed (Extra-P's own
    deprecation warnings about its dependencies are silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from extrap.entities import callpath, coordinate, experiment, measurement
            from extrap.entities import metric as metrics
            from extrap.entities import parameter as parameters
            from extrap.modelers.model_generator import ModelGenerator
            from extrap.util.progress_bar import ProgressBar
    except ImportError as exc:
        raise GladeError(
            f"scaling models need Extra-P: pip install 'glade[extrap]' ({exc})"
        ) from exc
    return (
        experiment.Experiment,
        parameters.Parameter,
        coordinate.Coordinate,
        callpath.Callpath,
        metrics.Metric,
        measurement.Measurement,
        measurement.Measure,
        ModelGenerator,
        ProgressBar,
    )


def parameter_values(metadata: pd.DataFrame, parameter: Label) -> np.ndarray:
    """The value of metadata column ``parameter`` for every profile, as floats; NaN
    where it is missing, not a number or not positive (Extra-P's terms need p > 0)."""
    if parameter not in metadata.columns:
        raise MetricError(parameter, metadata.columns, what="metadata column")
    values = pd.to_numeric(metadata[parameter], errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    return np.where(values > 0, values, np.nan)


def _columns(
    metric: Label, models: dict[int, Any], n: int, points: np.ndarray, parameter: str
) -> dict[Label, Any]:
    """The stats columns of the fitted ``models`` (node -> Extra-P model)."""
    terms = max(
        (len(getattr(m.hypothesis.function, "compound_terms", [])) for m in models.values()),
        default=0,
    )
    text = np.full(n, None, dtype=object)
    numbers = {
        key: np.full(n, np.nan)
        for key in [
            "constant",
            *(f"{kind}{k + 1}" for k in range(terms) for kind in ("coefficient", "poly", "log")),
        ]
    }
    quality = {key: np.full(n, np.nan) for key in FIT_QUALITY}
    for node, model in models.items():
        function = model.hypothesis.function
        text[node] = function.to_string(parameter)
        numbers["constant"][node] = float(function.constant_coefficient)
        for k, term in enumerate(getattr(function, "compound_terms", [])):
            numbers[f"coefficient{k + 1}"][node] = float(term.coefficient)
            numbers[f"poly{k + 1}"][node] = 0.0
            numbers[f"log{k + 1}"][node] = 0.0
            for simple in term.simple_terms:
                kind = "poly" if simple.term_type == "polynomial" else "log"
                numbers[f"{kind}{k + 1}"][node] = float(simple.exponent)
        for key, attribute in FIT_QUALITY.items():
            quality[key][node] = float(getattr(model.hypothesis, attribute))
    out: dict[Label, Any] = {stat_label(metric, "model"): pd.array(text, dtype="string")}
    out.update({stat_label(metric, f"model_{key}"): v for key, v in numbers.items()})
    out[stat_label(metric, "model_points")] = points.astype(np.float64)
    out.update({stat_label(metric, f"model_{key}"): v for key, v in quality.items()})
    return out


def _fit(
    grid: np.ndarray, x: np.ndarray, parameter: str, metric: Label, measure: str
) -> tuple[dict[int, Any], np.ndarray]:
    """Extra-P models (node -> model) of the nodes with enough distinct parameter
    values, fitted in one Extra-P experiment, and each node's number of values."""
    (
        Experiment,
        Parameter,
        Coordinate,
        Callpath,
        Metric,
        Measurement,
        Measure,
        ModelGenerator,
        ProgressBar,
    ) = _extrap()
    xs, code = np.unique(x[~np.isnan(x)], return_inverse=True)
    profile_code = np.full(len(x), -1, dtype=np.int64)
    profile_code[~np.isnan(x)] = code
    data = ~np.isnan(grid) & (profile_code >= 0)[None, :]
    has = np.zeros((grid.shape[0], len(xs)), dtype=bool)
    node_of, profile_of = np.nonzero(data)
    has[node_of, profile_code[profile_of]] = True
    points = has.sum(axis=1)
    nodes = np.flatnonzero(points >= MIN_POINTS)
    if not len(nodes):
        return {}, points
    experiment = Experiment()
    experiment.add_parameter(Parameter(parameter))
    target = Metric(str(metric))
    experiment.add_metric(target)
    coordinates = [Coordinate(float(v)) for v in xs]
    for c in coordinates:
        experiment.add_coordinate(c)
    members = [np.flatnonzero(profile_code == j) for j in range(len(xs))]
    paths = {}
    for node in nodes.tolist():
        path = paths[node] = Callpath(f"node {node}")
        experiment.add_callpath(path)
        for j in np.flatnonzero(has[node]).tolist():
            values = grid[node, members[j]]
            experiment.add_measurement(
                Measurement(coordinates[j], path, target, values[~np.isnan(values)].tolist())
            )
    bar = ProgressBar(desc=f"Extra-P models of {metric}", delay=PROGRESS_DELAY)
    try:
        with warnings.catch_warnings():  # Extra-P's deprecations and its few-points notes
            warnings.simplefilter("ignore")
            generator = ModelGenerator(experiment, use_measure=Measure.from_str(measure))
            generator.model_all(bar)
    finally:
        bar.close()
    return {node: generator.models[(path, target)] for node, path in paths.items()}, points


def model_kernel(table: SampleTable, recipe: Recipe) -> Result:
    """The ``model`` recipe: Extra-P models of the recipe's metrics at every node."""
    parameter = recipe.param("parameter")
    x = parameter_values(table.metadata, parameter)
    out = {}
    for metric in recipe.metrics:
        models, points = _fit(
            table.profile_means(metric), x, str(parameter), metric, recipe.param("measure")
        )
        out.update(_columns(metric, models, table.n, points, str(parameter)))
    return Result(out, {})


def evaluate(stats: pd.DataFrame, metric: Label, values: np.ndarray) -> np.ndarray:
    """(nodes x values) of the models of ``metric`` in a stats table."""
    x = np.asarray(values, dtype=np.float64)[None, :]
    result = np.repeat(
        stats[stat_label(metric, "model_constant")].to_numpy(dtype=np.float64, na_value=np.nan)[
            :, None
        ],
        x.shape[1],
        axis=1,
    )
    k = 1
    while stat_label(metric, f"model_coefficient{k}") in stats.columns:
        a, i, j = (
            stats[stat_label(metric, f"model_{kind}{k}")].to_numpy(
                dtype=np.float64, na_value=np.nan
            )[:, None]
            for kind in ("coefficient", "poly", "log")
        )
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            result += np.where(np.isnan(a), 0.0, a * x**i * np.log2(x) ** j)
        k += 1
    return result


class ScalingModels:
    """Extra-P scaling models, mixed into :class:`glade.Ensemble`; see
    :mod:`glade.ensemble.scaling`."""

    def model(
        self, parameter: Label, metric: Label | Sequence[Label] | None = None, measure: str = "mean"
    ) -> pd.DataFrame:
        """Fit Extra-P's model of ``metric`` (default: the default metric; or a list)
        against metadata column ``parameter`` at every node, summarizing repetitions by
        their ``measure`` (``"mean"`` or ``"median"``). Adds the model columns to the
        stats table (see :mod:`glade.ensemble.scaling`), refitted after every operation,
        and returns them."""
        from glade.ensemble.stats import chosen_metrics

        if measure not in MEASURES:
            raise GladeError(f"measure must be 'mean' or 'median', not {measure!r}")
        x = parameter_values(self.metadata, parameter)
        distinct = np.unique(x[~np.isnan(x)])
        if len(distinct) < MIN_POINTS:
            raise GladeError(
                f"metadata column {parameter!r} has {len(distinct)} distinct positive "
                f"values ({', '.join(f'{v:g}' for v in distinct[:8])}); Extra-P needs at "
                f"least {MIN_POINTS} to model"
            )
        metrics = chosen_metrics(self, self.default_metric if metric is None else metric)
        _extrap()
        return self._add_recipe(make_recipe("model", metrics, parameter=parameter, measure=measure))

    def predict(self, values: float | Sequence[float], metric: Label | None = None) -> pd.DataFrame:
        """The models of ``metric`` (default: the first modelled metric) evaluated at
        parameter ``values``: one row per node (``name``, then one column per value);
        missing where a node has no model. Needs no Extra-P: the models are evaluated
        from their coefficients."""
        modelled = [m for r in self._recipes if r.kind == "model" for m in r.metrics]
        if not modelled:
            raise GladeError("no scaling model yet: call ens.model(parameter, metric) first")
        metric = modelled[0] if metric is None else metric
        if metric not in modelled:
            raise MetricError(metric, modelled, what="modelled metric")
        points = [values] if isinstance(values, int | float) else list(values)
        x = np.asarray(points, dtype=np.float64)
        if not len(x) or not (x > 0).all():
            raise GladeError(f"models are evaluated at positive parameter values, not {points!r}")
        stats = self.stats
        table = pd.DataFrame(evaluate(stats, metric, x), index=stats.index, columns=points)
        table.insert(0, stats.columns[0], stats.iloc[:, 0])
        return table
