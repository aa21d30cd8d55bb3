"""Scaling models of ensembles: planted behaviour is recovered, the models are
Extra-P's (its own fit, when installed, on RAJAPerf-like ensembles and a five-point
process-count study), predictions follow the formula, the models are refitted after
operations, and the RAJAPerf problem sizes (two of them) are refused with a clear
reason."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import glade
from glade.ensemble import Ensemble
from glade.ensemble.pmnf import HYPOTHESES
from glade.errors import GladeError, MetricError
from glade.profile import GraphFrame
from tests.ensemble.oracles import assert_same_as_extrap, extrap_models
from tests.ensemble.tiny import tiny_profile

SIZES = (2, 4, 8, 16, 32, 64)


def planted(a: float, b: float, p: np.ndarray) -> np.ndarray:
    return a + b * p * np.log2(p)


@pytest.fixture(scope="module")
def scaling() -> Ensemble:
    """Three repetitions at each size: kernel follows 3 + 0.5 p log2 p, io 1 + 2 p, and
    solve is constant; 0.1% multiplicative noise."""
    rng = np.random.default_rng(7)
    gfs, meta = [], []
    for p in SIZES:
        for rep in range(3):
            times = np.array([0.1, 2.0, planted(3.0, 0.5, p), 1.0 + 2.0 * p])
            gfs.append(tiny_profile(times * (1 + 1e-3 * rng.standard_normal(4))))
            meta.append({"ranks": p, "rep": rep})
    ens = Ensemble.from_graphframes(
        gfs, metadata=meta, labels=[f"{m['ranks']}-{m['rep']}" for m in meta]
    )
    ens.model("ranks", "time")
    return ens


def test_planted_models_are_recovered(scaling):
    stats = scaling.stats
    kernel = stats.loc[2]
    assert kernel["time_model_poly1"] == 1 and kernel["time_model_log1"] == 1
    assert kernel["time_model_constant"] == pytest.approx(3.0, rel=0.05)
    assert kernel["time_model_coefficient1"] == pytest.approx(0.5, rel=0.01)
    assert "ranks^(1) * log2(ranks)^(1)" in kernel["time_model"]
    assert kernel["time_model_points"] == 6
    assert kernel["time_model_ar2"] > 0.999
    io = stats.loc[3]
    assert (io["time_model_poly1"], io["time_model_log1"]) == (1, 0)
    assert io["time_model_coefficient1"] == pytest.approx(2.0, rel=0.01)
    solve = stats.loc[1]
    assert np.isnan(solve["time_model_coefficient1"])
    assert solve["time_model_constant"] == pytest.approx(2.0, rel=0.01)
    for column in ("rss", "rrss", "smape", "ar2", "re"):
        assert np.isfinite(kernel[f"time_model_{column}"])


def test_predictions_follow_the_formula(scaling):
    predicted = scaling.predict([128, 1000], "time")
    assert list(predicted.columns) == ["name", 128, 1000]
    stats = scaling.stats.loc[2]
    c, a = stats["time_model_constant"], stats["time_model_coefficient1"]
    assert predicted.loc[2, 128] == pytest.approx(c + a * 128 * 7)
    assert predicted.loc[2, 1000] == pytest.approx(c + a * 1000 * np.log2(1000))
    assert predicted.loc[1].drop("name").tolist() == pytest.approx([2.0, 2.0], rel=0.01)


def test_extrap_is_not_imported(scaling, monkeypatch):
    monkeypatch.setitem(sys.modules, "extrap", None)
    ens = scaling.copy()
    ens.model("ranks", "time (inc)")
    assert ens.stats.loc[0, "time (inc)_model_points"] == 6


def synthetic_laws(nodes: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per node: a constant, a coefficient and a hypothesis index (some nodes constant)."""
    rng = np.random.default_rng(seed)
    law = rng.integers(-1, len(HYPOTHESES), nodes)
    return rng.uniform(0.0, 5.0, nodes), rng.lognormal(-2.0, 2.0, nodes), law


