"""The details of one supernode (the linked views' data), on tiny ensembles computed by
hand: every profile is ``main -> solve -> kernel``, ``main -> io`` (tests/ensemble/tiny.py)
and supernode ``lib`` holds solve and kernel."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glade.ensemble import Ensemble
from glade.ensemble.pmnf import HYPOTHESES
from glade.ensemble.supergraph.details import details_payload, out_of_order
from glade.errors import GladeError
from glade.profile import GraphFrame
from tests.ensemble.tiny import tiny_ensemble

LIB = {"^(solve|kernel)$": "lib"}
PROCESSES = [1, 2, 4, 8, 16]


def _scaling_ensemble(kernel: list[float], processes: list[int]) -> Ensemble:
    """main 0.5, solve 1, kernel as given, io 3 (exclusive), one profile per process
    count."""
    return tiny_ensemble(
        [[0.5, 1.0, k, 3.0] for k in kernel], [{"mpi.world.size": p} for p in processes]
    )


def test_call_sites_hierarchy_and_box_plots():
    # kernel = 2 log2(p): 0, 2, 4, 6, 8; solve's inclusive is 1 more
    ens = _scaling_ensemble([2 * np.log2(p) for p in PROCESSES], PROCESSES)
    details = ens.supergraph(by=LIB, bins=4).details("lib")
    assert details.names == ["solve", "kernel"]
    assert details.parent.tolist() == [-1, 0]
    assert details.depth.tolist() == [0, 1]
    assert details.total_sites == 2
    np.testing.assert_allclose(details.inclusive, [[1, 3, 5, 7, 9], [0, 2, 4, 6, 8]])
    np.testing.assert_allclose(details.exclusive, [[1] * 5, [0, 2, 4, 6, 8]])
    np.testing.assert_allclose(details.value, [1, 3, 5, 7, 9])
    # quartiles of 0, 2, 4, 6, 8: 2, 4, 6; nothing beyond the fences (-4, 12)
    kernel = details.stats.iloc[1]
    assert (kernel["q1"], kernel["median"], kernel["q3"]) == (2, 4, 6)
    assert (kernel["whisker_lo"], kernel["whisker_hi"], kernel["mean"]) == (0, 8, 4)
    assert np.isnan(kernel["target"])
    assert details.outliers.empty
    # four bins over [0, 8]: [0, 2) [2, 4) [4, 6) [6, 8]
    assert details.counts[1].tolist() == [1, 1, 1, 2]
    assert details.ranks is None


def test_scaling_model_along_the_process_count():
    ens = _scaling_ensemble([2 * np.log2(p) for p in PROCESSES], PROCESSES)
    scaling = ens.supergraph(by=LIB).details("lib").scaling
    assert scaling is not None and scaling.parameter == "mpi.world.size"
    np.testing.assert_allclose(scaling.x, PROCESSES)
    # 1 + 2 log2(p) exactly: Extra-P's hypothesis (0, 1)
    assert "log2(mpi.world.size)^(1)" in scaling.formula
    np.testing.assert_allclose(scaling.curve_y, 1 + 2 * np.log2(scaling.curve_x), atol=1e-9)
    assert scaling.curve_x[0] == 1 and scaling.curve_x[-1] == 16
    assert scaling.smape == pytest.approx(0, abs=1e-6)
    assert scaling.trend == 1 and not scaling.out_of_order.any()
    assert (0, 1) in HYPOTHESES


def test_a_run_with_more_processes_that_is_faster_is_out_of_order():
    # lib = 1 + kernel: 1, 3, 5, 7 at 1, 2, 4, 8 processes, and 4 at 16: faster than
    # the run at 8 processes (7) and the one at 4 (5), against the rising trend
    ens = _scaling_ensemble([0, 2, 4, 6, 3], PROCESSES)
    scaling = ens.supergraph(by=LIB).details("lib").scaling
    assert scaling.trend == 1
    assert scaling.out_of_order.tolist() == [False, False, False, False, True]
    # the run it is most out of order with: the slowest of those with fewer processes
    assert scaling.partner.tolist() == [-1, -1, -1, -1, 3]
    # four distinct process counts are too few for a model
    few = _scaling_ensemble([0, 2, 4, 6], PROCESSES[:4]).supergraph(by=LIB).details("lib")
    assert few.scaling.formula is None
    assert "4 distinct positive values" in few.scaling.reason


def test_out_of_order_against_a_falling_trend():
    # strong scaling: 8, 4, 2 at 1, 2, 4 processes, then 5 at 8: slower than 4 and 2
    trend, flagged, partner = out_of_order(np.array([1.0, 2, 4, 8]), np.array([8.0, 4, 2, 5]))
    assert trend == -1
    assert flagged.tolist() == [False, False, False, True]
    assert partner.tolist() == [-1, -1, -1, 2]
    # runs at one parameter value are never out of order with each other
    trend, flagged, _ = out_of_order(np.array([2.0, 2, 4, 4]), np.array([1.0, 9, 10, 12]))
    assert trend == 1 and flagged.tolist() == [False, False, False, False]
    # without a parameter value a run is left out
    trend, flagged, _ = out_of_order(np.array([np.nan, 1, 2]), np.array([0.0, 1, 2]))
    assert trend == 1 and not flagged.any()


def test_outliers_name_the_call_site_and_the_run_and_the_target_is_kept():
    # kernel 1 in five runs and 10 in the last: q1 = q3 = 1, so 10 is beyond the fences
    ens = tiny_ensemble([[0.5, 1.0, k, 3.0] for k in [1, 1, 1, 1, 1, 10]])
    sg = ens.supergraph(by=LIB, target="p5")
    details = sg.details("lib")
    rows = details.outliers.to_dict("records")
    # solve's inclusive (2, ..., 11) and kernel's (1, ..., 10): run 5 is out in both
    assert rows == [
        {"site": 0, "profile": 5, "value": 11.0},
        {"site": 1, "profile": 5, "value": 10.0},
    ]
    assert details.target == 5
    assert details.stats["target"].tolist() == [11.0, 10.0]
    # no numeric metadata: no scaling
    assert details.parameters == [] and details.scaling is None


def test_rank_values_sum_the_top_entries_on_each_rank():
    # two ranks: solve 0.5 and 1.5 (mean 1), kernel 2 on both; lib on a rank is solve's
    # inclusive there (kernel is inside it, not counted twice)
    frames = pd.DataFrame({"name": ["main", "solve", "kernel"]})
    gfs = [
        GraphFrame.from_tables(
            frames,
            [0, 1],
            [1, 2],
            pd.DataFrame(
                {
                    "node": [0, 0, 1, 1, 2, 2],
                    "rank": [0, 1, 0, 1, 0, 1],
                    "time": [0.5, 0.5, 0.5 * s, 1.5 * s, 2.0, 2.0],
                }
            ),
            exc_metrics=["time"],
            index=("node", "rank"),
            fill_inclusive=True,
        )
        for s in (1.0, 2.0)
    ]
    ens = Ensemble.from_graphframes(gfs, labels=["a", "b"])
    details = ens.supergraph(by=LIB).details("lib")
    np.testing.assert_allclose(details.ranks, [[2.5, 3.5], [3.0, 5.0]])
    # the mean over ranks is each run's value
    np.testing.assert_allclose(details.value, [3.0, 4.0])


def test_the_payload_holds_what_the_page_draws():
    ens = _scaling_ensemble([2 * np.log2(p) for p in PROCESSES], PROCESSES)
    fields, arrays = details_payload(ens.supergraph(by=LIB).details("lib"))
    assert fields["supernode"] == "lib" and fields["sites"] == 2 and fields["profiles"] == 5
    assert fields["parameter"] == "mpi.world.size" and fields["trend"] == 1
    assert bytes(arrays["site_names"]) == b"solvekernel"
    assert arrays["site_offsets"].tolist() == [0, 5, 11]
    assert arrays["site_inclusive"].shape == (2, 5)
    assert arrays["site_stats"][1, :3].tolist() == [2, 4, 6]
    assert arrays["rank_values"].size == 0


def test_bad_names_are_refused():
    ens = _scaling_ensemble([2 * np.log2(p) for p in PROCESSES], PROCESSES)
    sg = ens.supergraph(by=LIB)
    with pytest.raises(GladeError, match="no supernode 'nope'"):
        sg.details("nope")
    with pytest.raises(GladeError, match=r"numeric metadata columns are 'mpi\.world\.size'"):
        sg.details("lib", parameter="compiler")
