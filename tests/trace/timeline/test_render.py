"""What the kernel answers to a timeline's range request, against brute force: the boxes
are exactly the calls in range at least a pixel wide (or the longest, past the budget),
the raster holds exactly the time the other calls cover (mass), the instants and the
arrows are those in range, on random traces, on a synthetic trace large enough for the
levels of detail, and on Pipit's ping-pong OTF2 trace."""

from __future__ import annotations

import itertools
import threading
import warnings
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.datasets import synthetic_trace
from glade.errors import GladeError
from glade.trace import Trace
from glade.trace.comm import message_pairs
from glade.trace.matching import UnmatchedEventsWarning
from glade.trace.timeline import kernels, levels, parallel
from glade.trace.timeline import render as render_module
from glade.trace.timeline.index import STORED_ARRAYS, Forest, TimelineIndex
from glade.trace.timeline.messages import KeptMessages, Messages
from glade.trace.timeline.render import (
    Request,
    instant_counts,
    longest_cut,
    pool_of,
    render,
)
from glade.trace.timeline.source import place
from tests.hypothesis_budget import examples
from tests.trace.test_matching_property import random_traces


def index_of(trace: Trace, keep=None) -> TimelineIndex:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        return TimelineIndex(Forest.of(trace.calls()), keep)


def overlap(start, end, t0, t1):
    return np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0, None)


def calls_in(index: TimelineIndex, t0, t1, row0, row1, depth_rows):
    """Brute force: the kept calls overlapping [t0, t1) on rows row0:row1, with their row."""
    forest = index.forest
    calls = index.calls
    lane = index.node_lane[calls]
    row = index.lanes.row_of_lane(lane, depth_rows)
    start, end = forest.start[calls], forest.end[calls]
    inside = (end > t0) & (start < t1) & (row >= row0) & (row < row1)
    return calls[inside], row[inside]


def check_picture(index: TimelineIndex, request: Request, exact_raster: bool = True):
    picture = render(index, None, request)
    forest = index.forest
    rows = index.lanes.num_rows(request.depth_rows)
    row0, row1 = max(request.row0, 0), min(request.row1, rows)
    nodes, row = calls_in(index, request.t0, request.t1, row0, row1, request.depth_rows)
    duration = forest.end[nodes] - forest.start[nodes]
    wide = duration >= picture.threshold
    assert sorted(
        zip(picture.boxes["node"].tolist(), picture.boxes["row"].tolist(), strict=True)
    ) == sorted(zip(nodes[wide].tolist(), row[wide].tolist(), strict=True))
    assert picture.visible_calls == nodes.size
    if not wide.all() or picture.threshold == request.px:
        assert picture.threshold >= request.px
    total = overlap(forest.start[nodes], forest.end[nodes], request.t0, request.t1).sum()
    boxes = overlap(picture.boxes["start"], picture.boxes["end"], request.t0, request.t1).sum()
    if exact_raster:
        assert picture.cover.sum() + boxes == pytest.approx(total, rel=1e-9, abs=1e-6)
        # row by row too: each raster row holds the time of its own rows' small calls
        small = ~wide
        bin_of = (row[small] - row0) // picture.pool
        per_bin = np.bincount(
            bin_of,
            weights=overlap(
                forest.start[nodes[small]], forest.end[nodes[small]], request.t0, request.t1
            ),
            minlength=picture.bins,
        )
        np.testing.assert_allclose(picture.cover.sum(axis=1), per_bin, rtol=1e-9, atol=1e-6)
    return picture, total, boxes


@settings(max_examples=examples(75), deadline=None)
@given(
    random_traces(),
    st.floats(0, 1),
    st.floats(0, 1),
    st.integers(1, 40),
    st.integers(1, 6),
    st.booleans(),
)
def test_boxes_and_raster_mass_against_brute_force(table, a, b, width, height, depth_rows):
    trace = Trace(table)
    index = index_of(trace)
    first, last = index.forest.duration
    span = max(last - first, 1)
    t0 = first - 1 + min(a, b) * (span + 2)
    t1 = max(t0 + 0.5, first - 1 + max(a, b) * (span + 2))
    rows = index.lanes.num_rows(depth_rows)
    picture, _, _ = check_picture(index, Request(t0, t1, width, 0, rows, height, depth_rows))
    assert picture.pool == pool_of(rows, height)
    assert picture.cover.shape == (picture.bins, width)
    # a pixel's colour names a function that is there
    codes = set(index.forest.code[index.calls].tolist())
    assert set(picture.top[picture.top >= 0].tolist()) <= codes
    assert (picture.top[picture.cover > 0] >= 0).all()


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(0, 3), st.integers(1, 4), st.floats(0.0, 0.9), st.floats(0.01, 1.0))
def test_rows_in_view_and_the_box_budget(seed, row0, start, length):
    trace = synthetic_trace(6, 12, seed=seed)
    index = index_of(trace)
    first, last = index.forest.duration
    t0 = first + start * (last - first)
    t1 = t0 + length * (last - first)
    for depth_rows in (False, True):
        rows = index.lanes.num_rows(depth_rows)
        check_picture(index, Request(t0, t1, 300, row0, min(rows, row0 + 3), 2, depth_rows))
    saved = render_module.MAX_BOXES
    render_module.MAX_BOXES = 5
    try:
        picture, _, _ = check_picture(index, Request(t0, t1, 2000, 0, 6, 50))
        assert len(picture.boxes["node"]) <= 5
    finally:
        render_module.MAX_BOXES = saved