def law_values(c: np.ndarray, a: np.ndarray, law: np.ndarray, p: float) -> np.ndarray:
    i = np.array([float(HYPOTHESES[h][0]) if h >= 0 else 0.0 for h in law])
    j = np.array([float(HYPOTHESES[h][1]) if h >= 0 else 0.0 for h in law])
    return c + np.where(law >= 0, a * p**i * np.log2(p) ** j, 0.0)


@pytest.fixture(scope="module")
def rajaperf_like() -> Ensemble:
    """RAJAPerf's shape, five problem sizes: 120 kernels under a few groups, three
    repetitions per size, each kernel following its own PMNF law with 0.1% to 20%
    noise; a few kernels are missing at some sizes (as kernels a build skips)."""
    rng = np.random.default_rng(5)
    structure = ["RAJAPerf"] + [
        [f"Group{g}", [f"Kernel{g}_{k}" for k in range(20)]] for g in range(6)
    ]
    base = GraphFrame.from_lists(structure)
    n = len(base.graph)
    c, a, law = synthetic_laws(n, seed=11)
    noise = rng.choice([1e-3, 1e-2, 0.05, 0.2], n)
    gfs, meta = [], []
    for size in (1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24):
        for rep in range(3):
            df = base.dataframe.drop(columns=["time (inc)"])
            value = law_values(c, a, law, size / (1 << 20)) * (1 + noise * rng.standard_normal(n))
            value[(np.arange(n) % 17 == 5) & (size == 1 << 22)] = np.nan
            value[(np.arange(n) % 31 == 7) & (rep == 0) & (size == 1 << 24)] = np.nan
            df["Avg time/rank"] = value
            gfs.append(GraphFrame(base.graph, df, ["Avg time/rank"], []))
            meta.append({"ProblemSizeRunParam": size, "repetition": rep})
    return Ensemble.from_graphframes(
        gfs, metadata=meta, labels=[f"{m['ProblemSizeRunParam']}-{m['repetition']}" for m in meta]
    )


@pytest.mark.parametrize("measure", ["mean", "median"])
def test_models_are_extrap_models_on_a_rajaperf_like_ensemble(rajaperf_like, measure):
    pytest.importorskip("extrap", reason="the Extra-P oracle needs Extra-P")
    ens = rajaperf_like.copy()
    ens.model("ProblemSizeRunParam", "Avg time/rank", measure=measure)
    hypotheses = extrap_models(ens, "ProblemSizeRunParam", "Avg time/rank", measure)
    assert len(hypotheses) == len(ens.graph) - len(range(5, len(ens.graph), 17))
    assert_same_as_extrap(ens, "Avg time/rank", hypotheses)
    chosen = ens.stats["Avg time/rank_model_poly1"].notna().sum()
    assert 0.5 * len(ens.graph) < chosen < len(ens.graph)  # both kinds of model


@pytest.fixture(scope="module")
def lulesh_study(hatchet_data: Path) -> Ensemble:
    """LULESH's real call tree and region times at five process counts (8 to 216
    ranks, two runs each), each region's time scaled by its own PMNF law of the
    process count (some constant), with 2% noise."""
    path = hatchet_data / "caliper-lulesh-cali" / "lulesh-annotation-profile.cali"
    if not path.is_file():
        pytest.skip(f"LULESH profile not found at {path}")
    base = glade.read(path)
    n = len(base.graph)
    rng = np.random.default_rng(2)
    c, a, law = synthetic_laws(n, seed=4)
    time = base.dataframe["time"].to_numpy()
    gfs, meta = [], []
    for ranks in (8, 27, 64, 125, 216):
        for run in range(2):
            df = base.dataframe[["name", "time"]].copy()
            df["time"] = time * law_values(c, a, law, ranks) * (1 + 0.02 * rng.standard_normal(n))
            gfs.append(GraphFrame(base.graph, df, ["time"], []).update_inclusive_columns())
            meta.append({"mpi.world.size": ranks, "run": run})
    return Ensemble.from_graphframes(
        gfs, metadata=meta, labels=[f"{m['mpi.world.size']}x{m['run']}" for m in meta]
    )


