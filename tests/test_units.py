"""Times with units: the one helper that tree(), the views and the plots use."""

from __future__ import annotations

import numpy as np
import pytest

import glade
from glade.units import format_time, format_times, scale_for, time_unit


def test_each_time_in_its_own_unit():
    values = [0, 999, 1000, 1234567, 2.5e9, -2500, np.nan, np.inf, -np.inf, 0.4]
    assert format_times(values, "ns").tolist() == [
        "0.000 ns",
        "999.000 ns",
        "1.000 us",
        "1.235 ms",
        "2.500 s",
        "-2.500 us",
        "nan",
        "inf",
        "-inf",
        "0.400 ns",
    ]
    assert format_time(0.5, "s", precision=1) == "500.0 ms"
    assert format_time(90, "s") == "90.000 s"  # no minutes: s is the largest unit
    assert format_time(1500, "us", precision=0) == "2 ms"
    with pytest.raises(ValueError, match="unknown time unit 'min'"):
        format_time(1, "min")


def test_one_unit_for_a_range():
    assert scale_for([10, 999_999], "ns") == ("us", 1e-3)
    assert scale_for([0, 1_000_000], "ns") == ("ms", 1e-6)
    assert scale_for([0.02, 0.5], "s") == ("ms", 1e3)
    assert scale_for([], "ns") == ("ns", 1.0)
    assert scale_for([np.nan, 3], "ns") == ("ns", 1.0)


def test_which_metrics_are_times():
    metadata = {"units": {"time": "ns", "count": "calls"}}
    assert time_unit(metadata, "time") == "ns"
    assert time_unit(metadata, "count") is None  # not a time unit
    assert time_unit(metadata, "PAPI_L2_TCM") is None
    assert time_unit({}, "time") is None
    assert time_unit({"units": "ns"}, "time") is None


def test_a_trace_tree_reads_in_time_units(pipit_data):
    gf = glade.read_trace(pipit_data / "ping-pong-otf2").to_graphframe()
    lines = gf.tree().splitlines()
    # ping-pong: main runs 199.4 ms (mean over the 2 processes), MPI_Init 193.5 ms,
    # MPI_Comm_rank 1.1 us
    assert lines[1] == "199.392 ms int main(int, char**)"
    assert lines[2] == "├─ 193.450 ms MPI_Init"
    assert "1.103 us MPI_Comm_rank" in lines[4]
    assert gf.tree(metric="count").splitlines()[5] == "├─ 8.000 MPI_Send"  # not a time
    legend = gf.tree(color=True).splitlines()[-1]
    assert "≥1.103 us" in legend and "≥179.453 ms" in legend
