"""The synthetic halo exchange: deterministic, sized as asked, every process sends to its
four grid neighbours with the sizes, tags and communicators the docstring states, every
message is matched inside the receiver's exchange call."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glade.datasets import halo_exchange_trace
from glade.datasets.halo import grid_shape


def test_grid_shape_is_the_most_square():
    assert grid_shape(16) == (4, 4)
    assert grid_shape(4096) == (64, 64)
    assert grid_shape(12) == (3, 4)
    assert grid_shape(7) == (1, 7)


def test_deterministic_and_sized():
    a = halo_exchange_trace(12, 3, seed=1)
    pd.testing.assert_frame_equal(a.events, halo_exchange_trace(12, 3, seed=1).events)
    assert not a.events["Timestamp (ns)"].equals(
        halo_exchange_trace(12, 3, seed=2).events["Timestamp (ns)"]
    )
    assert len(a) == 12 * 3 * 10
    assert halo_exchange_trace(16, messages=640).metadata["iterations"] == 10
    with pytest.raises(ValueError):
        halo_exchange_trace(0)


def test_neighbours_sizes_tags_and_matching():
    trace = halo_exchange_trace(12, 3, seed=0, message_size=100)  # 3 columns x 4 rows
    count = trace.comm_matrix("count")
    for p in range(12):
        x, y = p % 3, p // 3
        right, left = (x + 1) % 3 + y * 3, (x - 1) % 3 + y * 3
        down, up = x + ((y + 1) % 4) * 3, x + ((y - 1) % 4) * 3
        expected = np.zeros(12, dtype=np.int64)
        for q in (right, left, down, up):
            expected[q] += 3
        np.testing.assert_array_equal(count[p], expected)
    pairs = trace.match_messages()
    assert trace.metadata["unmatched_messages"] == {"sends": 0, "receives": 0}
    assert len(pairs) == 12 * 3 * 4
    along_row = pairs["Tag"] < 2
    assert set(pairs.loc[along_row, "Communicator"]) == {1}
    assert set(pairs.loc[~along_row, "Communicator"]) == {2}
    assert set(pairs.loc[along_row, "Message Size"]) == {100, 200, 300}
    assert set(pairs.loc[~along_row, "Message Size"]) == {200, 400, 600}
    latency = pairs["Receive time (ns)"] - pairs["Send time (ns)"]
    minimum = 1_000 + pairs["Message Size"] // 10
    assert (latency >= minimum).all() and (latency <= minimum + 2_000).all()
    # every receive lies inside an exchange call of its process
    forest = trace.calls().dataframe
    instants = forest[forest["type"] == "instant"]
    assert (instants["depth"] == 1).all()