def test_levels_of_detail_keep_the_mass_and_the_boxes(monkeypatch):
    trace = synthetic_trace(8, 400, seed=2)
    index = index_of(trace)
    first, last = index.forest.duration
    request = Request(first, last, 700, 0, 8, 100)
    exact, total, boxes = check_picture(index, request)
    assert exact.extra["level"] is None
    monkeypatch.setattr(render_module, "EXACT_LIMIT", 0)
    index.finest = levels.finest_level(10**9)
    leveled = render(index, None, request)
    assert leveled.extra["level"] is not None
    assert sorted(leveled.boxes["node"].tolist()) == sorted(exact.boxes["node"].tolist())
    level = index.level(request.px)
    # records sit at bin centres: only bins cut by the range's ends can move time across
    # it, and each holds at most a bin per lane
    slack = 2 * level.size * index.lanes.num_lanes
    assert abs(leveled.cover.sum() + boxes - total) <= slack

    # per pixel, time moves by less than half a pixel: sums over 7-pixel blocks agree
    def blocks(cover: np.ndarray) -> np.ndarray:
        return cover.reshape(cover.shape[0], -1, 7).sum(axis=2)

    np.testing.assert_allclose(
        blocks(leveled.cover), blocks(exact.cover), rtol=0.2, atol=request.px
    )
    for depth_rows in (False, True):
        rows = index.lanes.num_rows(depth_rows)
        coarse = render(index, None, Request(first, last, 700, 0, rows, 100, depth_rows))
        fine = check_picture(index, Request(first, last, 700, 0, rows, 100, depth_rows))[0]
        assert coarse.cover.sum() == pytest.approx(fine.cover.sum(), rel=0.02)
    # building ahead adds the records of the levels finer than the one a picture read, up
    # to the finest a picture of its width reads, and keeps the levels built; nothing is
    # left to build once they are, and nothing after a picture that read the calls
    monkeypatch.setattr(levels, "EXACT_LIMIT", 1)
    built = set(index._levels)
    k = leveled.extra["level"]
    ahead = set(range(k + 1, levels.finest_level(index.calls.size, 4) + 1))
    assert len(ahead) >= 2 and max(ahead) < index.finest
    index.prepare_levels(False, k, 4).join()
    assert index.level(request.px) is level
    assert set(index._levels) == built | ahead
    assert all(index._levels[j].built(False) and not index._levels[j].built(True) for j in ahead)
    assert index.prepare_levels(False, k, 4) is None
    assert index.prepare_levels(True, None) is None


def test_building_ahead_waits_for_answers_but_not_for_a_request_that_needs_it(monkeypatch):
    trace = synthetic_trace(8, 400, seed=2)
    index = index_of(trace)
    index.finest = levels.finest_level(10**9)
    monkeypatch.setattr(levels, "BLOCK_CALLS", 10)
    monkeypatch.setattr(levels, "EXACT_LIMIT", 1)
    with index.answering():
        builder = index.prepare_levels(False, levels.COARSEST, 4)
        builder.join(0.3)
        # paused before its first block while the answer is computed
        assert builder.is_alive()
        assert not any(level.built(False) for level in index._levels.values())
        # a request reading the level being built gets it (the builder goes on for it)
        reader = threading.Thread(
            target=lambda: index.level_number(levels.COARSEST + 1).records(False)
        )
        reader.start()
        reader.join(60)
        assert not reader.is_alive() and index._levels[levels.COARSEST + 1].built(False)
    builder.join(60)
    assert not builder.is_alive() and index._levels[levels.COARSEST + 2].built(False)


@settings(max_examples=examples(20), deadline=None)
@given(
    st.integers(0, 3),
    st.integers(1, 400),
    st.floats(0.0, 0.9),
    st.floats(0.02, 1.0),
    st.integers(50, 1500),
    st.booleans(),
)
def test_leveled_pictures_have_the_exact_threshold_and_boxes(
    seed, budget, start, length, width, depth_rows
):
    # the threshold found among a coarser level's long calls is the exact one
    trace = synthetic_trace(6, 300, seed=seed)
    index = index_of(trace)
    first, last = index.forest.duration
    t0 = first + start * (last - first)
    request = Request(
        t0, t0 + length * (last - first), width, 0, index.lanes.num_rows(depth_rows), 50, depth_rows
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render_module, "MAX_BOXES", budget)
        exact = render(index, None, request)
        patch.setattr(render_module, "EXACT_LIMIT", 0)
        index.finest = levels.finest_level(10**9)
        leveled = render(index, None, request)
    assert leveled.threshold == exact.threshold
    assert sorted(leveled.boxes["node"].tolist()) == sorted(exact.boxes["node"].tolist())


