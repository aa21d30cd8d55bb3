"""The Bokeh figures of trace analyses show the numbers of the analyses."""

from __future__ import annotations

import numpy as np
from bokeh.embed import file_html
from bokeh.models import ColumnDataSource, GlyphRenderer, Image
from bokeh.plotting import figure
from bokeh.resources import INLINE

from glade.datasets import synthetic_trace
from glade.plots.trace import plot_multirun

Figure = type(figure())


def sources(fig) -> list[dict]:
    return [r.data_source.data for r in fig.renderers
            if isinstance(r, GlyphRenderer) and isinstance(r.data_source, ColumnDataSource)]


def test_time_profile_bars_stack_to_the_profile():
    trace = synthetic_trace(3, 6)
    fig = trace.plot_time_profile(num_bins=8, top=3)
    assert isinstance(fig, Figure)
    data = sources(fig)[0]
    profile = trace.time_profile(8)
    stacked = sum(np.asarray(data[str(i)]) for i in range(5))  # 3 functions, other, idle
    width = (profile["bin_end"] - profile["bin_start"]).to_numpy()
    assert np.allclose(stacked, 3 * width)
    assert np.allclose(data["x"], (profile["bin_start"] + profile["bin_end"]) / 2)
    assert "<html" in file_html(fig, INLINE)


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


def test_multirun_figure():
    runs = [synthetic_trace(2, 3), synthetic_trace(4, 3)]
    data = sources(plot_multirun(runs, top=2))[0]
    assert list(data["run"]) == ["0: 2 processes", "1: 4 processes"]
    assert len([k for k in data if k.isdigit()]) == 3  # 2 functions + other
