"""The timeline's answer to a range request on a Dask trace: one row per location
(process and thread, the flat layout), exact boxes for the calls at least a pixel wide
and a raster of the time every smaller call covers in each pixel, as the pandas
timeline draws them (:mod:`glade.views.timeline.render`).

Every partition builds the timeline index of its own processes (their call forest) and
splits its calls in the range into boxes and raster points with the pandas timeline's
own kernel; the points stay on the workers, where datashader's Dask support aggregates
them partition by partition (sums of covered and exclusive time, the largest key per
pixel); only the boxes, a few per row, come back. When all partitions hold more boxes
than a picture draws, the longest are kept and the others join the raster, as the
pandas timeline does.

Instants and message arrows are not drawn on Dask: a picture's ``instants`` are empty
and its ``arrows`` too (``picture.extra["engine"] == "dask"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import getitem
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from glade.trace.calls import call_forest
from glade.trace.engines.parts import in_time_order, local_trace
from glade.views.timeline import kernels
from glade.views.timeline.index import Forest, TimelineIndex
from glade.views.timeline.messages import Arrows
from glade.views.timeline.raster import aggregate_table
from glade.views.timeline.render import MAX_BOXES, Picture, Request, pool_of, split_range

_BOX_FIELDS = ("event", "row", "start", "end", "code", "depth", "exclusive", "share")


def _points_table(points: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(points.T.copy(), columns=list(kernels.POINT_FIELDS))


def timeline_share(part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None,
                   request: Request, row_offset: int, names: pd.Index) -> dict:
    """The share of partition ``part`` (whose first row is display row ``row_offset``)
    of the picture of ``request``: its raster ``points`` (a DataFrame, function codes
    of ``names``) and its ``boxes`` (arrays :data:`_BOX_FIELDS`; ``event``: the event id
    of the call's Enter)."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    index = TimelineIndex(Forest.of(call_forest(trace), trace.location_codes()))
    rows = index.lanes.num_rows(False)
    row0 = int(np.clip(request.row0 - row_offset, 0, rows))
    row1 = int(np.clip(request.row1 - row_offset, 0, rows))
    box, box_row, points, _, visible, _ = split_range(index, request, row0, row1,
                                                      row_offset, exact=True)
    recode = names.get_indexer(pd.Index(index.forest.names, dtype=object))
    code = np.fmod(points[4], float(1 << kernels.CODE_BITS)).astype(np.int64)
    points = points.copy()
    points[4] += recode[code] - code
    nodes = index.call_node[box]
    boxes = {
        "event": part.index.to_numpy()[index.forest.event[nodes]],
        "row": box_row,
        "start": index.call_start[box],
        "end": index.call_end[box],
        "code": recode[index.call_code[box]],
        "depth": index.depth[nodes],
        "exclusive": index.exclusive[nodes],
        "share": index.share[nodes],
    }
    return {"points": _points_table(points), "boxes": boxes, "visible": visible}


def _box_cut(durations: np.ndarray, px: float) -> float:
    """The shortest duration drawn as a box among ``durations`` (those of at least a
    pixel): the pandas timeline's rule (see :func:`glade.views.timeline.render._threshold`)."""
    count = durations.size
    if count <= MAX_BOXES:
        return px
    cut = float(np.partition(durations, count - MAX_BOXES)[count - MAX_BOXES])
    if np.count_nonzero(durations >= cut) > MAX_BOXES:
        cut = float(np.nextafter(cut, np.inf))
    return max(cut, px)


def _demoted_points(boxes: dict[str, np.ndarray], request: Request) -> np.ndarray:
    """Raster points of ``boxes`` (calls too many to draw as boxes)."""
    n = boxes["start"].size
    lo = np.arange(n, dtype=np.int64)
    args = (lo, lo + 1, boxes["row"], boxes["start"], boxes["end"], boxes["code"],
            boxes["share"], float(request.t0), request.px, request.width, np.inf, True)
    none = np.empty(0, dtype=np.int64)
    _, count = kernels.split_calls(*args, none, none, np.empty((5, 0)), 0, False)
    points = np.empty((len(kernels.POINT_FIELDS), count))
    kernels.split_calls(*args, none, none, points, 0, True)
    return points


def dask_picture(trace: Any, t0: int | None = None, t1: int | None = None, *,
                 width: int = 1200, rows: tuple[int, int] | None = None,
                 height: int = 400) -> Picture:
    """The timeline picture of the DaskTrace ``trace`` for times [t0, t1) (default: the
    whole trace) over ``width`` pixels and rows ``rows`` (default all, one per
    location) over ``height`` pixel rows (see the module doc)."""
    first, last = trace.span
    t0 = first if t0 is None else t0
    t1 = max(last, first + 1) if t1 is None else t1
    total = trace.num_locations
    row0, row1 = rows if rows is not None else (0, total)
    request = Request.of({"t0": t0, "t1": t1, "width": width, "height": height,
                          "row0": row0, "row1": row1})
    row0, row1 = max(0, min(row0, total)), max(0, min(row1, total))
    pool = pool_of(row1 - row0, request.height)
    bins = -(-(row1 - row0) // pool)
    names = trace.name_labels()
    offsets = np.cumsum([0] + [s.locations for s in trace._summary()])
    end = trace._end()
    shares = [dask.delayed(timeline_share)(p, trace.metadata, end, request, int(o), names)
              for p, o in zip(trace.events.to_delayed(), offsets, strict=False)]
    shares = dask.persist(*shares)
    pieces = dask.compute(*[(dask.delayed(getitem)(s, "boxes"),
                             dask.delayed(getitem)(s, "visible")) for s in shares])
    boxes = {f: np.concatenate([p[0][f] for p in pieces]) for f in _BOX_FIELDS}
    threshold = _box_cut((boxes["end"] - boxes["start"]).astype(np.float64), request.px)
    drawn = (boxes["end"] - boxes["start"]) >= threshold
    # persisted, the points are a collection datashader's Dask pipeline reads whole
    points = dd.from_delayed([dask.delayed(getitem)(s, "points") for s in shares],
                             meta=_points_table(np.empty((5, 0))), verify_meta=False).persist()
    if not drawn.all():
        demoted = _demoted_points({f: v[~drawn] for f, v in boxes.items()}, request)
        points = dd.concat([points, dd.from_pandas(_points_table(demoted), npartitions=1)])
    cover, busy, top = aggregate_table(points, t0=request.t0, px=request.px,
                                       width=request.width, row0=row0, pool=pool, bins=bins)
    kept = {f: boxes[f][drawn] for f in _BOX_FIELDS if f != "share"}
    none = np.zeros(0, dtype=np.int64)
    instants = {"node": none, "row": none, "time": none, "code": none}
    return Picture(request, row0, row1, pool, bins, threshold, sum(p[1] for p in pieces),
                   kept, cover, busy, top, instants, False, Arrows.empty(),
                   {"level": None, "engine": "dask"})
