"""Bokeh figures of ensembles: what their data sources hold, and their errors."""

from __future__ import annotations

import numpy as np
import pytest
from bokeh.models import ColumnDataSource

import glade.stats as gs
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.errors import GladeError, MetricError
from glade.plots.ensemble import (
    plot_boxplot,
    plot_distribution,
    plot_histogram,
    plot_profiles_heatmap,
    plot_stats_heatmap,
)


@pytest.fixture()
def ens() -> Ensemble:
    return Ensemble.from_graphframes(synthetic_ensemble(12, 80, seed=2))


def source(fig) -> dict:
    sources = [r.data_source for r in fig.renderers if isinstance(r.data_source, ColumnDataSource)]
    return sources[0].data


def test_stats_heatmap_shows_the_stats(ens):
    with pytest.raises(MetricError, match=r"compute some with glade\.stats"):
        plot_stats_heatmap(ens)
    gs.mean(ens, "time")
    gs.std(ens, "time")
    fig = plot_stats_heatmap(ens, nodes=[0, 3, 5])
    data = source(fig)
    assert data["stat"] == ["time_mean", "time_std"] * 3
    np.testing.assert_allclose(data["value"][::2], ens.stats["time_mean"].to_numpy()[[0, 3, 5]])
    assert min(data["share"]) == 0.0 and max(data["share"]) == 1.0
    assert data["node"][0] == "main [0]"
    with pytest.raises(MetricError, match="numeric stats column"):
        plot_stats_heatmap(ens, columns=["time_median"])


def test_profiles_heatmap_is_node_mean_relative(ens):
    fig = plot_profiles_heatmap(ens, "time (inc)", nodes=[0])
    data = source(fig)
    values = ens.dataframe.xs(0, level="node")["time (inc)"]
    np.testing.assert_allclose(data["value"], values.to_numpy())
    np.testing.assert_allclose(data["shown"], values.to_numpy() / values.mean())
    absolute = source(plot_profiles_heatmap(ens, "time (inc)", nodes=[0], relative=False))
    np.testing.assert_allclose(absolute["shown"], values.to_numpy())


def test_histogram_counts_every_profile(ens):
    fig = plot_histogram(ens, "main", "time (inc)", bins=5)
    assert sum(source(fig)["count"]) == ens.num_profiles
    with pytest.raises(GladeError, match="bins"):
        plot_histogram(ens, 0, bins=0)


def test_boxplot_boxes_and_outlier_points(ens):
    gs.boxplot(ens, "time")
    fig = plot_boxplot(ens, "time", top=5)
    boxes = source(fig)
    medians = ens.stats["time_q2"].to_numpy()
    np.testing.assert_allclose(sorted(boxes["q2"], reverse=True), np.sort(medians)[::-1][:5])
    points = [r.data_source.data for r in fig.renderers][-1]
    chosen = {label for label in boxes["node"]}
    expected = ens.outliers[
        [
            f"{n} [{i}]" in chosen
            for n, i in zip(ens.outliers["name"], ens.outliers["node"], strict=True)
        ]
    ]
    assert sorted(points["value"]) == sorted(expected["value"])


def test_distribution_layout_and_node_errors(ens):
    layout = plot_distribution(ens, 0, "time")
    assert len(layout.children) == 2
    with pytest.raises(GladeError, match="no node 10000"):
        plot_histogram(ens, 10_000)
    names = ens.graph.frames["name"]
    repeated = names[names.duplicated()].iloc[0]
    with pytest.raises(GladeError, match=f"nodes are named '{repeated}'"):
        plot_histogram(ens, repeated)
    with pytest.raises(MetricError):
        plot_boxplot(ens, "walltime")


def test_axes_name_the_unit_the_values_are_drawn_in():
    gfs = synthetic_ensemble(6, 40, seed=3)
    for gf in gfs:
        # the same runs recorded in microseconds, drawn in seconds
        gf.dataframe[["time", "time (inc)"]] *= 1e6
        gf.units = {"time": "us", "time (inc)": "us"}
    ens = Ensemble.from_graphframes(gfs)
    fig = plot_histogram(ens, "main", "time (inc)", bins=4)
    assert fig.xaxis[0].axis_label == "time (inc) (s)"
    main = ens.dataframe.xs(0, level="node")["time (inc)"].to_numpy()
    assert source(fig)["left"][0] == pytest.approx(main.min() * 1e-6)
    heat = plot_profiles_heatmap(ens, "time", relative=False)
    np.testing.assert_allclose(
        source(heat)["value"][: ens.num_profiles],
        # one unit for the whole grid: the largest exclusive time is over 10^6 us
        ens.dataframe.xs(0, level="node")["time"].to_numpy() * 1e-6,
    )
    bar = next(layout for layout in heat.right if hasattr(layout, "title"))
    assert bar.title == "time (s)"
    box = plot_boxplot(ens, "time (inc)", top=3)
    assert box.yaxis[0].axis_label == "time (inc) (s)"
