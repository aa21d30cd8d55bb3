"""What the kernel answers to a timeline's range request: the calls at least a pixel
wide as exact boxes, a raster of the time every smaller call covers in each pixel,
the instants as marks, and the messages as arrows, for one time range and block of
rows.

Rows are pooled when there are more of them than pixels: a raster row then holds a
power of two of timeline rows, so the same rows always pool together. A range with
more than ``MAX_BOXES`` calls at least a pixel wide draws only the longest as boxes
(the rest join the raster, so nothing disappears), and one with more than
``MAX_INSTANTS`` instants draws one mark per pixel holding any, with their count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from glade.errors import GladeError
from glade.trace.timeline import kernels, parallel
from glade.trace.timeline.index import TimelineIndex
from glade.trace.timeline.levels import COARSEST, EXACT_LIMIT, Level
from glade.trace.timeline.messages import Arrows, KeptMessages

MAX_BOXES = 30_000
MAX_INSTANTS = 20_000
MAX_WIDTH = 8_192
MAX_HEIGHT = 8_192


@dataclass(frozen=True)
class Request:
    """A range request: times [t0, t1) over ``width`` pixel columns, rows
    ``row0:row1`` over ``height`` pixel rows, in the flat or the depth-rows layout."""

    t0: float
    t1: float
    width: int
    row0: int
    row1: int
    height: int
    depth_rows: bool = False

    @classmethod
    def of(cls, message: dict[str, Any]) -> Request:
        """The request a front end sent (GladeError naming what is wrong)."""
        try:
            t0, t1 = float(message["t0"]), float(message["t1"])
            width, height = int(message["width"]), int(message["height"])
            row0, row1 = int(message["row0"]), int(message["row1"])
        except (KeyError, TypeError, ValueError) as exc:
            raise GladeError(
                f"a range request needs numbers t0, t1, width, height, row0 and row1: {exc}"
            ) from None
        if not (math.isfinite(t0) and math.isfinite(t1) and t1 > t0):
            raise GladeError(f"a range request needs finite times t0 < t1, not {t0}, {t1}")
        if not (0 < width <= MAX_WIDTH and 0 < height <= MAX_HEIGHT):
            raise GladeError(
                f"a range request needs 1..{MAX_WIDTH} columns and "
                f"1..{MAX_HEIGHT} pixel rows, not {width} x {height}"
            )
        return cls(t0, t1, width, row0, row1, height, bool(message.get("depth_rows", False)))

    @property
    def px(self) -> float:
        """Nanoseconds per pixel column."""
        return (self.t1 - self.t0) / self.width


def pool_of(rows: int, height: int) -> int:
    """Timeline rows per raster row: the smallest power of two that fits ``rows`` into
    ``height`` pixel rows."""
    pool = 1
    while -(-rows // pool) > max(height, 1):
        pool *= 2
    return pool


def row_layout(row0: int, row1: int, height: int) -> tuple[int, int, int, int]:
    """The raster rows of timeline rows ``row0:row1`` over ``height`` pixel rows:
    ``(row0, row1, pool, bins)``, ``pool`` rows per raster row (:func:`pool_of`) and
    ``bins`` raster rows."""
    pool = pool_of(row1 - row0, height)
    return row0, row1, pool, -(-(row1 - row0) // pool)


def instant_counts(
    times: np.ndarray, rows: np.ndarray, request: Request, row0: int, pool: int, bins: int
) -> np.ndarray:
    """How many instants (at ``times``, on timeline ``rows``) each raster pixel of
    ``request`` holds: ``bins`` x ``request.width``."""
    column = np.clip(((times - request.t0) / request.px).astype(np.int64), 0, request.width - 1)
    cell = (rows - row0) // pool * request.width + column
    return np.bincount(cell, minlength=bins * request.width).reshape(bins, request.width)


@dataclass
class Picture:
    """The answer to a request: ``threshold`` is the shortest duration drawn as a box
    (``px`` ns, the width of a pixel, unless the range held too many boxes); rows
    are pooled ``pool`` at a time into ``bins`` raster rows from ``row0``. Per raster
    pixel, ``cover`` is the time the calls shorter than the threshold cover there;
    ``busy`` is the same with depth rows, and their exclusive time with a row per
    location (calls nest there, so their times overlap; their exclusive times do not);
    ``top`` is the function of the largest contribution to ``busy``."""

    request: Request
    row0: int
    row1: int
    pool: int
    bins: int
    threshold: float
    visible_calls: int
    boxes: dict[str, np.ndarray]
    cover: np.ndarray
    busy: np.ndarray
    top: np.ndarray
    instants: dict[str, np.ndarray]
    instants_pooled: bool
    arrows: Arrows
    extra: dict[str, Any] = field(default_factory=dict)


def longest_cut(
    lo: np.ndarray,
    hi: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    pick: np.ndarray,
    minimum: float,
    most: int,
) -> tuple[int, float, int, int]:
    """The calls of the runs ``[lo[k], hi[k])`` (at positions ``pick``, see
    :data:`kernels.ALL`) lasting at least ``minimum`` (> 0): how many there are; when
    more than ``most``, also the duration of the ``most``-th longest (``cut``) and how
    many last at least ``cut`` and longer than it (ties may make more than ``most``).
    Returns ``(count, cut, at_least, longer)`` (``cut`` = ``minimum`` and both counts =
    ``count`` when at most ``most``).

    One pass per block of runs (:mod:`~glade.trace.timeline.parallel`) counts the
    durations per class, which finds the class holding the cut; a second gathers that
    class's durations alone and sorts them, instead of writing and partitioning every
    duration."""
    bounds = parallel.blocks(hi - lo)

    def classes(a: int, b: int) -> tuple[np.ndarray, int]:
        counts = np.zeros(kernels.DURATION_CLASSES, np.int64)
        return counts, kernels.duration_classes(
            lo[a:b], hi[a:b], start, end, pick, float(minimum), counts
        )

    parts = parallel.run_blocks(classes, bounds)
    count = sum(n for _, n in parts)
    if count <= most:
        return count, minimum, count, count
    counts = np.sum([c for c, _ in parts], axis=0)
    from_top = np.cumsum(counts[::-1])
    c = counts.size - 1 - int(np.searchsorted(from_top, most))  # the class holding the cut
    above = int(from_top[counts.size - 2 - c]) if c < counts.size - 1 else 0
    sizes = {
        bound: int(block_counts[c]) for bound, (block_counts, _) in zip(bounds, parts, strict=True)
    }
    values = np.sort(
        np.concatenate(
            parallel.run_blocks(
                lambda a, b: kernels.class_durations(
                    lo[a:b], hi[a:b], start, end, pick, float(minimum), c, sizes[a, b]
                ),
                bounds,
            )
        )
    )
    cut = float(values[values.size - (most - above)])
    at_least = above + values.size - int(np.searchsorted(values, cut, side="left"))
    longer = above + values.size - int(np.searchsorted(values, cut, side="right"))
    return count, cut, at_least, longer


def _threshold(
    index: TimelineIndex, lo: np.ndarray, hi: np.ndarray, pick: np.ndarray, px: float
) -> tuple[float, int, int]:
    """The shortest duration drawn as a box: a pixel, or more when more than
    MAX_BOXES of the calls in the runs (of the index's calls at positions ``pick``)
    last a pixel or longer (then the MAX_BOXES longest are boxes, fewer when ties
    would make more); how many boxes that makes, and how many calls last a pixel or
    longer."""
    count, cut, at_least, longer = longest_cut(
        lo, hi, index.call_start, index.call_end, pick, px, MAX_BOXES
    )
    if count <= MAX_BOXES:
        return px, count, count
    if at_least > MAX_BOXES:
        return max(float(np.nextafter(cut, np.inf)), px), longer, count
    return max(float(cut), px), at_least, count


def instants_in_range(
    index: TimelineIndex,
    request: Request,
    lanes: np.ndarray,
    row_of_lane,
    row0: int,
    row1: int,
    pool: int,
    bins: int,
) -> tuple[dict, bool]:
    """The instants of the range: exact marks, or per pixel (raster row and column)
    their count when too many (counted in one pass, without gathering them)."""
    locations = np.unique(index.lanes.lane_location()[lanes])
    lo, hi = index.instant_runs(locations, request.t0, request.t1)
    if int((hi - lo).sum()) > MAX_INSTANTS:
        counts = np.zeros((bins, request.width), dtype=np.int64)
        rows = np.asarray(row_of_lane(np.arange(index.lanes.num_lanes)), dtype=np.int64)
        shown = kernels.count_instants(
            lo,
            hi,
            index.instant_time,
            index.instant_lane,
            rows,
            row0,
            row1,
            pool,
            float(request.t0),
            request.px,
            counts,
        )
        if shown > MAX_INSTANTS:
            return {"count": counts}, True
    found = kernels.gather_runs(lo, hi)
    rows = row_of_lane(index.instant_lane[found])
    shown = (rows >= row0) & (rows < row1)
    found, rows = found[shown], rows[shown]
    nodes = index.instant_node[found]
    return {
        "node": nodes,
        "row": rows,
        "time": index.instant_time[found],
        "code": index.forest.code[nodes],
    }, False


@dataclass(frozen=True)
class _Runs:
    """The calls of a request's rows in its range, read from the index or from a level
    of detail (``level``, None for the calls themselves): per lane, the run
    ``[lo, hi)`` of the index's calls at positions ``pick`` (a level's long calls, or
    :data:`kernels.ALL`) and its display row; ``boxes`` calls last ``threshold`` or
    longer, of ``candidates`` that last a pixel or longer (more than MAX_BOXES, not
    all counted, when the threshold was found among a coarser level's long calls)."""

    rows: np.ndarray
    pick: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    threshold: float
    boxes: int
    candidates: int
    visible: int
    level: Level | None


def displayed(rows: np.ndarray, display: int | np.ndarray) -> np.ndarray:
    """The display rows of an index's ``rows``: shifted by ``display`` (an int), or
    ``display[rows]`` (an array: the display row of each of the index's rows, ascending,
    when its rows are some of a picture's: a Dask partition's, in an order of rows
    chosen by the view)."""
    if isinstance(display, np.ndarray):
        return display[rows]
    return rows + display


def _runs(
    index: TimelineIndex,
    request: Request,
    row0: int,
    row1: int,
    display: int | np.ndarray,
    exact: bool,
) -> _Runs:
    """The runs of calls of rows ``row0:row1`` in the request's range (on the display
    rows :func:`displayed` gives), from a level of detail when the range holds more than
    EXACT_LIMIT calls (never when ``exact``), and the shortest duration drawn as a box."""
    lanes = index.lanes.lanes_of_rows(row0, row1, request.depth_rows)
    lane_rows = displayed(index.lanes.row_of_lane(lanes, request.depth_rows), display)
    lo, hi = index.call_runs(lanes, request.t0, request.t1)
    visible = int((hi - lo).sum())
    level = index.level(request.px) if visible > EXACT_LIMIT and not exact else None
    pick = kernels.ALL

    def read(level: Level) -> tuple[np.ndarray, np.ndarray]:
        return kernels.runs_in_range(
            level.long_ptr,
            index.call_start,
            index.call_end,
            level.long,
            lanes,
            float(request.t0),
            float(request.t1),
            True,
        )

    if level is None:
        threshold, boxes, candidates = _threshold(index, lo, hi, pick, request.px)
        return _Runs(lane_rows, pick, lo, hi, threshold, boxes, candidates, visible, None)
    # a level's long calls hold every call a pixel wide, so the threshold is theirs;
    # and when a coarser level holds more than MAX_BOXES long calls in range (at least
    # two of its bins, over a pixel), the MAX_BOXES longest are among them: the
    # threshold is found among the fewer long calls of the coarsest such level
    runs = {level.k: read(level)}
    k = level.k
    while k > COARSEST:
        coarse = index.level_number(k - 1)
        runs[k - 1] = read(coarse)
        if int((runs[k - 1][1] - runs[k - 1][0]).sum()) <= MAX_BOXES:
            break
        k -= 1
    threshold, boxes, candidates = _threshold(
        index, *runs[k], index.level_number(k).long, request.px
    )
    level = index.level(request.px, threshold)
    assert level is not None  # the same px found a level above
    lo, hi = runs[level.k] if level.k in runs else read(level)
    return _Runs(lane_rows, level.long, lo, hi, threshold, boxes, candidates, visible, level)


def picture_level(index: TimelineIndex, request: Request) -> Level | None:
    """The level of detail the picture of ``request`` reads (None: the calls
    themselves), chosen as :func:`render` chooses it."""
    row0, row1 = index.lanes.check_rows(request.row0, request.row1, request.depth_rows)
    return range_level(index, request, row0, row1)


def range_level(index: TimelineIndex, request: Request, row0: int, row1: int) -> Level | None:
    """The level of detail :func:`raster_range` reads for rows ``row0:row1`` of
    ``index`` in the request's range (None: the calls themselves)."""
    return _runs(index, request, row0, row1, 0, False).level


def raster_range(
    index: TimelineIndex, request: Request, row0: int, row1: int, pool: int, bins: int
) -> tuple:
    """The calls of rows ``row0:row1`` of ``index`` in the request's range as boxes
    (their positions in the index's call arrays, and display rows) and a raster of
    ``bins`` rows of ``pool`` display rows (cover, busy and the code of the largest
    share per pixel, see :class:`Picture`), accumulated in one pass over the runs and
    the level's records per block of lanes (blocks side by side, see
    :mod:`~glade.trace.timeline.parallel`); with the threshold, the number of visible
    calls and the level of detail used (None: the calls themselves)."""
    box, box_row, cover, busy, key, threshold, visible, level, _ = raster_keys(
        index, request, row0, row1, pool, bins
    )
    return box, box_row, cover, busy, key_codes(key), threshold, visible, level


def key_codes(key: np.ndarray) -> np.ndarray:
    """The function code (int32) each pixel's largest key names (see
    :func:`~glade.trace.timeline.kernels.raster_calls`), -1 where the key is -1 (nothing)."""
    # a key is an integer below 2^53 (exact in float64): its low CODE_BITS are the code
    top = key.astype(np.int64)
    top &= (1 << kernels.CODE_BITS) - 1
    top = top.astype(np.int32)
    top[key < 0] = -1
    return top


def raster_keys(
    index: TimelineIndex,
    request: Request,
    row0: int,
    row1: int,
    pool: int,
    bins: int,
    origin: int | None = None,
    display: int | np.ndarray = 0,
    raster: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    recode: np.ndarray = kernels.ALL,
) -> tuple:
    """:func:`raster_range` with the index's rows shown on the display rows ``display``
    gives (see :func:`displayed`), the raster's rows counted from display row ``origin``
    (default ``row0``: a Dask partition's rows are a part of the picture's) and, per
    pixel, the key of the largest share (-1 where nothing is: see
    :func:`~glade.trace.timeline.kernels.raster_calls`) rather than its code, and last
    the number of calls lasting a pixel or longer (see :class:`_Runs`); added to
    ``raster`` (cover, busy and key, of ``bins`` rows and the request's width) when
    given (a Dask worker's partitions share one), the keys naming the functions that
    ``recode`` gives the index's codes (int32; empty: as they are)."""
    origin = row0 if origin is None else origin
    runs = _runs(index, request, row0, row1, display, False)
    _, start, end, code, share = index.lane_calls
    px = request.px
    if raster is None:
        raster = (
            np.zeros((bins, request.width)),
            np.zeros((bins, request.width)),
            np.full((bins, request.width), -1.0),
        )
    cover, busy, key = raster
    raster_rows = (runs.rows - origin) // pool
    # the raster row of every row, to find the rows of a block's raster rows
    row_raster = (displayed(np.arange(row0, row1), display) - origin) // pool
    bounds = parallel.blocks(runs.hi - runs.lo, raster_rows)
    if runs.level is not None:  # built here, not by a block waiting in the pool
        runs.level.records(request.depth_rows)

    def block(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        # the lanes a:b, and the rows of their raster rows (all rows up to the next block)
        box, box_row = np.empty(runs.boxes, np.int64), np.empty(runs.boxes, np.int64)
        count = kernels.raster_calls(
            runs.lo[a:b],
            runs.hi[a:b],
            runs.rows[a:b],
            start,
            end,
            code,
            recode,
            share,
            runs.pick,
            float(request.t0),
            px,
            runs.threshold,
            not request.depth_rows,
            origin,
            pool,
            cover,
            busy,
            key,
            box,
            box_row,
        )
        if runs.level is not None:
            first = row0 + int(np.searchsorted(row_raster, raster_rows[a])) if a else row0
            last = (
                row0 + int(np.searchsorted(row_raster, raster_rows[b]))
                if b < raster_rows.size
                else row1
            )
            rows = np.arange(first, last, dtype=np.int64)
            runs.level.rasterize(
                rows,
                displayed(rows, display),
                request.t0,
                request.t1,
                px,
                request.depth_rows,
                origin,
                pool,
                raster,
                recode,
            )
        return box[:count], box_row[:count]

    parts = parallel.run_blocks(block, bounds)
    box = np.concatenate([box for box, _ in parts])
    box_row = np.concatenate([box_row for _, box_row in parts])
    return (
        box,
        box_row,
        cover,
        busy,
        key,
        runs.threshold,
        runs.visible,
        runs.level,
        runs.candidates,
    )


def render(index: TimelineIndex, messages: KeptMessages | None, request: Request) -> Picture:
    """The picture of ``request`` (see the module doc)."""
    depth_rows = request.depth_rows
    row0, row1, pool, bins = row_layout(
        *index.lanes.check_rows(request.row0, request.row1, depth_rows), request.height
    )
    lanes = index.lanes.lanes_of_rows(row0, row1, depth_rows)
    box, box_row, cover, busy, top, threshold, visible, level = raster_range(
        index, request, row0, row1, pool, bins
    )
    nodes = index.call_node[box]
    boxes = {
        "node": nodes,
        "row": box_row,
        "start": index.call_start[box],
        "end": index.call_end[box],
        "code": index.call_code[box],
        "depth": index.depth[nodes],
        "exclusive": index.exclusive[nodes],
    }

    def row_of_lane(values: np.ndarray) -> np.ndarray:
        return index.lanes.row_of_lane(values, depth_rows)

    instants, pooled = instants_in_range(index, request, lanes, row_of_lane, row0, row1, pool, bins)
    arrows = (
        Arrows.empty()
        if messages is None or not len(messages)
        else messages.in_range(
            request.t0,
            request.t1,
            index.lanes.row_of_lane(np.arange(index.lanes.num_lanes), depth_rows),
            row0,
            row1,
            pool,
        )
    )
    return Picture(
        request,
        row0,
        row1,
        pool,
        bins,
        threshold,
        visible,
        boxes,
        cover,
        busy,
        top,
        instants,
        pooled,
        arrows,
        {"level": None if level is None else level.k},
    )
