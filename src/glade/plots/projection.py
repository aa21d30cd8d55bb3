"""A projection of an ensemble's profiles onto a plane: one point per profile, placed by
its per-node values of a metric and coloured by a metadata column, so groups of runs that
behave alike (and the groups to compare in a supergraph diff) can be picked by eye.

- ``method="pca"``: principal components of the ``profiles x nodes`` values (each node
  centred; ``scale=True`` also divides each node by its standard deviation), by a singular
  value decomposition; the axes say how much of the variance each component explains;
- ``method="mds"``: metric multidimensional scaling of the Euclidean distances between
  profiles (scikit-learn's SMACOF with a fixed seed: ``pip install 'glade[projection]'``).

A node a profile lacks counts as 0; a profile's value at a node is the mean over its rows
(ranks).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import numpy as np
from bokeh.models import ColorBar, ColumnDataSource, HoverTool, LinearColorMapper
from bokeh.palettes import Category10_10, Viridis256
from bokeh.plotting import figure

from glade.ensemble.samples import Label
from glade.errors import GladeError, MetricError
from glade.plots.ensemble import checked_samples

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

METHODS = ("pca", "mds")
#: Seed of the MDS optimization, so the same ensemble gives the same picture.
MDS_SEED = 0


def principal_components(
    values: np.ndarray, count: int = 2, scale: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The coordinates of the rows of ``values`` on its first ``count`` principal
    components, and the share of the variance each explains. Signs are fixed so that
    each component's largest loading is positive."""
    centred = values - values.mean(axis=0)
    if scale:
        spread = centred.std(axis=0)
        centred = centred / np.where(spread > 0, spread, 1.0)
    u, singular, vt = np.linalg.svd(centred, full_matrices=False)
    keep = min(count, len(singular))
    sign = np.sign(vt[np.arange(keep), np.abs(vt[:keep]).argmax(axis=1)])
    sign[sign == 0] = 1.0
    coordinates = np.zeros((len(values), count))
    coordinates[:, :keep] = u[:, :keep] * singular[:keep] * sign
    total = float((singular**2).sum())
    explained = np.zeros(count)
    if total > 0:
        explained[:keep] = singular[:keep] ** 2 / total
    return coordinates, explained


def _mds(values: np.ndarray) -> np.ndarray:
    try:
        from sklearn.manifold import MDS
    except ImportError as exc:
        raise GladeError(
            "method='mds' needs scikit-learn: pip install 'glade[projection]'"
        ) from exc
    # metric MDS of Euclidean distances is the default of every scikit-learn since 1.5;
    # from 1.9 the starting point is a parameter (random, as before, unless said)
    options = {"init": "random"} if "init" in inspect.signature(MDS).parameters else {}
    return MDS(n_components=2, random_state=MDS_SEED, n_init=4, **options).fit_transform(values)


def projection(
    ens: Ensemble, metric: Label | None = None, method: str = "pca", scale: bool = False
) -> tuple[np.ndarray, list[str]]:
    """The ``profiles x 2`` coordinates of the projection and the names of its axes."""
    if method not in METHODS:
        raise GladeError(f"method must be 'pca' or 'mds', not {method!r}")
    table, metric = checked_samples(ens, metric)
    values = np.nan_to_num(table.profile_means(metric).T, nan=0.0)
    if method == "pca":
        coordinates, explained = principal_components(values, scale=scale)
        return coordinates, [
            f"PC{k + 1} ({100 * share:.0f}% of the variance)" for k, share in enumerate(explained)
        ]
    return _mds(values), ["MDS 1", "MDS 2"]


def plot_projection(
    ens: Ensemble,
    metric: Label | None = None,
    color_by: str | None = None,
    method: str = "pca",
    scale: bool = False,
    title: str | None = None,
    width: int = 620,
    height: int = 460,
) -> figure:
    """One point per profile (see the module), coloured by the metadata column
    ``color_by`` (categories get a palette, numbers a colour bar); hovering names the
    profile and its value of ``color_by``.

    Parameters
    ----------
    ens : Ensemble
        The ensemble.
    metric : str, optional
        A metric column (default: the default metric).
    color_by : str, optional
        A metadata column that colours the points.
    method : {"pca", "mds"}, default "pca"
        Principal components, or metric multidimensional scaling (needs
        ``glade[projection]``).
    scale : bool, default False
        With PCA, divide each node's values by their standard deviation.
    title : str, optional
        The figure's title.
    width, height : int, default 620, 460
        The figure's size in pixels.

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    GladeError
        When ``method`` is unknown, or scikit-learn is missing for MDS.
    MetricError
        When the metric or ``color_by`` is not a column.
    """
    if color_by is not None and color_by not in ens.metadata.columns:
        raise MetricError(color_by, ens.metadata.columns, what="metadata column")
    coordinates, axes = projection(ens, metric, method, scale)
    metric = metric if metric is not None else ens.default_metric
    data = {
        "x": coordinates[:, 0],
        "y": coordinates[:, 1],
        "profile": np.asarray([str(p) for p in ens.profiles], dtype=object),
    }
    fig = figure(
        title=title or f"profiles by {metric} ({method.upper()})",
        width=width,
        height=height,
        toolbar_location="above",
        tools="pan,wheel_zoom,box_zoom,save,reset",
    )
    tooltips = [("profile", "@profile")]
    if color_by is None:
        fig.scatter("x", "y", source=ColumnDataSource(data), size=9, color=Category10_10[0])
    else:
        column = ens.metadata[color_by]
        tooltips.append((str(color_by), "@group"))
        if column.dtype.kind in "biuf":
            data["group"] = column.to_numpy(dtype=np.float64)
            finite = data["group"][np.isfinite(data["group"])]
            low, high = (float(finite.min()), float(finite.max())) if finite.size else (0, 1)
            mapper = LinearColorMapper(palette=Viridis256, low=low, high=high, nan_color="#bbbbbb")
            fig.scatter(
                "x",
                "y",
                source=ColumnDataSource(data),
                size=9,
                color={"field": "group", "transform": mapper},
            )
            fig.add_layout(ColorBar(color_mapper=mapper, title=str(color_by), width=12), "right")
        else:
            data["group"] = column.astype(str).to_numpy(dtype=object)
            for k, value in enumerate(dict.fromkeys(data["group"])):
                chosen = data["group"] == value
                part = {key: values[chosen] for key, values in data.items()}
                fig.scatter(
                    "x",
                    "y",
                    source=ColumnDataSource(part),
                    size=9,
                    color=Category10_10[k % len(Category10_10)],
                    legend_label=value,
                )
            fig.legend.title = str(color_by)
            fig.legend.click_policy = "hide"
    fig.add_tools(HoverTool(tooltips=tooltips))
    fig.xaxis.axis_label, fig.yaxis.axis_label = axes
    return fig
