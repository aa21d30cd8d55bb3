"""The raster of a timeline request: datashader aggregates the time that calls too
small to be drawn as boxes cover in every pixel.

Each such call arrives as one point per pixel column it overlaps, at the column's
centre, weighing the overlap in ns (:func:`glade.trace.timeline.kernels.split_calls`),
so the sum per pixel is exactly the time covered there and no activity is lost at any
zoom. A second sum weighs each point by the call's exclusive share of its time (what
the pixel's opacity shows: in a row per location calls nest, and only their exclusive
times add up to at most the pixel), and a third reduction keeps, per pixel, the
largest point's key, whose low bits name the function of the largest contribution:
the colour of the pixel.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from glade.trace.timeline.kernels import CODE_BITS, POINT_FIELDS


def aggregate(
    points: np.ndarray, *, t0: float, px: float, width: int, row0: int, pool: int, bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel (``bins`` rows of ``pool`` timeline rows from ``row0``, ``width``
    columns of ``px`` ns from ``t0``) of ``points`` (rows x, y, weight, second weight,
    key): the sums of both weights (float64 ns) and the code of the function of the
    largest key (int32, -1 where nothing is)."""
    if points.shape[1] == 0 or bins == 0 or width == 0:
        empty = np.zeros((bins, width))
        return empty, empty.copy(), np.full((bins, width), -1, dtype=np.int32)
    cover, busy, top = datashader_sums(
        points, t0=t0, px=px, width=width, row0=row0, pool=pool, bins=bins
    )
    code = np.where(np.isnan(top), -1, np.fmod(np.nan_to_num(top), float(1 << CODE_BITS)))
    return cover, busy, code.astype(np.int32)


def datashader_sums(
    points: np.ndarray, *, t0: float, px: float, width: int, row0: int, pool: int, bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel of the grid of :func:`aggregate` of the (non-empty) ``points``, as
    datashader aggregates them: the sums of both weights (0 where nothing is) and the
    largest key itself (NaN where nothing is)."""
    import datashader as ds

    table = pd.DataFrame(points.T, columns=list(POINT_FIELDS), copy=False)
    canvas = ds.Canvas(
        plot_width=width,
        plot_height=bins,
        x_range=(t0, t0 + width * px),
        y_range=(row0, row0 + bins * pool),
    )
    with warnings.catch_warnings():
        # the largest key of an empty pixel is the max of nothing
        warnings.simplefilter("ignore", RuntimeWarning)
        agg = canvas.points(
            table, "x", "y", agg=ds.summary(cover=ds.sum("w"), busy=ds.sum("we"), top=ds.max("k"))
        )
    return (
        np.nan_to_num(agg["cover"].to_numpy(), nan=0.0),
        np.nan_to_num(agg["busy"].to_numpy(), nan=0.0),
        agg["top"].to_numpy(),
    )


def warm_up() -> None:
    """Compile datashader's aggregation for the dtypes the timeline uses (the first call
    in a process spends seconds in numba), so a view's first request is fast."""
    aggregate(
        np.array([[0.5], [0.5], [1.0], [1.0], [1.0]]),
        t0=0.0,
        px=1.0,
        width=1,
        row0=0,
        pool=1,
        bins=1,
    )
