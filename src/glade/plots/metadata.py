"""Bokeh figures of a metric against the runs' metadata: violins of a metric at one
node for each value of a metadata column, and parallel coordinates across several
metadata columns and the metric (which runs, built how, are slow).

A profile's value at a node is the mean of its rows (ranks) there; profiles without
a value are left out of violins and drawn at the bottom of the metric axis
(``missing``) in parallel coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from bokeh.models import ColorBar, ColumnDataSource, HoverTool, LinearColorMapper
from bokeh.palettes import Category10, Viridis256
from bokeh.plotting import figure

from glade.ensemble.samples import Label
from glade.errors import GladeError, MetricError
from glade.plots.ensemble import NodeRef, checked_samples, label_text, node_labels
from glade.profile.analyses import node_id

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

#: Half the width of the widest violin, in units of the distance between violins.
VIOLIN_HALF_WIDTH = 0.4
#: Where missing values sit on a parallel-coordinates axis (axes span 0 to 1).
MISSING = -0.12


def _node_and_values(
    ens: Ensemble, node: NodeRef | None, metric: Label | None
) -> tuple[int, Label, np.ndarray]:
    """The node (default: the root with the largest mean), the metric and each
    profile's value there."""
    table, metric = checked_samples(ens, metric)
    grid = table.profile_means(metric)
    if node is None:
        roots = ens.graph.root_ids
        present = ~np.isnan(grid[roots])
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(present, grid[roots], 0.0).sum(axis=1) / present.sum(axis=1)
        nid = int(roots[np.argmax(np.nan_to_num(means, nan=-np.inf))])
    else:
        nid = node_id(ens.graph, node)
    return nid, metric, grid[nid]


def _metadata_column(ens: Ensemble, column: Label) -> pd.Series:
    if column not in ens.metadata.columns:
        raise MetricError(column, ens.metadata.columns, what="metadata column")
    return ens.metadata[column]


def _groups(values: pd.Series) -> tuple[list[str], np.ndarray]:
    """Sorted distinct values of a metadata column as labels, and each profile's group
    (missing values form a last group of their own)."""
    codes, uniques = pd.factorize(values, sort=True)
    labels = [f"{v:g}" if isinstance(v, float | np.floating) else str(v) for v in uniques]
    if (codes < 0).any():
        codes = np.where(codes < 0, len(labels), codes)
        labels.append("missing")
    return labels, codes


