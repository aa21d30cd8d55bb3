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

Every partition also finds its instants in the range with the pandas timeline's own
code (exact marks, or counts per pixel when too many: the client adds the counts) and
sends its message events; the client pairs them (as ``match_messages``) and draws the
arrows of the range with the pandas timeline's own bundling. Marks and boxes name
their event by its event id (``event``), where the pandas picture names a node of the
call forest (``picture.extra["engine"] == "dask"``).
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
from glade.trace.comm import message_rows
from glade.trace.engines.combine import pair_message_events
from glade.trace.engines.parts import in_time_order, local_trace
from glade.trace.events import RECEIVE_NAMES, SEND_NAMES, is_derived
from glade.views.timeline import kernels
from glade.views.timeline.index import Forest, TimelineIndex
from glade.views.timeline.messages import KeptMessages
from glade.views.timeline.raster import aggregate_table
from glade.views.timeline.render import (
    MAX_BOXES,
    MAX_INSTANTS,
    Picture,
    Request,
    _instants,
    pool_of,
    split_range,
)

_BOX_FIELDS = ("event", "row", "start", "end", "code", "depth", "exclusive", "share")
_INSTANT_FIELDS = ("event", "row", "time", "code")
#: The column of a partition's message events holding the display row of their location.
_ROW = "__glade_row__"


def _points_table(points: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(points.T.copy(), columns=list(kernels.POINT_FIELDS))


def timeline_share(part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None,
                   request: Request, row_offset: int, names: pd.Index,
                   layout: tuple[int, int, int, int]) -> dict:
    """The share of partition ``part`` (whose first row is display row ``row_offset``)
    of the picture of ``request`` (drawing rows ``row0:row1`` of the whole trace in
    ``bins`` raster rows of ``pool`` rows: ``layout``): its raster ``points`` (a
    DataFrame, function codes of ``names``), its ``boxes`` (arrays
    :data:`_BOX_FIELDS`; ``event``: the event id of the call's Enter), its
    ``instants`` in the range (arrays :data:`_INSTANT_FIELDS`, or their ``count`` per
    pixel) and its ``messages`` (the message events, with their display row)."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    index = TimelineIndex(Forest.of(call_forest(trace), trace.location_codes()))
    rows = index.lanes.num_rows(False)
    row0 = int(np.clip(request.row0 - row_offset, 0, rows))
    row1 = int(np.clip(request.row1 - row_offset, 0, rows))
    box, box_row, points, _, visible, _ = split_range(index, request, row0, row1,
                                                      row_offset, exact=True)
    recode = names.get_indexer(pd.Index(index.forest.names, dtype=object))
    instants = _local_instants(index, request, (row0, row1), row_offset, layout, recode,
                               part.index.to_numpy())
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
    messages = np.union1d(message_rows(trace, SEND_NAMES), message_rows(trace, RECEIVE_NAMES))
    sent = part.iloc[messages][[c for c in part.columns if not is_derived(c)]]
    sent = sent.assign(**{_ROW: trace.location_codes()[0][messages] + row_offset})
    return {"points": _points_table(points), "boxes": boxes, "visible": visible,
            "instants": instants, "messages": sent}


def _local_instants(index: TimelineIndex, request: Request, local: tuple[int, int],
                    row_offset: int, layout: tuple[int, int, int, int], recode: np.ndarray,
                    ids: np.ndarray) -> dict[str, np.ndarray]:
    """The instants of a partition's rows ``local`` in the range, found by the pandas
    timeline's code: exact (event ids, display rows, times, codes of the trace's
    names) or their counts per raster pixel."""
    row0, row1, pool, bins = layout
    lanes = index.lanes.lanes_of_rows(*local, False)

    def row_of_lane(values: np.ndarray) -> np.ndarray:
        return index.lanes.row_of_lane(values, False) + row_offset

    found, pooled = _instants(index, request, lanes, row_of_lane, row0, row1, pool, bins)
    if pooled:
        return found
    return {"event": ids[index.forest.event[found["node"]]], "row": found["row"],
            "time": found["time"], "code": recode[found["code"]]}


def _all_instants(pieces: list[dict], request: Request, row0: int, pool: int, bins: int
                  ) -> tuple[dict[str, np.ndarray], bool]:
    """The instants of the picture from its partitions': exact marks when they are few
    enough, else the counts per raster pixel (a partition's exact marks counted there
    as the pandas timeline counts them)."""
    exact = [p for p in pieces if "count" not in p]
    if len(exact) == len(pieces) and sum(p["time"].size for p in exact) <= MAX_INSTANTS:
        if not exact:
            return {f: np.zeros(0, dtype=np.int64) for f in _INSTANT_FIELDS}, False
        return {f: np.concatenate([p[f] for p in exact]) for f in _INSTANT_FIELDS}, False
    counts = sum((p["count"] for p in pieces if "count" in p),
                 np.zeros((bins, request.width), dtype=np.int64))
    for p in exact:
        column = np.clip(((p["time"] - request.t0) / request.px).astype(np.int64), 0,
                         request.width - 1)
        cell = (p["row"] - row0) // pool * request.width + column
        counts += np.bincount(cell, minlength=bins * request.width).reshape(bins, -1)
    return {"count": counts}, True


def _arrows(pieces: list[pd.DataFrame], request: Request, rows: int, row0: int, row1: int,
            pool: int):
    """The message arrows of the range: the partitions' message events paired (see
    :func:`glade.trace.engines.combine.pair_message_events`), drawn and bundled by the
    pandas timeline's code."""
    frame = pd.concat(pieces)
    row_of = pd.Series(frame[_ROW].to_numpy(), index=frame.index)
    table = pair_message_events(pieces, frame.iloc[:0])[0]
    kept = KeptMessages(table["Send time (ns)"].to_numpy().astype(np.float64),
                        table["Receive time (ns)"].to_numpy().astype(np.float64),
                        row_of.loc[table["Send event"].to_numpy()].to_numpy(),
                        row_of.loc[table["Receive event"].to_numpy()].to_numpy(),
                        table["Message Size"].to_numpy().astype(np.float64))
    return kept.in_range(request.t0, request.t1, np.arange(rows), row0, row1, pool)


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
    layout = (row0, row1, pool, bins)
    shares = [dask.delayed(timeline_share)(p, trace.metadata, end, request, int(o), names,
                                           layout)
              for p, o in zip(trace.events.to_delayed(), offsets, strict=False)]
    shares = dask.persist(*shares)
    pieces = dask.compute(*[tuple(dask.delayed(getitem)(s, k) for k in
                                  ("boxes", "visible", "instants", "messages"))
                            for s in shares])
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
    instants, pooled = _all_instants([p[2] for p in pieces], request, row0, pool, bins)
    arrows = _arrows([p[3] for p in pieces], request, total, row0, row1, pool)
    return Picture(request, row0, row1, pool, bins, threshold, sum(p[1] for p in pieces),
                   kept, cover, busy, top, instants, pooled, arrows,
                   {"level": None, "engine": "dask"})
