"""Brute-force views of ensembles and profiles that the tests compare against: values
keyed by call path (the chain of frames from the root), built with plain loops."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

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
