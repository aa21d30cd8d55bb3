"""Bokeh figures of an ensemble: heatmaps of stats (nodes x stats) and of one metric
(nodes x profiles), and the distribution of a metric across profiles at one node
(histogram, box plot).

Nodes are named ``"name [id]"`` on axes, so two nodes with the same function name
stay apart. A node argument is a node id, a :class:`glade.graph.Node` of the
ensemble's graph, or a name that exactly one node has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from bokeh.layouts import row
from bokeh.models import ColorBar, ColumnDataSource, HoverTool, LinearColorMapper
from bokeh.palettes import Viridis256
from bokeh.plotting import figure

from glade.ensemble.samples import Label, SampleTable, flat_label
from glade.errors import GladeError, MetricError
from glade.graph import Node
from glade.profile.analyses import node_id
from glade.units import axis_label, scale_for

if TYPE_CHECKING:
    from bokeh.models import LayoutDOM

    from glade.ensemble.model import Ensemble

NodeRef = int | Node | str
_ROW_HEIGHT = 18
_MIN_HEIGHT = 240


def node_labels(ens: Ensemble, ids: np.ndarray) -> list[str]:
    """``"name [id]"`` of each node of ``ids``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    ids : numpy.ndarray
        Node ids.

    Returns
    -------
    list of str
        One label per id.
    """
    names = ens.graph.names[ids]
    return [f"{name} [{nid}]" for name, nid in zip(names, ids, strict=True)]


def node_ids(ens: Ensemble, nodes: Sequence[NodeRef] | None) -> np.ndarray:
    """The ids of ``nodes`` (every node when None).

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    nodes : sequence of Node, int or str, optional
        Handles, ids or names only one node has.

    Returns
    -------
    numpy.ndarray
        The ids.

    Raises
    ------
    GladeError
        When a node is not one node of the graph.
    """
    if nodes is None:
        return np.arange(len(ens.graph))
    return np.array([node_id(ens.graph, n) for n in nodes], dtype=np.int64)


def label_text(label: Label) -> str:
    """A column label as text (``(header, name)`` as ``"header/name"``).

    Parameters
    ----------
    label : str or tuple
        A column label.

    Returns
    -------
    str
        The text.
    """
    return str(flat_label(label))


def value_axis(ens: Ensemble, metric: Label, values: np.ndarray) -> tuple[str, float]:
    """The title of an axis of ``metric``'s ``values`` with the unit they are drawn in
    (``"time (inc) (ms)"``), and the factor that converts the values to it (see
    :func:`glade.units.scale_for`); the bare name for a metric without a unit.

    Parameters
    ----------
    ens : Ensemble
        The ensemble (its units).
    metric : str
        The metric.
    values : numpy.ndarray
        The values drawn.

    Returns
    -------
    tuple of (str, float)
        The axis title and the factor.
    """
    unit, factor = scale_for(values, ens.units.get(metric, ""))
    return axis_label(label_text(metric), unit), factor


def _colour_bar(mapper: LinearColorMapper, title: str) -> ColorBar:
    return ColorBar(color_mapper=mapper, title=title, width=12)


def plot_stats_heatmap(
    ens: Ensemble,
    columns: Sequence[Label] | None = None,
    nodes: Sequence[NodeRef] | None = None,
    title: str | None = None,
) -> figure:
    """Nodes (rows) x stats columns (columns). Colour shows each value's place between
    its column's smallest and largest value (columns have different units); hovering
    shows the value itself. ``columns`` default to every numeric stats column.

    Parameters
    ----------
    ens : Ensemble
        The ensemble, with statistics.
    columns : sequence of str, optional
        Stats columns (default: every numeric one).
    nodes : sequence of Node, int or str, optional
        The rows (default: every node).
    title : str, optional
        The figure's title.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    MetricError
        When a column is not a stats column.
    """
    stats = ens.stats
    name_col = stats.columns[0]
    numeric = [c for c in stats.columns[1:] if stats[c].dtype.kind in "biuf"]
    columns = numeric if columns is None else list(columns)
    if not columns:
        raise MetricError(
            "<stats column>", [], what="stats column: compute some with glade.stats first; no"
        )
    for column in columns:
        if column not in numeric:
            raise MetricError(column, numeric, what="numeric stats column")
    ids = node_ids(ens, nodes)
    values = stats[columns].to_numpy(dtype=np.float64, na_value=np.nan)[ids]
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
        share = (values - low) / np.where(high > low, high - low, 1.0)
    labels = node_labels(ens, ids)
    names = [label_text(c) for c in columns]
    source = ColumnDataSource(
        {
            "node": np.repeat(labels, len(columns)).tolist(),
            "stat": names * len(ids),
            "value": values.reshape(-1),
            "share": share.reshape(-1),
            "name": np.repeat(stats[name_col].to_numpy()[ids], len(columns)).tolist(),
        }
    )
    mapper = LinearColorMapper(palette=Viridis256, low=0.0, high=1.0, nan_color="#dddddd")
    fig = figure(
        title=title or "stats per node",
        x_range=names,
        y_range=labels[::-1],
        height=max(_MIN_HEIGHT, _ROW_HEIGHT * len(ids) + 120),
        width=max(400, 90 * len(columns) + 260),
        toolbar_location="above",
        tools="save,reset",
    )
    fig.rect(
        "stat",
        "node",
        width=1,
        height=1,
        source=source,
        fill_color={"field": "share", "transform": mapper},
        line_color=None,
    )
    fig.add_tools(
        HoverTool(tooltips=[("node", "@node"), ("stat", "@stat"), ("value", "@value{0.000g}")])
    )
    fig.add_layout(_colour_bar(mapper, "share of column range"), "right")
    fig.xaxis.major_label_orientation = 0.8
    return fig


def plot_profiles_heatmap(
    ens: Ensemble,
    metric: Label | None = None,
    nodes: Sequence[NodeRef] | None = None,
    relative: bool = True,
    title: str | None = None,
) -> figure:
    """Nodes (rows) x profiles (columns) for one metric (default: the ensemble's
    default metric). With ``relative`` the colour is each value divided by its
    node's mean over profiles (which profiles are slow where); else the value
    itself. Ranks, when the ensemble keeps them, are averaged per profile.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    metric : str, optional
        A metric column (default: the default metric).
    nodes : sequence of Node, int or str, optional
        The rows (default: every node).
    relative : bool, default True
        Colour by the value over the node's mean, or by the value.
    title : str, optional
        The figure's title.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    MetricError
        When the metric is not a column.
    """
    table, metric = checked_samples(ens, metric)
    ids = node_ids(ens, nodes)
    p = ens.num_profiles
    grid = table.profile_means(metric)[ids]
    title_of_value, factor = value_axis(ens, metric, grid)
    grid = grid * factor
    with np.errstate(invalid="ignore", divide="ignore"):
        shown = grid / np.nanmean(grid, axis=1, keepdims=True) if relative else grid
    labels = node_labels(ens, ids)
    profiles = [str(pid) for pid in ens.profiles]
    source = ColumnDataSource(
        {
            "node": np.repeat(labels, p).tolist(),
            "profile": profiles * len(ids),
            "value": grid.reshape(-1),
            "shown": shown.reshape(-1),
        }
    )
    finite = shown[np.isfinite(shown)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    mapper = LinearColorMapper(palette=Viridis256, low=low, high=high, nan_color="#dddddd")
    fig = figure(
        title=title or f"{label_text(metric)} per node and profile",
        x_range=profiles,
        y_range=labels[::-1],
        height=max(_MIN_HEIGHT, _ROW_HEIGHT * len(ids) + 140),
        width=max(400, 14 * p + 300),
        toolbar_location="above",
        tools="save,reset",
    )
    fig.rect(
        "profile",
        "node",
        width=1,
        height=1,
        source=source,
        fill_color={"field": "shown", "transform": mapper},
        line_color=None,
    )
    fig.add_tools(
        HoverTool(
            tooltips=[
                ("node", "@node"),
                ("profile", "@profile"),
                (title_of_value, "@value{0.000g}"),
            ]
        )
    )
    fig.add_layout(
        _colour_bar(mapper, "value / node mean" if relative else title_of_value), "right"
    )
    fig.xaxis.major_label_orientation = 1.2
    return fig


def checked_samples(ens: Ensemble, metric: Label | None) -> tuple[SampleTable, Label]:
    """The ensemble's samples, and the metric (default: the default metric), checked.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    metric : str, optional
        A metric column (default: the default metric).

    Returns
    -------
    tuple of (SampleTable, str)
        The samples and the metric.

    Raises
    ------
    MetricError
        When the metric is not a column.
    """
    metric = metric if metric is not None else ens.default_metric
    table = ens.samples()
    table.values(metric)
    return table, metric


def plot_histogram(
    ens: Ensemble,
    node: NodeRef,
    metric: Label | None = None,
    bins: int = 20,
    title: str | None = None,
) -> figure:
    """Histogram of a metric's samples at one node across profiles (and ranks).

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    node : Node, int or str
        The node: a handle, an id or a name only one node has.
    metric : str, optional
        A metric column (default: the default metric).
    bins : int, default 20
        Histogram bins.
    title : str, optional
        The figure's title.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    GladeError
        When ``bins`` is not a positive integer or the node is not one of the graph's.
    MetricError
        When the metric is not a column.
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise GladeError(f"bins must be a positive integer, not {bins!r}")
    nid = node_id(ens.graph, node)
    table, metric = checked_samples(ens, metric)
    values = table.values(metric)
    sample = values[(table.row_node == nid) & ~np.isnan(values)]
    axis, factor = value_axis(ens, metric, sample)
    sample = sample * factor
    counts, edges = (
        np.histogram(sample, bins=bins)
        if sample.size
        else (np.zeros(bins, dtype=np.int64), np.linspace(0.0, 1.0, bins + 1))
    )
    label = node_labels(ens, np.array([nid]))[0]
    source = ColumnDataSource({"left": edges[:-1], "right": edges[1:], "count": counts})
    fig = figure(
        title=title or f"{label}: {label_text(metric)}",
        height=300,
        width=420,
        toolbar_location="above",
        tools="save,reset",
    )
    fig.quad(
        left="left",
        right="right",
        bottom=0,
        top="count",
        source=source,
        fill_color="#4c78a8",
        line_color="white",
    )
    fig.add_tools(
        HoverTool(tooltips=[("range", "@left{0.000g} - @right{0.000g}"), ("profiles", "@count")])
    )
    fig.xaxis.axis_label = axis
    fig.yaxis.axis_label = "samples"
    return fig


