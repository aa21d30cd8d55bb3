"""The GraphFrame of an HPCToolkit database, whichever layout it comes from: metric
names as Hatchet gives them, one row per node and profile (rank, thread), the values
checked (see :mod:`glade.readers.profiles.checks`)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError, shown
from glade.profile.graphframe import GraphFrame
from glade.profile.table import inclusive_name
from glade.readers.profiles.checks import check_values
from glade.units import normalize_unit

FRAME_COLUMNS = ("name", "type", "file", "line", "module")
TIME_NAMES = {"CPUTIME (usec)": "time", "CPUTIME (sec)": "time"}
DEFAULT_METRIC = "time (inc)"


#: HPCToolkit writes a metric's unit in parentheses at the end of its name.
_UNIT_IN_NAME = re.compile(r"\((sec|msec|usec|nsec|s|ms|us|ns)\)\s*$")


def metric_name(base: str) -> str:
    """glade's name of HPCToolkit metric ``base`` (exclusive flavour)."""
    return TIME_NAMES.get(base, base)


def metric_unit(base: str) -> str | None:
    """The unit of HPCToolkit metric ``base``: the one its name states (``CPUTIME
    (usec)`` is ``us``, ``GKER (sec)`` is ``s``), ``cycles`` for cycle counters
    (``PAPI_TOT_CYC``, ``CYCLES``), ``count`` for other PAPI and perf event counters,
    else None."""
    stated = _UNIT_IN_NAME.search(base)
    if stated:
        return normalize_unit(stated.group(1))
    upper = base.upper()
    if upper.startswith("PAPI_") or upper.startswith("PERF_COUNT") or upper == "CYCLES":
        return "cycles" if "CYC" in upper else "count"
    return None


def units_of(bases: list[str]) -> dict[str, str]:
    """The unit of each metric column (exclusive and inclusive) of HPCToolkit metrics
    ``bases``, for ``metadata["units"]``."""
    units = {}
    for base in bases:
        unit = metric_unit(base)
        if unit is not None:
            units[metric_name(base)] = unit
            units[inclusive_name(metric_name(base))] = unit
    return units


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