@settings(max_examples=examples(20), deadline=None)
@given(
    st.integers(0, 3),
    st.floats(0.0, 0.9),
    st.floats(0.02, 1.0),
    st.integers(50, 1500),
    st.integers(1, 12),
    st.booleans(),
    st.booleans(),
    st.integers(2, 4),
)
def test_pictures_drawn_in_blocks_side_by_side_equal_one_pass(
    seed, start, length, width, height, depth_rows, leveled, parts
):
    # blocks never share a raster row and keep the lanes' order: the same boxes in the
    # same order, and the same raster to the bit, as one pass over all lanes
    trace = synthetic_trace(7, 200, seed=seed)
    index = index_of(trace)
    first, last = index.forest.duration
    t0 = first + start * (last - first)
    request = Request(
        t0,
        t0 + length * (last - first),
        width,
        0,
        index.lanes.num_rows(depth_rows),
        height,
        depth_rows,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render_module, "MAX_BOXES", 50)
        if leveled:
            patch.setattr(render_module, "EXACT_LIMIT", 0)
            index.finest = levels.finest_level(10**9)
        one = render(index, None, request)
        patch.setattr(parallel, "SPLIT_ABOVE", 0)
        patch.setattr(parallel, "cores", lambda: parts)
        split = render(index, None, request)
    assert split.extra == one.extra and split.threshold == one.threshold
    for name, values in one.boxes.items():
        np.testing.assert_array_equal(split.boxes[name], values)
    for name in ("cover", "busy", "top"):
        np.testing.assert_array_equal(getattr(split, name), getattr(one, name))


