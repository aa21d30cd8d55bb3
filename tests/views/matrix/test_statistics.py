"""The comm matrix's statistics panel, bandwidth metric and selection size histogram on a
trace small enough to work out by hand (messages listed below, latencies in ns)."""

from __future__ import annotations

import numpy as np
import pytest

from glade.trace.matrix.stats import size_histogram
from glade.views import CommMatrix
from tests.views.matrix.test_properties import make_trace

# (sender, receiver, tag, size, latency): three processes, 0 -> 1 twice, 1 -> 2, 2 -> 0
# with an unknown size.
MESSAGES = [
    (0, 1, 0, 100, 2),
    (0, 1, 0, 300, 3),
    (1, 2, 0, 1000, 5),
    (2, 0, 0, -1, 4),
]


@pytest.fixture
def view():
    return CommMatrix(make_trace(3, MESSAGES), metric="bytes")


def test_bandwidth_is_bytes_over_latency(view):
    view.metric = "bandwidth"
    got = view.matrix()
    # cell 0 -> 1: (100 + 300) B over (2 + 3) ns = 80 B/ns = 8e10 B/s
    assert got.loc[0, 1] == pytest.approx(8e10)
    # 1 -> 2: 1000 B / 5 ns = 2e11 B/s; 2 -> 0 has no known size: no bandwidth
    assert got.loc[1, 2] == pytest.approx(2e11)
    assert np.isnan(got.loc[2, 0]) and np.isnan(got.loc[0, 0])
    assert view.picture_meta["unit"] == "B/s"
    margins = view.margins()
    # process 1 receives 400 B in 5 ns, sends 1000 B in 5 ns
    assert margins.loc[1, "received mean"] == pytest.approx(8e10)
    assert margins.loc[1, "sent mean"] == pytest.approx(2e11)
    assert margins.loc[2, "sent messages"] == 1 and np.isnan(margins.loc[2, "sent mean"])


def test_pooled_bandwidth_sums_bytes_and_latencies():
    view = CommMatrix(make_trace(3, MESSAGES), metric="bandwidth", max_cells=1)
    # one block of all three processes: 1400 B over 10 ns (the unknown size left out)
    assert view.payload_arrays()["value"].tolist() == pytest.approx([1.4e11])


def test_statistics_of_rows_and_columns(view):
    table = view.statistics()
    rows, cols = table.loc["rows (senders)"], table.loc["columns (receivers)"]
    # bytes sent: 400, 1000, 0 (unknown size) -> sum 1400, mean 466.67, max 1000 by 1
    assert rows["sum"] == 1400 and rows["mean"] == pytest.approx(1400 / 3)
    assert rows["max"] == 1000 and rows["max process"] == 1
    assert rows["imbalance"] == pytest.approx(1000 / (1400 / 3))
    # bytes received: 0, 400, 1000
    assert cols["max"] == 1000 and cols["max process"] == 2
    assert cols["processes"] == 3
    view.metric = "count"
    table = view.statistics()
    # messages sent 2, 1, 1: mean 4/3, imbalance 2 / (4/3) = 1.5
    assert table.loc["rows (senders)", "imbalance"] == pytest.approx(1.5)
    view.metric = "latency"
    table = view.statistics()
    # mean latency sent: 2.5, 5, 4 -> no sum, mean 23/6, max 5 by process 1
    rows = table.loc["rows (senders)"]
    assert np.isnan(rows["sum"]) and rows["mean"] == pytest.approx(23 / 6)
    assert rows["max"] == 5 and rows["max process"] == 1
    # received: process 0 gets 4, 1 gets 2.5, 2 gets 5
    assert table.loc["columns (receivers)", "imbalance"] == pytest.approx(5 / (23 / 6))
    fields = {row["axis"]: row for row in view.picture_meta["statistics"]}
    assert fields["rows (senders)"]["sum"] is None
    assert fields["rows (senders)"]["max"] == 5


def test_statistics_without_messages():
    view = CommMatrix(make_trace(2, []), metric="mean size")
    row = view.statistics().loc["rows (senders)"]
    assert row["processes"] == 0 and row["max process"] == -1 and np.isnan(row["imbalance"])


def test_size_histogram_bins_by_powers_of_two():
    table = size_histogram(np.array([0, 1, 3, 3, 4, 1000, -1]))
    assert table["from (B)"].tolist()[:4] == [0, 1, 2, 4]
    assert table["to (B)"].tolist()[:4] == [1, 2, 4, 8]
    # 1000 is in [512, 1024), bin 10
    assert table["messages"].tolist() == [1, 1, 2, 1, 0, 0, 0, 0, 0, 0, 1]
    assert size_histogram(np.array([-1, -1])).empty


def test_selection_histogram_and_an_empty_cell(view):
    assert view.picture_meta["selected"] is None
    view.select(0, 1)
    assert view.picture_meta["selected"] == {
        "senders": [[0, 0]],
        "receivers": [[1, 1]],
        "messages": 2,
        "sized": 2,
        "bytes": 400,
    }
    # 100 B in [64, 128) and 300 B in [256, 512)
    hist = view.payload_arrays()["size_hist"]
    assert hist.tolist() == [0, 0, 0, 0, 0, 0, 0, 1, 0, 1]
    assert view.size_histogram()["messages"].tolist() == hist.tolist()
    view.select(1, 0)
    assert view.picture_meta["selected"]["messages"] == 0
    assert view.payload_arrays()["size_hist"].size == 0
    view.select(2, 0)
    assert view.picture_meta["selected"]["senders"] == [[2, 2]]
    assert (view.picture_meta["selected"]["messages"], view.picture_meta["selected"]["sized"]) == (
        1,
        0,
    )
    view.clear_selection()
    assert view.picture_meta["selected"] is None
    # nothing selected: the histogram of every counted message
    assert view.size_histogram()["messages"].sum() == 3
