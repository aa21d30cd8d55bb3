"""Units of metrics: the one helper that tree(), the views and the plots use, the units
every reader records on its real test file, and how operations keep or derive them."""

from __future__ import annotations

import numpy as np
import pytest

import glade
from glade.units import (
    axis_label,
    combine_unit,
    format_time,
    format_times,
    format_value,
    format_values,
    merge_units,
    normalize_unit,
    scale_for,
    stat_unit,
    time_unit,
)


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


# ------------------------------------------------------------------ every unit
def test_values_with_every_unit():
    assert format_values([1536, 3.2 * 2**30, 100], "B", 1).tolist() == [
        "1.5 KB",
        "3.2 GB",
        "100.0 B",
    ]
    assert format_values([3.68e6, 8, 0], "cycles").tolist() == [
        "3.680M cycles",
        "8.000 cycles",
        "0.000 cycles",
    ]
    assert format_values([12.5, np.nan], "%").tolist() == ["12.500%", "nan"]
    assert format_values([2.5e4], "s/count", 1).tolist() == ["25.0k s/count"]
    # no unit: a plain number, never an SI suffix
    assert format_values([3.68e6, -1.5], None).tolist() == ["3680000.000", "-1.500"]
    assert format_value(0.25, "s", 0) == "250 ms"
    assert scale_for([3.5e6], "cycles") == ("M cycles", 1e-6)
    assert scale_for([3.0e9], "B") == ("GB", 2.0**-30)
    assert scale_for([5], "count") == ("count", 1.0)
    assert scale_for([5e7], "") == ("", 1.0)
    assert axis_label("time", "ms") == "time (ms)" and axis_label("n", "") == "n"


def test_unit_vocabulary_and_rules():
    assert [normalize_unit(s) for s in ("sec", "usec", "bytes", "Calls", "%", "x", None)] == [
        "s",
        "us",
        "B",
        "count",
        "%",
        None,
        None,
    ]
    assert combine_unit("+", "s", "s") == "s"
    assert combine_unit("-", "s", "ms") is None  # not converted: no unit claimed
    assert combine_unit("/", "s", "s") is None
    assert combine_unit("/", "s", "count") == "s/count"
    assert combine_unit("/", None, "s") == "1/s"
    assert combine_unit("*", "s", None) == "s"
    assert stat_unit("s", "mean") == "s" and stat_unit("s", "p90") == "s"
    assert stat_unit("s", "var") == "s^2" and stat_unit("s", "shapiro_p") is None
    assert stat_unit("s", "ci95_low") == "s" and stat_unit(None, "mean") is None
    assert merge_units([{"t": "s", "c": "count"}, {"t": "s", "c": "B"}, None]) == {"t": "s"}


def test_units_are_set_checked_and_kept_by_operations():
    gf = glade.datasets.synthetic_profile(30, ranks=2)
    assert gf.units == {
        "time": "us",
        "time (inc)": "us",
        "PAPI_L2_TCM": "count",
        "PAPI_L2_TCM (inc)": "count",
    }
    with pytest.raises(glade.errors.GladeError, match="not one of"):
        gf.units = {"time": "fortnights"}
    with pytest.raises(glade.errors.GladeError, match="no metric 'nope'"):
        gf.units = {"nope": "s"}
    assert (gf - gf).units["time"] == "us"
    assert "time" not in (gf / gf).units  # a ratio of equal units has none
    kept = gf.query('MATCH (".", p) WHERE p."name" = "main"').drop_index_levels()
    assert kept.units == gf.units
    copy = gf.copy()
    copy.units = {"time": None}
    assert "time" not in copy.units and gf.units["time"] == "us"  # no shared state