def test_a_picture_reading_a_level_not_yet_built_comes_back(monkeypatch):
    # the level is built by the requesting thread before the blocks are handed out (a
    # block waiting in the pool for a build that waits for the pool would never return),
    # in blocks side by side; the picture equals one drawn in one pass
    trace = synthetic_trace(8, 400, seed=2)
    first, last = index_of(trace).forest.duration
    request = Request(first, last, 700, 0, 8, 5)
    monkeypatch.setattr(render_module, "EXACT_LIMIT", 0)
    one = index_of(trace)
    one.finest = levels.finest_level(10**9)
    expected = render(one, None, request)
    index = index_of(trace)
    index.finest = levels.finest_level(10**9)
    monkeypatch.setattr(levels, "BLOCK_CALLS", 10)
    monkeypatch.setattr(parallel, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(parallel, "cores", lambda: 3)
    pictures = []
    drawing = threading.Thread(
        target=lambda: pictures.append(render(index, None, request)), daemon=True
    )
    drawing.start()
    drawing.join(120)
    assert pictures, "the picture never came back"
    np.testing.assert_array_equal(pictures[0].cover, expected.cover)
    np.testing.assert_array_equal(pictures[0].boxes["node"], expected.boxes["node"])


def test_a_hidden_function_leaves_its_time_to_its_caller():
    trace = synthetic_trace(4, 6, seed=1)
    full = index_of(trace)
    names = np.array(full.forest.names)
    keep = names[full.forest.code] != "compute_flux"
    index = TimelineIndex(full.forest, keep)
    first, last = index.forest.duration
    picture = check_picture(index, Request(first, last, 5000, 0, 4, 40))[0]
    assert "compute_flux" not in names[picture.boxes["code"]].tolist()
    flux = np.flatnonzero(names[full.forest.code] == "flux_kernel")
    assert (index.depth[flux] == full.depth[flux] - 1).all()
    step = np.flatnonzero(names[full.forest.code] == "compute_step")
    assert index.exclusive[step].sum() > full.exclusive[step].sum()
    # the exclusive times of what is left still add up to the whole run
    assert index.exclusive[index.calls].sum() == pytest.approx(full.exclusive[full.calls].sum())


def test_instants_exact_and_pooled(monkeypatch):
    trace = synthetic_trace(4, 10, seed=0)
    index = index_of(trace)
    first, last = index.forest.duration
    t0, t1 = first + (last - first) // 4, first + (last - first) // 2
    forest = index.forest
    instants = np.flatnonzero(~forest.call)
    inside = instants[(forest.start[instants] >= t0) & (forest.start[instants] < t1)]
    picture = render(index, None, Request(t0, t1, 400, 0, 4, 40))
    assert not picture.instants_pooled
    assert sorted(picture.instants["node"].tolist()) == sorted(inside.tolist())
    monkeypatch.setattr(render_module, "MAX_INSTANTS", 3)
    pooled = render(index, None, Request(t0, t1, 400, 0, 4, 40))
    assert pooled.instants_pooled
    assert pooled.instants["count"].shape == (pooled.bins, 400)
    assert pooled.instants["count"].sum() == inside.size


@pytest.mark.parametrize("exchange", ["ring", "pingpong"])
def test_arrows_are_the_matched_messages_in_range(exchange, monkeypatch):
    trace = synthetic_trace(6, 8, seed=4, exchange=exchange)
    index = index_of(trace)
    table = trace.match_messages()
    messages = Messages(message_pairs(trace)[0], index.forest).kept(index)
    first, last = index.forest.duration
    t0, t1 = first + (last - first) * 0.3, first + (last - first) * 0.6
    send, receive = table["Send time (ns)"].to_numpy(), table["Receive time (ns)"].to_numpy()
    rows = index.lanes.row_of_lane(np.arange(index.lanes.num_lanes), False)
    in_range = (np.maximum(send, receive) >= t0) & (np.minimum(send, receive) < t1)
    for row0, row1 in ((0, 6), (2, 4)):
        send_row = table["Sender"].to_numpy()
        receive_row = table["Receiver"].to_numpy()
        shown = in_range & (
            ((send_row >= row0) & (send_row < row1))
            | ((receive_row >= row0) & (receive_row < row1))
        )
        arrows = messages.in_range(t0, t1, rows, row0, row1, 1)
        assert not arrows.bundled
        assert sorted(
            zip(
                arrows.send_time.tolist(),
                arrows.receive_time.tolist(),
                arrows.send_row.tolist(),
                arrows.receive_row.tolist(),
                strict=True,
            )
        ) == sorted(
            zip(
                send[shown].astype(float).tolist(),
                receive[shown].astype(float).tolist(),
                send_row[shown].tolist(),
                receive_row[shown].tolist(),
                strict=True,
            )
        )
    monkeypatch.setattr("glade.trace.timeline.messages.MAX_ARROWS", 4)
    bundled = messages.in_range(t0, t1, rows, 0, 6, 1)
    assert bundled.bundled
    assert bundled.count.sum() == int(in_range.sum())
    assert bundled.size.sum() == table["Message Size"].to_numpy()[in_range].sum()
    # bundles grouped by counting are those grouped by sorting
    for limit in (4, 40):
        monkeypatch.setattr("glade.trace.timeline.messages.MAX_ARROWS", limit)
        counted = messages.in_range(t0, t1, rows, 0, 6, 2)
        monkeypatch.setattr("glade.trace.timeline.messages.DENSE_GROUPS", 0)
        sorted_ = messages.in_range(t0, t1, rows, 0, 6, 2)
        monkeypatch.setattr("glade.trace.timeline.messages.DENSE_GROUPS", 1 << 22)
        for field in ("send_time", "receive_time", "send_row", "receive_row", "size", "count"):
            np.testing.assert_array_equal(getattr(counted, field), getattr(sorted_, field))


def bundles_by_sorting(
    send_time, receive_time, send_row, receive_row, size, t0, t1, row0, pool, limit, buckets=64
):
    """Brute force: messages bundled per pair of row bins and time bucket with np.unique,
    as many buckets (64, 16, 4, 1) as keep the bundles within ``limit``."""
    send_bin, receive_bin = (send_row - row0) // pool, (receive_row - row0) // pool
    pairs, pair = np.unique(np.stack([send_bin, receive_bin], axis=1), axis=0, return_inverse=True)
    pair = pair.reshape(-1)
    buckets = buckets if len(pairs) <= limit else 1
    while True:
        bucket = np.clip(((send_time - t0) / (t1 - t0) * buckets).astype(np.int64), 0, buckets - 1)
        keys, which, count = np.unique(
            pair * buckets + bucket, return_inverse=True, return_counts=True
        )
        if buckets == 1 or keys.size <= limit:
            break
        buckets //= 4
    ends = pairs[keys // buckets]
    return (
        np.bincount(which, weights=send_time) / count,
        np.bincount(which, weights=receive_time) / count,
        ends[:, 0] * pool + row0,
        ends[:, 1] * pool + row0,
        np.bincount(which, weights=np.maximum(size, 0)),
        count,
    )


@settings(max_examples=examples(75), deadline=None)
@given(
    st.integers(0, 300),
    st.integers(0, 2**31),
    st.integers(1, 30),
    st.integers(0, 8),
    st.integers(1, 12),
    st.sampled_from([1, 2, 4, 8]),
    st.floats(0, 0.9),
    st.floats(0.01, 1.0),
    st.booleans(),
)
def test_arrows_and_bundles_against_brute_force(
    n, seed, lanes, row0, rows, pool, start, length, sparse
):
    rng = np.random.default_rng(seed)
    send = rng.integers(0, 1000, n).astype(float)
    receive = send + rng.integers(-50, 50, n)
    send_lane, receive_lane = rng.integers(0, lanes, n), rng.integers(0, lanes, n)
    size = rng.integers(-1, 100, n).astype(float)
    row_of_lane = rng.permutation(lanes)
    t0 = start * 1000
    t1 = t0 + length * 1000
    row1 = row0 + rows
    limit = int(rng.integers(1, 40))
    send_row, receive_row = row_of_lane[send_lane], row_of_lane[receive_lane]
    inside = (
        (np.maximum(send, receive) >= t0)
        & (np.minimum(send, receive) < t1)
        & (
            ((send_row >= row0) & (send_row < row1))
            | ((receive_row >= row0) & (receive_row < row1))
        )
    )
    messages = KeptMessages.sorting(send, receive, send_lane, receive_lane, size, {})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("glade.trace.timeline.messages.MAX_ARROWS", limit)
        if sparse:  # pairs numbered by sorting, as when they are too many to count
            patch.setattr("glade.trace.timeline.messages.DENSE_GROUPS", 0)
        arrows = messages.in_range(t0, t1, row_of_lane, row0, row1, pool)
    assert arrows.bundled == (inside.sum() > limit)
    got = (
        arrows.send_time,
        arrows.receive_time,
        arrows.send_row,
        arrows.receive_row,
        arrows.size,
        arrows.count,
    )
    if not arrows.bundled:
        expected = sorted(
            zip(
                send[inside],
                receive[inside],
                send_row[inside],
                receive_row[inside],
                size[inside],
                strict=True,
            )
        )
        assert sorted(zip(*got[:5], strict=True)) == expected
        assert (arrows.count == 1).all()
        return
    order = np.lexsort((send[inside], receive[inside]))
    for value, oracle in zip(
        got,
        bundles_by_sorting(
            send[inside][order],
            receive[inside][order],
            send_row[inside][order],
            receive_row[inside][order],
            size[inside][order],
            t0,
            t1,
            row0,
            pool,
            limit,
        ),
        strict=True,
    ):
        np.testing.assert_allclose(value, oracle, rtol=1e-12)


@settings(max_examples=examples(50), deadline=None)
@given(
    st.integers(0, 400),
    st.integers(0, 2**31),
    st.integers(1, 20),
    st.integers(1, 50),
    st.integers(0, 5),
    st.integers(1, 10),
    st.sampled_from([1, 2, 4]),
)
def test_instants_counted_per_pixel_against_brute_force(n, seed, lanes, width, row0, rows, pool):
    # one pass over the runs of instants equals gathering them and counting per pixel
    rng = np.random.default_rng(seed)
    lane = np.sort(rng.integers(0, lanes, n)).astype(np.int32)
    ptr = np.searchsorted(lane, np.arange(lanes + 1))
    time = (
        np.concatenate([np.sort(rng.integers(0, 1000, int(c))) for c in np.diff(ptr)]).astype(
            np.int64
        )
        if n
        else np.zeros(0, np.int64)
    )
    row_of_lane = rng.permutation(lanes).astype(np.int64)
    request = Request(100.0, 900.0, width, row0, row0 + rows, 10)
    lo, hi = kernels.runs_in_range(
        ptr, time, time, kernels.ALL, np.arange(lanes), 100.0, 900.0, False
    )
    bins = -(-rows // pool)
    counts = np.zeros((bins, width), dtype=np.int64)
    shown = kernels.count_instants(
        lo, hi, time, lane, row_of_lane, row0, row0 + rows, pool, 100.0, request.px, counts
    )
    found = kernels.gather_runs(lo, hi)
    row = row_of_lane[lane[found]]
    keep = (row >= row0) & (row < row0 + rows)
    assert (time[found] >= 100).all() and (time[found] < 900).all()
    assert shown == keep.sum()
    np.testing.assert_array_equal(
        counts, instant_counts(time[found][keep], row[keep], request, row0, pool, bins)
    )


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.integers(0, 3000), max_size=300),
    st.integers(1, 2**40),
    st.integers(1, 40),
    st.floats(0.01, 500),
    st.booleans(),
    st.lists(st.integers(0, 300), max_size=6),
    st.integers(1, 4),
)
def test_the_longest_cut_against_sorting(lengths, scale, most, minimum, picked, cuts, parts):
    # durations with ties and over many powers of two, in runs cut at random and counted
    # in up to four blocks side by side: the cut is the most-th longest of those lasting
    # at least `minimum`, as sorting them all finds it
    duration = np.asarray(lengths, dtype=np.int64) * (scale if scale < 2**20 else 1)
    start = np.arange(duration.size, dtype=np.int64) * 7
    end = start + duration
    pick = np.arange(0, duration.size, 2, dtype=np.int32) if picked else kernels.ALL
    chosen = duration[pick] if picked else duration
    edges = np.unique(np.clip([0, *cuts, chosen.size], 0, chosen.size))
    lo, hi = edges[:-1], edges[1:]
    with (
        mock.patch.object(parallel, "SPLIT_ABOVE", 0),
        mock.patch.object(parallel, "cores", lambda: parts),
    ):
        count, cut, at_least, longer = longest_cut(lo, hi, start, end, pick, minimum, most)
    wide = np.sort(chosen[chosen >= minimum])[::-1]
    assert count == wide.size
    if count <= most:
        assert (cut, at_least, longer) == (minimum, count, count)
    else:
        assert cut == wide[most - 1]
        assert at_least == (wide >= cut).sum() and longer == (wide > cut).sum()


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1000)), max_size=60), st.integers(1, 5))
def test_blocks_cover_the_segments_and_split_between_raster_rows(segments, parts):
    # blocks are contiguous, cover every segment once, never split a raster row, and
    # are as many as the cores when the work allows it
    rows = np.cumsum([step for step, _ in segments], dtype=np.int64)
    work = np.asarray([amount for _, amount in segments], dtype=np.int64)
    with mock.patch.object(parallel, "SPLIT_ABOVE", 0):
        bounds = parallel.blocks(work, rows, parts)
    assert bounds[0][0] == 0 and bounds[-1][1] == work.size
    assert all(b == a for (_, b), (a, _) in itertools.pairwise(bounds))
    assert all(a < b for a, b in bounds) or work.size == 0
    assert all(rows[a - 1] != rows[a] for a, _ in bounds[1:])
    assert len(bounds) <= max(parts, 1)


