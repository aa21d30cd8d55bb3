"""The rows of a worker's raster sent to the client, and added there; the boxes kept
piece by piece (partitions, workers, the client) are the pandas timeline's."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.trace.engines import rasters
from glade.trace.engines.rasters import add_band, box_cut, empty_raster, raster_band
from tests.hypothesis_budget import examples

MOST = 4  # MAX_BOXES in the property below, so that pieces often hold more


def _pandas_cut(durations: np.ndarray, px: float) -> float:
    """The pandas timeline's threshold over all ``durations`` (brute force): a pixel, or
    the MOST-th longest, or just above it when ties would draw more than MOST."""
    long = np.sort(durations[durations >= px])[::-1]
    if long.size <= MOST:
        return px
    cut = float(long[MOST - 1])
    return float(np.nextafter(cut, np.inf)) if np.count_nonzero(long >= cut) > MOST else cut


def test_a_band_is_the_rows_holding_anything_and_adds_back_to_the_raster():
    raster = empty_raster(4, 2)
    raster[:, 1] = [[5.0, 0.0], [2.0, 0.0], [7.0, -1.0]]  # row 1: one pixel with a key
    raster[:, 3] = [[0.0, 1.0], [0.0, 1.0], [-1.0, 3.0]]
    rows, band = raster_band(raster)
    np.testing.assert_array_equal(rows, [1, 3])
    np.testing.assert_array_equal(band, raster[:, [1, 3]])

    other = empty_raster(4, 2)
    other[:, 1] = [[1.0, 4.0], [1.0, 4.0], [2.0, 9.0]]
    add_band(other, rows, band)
    np.testing.assert_array_equal(other[0], [[0, 0], [6, 4], [0, 0], [0, 1]])
    np.testing.assert_array_equal(other[1], [[0, 0], [3, 4], [0, 0], [0, 1]])
    # keys maxed, -1 where nothing is
    np.testing.assert_array_equal(other[2], [[-1, -1], [7, 9], [-1, -1], [-1, 3]])


def test_a_raster_whose_rows_all_hold_something_is_sent_whole():
    raster = empty_raster(2, 3)
    raster[2, :, 0] = 1.0
    rows, band = raster_band(raster)
    np.testing.assert_array_equal(rows, [0, 1])
    assert band is raster
    assert raster_band(empty_raster(2, 3))[0].size == 0


def test_the_cut_of_boxes_kept_by_pieces_when_ties_left_some_out():
    rasters_most = rasters.MAX_BOXES
    try:
        rasters.MAX_BOXES = 2
        # a piece held [10, 6, 6, 6]: three tied 6s would draw too many, it kept 10 (and
        # its threshold is just above 6); another held and kept [8]; all: the cut is 8
        durations = np.array([10.0, 8.0])
        assert box_cut(durations, 1.0, 5, float(np.nextafter(6.0, np.inf))) == 8.0
        # a piece held [5, 5, 5] and kept none; another [1]: the 1 is not drawn either
        assert box_cut(np.array([1.0]), 1.0, 4, float(np.nextafter(5.0, np.inf))) == float(
            np.nextafter(5.0, np.inf)
        )
        assert box_cut(np.array([3.0, 2.0]), 1.0, 2, 1.0) == 1.0  # few: every one drawn
    finally:
        rasters.MAX_BOXES = rasters_most


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.lists(st.lists(st.integers(1, 12), max_size=9), max_size=4), min_size=1, max_size=4
    ),
    st.integers(1, 6),
)
def test_boxes_kept_by_partitions_then_workers_are_the_pandas_timelines(workers, px):
    # each worker holds partitions, each a list of call durations; every partition keeps
    # its own longest, every worker the longest of what its partitions kept, and the
    # client the longest of what the workers kept: the boxes and the threshold are
    # those of the pandas rule on every call at once
    rasters_most = rasters.MAX_BOXES
    try:
        rasters.MAX_BOXES = MOST
        everything = np.array([d for w in workers for p in w for d in p], dtype=np.float64)
        kept_by_workers = []
        for partitions in workers:
            kept, candidates, floor = [], 0, float(px)
            for calls in partitions:
                durations = np.array(calls, dtype=np.float64)
                cut = _pandas_cut(durations, px)  # what a partition's index finds
                kept.append(durations[durations >= cut])
                candidates += int(np.count_nonzero(durations >= px))
                floor = max(floor, cut)
            union = np.concatenate([np.zeros(0), *kept])
            cut = box_cut(union, px, candidates, floor)
            assert cut == _pandas_cut(np.concatenate([np.zeros(0), *map(np.array, partitions)]), px)
            kept_by_workers.append((union[union >= cut], candidates, cut))
        union = np.concatenate([k for k, _, _ in kept_by_workers])
        cut = box_cut(
            union,
            px,
            sum(c for _, c, _ in kept_by_workers),
            max(f for _, _, f in kept_by_workers),
        )
        assert cut == _pandas_cut(everything, px)
        np.testing.assert_array_equal(
            np.sort(union[union >= cut]), np.sort(everything[everything >= cut])
        )
    finally:
        rasters.MAX_BOXES = rasters_most