def plot_violin(
    ens: Ensemble,
    node: NodeRef | None = None,
    metric: Label | None = None,
    by: Label | None = None,
    points: bool = True,
    title: str | None = None,
) -> figure:
    """One violin per value of metadata column ``by`` (one for all profiles when None)
    of ``metric`` (default: the default metric) at ``node`` (default: the root with
    the largest mean): the outline is a Gaussian kernel density estimate (Scott's
    bandwidth) of the profiles' values, the thick bar spans the quartiles, the white
    dot is the median, and with ``points`` every profile is a dot (hover names it).
    A group with one distinct value is a flat line.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    node : Node, int or str, optional
        The node (default: the root with the largest mean).
    metric : str, optional
        A metric column (default: the default metric).
    by : str, optional
        A metadata column: one violin per value.
    points : bool, default True
        Draw every profile as a dot.
    title : str, optional
        The figure's title.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    MetricError
        When the metric or ``by`` is not a column.
    GladeError
        When no profile has a value of the metric at the node.
    """
    from scipy.stats import gaussian_kde

    nid, metric, values = _node_and_values(ens, node, metric)
    if by is None:
        labels, codes = ["all profiles"], np.zeros(ens.num_profiles, dtype=np.int64)
    else:
        labels, codes = _groups(_metadata_column(ens, by))
    has = ~np.isnan(values)
    outline: dict[str, list[Any]] = {"xs": [], "ys": [], "group": [], "colour": []}
    boxes: dict[str, list[Any]] = {"x": [], "q1": [], "q2": [], "q3": []}
    palette = Category10[10]
    for g, label in enumerate(labels):
        sample = values[has & (codes == g)]
        if not len(sample):
            continue
        colour = palette[g % len(palette)]
        low, high = float(sample.min()), float(sample.max())
        if high > low:
            pad = 0.15 * (high - low)
            grid = np.linspace(low - pad, high + pad, 120)
            density = gaussian_kde(sample)(grid)
            width = VIOLIN_HALF_WIDTH * density / density.max()
            outline["xs"].append(np.concatenate([g - width, (g + width)[::-1]]))
            outline["ys"].append(np.concatenate([grid, grid[::-1]]))
        else:
            outline["xs"].append(np.array([g - VIOLIN_HALF_WIDTH, g + VIOLIN_HALF_WIDTH]))
            outline["ys"].append(np.array([low, low]))
        outline["group"].append(f"{label} ({len(sample)} profiles)")
        outline["colour"].append(colour)
        q1, q2, q3 = np.percentile(sample, [25, 50, 75])
        boxes["x"].append(g)
        boxes["q1"].append(q1)
        boxes["q2"].append(q2)
        boxes["q3"].append(q3)
    if not outline["xs"]:
        raise GladeError(f"no profile has a value of {label_text(metric)!r} at node {nid}")
    name = node_labels(ens, np.array([nid]))[0]
    what = f" by {label_text(by)}" if by is not None else ""
    fig = figure(
        title=title or f"{label_text(metric)} at {name}{what}",
        width=max(560, 110 * len(labels) + 200),
        height=380,
        toolbar_location="above",
        tools="save,reset,box_zoom",
        x_range=(-0.6, len(labels) - 0.4),
    )
    shapes = fig.patches(
        "xs",
        "ys",
        source=ColumnDataSource(outline),
        fill_color="colour",
        fill_alpha=0.35,
        line_color="colour",
        line_width=1.5,
    )
    fig.add_tools(HoverTool(renderers=[shapes], tooltips=[("group", "@group")]))
    box_source = ColumnDataSource(boxes)
    fig.segment("x", "q1", "x", "q3", source=box_source, line_width=7, line_color="#333333")
    fig.scatter("x", "q2", source=box_source, size=7, fill_color="white", line_color="#333333")
    if points:
        keep = has & (codes < len(labels))
        rng = np.random.default_rng(0)
        jitter = rng.uniform(-0.12, 0.12, size=int(keep.sum()))
        dots = fig.scatter(
            "x",
            "value",
            size=5,
            alpha=0.7,
            color="#222222",
            source=ColumnDataSource(
                {
                    "x": codes[keep] + jitter,
                    "value": values[keep],
                    "profile": [str(p) for p in np.asarray(ens.metadata.index, object)[keep]],
                    "group": [labels[c] for c in codes[keep]],
                }
            ),
        )
        fig.add_tools(
            HoverTool(
                renderers=[dots],
                tooltips=[
                    ("profile", "@profile"),
                    ("group", "@group"),
                    (label_text(metric), "@value{0.000g}"),
                ],
            )
        )
    fig.xaxis.ticker = list(range(len(labels)))
    fig.xaxis.major_label_overrides = dict(enumerate(labels))
    fig.xaxis.axis_label = label_text(by) if by is not None else ""
    fig.yaxis.axis_label = label_text(metric)
    fig.xgrid.grid_line_color = None
    if len(labels) > 6:
        fig.xaxis.major_label_orientation = 0.7
    return fig


def _number(value: float) -> str:
    """A tick value: whole numbers below ten million in full, others to 4 digits."""
    if float(value).is_integer() and abs(value) < 1e7:
        return f"{int(value)}"
    return f"{value:.4g}"


def _axis(values: pd.Series | np.ndarray) -> tuple[np.ndarray, list[tuple[float, str]]]:
    """Positions from 0 to 1 (MISSING for missing values) of one parallel-coordinates
    axis, and its tick labels: the smallest, middle and largest values of a numeric
    axis, every category of a categorical one."""
    series = pd.Series(values).reset_index(drop=True)
    numeric = pd.api.types.is_numeric_dtype(series.dtype) and not (
        pd.api.types.is_bool_dtype(series.dtype)
    )
    if numeric:
        x = series.to_numpy(dtype=np.float64, na_value=np.nan)
        finite = x[np.isfinite(x)]
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        span = high - low
        position = (x - low) / span if span > 0 else np.where(np.isnan(x), np.nan, 0.5)
        ticks = [(0.0, low), (0.5, (low + high) / 2), (1.0, high)] if span > 0 else [(0.5, low)]
        labels = [(p, _number(v)) for p, v in ticks]
    else:
        codes, uniques = pd.factorize(series, sort=True)
        count = len(uniques)
        steps = np.linspace(0.0, 1.0, count) if count > 1 else np.array([0.5])
        position = np.where(codes >= 0, steps[np.maximum(codes, 0)], np.nan)
        labels = [(float(steps[i]), str(u)) for i, u in enumerate(uniques)]
    missing = np.isnan(position)
    if missing.any():
        position = np.where(missing, MISSING, position)
        labels.append((MISSING, "missing"))
    return position, labels


