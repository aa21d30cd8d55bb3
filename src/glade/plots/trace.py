"""Bokeh figures of trace analyses: time profile (stacked bars), message size
histogram, communication by process and over time, communication matrix (a static
heatmap) and the comparison of several runs. Each function returns a figure; show
it with ``bokeh.plotting.show`` or ``bokeh.io.output_notebook``.

Times are drawn in the unit that suits their range (ns, us, ms or s, named in the axis
label), and time axes count from the start of the trace; legends sit beside the plot,
never over the bars.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from bokeh.models import (
    BasicTicker,
    ColorBar,
    ColumnDataSource,
    HoverTool,
    LinearColorMapper,
    LogColorMapper,
    NumeralTickFormatter,
)
from bokeh.palettes import Category20, Viridis256
from bokeh.plotting import figure
from bokeh.transform import dodge

from glade.units import scale_for

if TYPE_CHECKING:
    from glade.trace.model import Trace

OTHER = "other"


def _palette(count: int) -> list[str]:
    """``count`` distinct colours (repeating after 20)."""
    base = Category20[20]
    return [base[i % len(base)] for i in range(count)]


def _volume_label(output: str) -> str:
    return "bytes" if output == "size" else "messages"


def _stacked_columns(table: pd.DataFrame, columns: list[str], top: int) -> pd.DataFrame:
    """``columns`` of ``table`` with all but the ``top`` largest summed into ``other``."""
    totals = table[columns].sum(axis=0).sort_values(ascending=False, kind="stable")
    kept = list(totals.index[:top])
    out = table[kept].copy()
    rest = [c for c in columns if c not in kept]
    if rest:
        out[OTHER] = table[rest].sum(axis=1)
    return out


def _compact() -> NumeralTickFormatter:
    """Tick labels for counts and byte volumes: 120k, 1.5m (never 1.200e+5)."""
    return NumeralTickFormatter(format="0.[00]a")


def _legend_beside(fig) -> None:
    """Move the figure's legend out of the plot area, to its right (clicks hide items)."""
    legend = fig.legend[0]
    legend.click_policy = "hide"
    fig.add_layout(legend, "right")


def plot_time_profile(
    trace: Trace, num_bins: int = 50, normalized: bool = False, top: int = 10, **figure_options: Any
):
    """Stacked bars of :meth:`Trace.time_profile`: per time bin, the exclusive time of
    the ``top`` functions (the rest summed as ``other``) and the idle time.

    Parameters
    ----------
    trace : Trace
        The trace.
    num_bins : int, default 50
        Time bins.
    normalized : bool, default False
        Fractions of each bin's capacity instead of times.
    top : int, default 10
        How many functions are stacked; the rest are summed as ``other``.
    **figure_options
        Bokeh figure options (``width``, ``height``, ``title``...).

    Returns
    -------
    bokeh.plotting.figure
        The figure.
    """
    profile = trace.time_profile(num_bins=num_bins, normalized=normalized)
    functions = [c for c in profile.columns if c not in ("bin_start", "bin_end", "idle_time")]
    stacked = _stacked_columns(profile, functions, top)
    stacked["idle_time"] = profile["idle_time"]
    names = list(stacked.columns)
    start = int(profile["bin_start"].iat[0]) if len(profile) else 0
    span_unit, span_factor = scale_for(profile["bin_end"] - start, "ns")
    if normalized:
        value_factor, value_label = 1.0, "fraction of capacity"
    else:
        value_unit, value_factor = scale_for(stacked.sum(axis=1), "ns")
        value_label = f"time ({value_unit})"
    data = {str(i): stacked[c].to_numpy() * value_factor for i, c in enumerate(names)}
    data["x"] = ((profile["bin_start"] + profile["bin_end"]) / 2 - start).to_numpy() * span_factor
    width = (
        float((profile["bin_end"] - profile["bin_start"]).min()) * span_factor
        if len(profile)
        else 1.0
    )
    options = {
        "title": "Time profile",
        "x_axis_label": f"time since the start of the trace ({span_unit})",
        "y_axis_label": value_label,
        "width": 1000,
        "height": 400,
        **figure_options,
    }
    fig = figure(**options)
    colors = [*_palette(len(names) - 1), "#dddddd"]
    fig.vbar_stack(
        [str(i) for i in range(len(names))],
        x="x",
        width=width * 0.95,
        color=colors,
        source=ColumnDataSource(data),
        legend_label=names,
    )
    _legend_beside(fig)
    return fig


