"""The rows of a worker's raster sent to the client, and added there."""

import numpy as np

from glade.trace.engines.rasters import add_band, empty_raster, raster_band


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
