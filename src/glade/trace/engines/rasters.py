"""The raster of a Dask trace's timeline picture, made by datashader on the workers as its
Dask pipeline makes it: every worker aggregates the points of its partitions with
datashader (on a pandas table; see :func:`glade.trace.engines.timeline.shares`), and the
rasters are added (times) and maxed (keys) by a tree of small tasks on the cluster, so
one picture is one round of tasks whose only large answer is one raster. (Handing
datashader a Dask frame of the points does the same aggregation, but builds and ships a
new graph with its compiled functions on every request: about 0.4 s each, even for a
tiny trace.)

A raster here is an array (3, bins, width): the time the calls cover per pixel, their
exclusive time per pixel, and the largest point key per pixel (-inf where nothing is),
as :func:`glade.trace.timeline.raster.aggregate` defines them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from glade.trace.timeline.kernels import CODE_BITS
from glade.trace.timeline.raster import datashader_sums

#: Rasters added per task of the reduction tree.
FAN_IN = 8


def pixel_sums(
    points: np.ndarray, *, t0: float, px: float, width: int, row0: int, pool: int, bins: int
) -> np.ndarray:
    """The raster (see the module doc) of ``points`` (rows
    :data:`~glade.trace.timeline.kernels.POINT_FIELDS`) on the grid of ``bins`` rows of
    ``pool`` timeline rows from ``row0`` and ``width`` columns of ``px`` ns from ``t0``,
    aggregated by datashader."""
    raster = np.zeros((3, bins, width))
    raster[2] = -np.inf
    if points.shape[1] == 0 or bins == 0 or width == 0:
        return raster
    raster[0], raster[1], top = datashader_sums(
        points, t0=t0, px=px, width=width, row0=row0, pool=pool, bins=bins
    )
    raster[2] = np.nan_to_num(top, nan=-np.inf)
    return raster


def add_rasters(*rasters: np.ndarray) -> np.ndarray:
    """The raster of the points of all ``rasters``: times added, keys maxed."""
    total = rasters[0].copy()
    for raster in rasters[1:]:
        total[:2] += raster[:2]
        np.maximum(total[2], raster[2], out=total[2])
    return total


def raster_tree(rasters: Sequence[Any]) -> Any:
    """The sum of ``rasters`` (delayed) as one delayed raster, added by a tree of tasks
    of :data:`FAN_IN` each (so no task, nor the client, holds them all)."""
    import dask

    level = list(rasters)
    while len(level) > 1:
        level = [
            dask.delayed(add_rasters)(*level[i : i + FAN_IN]) for i in range(0, len(level), FAN_IN)
        ]
    return level[0]


def pixel_values(raster: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The picture's ``cover``, ``busy`` (ns per pixel) and ``top`` (the code of the
    function of the largest key, -1 where nothing is) of ``raster``."""
    top = raster[2]
    empty = np.isneginf(top)
    code = np.where(empty, -1, np.fmod(np.where(empty, 0.0, top), float(1 << CODE_BITS)))
    return raster[0], raster[1], code.astype(np.int32)
