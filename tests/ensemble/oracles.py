"""Brute-force views of ensembles and profiles that the tests compare against: values
keyed by call path (the chain of frames from the root), built with plain loops."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd
import pytest

from glade.ensemble import Ensemble
from glade.graph import Graph
from glade.profile import GraphFrame

#: The RAJAPerf metric the ensemble tests check.
METRIC = "Avg time/rank"


def call_paths(graph: Graph) -> list[tuple]:
    """The call path of every node: a tuple of (name, type, ...) frames from the root."""
    frames = [tuple(row) for row in graph.frames.astype(object).itertuples(index=False)]
    out = []
    for nid in range(len(graph)):
        out.append(tuple(frames[i] for i in graph.path_ids(nid)))
    return out


def profile_values(gf: GraphFrame, metric: str) -> dict[tuple, float]:
    """Call path -> value of additive ``metric`` in a one-row-per-node profile: the sum
    over the nodes that share the call path (NaN skipped)."""
    paths = call_paths(gf.graph)
    node = gf.dataframe.index.get_level_values("node")
    out: dict[tuple, float] = {}
    for nid, value in zip(node, gf.dataframe[metric], strict=True):
        if not pd.isna(value):
            out[paths[nid]] = out.get(paths[nid], 0.0) + float(value)
    return out


def ensemble_values(ens: Ensemble, metric: Hashable) -> dict[tuple[tuple, Hashable], float]:
    """(call path, profile) -> value of ``metric`` in an ensemble (NaN skipped)."""
    paths = call_paths(ens.graph)
    out = {}
    for (node, profile, *_), value in ens.dataframe[metric].items():
        if not pd.isna(value):
            out[(paths[node], profile)] = float(value)
    return out


def samples_by_path(values: dict[tuple[tuple, Hashable], float]) -> dict[tuple, np.ndarray]:
    """Call path -> the values of all profiles there."""
    grouped: dict[tuple, list[float]] = {}
    for (path, _), value in values.items():
        grouped.setdefault(path, []).append(value)
    return {path: np.array(v) for path, v in grouped.items()}


def stats_by_path(ens: Ensemble, column: Hashable) -> dict[tuple, float]:
    """Call path -> value of a stats column."""
    paths = call_paths(ens.graph)
    return {paths[node]: value for node, value in ens.stats[column].items()}


def same_ensemble(a: Ensemble, b: Ensemble) -> None:
    """Assert two ensembles hold the same profiles, nodes (by call path), values and
    metadata, whatever their node numbering and profile order."""
    assert sorted(map(str, a.profiles)) == sorted(map(str, b.profiles))
    assert sorted(call_paths(a.graph)) == sorted(call_paths(b.graph))
    assert a.metric_columns == b.metric_columns
    for metric in a.metric_columns:
        assert ensemble_values(a, metric) == ensemble_values(b, metric)
    pd.testing.assert_frame_equal(a.metadata.sort_index(), b.metadata.sort_index(), check_like=True)


def extrap_models(ens: Ensemble, parameter: str, metric: str, measure: str = "mean") -> dict:
    """Node -> Extra-P's chosen hypothesis for ``metric`` against metadata column
    ``parameter``, fitted by Extra-P itself one node at a time (plain loops over the
    ensemble's rows): a node's profiles at one parameter value are the repetitions of
    one measurement; nodes with fewer than 5 parameter values are left out.

    The modeler is passed as an object: Extra-P 4.2 ignores ``use_measure`` for a
    one-parameter modeler named by string (it always takes the mean)."""
    from extrap.entities.callpath import Callpath
    from extrap.entities.coordinate import Coordinate
    from extrap.entities.experiment import Experiment
    from extrap.entities.measurement import Measure, Measurement
    from extrap.entities.metric import Metric
    from extrap.entities.parameter import Parameter
    from extrap.modelers.model_generator import ModelGenerator
    from extrap.modelers.single_parameter.basic import SingleParameterModeler

    at = {profile: float(v) for profile, v in ens.metadata[parameter].items()}
    series: dict[int, dict[float, list[float]]] = {}
    for (node, profile, *_), value in ens.dataframe[metric].items():
        if not pd.isna(value):
            series.setdefault(node, {}).setdefault(at[profile], []).append(float(value))
    out = {}
    for node, points in series.items():
        if len(points) < 5:
            continue
        experiment = Experiment()
        experiment.add_parameter(Parameter(parameter))
        target, path = Metric(metric), Callpath(str(node))
        experiment.add_metric(target)
        experiment.add_callpath(path)
        for x in sorted(points):
            coordinate = Coordinate(x)
            experiment.add_coordinate(coordinate)
            experiment.add_measurement(Measurement(coordinate, path, target, points[x]))
        generator = ModelGenerator(
            experiment, modeler=SingleParameterModeler(), use_measure=Measure.from_str(measure)
        )
        generator.model_all()
        out[node] = generator.models[(path, target)].hypothesis
    return out


def assert_same_as_extrap(ens: Ensemble, metric: str, hypotheses: dict) -> None:
    """Assert that the stats table's models of ``metric`` are Extra-P's ``hypotheses``
    (from :func:`extrap_models`): the same exponents, coefficients and fit statistics
    within 1e-6 (relative; statistics of exact fits are roundoff, compared absolutely)."""
    stats = ens.stats
    assert set(stats.index[stats[f"{metric}_model"].notna()]) == set(hypotheses)
    for node, hypothesis in hypotheses.items():
        row = stats.loc[node]
        function = hypothesis.function
        terms = function.compound_terms
        exponents = {s.term_type: float(s.exponent) for t in terms for s in t.simple_terms}
        where = f"node {node}: glade {row[f'{metric}_model']} vs Extra-P {function}"
        if terms:
            assert row[f"{metric}_model_poly1"] == exponents.get("polynomial", 0.0), where
            assert row[f"{metric}_model_log1"] == exponents.get("logarithm", 0.0), where
            assert row[f"{metric}_model_coefficient1"] == pytest.approx(
                terms[0].coefficient, rel=1e-6
            ), where
        else:
            assert np.isnan(row[f"{metric}_model_coefficient1"]), where
        scale = abs(function.constant_coefficient) + sum(abs(t.coefficient) for t in terms)
        assert row[f"{metric}_model_constant"] == pytest.approx(
            function.constant_coefficient, rel=1e-6, abs=1e-9 * scale
        ), where
        values = ens.dataframe.xs(node, level="node")[metric]
        roundoff = 1e-9 * float((values**2).sum())
        for column, attribute in STATISTICS.items():
            expected = float(getattr(hypothesis, attribute))
            tolerance = roundoff if column == "rss" else 1e-9
            assert row[f"{metric}_model_{column}"] == pytest.approx(
                expected,
                rel=1e-6,
                abs=tolerance if roundoff > hypothesis.RSS else 0,
                nan_ok=True,
            ), f"{where}: {column}"


#: glade's model statistics column -> Extra-P's hypothesis attribute.
STATISTICS = {
    "rss": "RSS",
    "rrss": "rRSS",
    "nrss": "nRSS",
    "smape": "SMAPE",
    "ar2": "AR2",
    "re": "RE",
}