def plot_parallel_coordinates(
    ens: Ensemble,
    columns: Sequence[Label],
    metric: Label | None = None,
    node: NodeRef | None = None,
    title: str | None = None,
) -> figure:
    """Parallel coordinates: one vertical axis per metadata column in ``columns``, then
    one for ``metric`` (default: the default metric) at ``node`` (default: the root
    with the largest mean); one line per profile through its values, coloured by the
    metric. Numeric axes run from their smallest to their largest value; a text
    column puts its values in sorted order; missing values sit below an axis.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    columns : sequence of str
        Metadata columns, one axis each.
    metric : str, optional
        The last axis's metric (default: the default metric).
    node : Node, int or str, optional
        The node whose values the metric axis shows.
    title : str, optional
        The figure's title.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    MetricError
        When a column or the metric is missing.
    GladeError
        When ``columns`` is empty.
    """
    chosen = [columns] if isinstance(columns, str) else list(columns)
    if not chosen:
        raise GladeError("parallel coordinates need at least one metadata column")
    nid, metric, values = _node_and_values(ens, node, metric)
    axes = [_axis(_metadata_column(ens, column)) for column in chosen]
    axes.append(_axis(values))
    node_name = node_labels(ens, np.array([nid]))[0]
    names = [label_text(c) for c in chosen] + [label_text(metric)]
    count = len(axes)
    positions = np.column_stack([position for position, _ in axes])
    profiles = [str(p) for p in ens.metadata.index]
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    mapper = LinearColorMapper(
        palette=Viridis256, low=low, high=high if high > low else low + 1, nan_color="#bbbbbb"
    )
    lines = ColumnDataSource(
        {
            "xs": [list(range(count))] * len(profiles),
            "ys": positions.tolist(),
            "value": values,
            "profile": profiles,
            **{
                f"axis{i}": [str(v) for v in (ens.metadata[c] if i < len(chosen) else values)]
                for i, c in enumerate([*chosen, None])
            },
        }
    )
    fig = figure(
        title=title or f"{names[-1]} at {node_name} against the metadata",
        width=170 * count + 200,
        height=420,
        toolbar_location="above",
        tools="save,reset",
        x_range=(-0.7, count - 0.4),
        y_range=(MISSING - 0.1, 1.18),
    )
    drawn = fig.multi_line(
        "xs",
        "ys",
        source=lines,
        line_width=2,
        line_alpha=0.75,
        line_color={"field": "value", "transform": mapper},
    )
    fig.add_tools(
        HoverTool(
            renderers=[drawn],
            tooltips=[("profile", "@profile")]
            + [(name, f"@axis{i}") for i, name in enumerate(names)],
        )
    )
    fig.segment(
        x0=list(range(count)),
        y0=[0.0] * count,
        x1=list(range(count)),
        y1=[1.0] * count,
        line_color="#444444",
        line_width=1.5,
    )
    ticks: dict[str, list[Any]] = {"x": [], "y": [], "text": []}
    for i, (_, labels) in enumerate(axes):
        for y, text in labels:
            ticks["x"].append(i - 0.05)
            ticks["y"].append(y)
            ticks["text"].append(text)
    fig.text(
        "x",
        "y",
        "text",
        source=ColumnDataSource(ticks),
        text_align="right",
        text_baseline="middle",
        text_font_size="9pt",
        text_color="#333333",
        background_fill_color="white",
        background_fill_alpha=0.85,
        padding=2,
    )
    fig.text(
        x=list(range(count)),
        y=[1.07] * count,
        text=names,
        text_align="center",
        text_baseline="bottom",
        text_font_size="10pt",
        text_font_style="bold",
    )
    fig.axis.visible = False
    fig.grid.grid_line_color = None
    fig.add_layout(ColorBar(color_mapper=mapper, title=label_text(metric), width=12), "right")
    return fig
