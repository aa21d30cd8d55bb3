"""Bokeh figures of a metric against metadata (violins, parallel coordinates) and of
scaling models: what their data sources hold, and their errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from bokeh.models import ColumnDataSource, GlyphRenderer

from glade.ensemble import Ensemble
from glade.errors import GladeError, MetricError
from glade.plots.metadata import MISSING, plot_parallel_coordinates, plot_violin
from glade.plots.scaling import plot_model
from tests.ensemble.tiny import tiny_ensemble

TIMES = [[1, 2, 3, 4], [1, 2, 5, 4], [1, 2, 9, 4], [1, 2, 7, 4], [1, 2, 7, 4]]
META = [
    {"compiler": "gcc", "size": 1},
    {"compiler": "gcc", "size": 2},
    {"compiler": "clang", "size": 4},
    {"compiler": "clang", "size": 8},
    {"compiler": "icc", "size": None},
]


@pytest.fixture()
def ens() -> Ensemble:
    return tiny_ensemble(TIMES, META)


def sources(fig, glyph: str) -> list[dict]:
    return [
        r.data_source.data
        for r in fig.renderers
        if isinstance(r, GlyphRenderer)
        and type(r.glyph).__name__ == glyph
        and isinstance(r.data_source, ColumnDataSource)
    ]


def test_violins_by_metadata(ens):
    fig = plot_violin(ens, "kernel", "time", by="compiler")
    outline = sources(fig, "Patches")[0]
    assert outline["group"] == ["clang (2 profiles)", "gcc (2 profiles)", "icc (1 profiles)"]
    # a group's outline spans its values (padded) around its position
    xs, ys = outline["xs"][0], outline["ys"][0]
    assert xs.min() == pytest.approx(-0.4) and xs.max() == pytest.approx(0.4)
    assert ys.min() < 7 and ys.max() > 9
    assert list(outline["ys"][2]) == [7.0, 7.0]  # one value: a flat line
    boxes = next(s for s in sources(fig, "Segment") if "q1" in s)
    assert boxes["q1"] == [7.5, 3.5, 7.0] and boxes["q3"] == [8.5, 4.5, 7.0]
    dots = next(s for s in sources(fig, "Scatter") if "profile" in s)
    assert sorted(dots["value"]) == [3, 5, 7, 7, 9]
    assert dict(fig.xaxis.major_label_overrides) == {0: "clang", 1: "gcc", 2: "icc"}
    whole = plot_violin(ens, "kernel", "time", points=False)
    assert sources(whole, "Patches")[0]["group"] == ["all profiles (5 profiles)"]


def test_violin_errors(ens):
    with pytest.raises(MetricError, match="metadata column"):
        plot_violin(ens, "kernel", "time", by="cpu")
    with pytest.raises(MetricError):
        plot_violin(ens, "kernel", "walltime")
    with pytest.raises(GladeError, match="no node"):
        plot_violin(ens, 99, "time")


def test_parallel_coordinates(ens):
    fig = plot_parallel_coordinates(ens, ["compiler", "size"], "time", node="kernel")
    lines = sources(fig, "MultiLine")[0]
    assert lines["profile"] == ["p0", "p1", "p2", "p3", "p4"]
    ys = np.array(lines["ys"])
    # compiler: clang, gcc, icc at 0, 0.5, 1
    assert ys[:, 0].tolist() == [0.5, 0.5, 0.0, 0.0, 1.0]
    # size 1..8 scaled to 0..1, icc's missing size below the axis
    assert ys[:, 1].tolist() == pytest.approx([0, 1 / 7, 3 / 7, 1, MISSING])
    # the metric at the node: 3..9
    assert ys[:, 2].tolist() == pytest.approx([0, 1 / 3, 1, 2 / 3, 2 / 3])
    assert list(lines["value"]) == [3, 5, 9, 7, 7]
    labels = [s for s in sources(fig, "Text") if "text" in s and "x" in s]
    assert "missing" in labels[0]["text"] and "clang" in labels[0]["text"]
    default = plot_parallel_coordinates(ens, "compiler", "time (inc)")  # at the root
    assert list(sources(default, "MultiLine")[0]["value"]) == [10.0, 12.0, 16.0, 14.0, 14.0]
    with pytest.raises(GladeError, match="at least one metadata column"):
        plot_parallel_coordinates(ens, [])


def test_model_plot(ens):
    rng = np.random.default_rng(3)
    sizes = [2, 4, 8, 16, 32]
    scaled = tiny_ensemble(
        [[1, 2, 3 + 2 * p * (1 + 1e-3 * rng.standard_normal()), 4] for p in sizes],
        [{"p": p} for p in sizes],
    )
    with pytest.raises(GladeError, match=r"call ens\.model"):
        plot_model(scaled, "kernel")
    scaled.model("p", "time")
    fig = plot_model(scaled, "kernel", extend=2.0)
    line = sources(fig, "Line")[0]
    assert line["x"][0] == pytest.approx(2) and line["x"][-1] == pytest.approx(64)
    predicted = scaled.predict(list(line["x"][[0, -1]]), "time").loc[2].drop("name")
    assert [line["y"][0], line["y"][-1]] == pytest.approx(predicted.tolist())
    dots = next(s for s in sources(fig, "Scatter") if "profile" in s)
    assert list(dots["x"]) == sizes
    assert fig.x_scale.__class__.__name__ == "LogScale"
    assert re.fullmatch(
        r"3\.\d{3} \+ [12]\.\d{3} \* p\^1  \(adj\. R² 1\.000\)", fig.legend.items[0].label.value
    )
    with pytest.raises(GladeError, match="extend"):
        plot_model(scaled, "kernel", extend=0.5)
    fewer = scaled.filter_metadata(lambda row: row["p"] != 32)
    with pytest.raises(GladeError, match="has no model"):
        plot_model(fewer, "kernel")