def plot_boxplot(
    ens: Ensemble,
    metric: Label | None = None,
    nodes: Sequence[NodeRef] | None = None,
    whis: float = 1.5,
    top: int = 20,
    title: str | None = None,
) -> figure:
    """One box per node of a metric's samples across profiles: quartiles, whiskers to
    the most extreme samples within ``whis`` x IQR of the box, and the other samples
    as points (hover names their profile). Default nodes: the ``top`` nodes with the
    largest medians.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    metric : str, optional
        A metric column (default: the default metric).
    nodes : sequence of Node, int or str, optional
        The nodes (default: the ``top`` nodes with the largest medians).
    whis : float, default 1.5
        The whiskers' reach, in interquartile ranges.
    top : int, default 20
        How many nodes by default.
    title : str, optional
        The figure's title.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    MetricError
        When the metric is not a column.
    """
    table, metric = checked_samples(ens, metric)
    ordered = table.sorted(metric)
    median = ordered.quantile(0.5)
    if nodes is None:
        ranked = np.argsort(-np.nan_to_num(median, nan=-np.inf), kind="stable")
        ids = ranked[: max(int(top), 1)]
    else:
        ids = node_ids(ens, nodes)
    q1, q3 = ordered.quantile(0.25), ordered.quantile(0.75)
    reach = whis * (q3 - q1)
    node_of = table.row_node[ordered.rows]
    inside = (ordered.values >= (q1 - reach)[node_of]) & (ordered.values <= (q3 + reach)[node_of])
    low = np.full(len(ens.graph), np.nan)
    high = np.full(len(ens.graph), np.nan)
    np.fmin.at(low, node_of[inside], ordered.values[inside])
    np.fmax.at(high, node_of[inside], ordered.values[inside])
    labels = node_labels(ens, ids)
    axis, factor = value_axis(ens, metric, np.concatenate([low[ids], high[ids]]))
    boxes = ColumnDataSource(
        {
            "node": labels,
            "q1": q1[ids] * factor,
            "q2": median[ids] * factor,
            "q3": q3[ids] * factor,
            "low": low[ids] * factor,
            "high": high[ids] * factor,
        }
    )
    wanted = np.zeros(len(ens.graph), dtype=bool)
    wanted[ids] = True
    outside = ~inside & wanted[node_of]
    position = {nid: label for nid, label in zip(ids.tolist(), labels, strict=True)}
    profile_ids = np.asarray(ens.metadata.index, dtype=object)
    points = ColumnDataSource(
        {
            "node": [position[nid] for nid in node_of[outside].tolist()],
            "value": ordered.values[outside] * factor,
            "profile": [str(p) for p in profile_ids[table.row_profile[ordered.rows[outside]]]],
        }
    )
    fig = figure(
        title=title or f"{label_text(metric)} across profiles",
        x_range=labels,
        height=360,
        width=max(420, 36 * len(ids) + 120),
        toolbar_location="above",
        tools="save,reset",
    )
    fig.segment("node", "low", "node", "q1", source=boxes, line_color="black")
    fig.segment("node", "q3", "node", "high", source=boxes, line_color="black")
    fig.vbar("node", 0.6, "q2", "q3", source=boxes, fill_color="#4c78a8", line_color="black")
    fig.vbar("node", 0.6, "q1", "q2", source=boxes, fill_color="#9ecae9", line_color="black")
    dots = fig.scatter("node", "value", source=points, size=6, color="#e45756")
    fig.add_tools(
        HoverTool(
            renderers=[dots],
            tooltips=[("node", "@node"), ("profile", "@profile"), ("value", "@value{0.000g}")],
        )
    )
    fig.xaxis.major_label_orientation = 0.9
    fig.yaxis.axis_label = axis
    return fig


def plot_distribution(
    ens: Ensemble, node: NodeRef, metric: Label | None = None, bins: int = 20
) -> LayoutDOM:
    """Histogram and box plot of a metric's samples at one node, side by side.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    node : Node, int or str
        The node: a handle, an id or a name only one node has.
    metric : str, optional
        A metric column (default: the default metric).
    bins : int, default 20
        Histogram bins.

    Returns
    -------
    bokeh.models.LayoutDOM
        The two figures in a row.
    """
    return row(plot_histogram(ens, node, metric, bins), plot_boxplot(ens, metric, nodes=[node]))