def plot_message_histogram(trace: Trace, bins: Any = 20, **figure_options: Any):
    """Bars of :meth:`Trace.message_histogram` (number of messages per size range).

    Parameters
    ----------
    trace : Trace
        The trace.
    bins : int or sequence, default 20
        As for ``numpy.histogram``.
    **figure_options
        Bokeh figure options (``width``, ``height``, ``title``...).

    Returns
    -------
    bokeh.plotting.figure
        The figure.
    """
    counts, edges = trace.message_histogram(bins)
    options = {
        "title": "Message sizes",
        "x_axis_label": "message size (bytes)",
        "y_axis_label": "messages",
        "width": 700,
        "height": 350,
        **figure_options,
    }
    fig = figure(**options)
    fig.xaxis.formatter = _compact()
    fig.yaxis.formatter = _compact()
    source = ColumnDataSource({"left": edges[:-1], "right": edges[1:], "count": counts})
    fig.quad(left="left", right="right", bottom=0, top="count", source=source, line_color="white")
    fig.add_tools(
        HoverTool(tooltips=[("size", "@left{0,0} - @right{0,0}"), ("messages", "@count")])
    )
    return fig


def plot_comm_by_process(trace: Trace, output: str = "size", **figure_options: Any):
    """Grouped bars of :meth:`Trace.comm_by_process`: sent and received volume per
    process.

    Parameters
    ----------
    trace : Trace
        The trace.
    output : {"size", "count"}, default "size"
        Bytes, or numbers of messages.
    **figure_options
        Bokeh figure options (``width``, ``height``, ``title``...).

    Returns
    -------
    bokeh.plotting.figure
        The figure.
    """
    table = trace.comm_by_process(output)
    processes = [str(p) for p in table.index]
    options = {
        "title": "Communication by process",
        "x_range": processes,
        "x_axis_label": "process",
        "y_axis_label": _volume_label(output),
        "width": 800,
        "height": 350,
        **figure_options,
    }
    fig = figure(**options)
    source = ColumnDataSource(
        {
            "process": processes,
            "sent": table["Sent"].to_numpy(),
            "received": table["Received"].to_numpy(),
        }
    )
    fig.vbar(
        x=dodge("process", -0.2, range=fig.x_range),
        top="sent",
        width=0.35,
        source=source,
        color=Category20[3][0],
        legend_label="sent",
    )
    fig.vbar(
        x=dodge("process", 0.2, range=fig.x_range),
        top="received",
        width=0.35,
        source=source,
        color=Category20[3][2],
        legend_label="received",
    )
    fig.yaxis.formatter = _compact()
    _legend_beside(fig)
    return fig


def plot_comm_over_time(
    trace: Trace,
    output: str = "size",
    message_type: str = "send",
    bins: int = 50,
    **figure_options: Any,
):
    """Bars of :meth:`Trace.comm_over_time`: message volume per time interval.

    Parameters
    ----------
    trace : Trace
        The trace.
    output : {"size", "count"}, default "size"
        Bytes, or numbers of messages.
    message_type : {"send", "receive"}, default "send"
        Place each message at its send or its receive.
    bins : int, default 50
        Time bins.
    **figure_options
        Bokeh figure options (``width``, ``height``, ``title``...).

    Returns
    -------
    bokeh.plotting.figure
        The figure.
    """
    volume, edges = trace.comm_over_time(output=output, message_type=message_type, bins=bins)
    since = edges - edges[0]
    unit, factor = scale_for(since, "ns")
    options = {
        "title": f"Messages {'sent' if message_type == 'send' else 'received'} over time",
        "x_axis_label": f"time since the start of the trace ({unit})",
        "y_axis_label": _volume_label(output),
        "width": 900,
        "height": 350,
        **figure_options,
    }
    fig = figure(**options)
    fig.quad(
        left=since[:-1] * factor, right=since[1:] * factor, bottom=0, top=volume, line_color="white"
    )
    fig.yaxis.formatter = _compact()
    return fig


