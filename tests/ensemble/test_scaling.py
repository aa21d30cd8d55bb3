"""Extra-P scaling models of ensembles: planted behaviour is recovered, predictions
match Extra-P's own evaluation, the models are refitted after operations, and the
RAJAPerf problem sizes (two of them) are refused with a clear reason."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from glade.ensemble import Ensemble
from glade.errors import GladeError, MetricError
from tests.ensemble.tiny import tiny_profile

pytest.importorskip("extrap", reason="scaling models need Extra-P (pip install 'glade[extrap]')")

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


def test_predictions_match_extrap_and_the_formula(scaling):
    from extrap.entities.callpath import Callpath
    from extrap.entities.coordinate import Coordinate
    from extrap.entities.experiment import Experiment
    from extrap.entities.measurement import Measurement
    from extrap.entities.metric import Metric
    from extrap.entities.parameter import Parameter
    from extrap.modelers.model_generator import ModelGenerator

    predicted = scaling.predict([128, 1000], "time")
    assert list(predicted.columns) == ["name", 128, 1000]
    stats = scaling.stats.loc[2]
    c, a = stats["time_model_constant"], stats["time_model_coefficient1"]
    assert predicted.loc[2, 128] == pytest.approx(c + a * 128 * 7)
    # Extra-P fitted on the same measurements evaluates to the same values
    experiment = Experiment()
    experiment.add_parameter(Parameter("ranks"))
    metric, path = Metric("time"), Callpath("kernel")
    experiment.add_metric(metric)
    experiment.add_callpath(path)
    values = scaling.dataframe.xs(2, level="node")["time"]
    for p in SIZES:
        coordinate = Coordinate(float(p))
        experiment.add_coordinate(coordinate)
        reps = [values[f"{p}-{r}"] for r in range(3)]
        experiment.add_measurement(Measurement(coordinate, path, metric, reps))
    generator = ModelGenerator(experiment)
    generator.model_all()
    function = generator.models[(path, metric)].hypothesis.function
    assert predicted.loc[2, 1000] == pytest.approx(function.evaluate(1000.0), rel=1e-9)
    assert predicted.loc[1].drop("name").tolist() == pytest.approx([2.0, 2.0], rel=0.01)


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
        r"values \(1.04858e\+06, 2.09715e\+06\); Extra-P "
        r"needs at least 5",
    ):
        rajaperf.model("ProblemSizeRunParam", "Avg time/rank")
    assert rajaperf.stats_recipes == []


def test_errors(scaling, monkeypatch):
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
    monkeypatch.setitem(sys.modules, "extrap.entities", None)
    with pytest.raises(GladeError, match=r"pip install 'glade\[extrap\]'"):
        ens.model("ranks", "time")