def test_an_ensemble_keeps_units_through_stats_and_arithmetic():
    from glade import stats
    from glade.datasets import synthetic_ensemble
    from glade.ensemble import Ensemble

    ens = Ensemble.from_graphframes(synthetic_ensemble(3, 20))
    stats.mean(ens)
    stats.var(ens)
    assert ens.units["time_mean"] == "s" and ens.units["time_var"] == "s^2"
    assert ens.to_graphframe().units["time (inc)_mean"] == "s"
    assert ens.to_graphframe(ens.profiles[0]).units == {"time": "s", "time (inc)": "s"}
    assert (ens - ens).units["time"] == "s"
    assert "time" not in (ens / ens).units
    # the stats tree reads in seconds: 606.924 s is the mean of main's inclusive time
    root = ens.stats["time (inc)_mean"].iloc[0]
    assert ens.tree().splitlines()[1] == f"{format_value(root, 's')} main"


# Each reader's unit on its real test file (the format's own definition).
READER_UNITS = [
    ("hatchet", "hpctoolkit-cpi-database", {"time": "us", "time (inc)": "us"}),
    ("pipit", "ping-pong-hpctoolkit", {"time": "s", "time (inc)": "s"}),
    ("hatchet", "caliper-cpi-json", {"count": "count", "count (inc)": "count"}),
    (
        "hatchet",
        "caliper-sw4-cuda-activity-profile-cali/caliper_cuda_activity_profile_summary_v2.cali",
        {
            "inclusive#scale#sum#cupti.host.duration": "s",
            "inclusive#scale#sum#cupti.host.duration (exc)": "s",
            "sum#scale#cupti.activity.duration": "s",
            "sum#scale#cupti.activity.duration (inc)": "s",
        },
    ),
    (
        "hatchet",
        "caliper-example-cali/example-profile.cali",
        {
            m: "s"
            for m in [
                "Min time/rank",
                "Max time/rank",
                "Avg time/rank",
                "Avg time/rank (exc)",
                "Total time",
                "Total time (exc)",
            ]
        },
    ),
    (
        "hatchet",
        "cprofile-hatchet-pstats/cprofile-cycle.pstats",
        {"time": "s", "time (inc)": "s", "numcalls": "count", "nativecalls": "count"},
    ),
    (
        "hatchet",
        "gprof2dot-cpi/callgrind.dot.64042.0.1",
        {"time": "%", "time (inc)": "%", "calls": "count"},
    ),
    (
        "hatchet",
        "pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json",
        {"time": "s", "time (inc)": "s"},
    ),
    (
        "hatchet",
        "tau-cpi-mpi",
        {"time": "us", "time (inc)": "us", "Calls": "count", "Subrs": "count"},
    ),
    ("hatchet", "json/hatchet-graph-literal.json", {}),  # the literal format has no units
]


@pytest.mark.parametrize(
    ("corpus", "path", "units"), READER_UNITS, ids=[p for _, p, _ in READER_UNITS]
)
def test_each_reader_records_units(data_dir, corpus, path, units):
    source = data_dir / corpus / path
    if not source.exists():
        pytest.skip(f"{source} is absent")
    gf = glade.read(source)
    assert gf.units == units
    assert glade.GraphFrame.from_json(gf.to_json()).units == units  # kept by a round trip


def test_timemory_units_follow_its_statistics(hatchet_data):
    gf = glade.read(hatchet_data / "timemory" / "wall.tree.json")
    assert gf.units["sum.wall_clock (inc)"] == "s"
    assert gf.units["sqr.wall_clock"] == "s^2"  # a sum of squares
    assert gf.units["stddev.wall_clock"] == "s"
    assert "count" not in gf.units
    # outer-loop-0 runs 34.521 s (sum of its laps' wall clock, timemory's "sec")
    assert gf.tree().splitlines()[1] == "34.521 s generate_history/outer-loop-0"


def test_caliper_profiles_read_with_units(hatchet_data):
    gf = glade.read(hatchet_data / "caliper-sw4-cuda-activity-profile-cali")
    # main: inclusive host time 271.493903 s (record ref=27 of the file)
    assert gf.tree().splitlines()[1] == "271.494 s main"
    synthetic = glade.datasets.synthetic_profile(100)
    assert "M" not in synthetic.tree().splitlines()[1]  # 3.68M of nothing is gone
    assert synthetic.tree(metric="PAPI_L2_TCM (inc)").splitlines()[1].endswith("count main")
