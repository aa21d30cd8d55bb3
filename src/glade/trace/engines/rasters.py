"""The raster of a Dask trace's timeline picture, made on the workers with the pandas
timeline's compiled kernels: every worker adds the calls (and the level records) of all
its partitions straight into one raster of the picture's grid
(:func:`glade.trace.timeline.render.raster_keys`; see
:func:`glade.trace.engines.timeline.shares`) and sends back only the raster rows that
hold anything (:func:`raster_band`: a worker's partitions hold some of the picture's
rows), which the client adds (:func:`add_band`). So one picture is one round of tasks,
one per worker, whose rasters together are about one picture's worth of rows.

A raster here is an array (3, bins, width): the time the calls cover per pixel, their
exclusive time per pixel, and the largest key per pixel (-1 where nothing is), as
:func:`glade.trace.timeline.kernels.raster_calls` defines them.
"""

from __future__ import annotations

import numpy as np


def empty_raster(bins: int, width: int) -> np.ndarray:
    """A raster of ``bins`` rows and ``width`` columns holding nothing."""
    raster = np.zeros((3, bins, width))
    raster[2] = -1.0
    return raster


def raster_band(raster: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``raster`` that hold anything, and those rows of it (the raster
    itself, not a copy, when they all do)."""
    rows = np.flatnonzero(raster[2].max(axis=1, initial=-1.0) >= 0)
    return rows, raster if rows.size == raster.shape[1] else raster[:, rows]


def add_band(raster: np.ndarray, rows: np.ndarray, band: np.ndarray) -> None:
    """Add to ``raster`` the rows ``rows`` of another (``band``, of :func:`raster_band`):
    times added, keys maxed."""
    raster[:2, rows] += band[:2]
    raster[2, rows] = np.maximum(raster[2, rows], band[2])
