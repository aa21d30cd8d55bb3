"""Tiny ensembles whose statistics are computed by hand in the tests: every profile is
``main -> solve -> kernel`` and ``main -> io`` (nodes 0 main, 1 solve, 2 kernel, 3 io)
with the exclusive ``time`` values given."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from glade.ensemble import Ensemble
from glade.profile import GraphFrame

NODES = ("main", "solve", "kernel", "io")


def tiny_profile(times: Sequence[float], metadata: dict | None = None) -> GraphFrame:
    """One profile with exclusive ``time`` per node (in :data:`NODES` order) and its
    inclusive ``time (inc)``."""
    gf = GraphFrame.from_lists(["main", ["solve", "kernel"], "io"])
    df = gf.dataframe.drop(columns=["time (inc)"])
    df["time"] = np.asarray(times, dtype=np.float64)
    return GraphFrame(
        gf.graph, df, ["time"], [], metadata=metadata or {}
    ).update_inclusive_columns()


def tiny_ensemble(
    times: Sequence[Sequence[float]],
    metadata: Sequence[dict] | None = None,
    labels: Sequence[Hashable] | None = None,
) -> Ensemble:
    """One profile per row of ``times``; labels default to ``p0``, ``p1``, ..."""
    metadata = list(metadata) if metadata is not None else [{} for _ in times]
    gfs = [tiny_profile(t, m) for t, m in zip(times, metadata, strict=True)]
    labels = list(labels) if labels is not None else [f"p{i}" for i in range(len(gfs))]
    return Ensemble.from_graphframes(gfs, labels=labels)
