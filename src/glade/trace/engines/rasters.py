"""The raster of a Dask trace's timeline picture, made on the workers with the pandas
timeline's compiled kernels: every worker adds the calls (and the level records) of all
its partitions straight into one raster of the picture's grid
(:func:`glade.trace.timeline.render.raster_keys`; see
:func:`glade.trace.engines.timeline.shares`) and sends back only the raster rows that
hold anything (:func:`raster_band`: a worker's partitions hold some of the picture's
rows), which the client adds (:func:`add_band`). So one picture is one round of tasks,
one per worker, whose rasters together are about one picture's worth of rows.

Boxes too: every partition keeps the longest of its calls as boxes (the pandas
timeline's rule on its own calls), every worker the longest of its partitions' and the
client the longest of the workers' (:func:`keep_longest`, exact: :func:`box_cut`); the
calls left out are rastered where they are left out (:func:`demote`), so a worker sends
at most :data:`~glade.trace.timeline.render.MAX_BOXES` boxes whatever it holds.

A raster here is an array (3, bins, width): the time the calls cover per pixel, their
exclusive time per pixel, and the largest key per pixel (-1 where nothing is), as
:func:`glade.trace.timeline.kernels.raster_calls` defines them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from glade.trace.timeline import kernels
from glade.trace.timeline.render import MAX_BOXES, Request

#: The fields of a partition's boxes (``share``: the exclusive share of the call's time,
#: for a box demoted into the raster).
BOX_FIELDS = ("node", "row", "start", "end", "code", "depth", "exclusive", "share")


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


def box_cut(durations: np.ndarray, px: float, candidates: int, floor: float) -> float:
    """The shortest duration drawn as a box of a picture whose pixels last ``px`` ns, by
    the pandas timeline's rule (:func:`glade.trace.timeline.render._threshold`: the
    :data:`~glade.trace.timeline.render.MAX_BOXES` longest of the calls lasting a pixel
    or longer, fewer when ties would make more), from pieces that each kept their own
    longest: ``durations`` those they kept, ``candidates`` how many calls of a pixel or
    longer they held in all (only compared with MAX_BOXES), ``floor`` the largest of
    their own thresholds.

    Exact: whatever a piece kept holds every call longer than the picture's cut (the
    MAX_BOXES-th longest of all); a piece that left out calls as long as the cut (ties)
    held more than MAX_BOXES calls at least that long, so the cut is just above them,
    which is that piece's threshold: ``floor``."""
    cut = px
    count = durations.size
    if candidates > MAX_BOXES and count >= MAX_BOXES:
        longest = float(np.partition(durations, count - MAX_BOXES)[count - MAX_BOXES])
        ties = np.count_nonzero(durations >= longest) > MAX_BOXES
        cut = float(np.nextafter(longest, np.inf)) if ties else longest
    return max(cut, px, floor)


#: The fields of a box that :func:`demote` reads.
DEMOTED = ("row", "start", "end", "code", "share")


def demote(
    boxes: dict[str, np.ndarray], request: Request, row0: int, pool: int, raster: np.ndarray
) -> None:
    """Add ``boxes`` (calls too many to draw as boxes, with global codes and their
    exclusive ``share``) to ``raster`` (rows of ``pool`` display rows from ``row0``), as
    the pandas timeline rasters calls."""
    lo = np.arange(boxes["start"].size, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    kernels.raster_calls(
        lo,
        lo + 1,
        boxes["row"],
        boxes["start"],
        boxes["end"],
        boxes["code"],
        kernels.ALL,
        boxes["share"],
        kernels.ALL,
        float(request.t0),
        request.px,
        np.inf,
        not request.depth_rows,
        row0,
        pool,
        raster[0],
        raster[1],
        raster[2],
        none,
        none,
    )


def keep_longest(
    pieces: Sequence[dict], request: Request, row0: int, pool: int, raster: np.ndarray
) -> tuple[dict[str, np.ndarray], float]:
    """The boxes of ``pieces`` (each with its ``boxes``, their ``candidates`` and its
    ``threshold``, see :func:`box_cut`) drawn as boxes, and the threshold; the others
    are added to ``raster`` (:func:`demote`)."""
    boxes = {
        f: np.concatenate([np.zeros(0, dtype=np.int64), *(p["boxes"][f] for p in pieces)])
        for f in BOX_FIELDS
    }
    candidates = sum(p["candidates"] for p in pieces)
    floor = max((p["threshold"] for p in pieces), default=request.px)
    durations = (boxes["end"] - boxes["start"]).astype(np.float64)
    threshold = box_cut(durations, request.px, candidates, floor)
    drawn = durations >= threshold
    if not drawn.all():
        # positions, not masks: a scattered mask picks several times slower
        left = np.flatnonzero(~drawn)
        demote({f: boxes[f].take(left) for f in DEMOTED}, request, row0, pool, raster)
        kept = np.flatnonzero(drawn)
        boxes = {f: v.take(kept) for f, v in boxes.items()}
    return boxes, threshold
