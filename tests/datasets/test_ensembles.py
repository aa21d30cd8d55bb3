"""The synthetic ensemble plants slow kernels that box plots find (tutorial 03 shows them
when the RAJAPerf profiles are not on the machine)."""

from __future__ import annotations

import glade.stats as gs
from glade.datasets import synthetic_ensemble
from glade.ensemble import Ensemble


def test_planted_slow_kernels_are_the_outliers():
    ens = Ensemble.from_graphframes(synthetic_ensemble(18, 150))
    found = {}
    for compiler, group in ens.groupby("compiler").items():
        gs.boxplot(group, "time (inc)")
        runs = group.outliers.merge(group.metadata[["run"]], left_on="profile", right_index=True)
        found[compiler] = sorted(set(runs["run"]))
        assert set(runs["side"]) <= {"high"}
    # every seventh run (6 and 13 of 18) has one kernel six times slower: run 6 is a
    # gcc build, run 13 a clang build, and intel has none
    assert found == {"clang": [13], "gcc": [6], "intel": []}
    # the gcc outlier is that kernel: about 6 times its time in run 15 (same compiler and
    # problem size), give or take the runs' 10% noise
    gcc = ens.groupby("compiler")["gcc"]
    gs.boxplot(gcc, "time (inc)")
    node = int(gcc.outliers["node"].iloc[0])
    assert gcc.graph.num_children[node] == 0
    by_run = gcc.dataframe.xs(node, level="node").join(gcc.metadata["run"])
    ratio = by_run.set_index("run").loc[6, "time"] / by_run.set_index("run").loc[15, "time"]
    assert 4 < ratio < 9


def test_runs_record_their_time_unit():
    from glade.units import time_unit

    gfs = synthetic_ensemble(3, 40)
    assert all(time_unit(gf.metadata, m) == "s" for gf in gfs for m in ("time", "time (inc)"))
    # a run's unit is its own: changing one run's metadata leaves the others alone
    gfs[0].metadata["units"]["time"] = "ms"
    assert time_unit(gfs[1].metadata, "time") == "s"
