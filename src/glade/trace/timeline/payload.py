"""What a timeline sends to its front end: pictures of ranges and the overview strip,
as descriptors plus one blob of packed arrays (:func:`glade.packing.pack_arrays`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from glade.packing import pack_arrays
from glade.trace.profiles import bin_edges, spread_exclusive
from glade.trace.timeline.index import TimelineIndex
from glade.trace.timeline.render import Picture

#: Columns of the overview strip, and functions it shows apart (the others are summed).
OVERVIEW_BINS = 512
OVERVIEW_FUNCTIONS = 12


def encode_picture(picture: Picture) -> tuple[dict[str, Any], bytes]:
    """The fields and blob of a picture: its geometry, and its boxes, raster (opacity
    0-255 of the exclusive time of the calls per pixel, and the function of the
    largest contribution plus one, 0 for none: both compressed), instants (exact, or
    their count per raster pixel, compressed), arrows, and the wait states and the
    critical path when shown (``picture.extra["arrays"]``, see
    :mod:`glade.trace.timeline.waiting`) as typed arrays.

    A box's start is sent as float32 ns from ``box_origin`` (the range's start), its
    duration and exclusive time as float32 ns: an edge in the range is placed to
    within 2^-24 of the range, far below a pixel, and durations keep seven significant
    digits, while a wide answer's 30,000 boxes take 12 fewer bytes each."""
    request = picture.request
    capacity = request.px * picture.pool
    alpha = np.rint(255 * np.clip(picture.busy / capacity, 0, 1)).astype(np.uint8)
    boxes = picture.boxes
    arrays = {
        "box_start": (boxes["start"] - request.t0).astype(np.float32),
        "box_duration": (boxes["end"] - boxes["start"]).astype(np.float32),
        "box_row": narrow(boxes["row"]),
        "box_code": narrow(boxes["code"]),
        "box_node": boxes["node"].astype(np.int32),
        "box_depth": narrow(boxes["depth"]),
        "box_exclusive": boxes["exclusive"].astype(np.float32),
        "raster_alpha": alpha.reshape(-1),
        "raster_code": narrow(picture.top + 1).reshape(-1),
    }
    instants = picture.instants
    if picture.instants_pooled:
        arrays["mark_count"] = narrow(np.minimum(instants["count"], 65535)).reshape(-1)
    else:
        arrays.update(
            instant_time=instants["time"].astype(np.float64),
            instant_row=instants["row"].astype(np.int32),
            instant_code=instants["code"].astype(np.int32),
            instant_node=instants["node"].astype(np.int32),
        )
    arrows = picture.arrows
    arrays.update(
        arrow_send=arrows.send_time.astype(np.float64),
        arrow_receive=arrows.receive_time.astype(np.float64),
        arrow_from=arrows.send_row.astype(np.int32),
        arrow_to=arrows.receive_row.astype(np.int32),
        arrow_size=arrows.size.astype(np.float64),
        arrow_count=arrows.count.astype(np.int32),
    )
    for name, values in arrows.envelope.items():
        arrays[f"arrow_{name}"] = values.astype(np.int32 if name.endswith("node") else np.float64)
    layers = picture.extra.get("arrays", {})  # wait states, the critical path
    arrays.update(layers)
    descriptors, blob = pack_arrays(
        arrays,
        deflate=("raster_alpha", "raster_code", "mark_count", "wait_alpha", "wait_top"),
        noisy=("raster_alpha",),
    )
    fields = {
        "t0": request.t0,
        "t1": request.t1,
        "width": request.width,
        "box_origin": request.t0,
        "height": request.height,
        "depth_rows": request.depth_rows,
        "row0": picture.row0,
        "row1": picture.row1,
        "pool": picture.pool,
        "bins": picture.bins,
        "threshold": picture.threshold,
        "visible_calls": picture.visible_calls,
        "instants_pooled": picture.instants_pooled,
        "arrows_bundled": arrows.bundled,
        "level": picture.extra.get("level"),
        "waits": "wait_start" in layers,
        "path": "path_from" in layers,
        "arrays": descriptors,
    }
    return fields, blob


def narrow(values: np.ndarray) -> np.ndarray:
    """The non-negative integers ``values`` in the smallest of uint8, uint16 and int32
    that holds them all (a wide picture sends tens of thousands of rows, codes and
    depths, and a raster of codes: fewer bytes to compress, send and read)."""
    top = int(values.max(initial=0))
    return values.astype(np.uint8 if top < 256 else np.uint16 if top < 65536 else np.int32)


def function_totals(index: TimelineIndex) -> np.ndarray:
    """The exclusive time of every function (by code) over the calls ``index`` keeps."""
    return np.bincount(
        index.call_code, weights=index.exclusive[index.call_node], minlength=len(index.forest.names)
    )


def overview_groups(totals: np.ndarray) -> tuple[list[int], np.ndarray]:
    """The functions the overview shows apart (the OVERVIEW_FUNCTIONS with the most time,
    ``totals`` by function code) and the group of every function (those shown, in that
    order, then one for all the others)."""
    shown = [
        int(c) for c in np.argsort(-totals, kind="stable")[:OVERVIEW_FUNCTIONS] if totals[c] > 0
    ]
    group = np.full(totals.size, len(shown), dtype=np.int64)
    group[shown] = np.arange(len(shown))
    return shown, group


def pack_overview(
    profile: np.ndarray, shown: list[int], extent: tuple[int, int], num_locations: int
) -> tuple[dict[str, Any], bytes]:
    """The overview strip of ``profile`` (exclusive ns per group of
    :func:`overview_groups` and bin of ``bin_edges(*extent, OVERVIEW_BINS)``) as
    fractions of the capacity of a column (its width times the number of locations),
    float32 (groups x columns)."""
    edges = bin_edges(*extent, OVERVIEW_BINS)
    share = profile / (np.diff(edges) * max(num_locations, 1))
    descriptors, blob = pack_arrays({"share": share.astype(np.float32).reshape(-1)})
    return {
        "t0": float(extent[0]),
        "t1": float(extent[1]),
        "bins": OVERVIEW_BINS,
        "codes": [*shown, -1],
        "arrays": descriptors,
    }, blob


def encode_overview(index: TimelineIndex, totals: np.ndarray) -> tuple[dict[str, Any], bytes]:
    """The overview strip: the exclusive time of the OVERVIEW_FUNCTIONS functions with
    the most time (``totals``, by function) in OVERVIEW_BINS columns over the whole
    trace (the others summed last), as fractions of the capacity of a column (its
    width times the number of locations), float32 (functions x columns)."""
    forest = index.forest
    edges = bin_edges(*forest.duration, OVERVIEW_BINS)
    shown, group = overview_groups(totals)
    caller = index.caller[index.call_node]
    profile = spread_exclusive(
        index.call_start,
        index.call_end,
        group[index.call_code],
        group[forest.code[np.maximum(caller, 0)]],
        caller >= 0,
        len(shown) + 1,
        edges,
    )
    return pack_overview(profile, shown, forest.duration, forest.processes.size)
