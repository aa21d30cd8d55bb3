"""The GraphFrame of an HPCToolkit database, whichever layout it comes from: metric
names as Hatchet gives them, one row per node and profile (rank, thread), the values
checked (see :mod:`glade.readers.profiles.checks`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError, shown
from glade.profile.graphframe import GraphFrame
from glade.readers.profiles.checks import check_values

FRAME_COLUMNS = ("name", "type", "file", "line", "module")
TIME_NAMES = {"CPUTIME (usec)": "time", "CPUTIME (sec)": "time"}
DEFAULT_METRIC = "time (inc)"


def metric_name(base: str) -> str:
    """glade's name of HPCToolkit metric ``base`` (exclusive flavour)."""
    return TIME_NAMES.get(base, base)


def check_finite(values: np.ndarray, files: list, columns: list[str]) -> None:
    """ReaderError naming the file of the first value of ``values`` (nodes, profiles,
    metrics) that is not a finite number; ``files[k]`` holds profile k."""
    bad = ~np.isfinite(values)
    if bad.any():
        node, profile, metric = (int(i) for i in np.argwhere(bad)[0])
        raise ReaderError(
            files[profile],
            f"metric {columns[metric]!r} of node {node} is "
            f"{shown(values[node, profile, metric])}, not a finite number",
        )


def build(
    source: str,
    frames: pd.DataFrame,
    src: list[int],
    dst: list[int],
    values: np.ndarray,
    columns: list[str],
    nids: list[int],
    ranks: np.ndarray,
    threads: np.ndarray,
    exc: list[str],
    inc: list[str],
    metadata: dict[str, Any],
    fill_inclusive: bool = False,
) -> GraphFrame:
    """The GraphFrame of a tree and its dense ``values`` (nodes, profiles, columns);
    ``nids`` are HPCToolkit's own node ids, kept in a ``nid`` column."""
    n, num_profiles = values.shape[0], values.shape[1]
    rows = {
        "node": np.repeat(np.arange(n, dtype=np.int64), num_profiles),
        "rank": np.tile(ranks, n),
    }
    index = ["node", "rank"]
    if np.unique(threads).size > 1:
        rows["thread"] = np.tile(threads, n)
        index.append("thread")
    flat = values.reshape(n * num_profiles, len(columns))
    for j, col in enumerate(columns):
        rows[col] = flat[:, j]
    rows["nid"] = np.repeat(np.asarray(nids, dtype=np.int64), num_profiles)
    all_metrics = set(exc) | set(inc)
    default = DEFAULT_METRIC if DEFAULT_METRIC in all_metrics else None
    gf = GraphFrame.from_tables(
        frames,
        np.asarray(src, dtype=np.int64),
        np.asarray(dst, dtype=np.int64),
        pd.DataFrame(rows),
        exc,
        inc,
        index=tuple(index),
        default_metric=default,
        metadata=metadata,
        fill_inclusive=fill_inclusive,
    )
    check_values(gf, source)
    return gf