def test_bad_requests_are_clear_errors():
    with pytest.raises(GladeError, match="needs numbers"):
        Request.of({"t0": 0, "t1": 1})
    with pytest.raises(GladeError, match="t0 < t1"):
        Request.of({"t0": 5, "t1": 5, "width": 10, "height": 10, "row0": 0, "row1": 1})
    with pytest.raises(GladeError, match="columns"):
        Request.of({"t0": 0, "t1": 5, "width": 10**6, "height": 10, "row0": 0, "row1": 1})
    with pytest.raises(GladeError, match="finite"):
        Request.of({"t0": float("nan"), "t1": 5, "width": 10, "height": 10, "row0": 0, "row1": 1})
    index = index_of(synthetic_trace(2, 2))
    with pytest.raises(GladeError, match="no rows"):
        render(index, None, Request(0, 10, 10, 5, 3, 10))


def test_ping_pong_drawn(pipit_data):
    pytest.importorskip("otf2", reason="the otf2 package is not installed")
    import glade

    trace = glade.read_trace(pipit_data / "ping-pong-otf2")
    index = index_of(trace)
    first, last = index.forest.duration
    _, total, _ = check_picture(index, Request(first, last + 1, 900, 0, 2, 60))
    assert total > 0
    messages = Messages(message_pairs(trace)[0], index.forest).kept(index)
    rows = index.lanes.row_of_lane(np.arange(index.lanes.num_lanes), False)
    arrows = messages.in_range(first, last + 1, rows, 0, 2, 1)
    assert len(arrows.count) == len(trace.match_messages()) > 0
    assert set(arrows.send_row.tolist()) == {0, 1}


