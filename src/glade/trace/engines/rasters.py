"""The raster of a Dask trace's timeline picture, made on the workers with the pandas
timeline's compiled kernels: every worker adds the calls (and the level records) of all
its partitions straight into one raster of the picture's grid
(:func:`glade.trace.timeline.render.raster_keys`; see
:func:`glade.trace.engines.timeline.shares`) and sends back only the raster rows that
hold anything (:func:`raster_band`: a worker's partitions hold some of the picture's
rows), which the client adds (:func:`add_band`). So one picture is one round of tasks,
one per worker, whose rasters together are about one picture's worth of rows.

A raster here is three arrays (bins, width): the time the calls cover per pixel, their
exclusive time per pixel, and the largest key per pixel (-1 where nothing is), as
:func:`glade.trace.timeline.kernels.raster_calls` defines them.
"""

from __future__ import annotations

import numpy as np

#: A raster: cover, busy and key per pixel (see the module doc).
Raster = tuple[np.ndarray, np.ndarray, np.ndarray]


def empty_raster(bins: int, width: int) -> Raster:
    """A raster of ``bins`` rows and ``width`` columns holding nothing."""
    return np.zeros((bins, width)), np.zeros((bins, width)), np.full((bins, width), -1.0)


def raster_band(raster: Raster) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``raster`` that hold anything, and those rows of its three arrays
    (an array (3, rows, width))."""
    cover, busy, key = raster
    rows = np.flatnonzero((key >= 0).any(axis=1))
    return rows, np.stack([cover[rows], busy[rows], key[rows]])


def add_band(raster: Raster, rows: np.ndarray, band: np.ndarray) -> None:
    """Add to ``raster`` the rows ``rows`` of another (``band``, of :func:`raster_band`):
    times added, keys maxed."""
    cover, busy, key = raster
    cover[rows] += band[0]
    busy[rows] += band[1]
    key[rows] = np.maximum(key[rows], band[2])