@pytest.mark.parametrize("metric", ["time", "time (inc)"])
def test_models_are_extrap_models_on_a_process_count_study(lulesh_study, metric):
    pytest.importorskip("extrap", reason="the Extra-P oracle needs Extra-P")
    ens = lulesh_study.copy()
    ens.model("mpi.world.size", metric)
    hypotheses = extrap_models(ens, "mpi.world.size", metric)
    assert len(hypotheses) == len(ens.graph) == 19
    assert_same_as_extrap(ens, metric, hypotheses)


def test_models_are_refitted_after_operations(scaling):
    fewer = scaling.filter_metadata(lambda row: row["ranks"] != 64)
    assert fewer.stats.loc[2, "time_model_points"] == 5
    assert fewer.stats.loc[2, "time_model_coefficient1"] == pytest.approx(0.5, rel=0.02)
    four_sizes = fewer.filter_metadata(lambda row: row["ranks"] != 32)
    assert four_sizes.stats.loc[2, "time_model_points"] == 4
    assert four_sizes.stats["time_model"].isna().all()
    assert np.isnan(four_sizes.predict([128]).loc[2, 128])
    median = scaling.copy()
    median.model("ranks", "time", measure="median")
    assert median.stats.loc[2, "time_model_coefficient1"] == pytest.approx(0.5, rel=0.01)
    assert [r.describe() for r in median.stats_recipes] == [
        "model(metrics=['time'], measure='median', parameter='ranks')"
    ]


def test_rajaperf_problem_sizes_are_too_few(rajaperf):
    with pytest.raises(
        GladeError,
        match=r"'ProblemSizeRunParam' has 2 distinct positive "
        r"values \(1.04858e\+06, 2.09715e\+06\); a model "
        r"needs at least 5 \(as in Extra-P\)",
    ):
        rajaperf.model("ProblemSizeRunParam", "Avg time/rank")
    assert rajaperf.stats_recipes == []


def test_errors(scaling):
    ens = scaling.copy()
    with pytest.raises(MetricError, match="metadata column"):
        ens.model("nodes", "time")
    ens.metadata["label"] = "x"
    with pytest.raises(GladeError, match="0 distinct positive values"):
        ens.model("label", "time")
    with pytest.raises(GladeError, match="measure"):
        ens.model("ranks", "time", measure="max")
    with pytest.raises(MetricError, match="walltime"):
        ens.model("ranks", "walltime")
    with pytest.raises(MetricError, match="modelled metric"):
        ens.predict(10, "time (inc)")
    with pytest.raises(GladeError, match="positive"):
        ens.predict([0])
    bare = Ensemble.from_graphframes([tiny_profile([1, 1, 1, 1])])
    with pytest.raises(GladeError, match=r"call ens\.model"):
        bare.predict(10)


def test_models_are_extrap_models_below_one_and_with_zeros():
    """Thread fractions below 1 (no logarithms), zeros (no relative error there) and a
    node whose values alternate in sign, against Extra-P."""
    pytest.importorskip("extrap", reason="the Extra-P oracle needs Extra-P")
    rng = np.random.default_rng(9)
    fractions = (0.25, 0.5, 1.0, 2.0, 4.0)
    times, meta = [], []
    for p in fractions:
        for rep in range(2):
            noise = 1 + 0.05 * rng.standard_normal(4)
            kernel = 0.0 if p == 1.0 else 3 + 2 * p**1.5
            times.append([1.0 * noise[0], 0.0, kernel * noise[2], (-1) ** rep * p * noise[3]])
            meta.append({"threads": p, "rep": rep})
    ens = Ensemble.from_graphframes(
        [tiny_profile(t) for t in times], metadata=meta, labels=[f"{i}" for i in range(10)]
    )
    ens.model("threads", "time")
    hypotheses = extrap_models(ens, "threads", "time")
    assert len(hypotheses) == 4
    assert_same_as_extrap(ens, "time", hypotheses)
    assert (ens.stats["time_model_log1"].fillna(0) == 0).all()