def plot_comm_matrix(trace: Trace, output: str = "size", log: bool = False, **figure_options: Any):
    """Heatmap of :meth:`Trace.comm_matrix`: senders on the y axis, receivers on the x
    axis, colour by volume (``log=True`` for a log colour scale). Cell i is centred on i
    and axis ticks name processes (integers only).

    Parameters
    ----------
    trace : Trace
        The trace.
    output : {"size", "count"}, default "size"
        Bytes, or numbers of messages.
    log : bool, default False
        A logarithmic colour scale.
    **figure_options
        Bokeh figure options (``width``, ``height``, ``title``...).

    Returns
    -------
    bokeh.plotting.figure
        The figure.

    Raises
    ------
    TraceError
        When a dense matrix would be too large.
    """
    matrix = trace.comm_matrix(output, as_frame=True, form="dense")
    size = len(matrix)
    values = matrix.to_numpy().astype(np.float64)
    peak = float(values.max()) if values.size else 0.0
    if log:
        positive = values[values > 0]
        low = float(positive.min()) if positive.size else 1.0
        mapper = LogColorMapper(palette=Viridis256, low=low, high=max(peak, low * 10))
    else:
        mapper = LinearColorMapper(palette=Viridis256, low=0, high=max(peak, 1.0))
    options = {
        "title": f"Communication matrix ({_volume_label(output)})",
        "x_axis_label": "receiver (process)",
        "y_axis_label": "sender (process)",
        "x_range": (-0.5, size - 0.5),
        "y_range": (size - 0.5, -0.5),
        "width": 600,
        "height": 550,
        **figure_options,
    }
    fig = figure(**options)
    fig.image(image=[values], x=-0.5, y=-0.5, dw=size, dh=size, color_mapper=mapper)
    ids = [int(p) for p in matrix.index]
    for axis in (fig.xaxis, fig.yaxis):
        axis.ticker = BasicTicker(min_interval=1, desired_num_ticks=min(max(size, 1), 10))
        axis.minor_tick_line_color = None
        if ids != list(range(size)):  # positions are rows: label them with process ids
            axis.major_label_overrides = {i: str(p) for i, p in enumerate(ids)}
    fig.add_tools(
        HoverTool(
            tooltips=[
                ("sender", "$y{0}"),
                ("receiver", "$x{0}"),
                (_volume_label(output), "@image{0,0}"),
            ]
        )
    )
    fig.add_layout(
        ColorBar(
            color_mapper=mapper,
            ticker=BasicTicker(),
            formatter=_compact(),
            title=_volume_label(output),
        ),
        "right",
    )
    return fig


def plot_multirun(runs: Sequence[Trace] | pd.DataFrame, top: int = 10, **figure_options: Any):
    """Stacked bars comparing runs: one bar per run (labelled with its number of
    processes), stacked by function. ``runs`` is a list of traces or the table of
    :meth:`Trace.multirun_analysis` (times in ns).

    Parameters
    ----------
    runs : sequence of Trace or pandas.DataFrame
        The runs, or the table of :meth:`Trace.multirun_analysis`.
    top : int, default 10
        How many functions are stacked; the rest are summed as ``other``.
    **figure_options
        Bokeh figure options (``width``, ``height``, ``title``...).

    Returns
    -------
    bokeh.plotting.figure
        The figure.
    """
    from glade.trace.model import Trace

    table = runs if isinstance(runs, pd.DataFrame) else Trace.multirun_analysis(list(runs))
    stacked = _stacked_columns(table, list(table.columns), top)
    labels = [f"{i}: {p} processes" for i, p in enumerate(table.index)]
    names = [str(c) for c in stacked.columns]
    unit, factor = scale_for(stacked.sum(axis=1), "ns")
    data = {str(i): stacked[c].to_numpy() * factor for i, c in enumerate(stacked.columns)}
    data["run"] = labels
    options = {
        "title": "Runs compared",
        "x_range": labels,
        "y_axis_label": f"time ({unit})",
        "width": 800,
        "height": 400,
        **figure_options,
    }
    fig = figure(**options)
    fig.vbar_stack(
        [str(i) for i in range(len(names))],
        x="run",
        width=0.8,
        color=_palette(len(names)),
        source=ColumnDataSource(data),
        legend_label=names,
    )
    _legend_beside(fig)
    return fig
