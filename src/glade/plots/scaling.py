"""Bokeh figure of an Extra-P scaling model against its measurements at one node
(what Thicket's ``Modeling.to_html`` draws per node)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from bokeh.models import ColumnDataSource, HoverTool
from bokeh.plotting import figure

from glade.ensemble.samples import Label, stat_label
from glade.ensemble.scaling import evaluate, parameter_values
from glade.errors import GladeError, MetricError
from glade.plots.ensemble import NodeRef, label_text, node_labels
from glade.profile.analyses import node_id
from glade.units import axis_label

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble


def model_formula(row: pd.Series, metric: Label, parameter: str) -> str:
    """The model in a stats row, with 4 significant digits: ``c + a * p^i * log2(p)^j``.

    Parameters
    ----------
    row : pandas.Series
        A row of the stats table.
    metric : str
        The modelled metric.
    parameter : str
        The parameter's name, as the formula writes it.

    Returns
    -------
    str
        The formula.
    """
    parts = [f"{row[stat_label(metric, 'model_constant')]:.4g}"]
    k = 1
    while stat_label(metric, f"model_coefficient{k}") in row.index:
        a = row[stat_label(metric, f"model_coefficient{k}")]
        if not np.isnan(a):
            factors = [f"{a:.4g}"]
            i, j = (row[stat_label(metric, f"model_{kind}{k}")] for kind in ("poly", "log"))
            if i:
                factors.append(f"{parameter}^{i:g}")
            if j:
                factors.append(f"log2({parameter})^{j:g}")
            parts.append(" * ".join(factors))
        k += 1
    return " + ".join(parts)


def plot_model(
    ens: Ensemble,
    node: NodeRef,
    metric: Label | None = None,
    extend: float = 1.5,
    log_x: bool | None = None,
    title: str | None = None,
) -> figure:
    """The Extra-P model of ``metric`` (default: the first modelled metric) at ``node``
    as a line from the smallest parameter value to ``extend`` times the largest, and
    every profile's value as a dot (hover names it). The x axis is logarithmic when
    the values span a factor of 16 or more (or as ``log_x`` says).

    Parameters
    ----------
    ens : Ensemble
        The ensemble, with a model (:meth:`Ensemble.model`).
    node : Node, int or str
        The node.
    metric : str, optional
        The modelled metric (default: the first one modelled).
    extend : float, default 1.5
        How far past the largest parameter value the line goes, as a factor.
    log_x : bool, optional
        A logarithmic x axis (default: when the values span a factor of 16 or more).
    title : str, optional
        The figure's title.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    GladeError
        When nothing is modelled, ``extend`` is under 1, or the node has no model.
    MetricError
        When the metric is not modelled.
    """
    recipes = [r for r in ens.stats_recipes if r.kind == "model"]
    modelled = [m for r in recipes for m in r.metrics]
    if not modelled:
        raise GladeError("no scaling model yet: call ens.model(parameter, metric) first")
    metric = modelled[0] if metric is None else metric
    if metric not in modelled:
        raise MetricError(metric, modelled, what="modelled metric")
    if isinstance(extend, bool) or not isinstance(extend, int | float) or extend < 1:
        raise GladeError(f"extend must be a number of at least 1, not {extend!r}")
    parameter = next(r for r in reversed(recipes) if metric in r.metrics).param("parameter")
    nid = node_id(ens.graph, node)
    stats = ens.stats
    row = stats.loc[nid]
    if pd.isna(row[stat_label(metric, "model_constant")]):
        raise GladeError(
            f"node {nid} has no model of {label_text(metric)!r}: it has "
            f"{int(row[stat_label(metric, 'model_points')])} distinct values "
            f"of {parameter!r}"
        )
    x = parameter_values(ens.metadata, parameter)
    y = ens.samples().profile_means(metric)[nid]
    has = ~np.isnan(x) & ~np.isnan(y)
    low, high = float(x[has].min()), float(x[has].max()) * extend
    log_x = high / low >= 16 if log_x is None else log_x
    grid = np.geomspace(low, high, 200) if log_x else np.linspace(low, high, 200)
    curve = evaluate(stats.loc[[nid]], metric, grid)[0]
    name = node_labels(ens, np.array([nid]))[0]
    fig = figure(
        title=title or f"{label_text(metric)} at {name}",
        width=560,
        height=380,
        x_axis_type="log" if log_x else "linear",
        toolbar_location="above",
        tools="save,reset,box_zoom",
    )
    quality = row[stat_label(metric, "model_ar2")]
    fig.line(
        grid,
        curve,
        line_width=2,
        color="#4c78a8",
        legend_label=f"{model_formula(row, metric, str(parameter))}  (adj. R² {quality:.3f})",
    )
    dots = fig.scatter(
        "x",
        "y",
        source=ColumnDataSource(
            {
                "x": x[has],
                "y": y[has],
                "profile": [str(p) for p in np.asarray(ens.metadata.index, dtype=object)[has]],
            }
        ),
        size=7,
        color="#e45756",
        legend_label="measurements",
    )
    fig.add_tools(
        HoverTool(
            renderers=[dots],
            tooltips=[
                ("profile", "@profile"),
                (str(parameter), "@x{0.000g}"),
                (label_text(metric), "@y{0.000g}"),
            ],
        )
    )
    measured = np.unique(x[has])
    if len(measured) <= 12:
        fig.xaxis.ticker = measured.tolist()
    fig.xaxis.axis_label = str(parameter)
    # in the data's own unit, which the model's coefficients are in
    fig.yaxis.axis_label = axis_label(label_text(metric), ens.units.get(metric, ""))
    fig.legend.location = "top_left"
    fig.legend.label_text_font_size = "9pt"
    return fig
