"""The Bokeh figures of trace analyses show the numbers of the analyses."""

from __future__ import annotations

import numpy as np
from bokeh.embed import file_html
from bokeh.models import BasicTicker, ColumnDataSource, GlyphRenderer, Image
from bokeh.plotting import figure
from bokeh.resources import INLINE

from glade import Trace
from glade.datasets import synthetic_trace
from glade.plots.trace import plot_multirun

Figure = type(figure())


def sources(fig) -> list[dict]:
    return [
        r.data_source.data
        for r in fig.renderers
        if isinstance(r, GlyphRenderer) and isinstance(r.data_source, ColumnDataSource)
    ]


def test_time_profile_bars_stack_to_the_profile():
    trace = synthetic_trace(3, 6)
    fig = trace.plot_time_profile(num_bins=8, top=3)
    assert isinstance(fig, Figure)
    data = sources(fig)[0]
    profile = trace.time_profile(8)
    # the trace lasts 1.69 ms (x in ms, counted from the trace's start); a bin holds
    # 3 processes x 211 us = 632 us (y in us)
    assert fig.xaxis[0].axis_label == "time since the start of the trace (ms)"
    assert fig.yaxis[0].axis_label == "time (us)"
    stacked = sum(np.asarray(data[str(i)]) for i in range(5))  # 3 functions, other, idle
    width = (profile["bin_end"] - profile["bin_start"]).to_numpy()
    assert np.allclose(stacked, 3 * width / 1e3)
    start = profile["bin_start"].iat[0]
    assert np.allclose(data["x"], ((profile["bin_start"] + profile["bin_end"]) / 2 - start) / 1e6)
    assert (np.asarray(data["4"]) >= 0).all()  # idle time, exact: never -1.86e-09
    # the legend sits beside the bars, not over them
    assert fig.legend[0] in fig.right and fig.legend[0] not in fig.center
    assert "<html" in file_html(fig, INLINE)
    normalized = trace.plot_time_profile(num_bins=8, normalized=True)
    assert normalized.yaxis[0].axis_label == "fraction of capacity"


def test_communication_figures():
    trace = synthetic_trace(4, 5)
    hist = sources(trace.plot_message_histogram(bins=4))[0]
    assert list(hist["count"]) == list(trace.message_histogram(4)[0])
    by_process = sources(trace.plot_comm_by_process())[0]
    assert list(by_process["sent"]) == list(trace.comm_by_process()["Sent"])
    assert list(by_process["process"]) == ["0", "1", "2", "3"]
    over_time = sources(trace.plot_comm_over_time(bins=5))[0]
    assert np.sum(over_time["top"]) == trace.comm_over_time(bins=5)[0].sum()
    matrix = trace.plot_comm_matrix()
    image = next(r for r in matrix.renderers if isinstance(r.glyph, Image))
    np.testing.assert_array_equal(image.data_source.data["image"][0], trace.comm_matrix())
    assert trace.plot_comm_matrix(output="count", log=True).title.text.endswith("(messages)")
    # processes are integers: ticks at whole numbers, the centres of the cells
    for axis in (matrix.xaxis[0], matrix.yaxis[0]):
        assert isinstance(axis.ticker, BasicTicker) and axis.ticker.min_interval == 1
        assert axis.major_label_overrides == {}


def test_comm_matrix_names_processes_that_are_not_0_to_n():
    trace = synthetic_trace(3, 2)
    events = trace.events[trace.recorded_columns()].copy()
    events["Process"] = events["Process"] * 10
    events["Partner"] = np.where(events["Partner"] >= 0, events["Partner"] * 10, -1)
    renamed = Trace(events, trace.definitions, trace.metadata)
    fig = renamed.plot_comm_matrix()
    assert fig.xaxis[0].major_label_overrides == {0: "0", 1: "10", 2: "20"}
    assert fig.yaxis[0].major_label_overrides == {0: "0", 1: "10", 2: "20"}


def test_time_axes_follow_the_range():
    trace = synthetic_trace(4, 5)
    fig = trace.plot_comm_over_time(bins=5)
    _, edges = trace.comm_over_time(bins=5)
    data = sources(fig)[0]
    assert fig.xaxis[0].axis_label == "time since the start of the trace (ms)"
    assert np.allclose(data["left"], (edges[:-1] - edges[0]) / 1e6)


def test_multirun_figure():
    runs = [synthetic_trace(2, 3), synthetic_trace(4, 3)]
    fig = plot_multirun(runs, top=2)
    data = sources(fig)[0]
    # a run's functions take 832 us and 873 us (mean over processes)
    assert fig.yaxis[0].axis_label == "time (us)" and fig.legend[0] in fig.right
    assert np.isclose(sum(data[str(i)][1] for i in range(3)), 873.242)
    assert list(data["run"]) == ["0: 2 processes", "1: 4 processes"]
    assert len([k for k in data if k.isdigit()]) == 3  # 2 functions + other