@settings(max_examples=examples(50), deadline=None)
@given(random_traces(), st.integers(0, 6), st.booleans(), st.integers(1, 40), st.booleans())
def test_level_records_against_brute_force(table, k, depth_rows, block, ahead):
    # every record of a level: the time the calls shorter than two bins cover in its row
    # and bin, weighed by exclusive share in a row per location, and the function of the
    # largest single share; one record per row and bin holding time, bins ascending
    # (built in blocks of `block` calls: as a builder working ahead builds them, stopping
    # after every other block and going on, or as a request needs them, side by side)
    trace = Trace(table)
    index = index_of(trace)
    level = levels.Level(index, k)
    answers = itertools.cycle([True, True, False])
    with (
        mock.patch.object(levels, "BLOCK_CALLS", block),
        mock.patch.object(parallel, "SPLIT_ABOVE", 0),
        mock.patch.object(parallel, "cores", lambda: 3),
    ):
        while (
            records := level.records(depth_rows, (lambda: next(answers)) if ahead else None)
        ) is None:
            pass
    ptr, bin_, weight, code = records
    assert level.records(depth_rows) is records
    forest = index.forest
    calls = index.calls
    row = index.lanes.row_of_lane(index.node_lane[calls], depth_rows)
    expected: dict[tuple[int, int], list] = {}
    for node, r in zip(calls.tolist(), row.tolist(), strict=True):
        start, end = forest.start[node], forest.end[node]
        if end - start >= 2 * level.size:
            continue
        for b in range(
            int((start - level.origin) // level.size), int((end - level.origin) // level.size) + 1
        ):
            left = level.origin + b * level.size
            part = min(end, left + level.size) - max(start, left)
            if part <= 0:
                continue
            second = part * index.share[node] if not depth_rows else part
            cell = expected.setdefault((r, b), [0.0, 0.0, []])
            cell[0] += part
            cell[1] += second
            cell[2].append((second, int(forest.code[node])))
    got = {}
    for r in range(ptr.size - 1):
        assert (np.diff(bin_[ptr[r] : ptr[r + 1]]) > 0).all()
        for i in range(ptr[r], ptr[r + 1]):
            got[(r, int(bin_[i]))] = (weight[i], int(code[i]))
    assert got.keys() == expected.keys()
    for cell, (cover, busy, shares) in expected.items():
        w, c = got[cell]
        assert w[0] == pytest.approx(cover, rel=1e-9, abs=1e-9)
        assert w[1] == pytest.approx(busy, rel=1e-9, abs=1e-9)
        top = max(s for s, _ in shares)
        assert w[2] == pytest.approx(top, rel=1e-12, abs=1e-12)
        assert c in {code for s, code in shares if s == top}


@settings(max_examples=examples(50), deadline=None)
@given(random_traces())
def test_the_index_of_a_trace_is_the_index_of_its_forest(table):
    # read straight from the events, or from the forest's GraphFrame; keeping all by
    # default, or through a mask that keeps all
    trace = Trace(table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        direct = Forest.of_trace(trace)
        forest = Forest.of(trace.calls(), trace.location_codes())
    for field in (
        "parent",
        "depth",
        "start",
        "end",
        "code",
        "location",
        "processes",
        "threads",
        "call",
        "event",
    ):
        np.testing.assert_array_equal(getattr(direct, field), getattr(forest, field))
    assert direct.names == forest.names
    everything = TimelineIndex(direct)
    masked = TimelineIndex(forest, np.ones(len(forest), dtype=bool))
    for field in (
        "caller",
        "depth",
        "calls",
        "exclusive",
        "call_ptr",
        "call_node",
        "call_share",
        "instant_ptr",
        "instant_lane",
        "node_lane",
    ):
        np.testing.assert_allclose(getattr(everything, field), getattr(masked, field))
    np.testing.assert_array_equal(everything.lanes.offset, masked.lanes.offset)


@settings(max_examples=examples(50), deadline=None)
@given(random_traces(), st.randoms(use_true_random=False))
def test_index_arrays_against_brute_force(table, random):
    # a random mask: every kept node's caller, depth, exclusive time, lane and place in
    # its lane or location, walking up the parents node by node
    trace = Trace(table)
    forest = index_of(trace).forest
    keep = np.array([random.random() < 0.7 for _ in range(len(forest))], dtype=bool)
    index = TimelineIndex(forest, keep)
    inc = (forest.end - forest.start).astype(float)
    caller = {}
    for node in np.flatnonzero(keep).tolist():
        up, depth = int(forest.parent[node]), 0
        while up >= 0 and not keep[up]:
            up = int(forest.parent[up])
        caller[node] = up
        while up >= 0:
            depth += int(keep[up])
            up = int(forest.parent[up])
        assert index.caller[node] == caller[node] and index.depth[node] == depth
    calls = [i for i in caller if forest.call[i]]
    assert index.calls.tolist() == calls
    for node in calls:
        callees = [i for i in calls if caller[i] == node]
        assert index.exclusive[node] == pytest.approx(inc[node] - inc[callees].sum())
        share = index.exclusive[node] / inc[node] if inc[node] > 0 else 1.0
        assert index.share[node] == pytest.approx(share)
    locations = forest.processes.size
    depths = [
        max([int(index.depth[i]) + 1 for i in calls if forest.location[i] == loc], default=1)
        for loc in range(locations)
    ]
    assert index.lanes.offset.tolist() == np.concatenate([[0], np.cumsum(depths)]).tolist()
    lanes = {}
    for node in calls:
        lane = int(index.lanes.offset[forest.location[node]] + index.depth[node])
        lanes.setdefault(lane, []).append(node)
        assert index.node_lane[node] == lane
    for lane in range(index.lanes.num_lanes):
        run = slice(index.call_ptr[lane], index.call_ptr[lane + 1])
        nodes = lanes.get(lane, [])
        assert index.call_node[run].tolist() == nodes
        np.testing.assert_array_equal(index.call_start[run], forest.start[nodes])
        np.testing.assert_array_equal(index.call_end[run], forest.end[nodes])
        np.testing.assert_array_equal(index.call_code[run], forest.code[nodes])
        np.testing.assert_allclose(index.call_share[run], index.share[nodes])
    instants = [i for i in caller if not forest.call[i]]
    by_location = sorted(instants, key=lambda i: (forest.location[i], i))
    assert index.instant_node.tolist() == by_location
    np.testing.assert_array_equal(index.instant_time, forest.start[by_location])
    for i, node in enumerate(by_location):
        loc = int(forest.location[node])
        assert index.instant_ptr[loc] <= i < index.instant_ptr[loc + 1]
        lane = index.lanes.offset[loc] + min(max(int(index.depth[node]) - 1, 0), depths[loc] - 1)
        assert index.instant_lane[i] == index.node_lane[node] == lane
    assert (index.node_lane[~keep] == -1).all()


@settings(max_examples=examples(50), deadline=None)
@given(random_traces(), st.randoms(use_true_random=False))
def test_subtree_ends_against_brute_force(table, random):
    # a node's subtree ends after its last descendant, found by walking up the parents
    forest = index_of(Trace(table)).forest
    ends = kernels.subtree_ends(forest.parent)
    for node in range(len(forest)):
        last = node
        for other in range(node + 1, len(forest)):
            up = int(forest.parent[other])
            while up > node:
                up = int(forest.parent[up])
            if up == node:
                last = other
        assert ends[node] == last + 1


@settings(max_examples=examples(50), deadline=None)
@given(random_traces(), st.randoms(use_true_random=False), st.integers(1, 4))
def test_indexes_on_lent_arrays_equal_indexes_of_their_own(table, random, count):
    # a view's indexes, one after the other on the same per-node arrays (the first of
    # every node, taking over its arrays, then random masks): each equals an index with
    # arrays of its own at the nodes it keeps, whatever earlier indexes left elsewhere
    forest = index_of(Trace(table)).forest
    first = TimelineIndex(forest)
    arrays = first.lend_arrays()
    assert arrays.lent and first.lend_arrays() is arrays
    previous = first
    per_node = ("caller", "depth", "exclusive", "share", "node_lane")
    for _ in range(count):
        keep = np.array([random.random() < 0.6 for _ in range(len(forest))], dtype=bool)
        busy = TimelineIndex(forest, keep, arrays=arrays)  # lent to previous: its own
        previous.close()
        assert not arrays.lent
        lent = TimelineIndex(forest, keep, arrays=arrays)
        assert arrays.lent and busy.caller is not arrays.caller
        for field in (f for f in STORED_ARRAYS if f != "keep"):
            mine, own = getattr(lent, field), getattr(busy, field)
            if field in per_node:
                mine, own = mine[keep], own[keep]
            np.testing.assert_array_equal(mine, own)
        np.testing.assert_array_equal(lent.lanes.offset, busy.lanes.offset)
        hidden = np.flatnonzero(~keep)
        if hidden.size:  # placed at depth 0, whatever an earlier index left there
            assert place(lent, int(hidden[0]))["depth"] == 0
        previous = lent
    previous.close()
    again, own = TimelineIndex(forest, arrays=arrays), TimelineIndex(forest)
    assert again.exclusive is arrays.exclusive and own.exclusive is not arrays.exclusive
    for field in ("exclusive", "share", "node_lane", "call_share", "instant_lane"):
        np.testing.assert_array_equal(getattr(again, field), getattr(own, field))


@settings(max_examples=examples(50), deadline=None)
@given(random_traces())
def test_location_lanes_against_brute_force(table):
    # a location's room holds one lane per forest depth of its calls (at least one)
    forest = index_of(Trace(table)).forest
    locations = forest.processes.size
    room = kernels.location_lanes(forest.location, forest.depth, forest.call, locations)
    deepest = [0] * locations
    for i in range(len(forest)):
        if forest.call[i]:
            loc = int(forest.location[i])
            deepest[loc] = max(deepest[loc], int(forest.depth[i]))
    sizes = [d + 1 for d in deepest]
    assert room.tolist() == [0, *np.cumsum(sizes).tolist()]


def test_a_wide_range_past_the_box_budget_reads_the_coarser_level(monkeypatch):
    # with few boxes allowed the threshold passes two bins of the next coarser level:
    # that level is read, the boxes stay those of the exact picture, and its records
    # (at the centres of bins at most a pixel wide) keep the mass
    trace = synthetic_trace(8, 400, seed=2)
    index = index_of(trace)
    first, last = index.forest.duration
    request = Request(first, last, 700, 0, 8, 100)
    monkeypatch.setattr(render_module, "MAX_BOXES", 40)
    exact, total, boxes = check_picture(index, request)
    monkeypatch.setattr(render_module, "EXACT_LIMIT", 0)
    index.finest = levels.finest_level(10**9)
    fine = levels.level_for(request.px, last - first, index.finest)
    leveled = render(index, None, request)
    assert exact.threshold >= 4 * (last - first) / 2**fine
    assert leveled.extra["level"] == fine - 1
    assert leveled.threshold == exact.threshold
    assert sorted(leveled.boxes["node"].tolist()) == sorted(exact.boxes["node"].tolist())
    size = (last - first) / 2 ** (fine - 1)
    assert size <= request.px
    assert abs(leveled.cover.sum() + boxes - total) <= 2 * size * index.lanes.num_lanes

    def blocks(cover: np.ndarray) -> np.ndarray:
        return cover.reshape(cover.shape[0], -1, 7).sum(axis=2)

    np.testing.assert_allclose(
        blocks(leveled.cover), blocks(exact.cover), rtol=0.2, atol=request.px
    )


@settings(max_examples=examples(15), deadline=None)
@given(
    st.integers(0, 2**31),
    st.sampled_from(["ring", "pingpong"]),
    st.floats(0.0, 1.0),
    st.booleans(),
    st.booleans(),
)
def test_kept_messages_are_those_both_ends_keep_in_time_order(
    seed, exchange, share, depth_rows, windowed
):
    """The messages an index keeps (positions in the messages sorted once, searched
    between the index's first and last instants) against brute force: the pairs whose
    send and receive instants are both kept, sorted by their earlier time (ties in the
    pairing's order), each with its times, rows, size and envelope; of random nodes or
    of a window."""
    trace = synthetic_trace(6, 6, seed=seed % 1000, exchange=exchange)
    rng = np.random.default_rng(seed)
    forest = index_of(trace).forest
    keep = rng.random(len(forest)) < share
    if windowed:
        first, last = forest.duration
        t0 = first + (last - first) * share
        t1 = t0 + (last - first) * rng.random() / 4
        keep = (forest.end >= t0) & (forest.start <= t1)
    index = index_of(trace, keep)
    pairs = message_pairs(trace)[0]
    kept = Messages(pairs, index.forest).kept(index)
    node_of = {int(e): i for i, e in enumerate(forest.event)}
    send_node = np.array([node_of.get(int(e), -1) for e in pairs["Send event"]], dtype=np.int64)
    receive_node = np.array(
        [node_of.get(int(e), -1) for e in pairs["Receive event"]], dtype=np.int64
    )
    both = (send_node >= 0) & (receive_node >= 0)
    both[both] = keep[send_node[both]] & keep[receive_node[both]]
    send = pairs["Send time (ns)"].to_numpy().astype(float)
    receive = pairs["Receive time (ns)"].to_numpy().astype(float)
    chosen = np.flatnonzero(both)
    chosen = chosen[np.argsort(np.minimum(send, receive)[chosen], kind="stable")]
    assert len(kept) == chosen.size
    assert kept.span == (np.abs(receive - send)[chosen].max() if chosen.size else 0.0)
    first, last = forest.duration
    lanes = index.lanes
    rows = lanes.row_of_lane(np.arange(lanes.num_lanes), depth_rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("glade.trace.timeline.messages.MAX_ARROWS", 10**6)
        arrows = kept.in_range(first, last + 1, rows, 0, lanes.num_rows(depth_rows), 1)
    np.testing.assert_array_equal(arrows.send_time, send[chosen])
    np.testing.assert_array_equal(arrows.receive_time, receive[chosen])
    np.testing.assert_array_equal(arrows.send_row, rows[index.node_lane[send_node[chosen]]])
    np.testing.assert_array_equal(arrows.receive_row, rows[index.node_lane[receive_node[chosen]]])
    np.testing.assert_array_equal(arrows.size, pairs["Message Size"].to_numpy()[chosen])
    assert list(arrows.envelope) == ["tag", "communicator", "send_node", "receive_node"]
    np.testing.assert_array_equal(arrows.envelope["tag"], pairs["Tag"].to_numpy()[chosen])
    np.testing.assert_array_equal(
        arrows.envelope["communicator"], pairs["Communicator"].to_numpy()[chosen]
    )
    np.testing.assert_array_equal(arrows.envelope["send_node"], send_node[chosen])
    np.testing.assert_array_equal(arrows.envelope["receive_node"], receive_node[chosen])
