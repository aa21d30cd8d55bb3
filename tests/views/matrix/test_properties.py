"""Property tests of the comm matrix against brute-force oracles on random traces: its
values (every metric, with and without a tag filter) and a selected block's messages
against a loop over the generated messages, pooled blocks against sums of the cells they
cover, and every ordering is a permutation with its stated property."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.trace import Trace
from glade.trace.comm import UnknownMessageSizeWarning, message_pairs
from glade.trace.matrix import cells as cellmath
from glade.trace.matrix import index as matrix_index
from glade.trace.matrix.index import MessageIndex
from glade.views import CommMatrix
from tests.hypothesis_budget import examples

#: Messages are sent this far apart and arrive at most this late: receives keep the order
#: of sends on every channel, so the generated pairing is MPI's.
GAP, MAX_LATENCY = 10, 5

messages_strategy = st.integers(1, 7).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.tuples(
                st.integers(0, n - 1),
                st.integers(0, n - 1),
                st.integers(0, 2),
                st.integers(-1, 1000),
                st.integers(1, MAX_LATENCY),
            ),
            min_size=0,
            max_size=40,
        ),
    )
)


def make_trace(n: int, messages: list[tuple]) -> Trace:
    """A trace of ``n`` processes (each with a marker, so silent processes exist) and the
    ``messages`` (sender, receiver, tag, size or -1, latency), message i sent at GAP * i."""
    rows = [(0, "Instant", "start", p, -1, -1, -1) for p in range(n)]
    for i, (s, r, tag, size, latency) in enumerate(messages):
        t = GAP * (i + 1)
        rows.append((t, "Instant", "MpiIsend", s, r, tag, size))
        rows.append((t + latency, "Instant", "MpiIrecv", r, s, tag, size))
    table = pd.DataFrame(
        rows,
        columns=[
            "Timestamp (ns)",
            "Event Type",
            "Name",
            "Process",
            "Partner",
            "Tag",
            "Message Size",
        ],
    )
    table["Communicator"] = np.where(table["Partner"] >= 0, 0, -1)
    return Trace(table)


def oracle(n: int, messages: list[tuple], metric: str, tags=None) -> np.ndarray:
    """The matrix of ``metric`` by a loop over the messages."""
    total, number = np.zeros((n, n)), np.zeros((n, n))
    for s, r, tag, size, latency in messages:
        if tags is not None and tag not in tags:
            continue
        if metric == "count":
            total[s, r] += 1
            number[s, r] += 1
        elif metric == "latency":
            total[s, r] += latency
            number[s, r] += 1
        elif metric == "bandwidth":
            if size >= 0:
                total[s, r] += size * 1e9
                number[s, r] += latency
        elif size >= 0:
            total[s, r] += size
            number[s, r] += 1
    if metric in ("mean size", "latency", "bandwidth"):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(number > 0, total / np.where(number > 0, number, 1), np.nan)
    return total


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages_strategy, st.sampled_from(cellmath.METRICS), st.booleans())
def test_values_match_a_loop_over_messages(case, metric, by_tag):
    n, messages = case
    trace = make_trace(n, messages)
    tags = [0, 2] if by_tag else None
    view = CommMatrix(trace, metric=metric, tags=tags)
    np.testing.assert_allclose(view.matrix().to_numpy(), oracle(n, messages, metric, tags))
    if metric in ("bytes", "count") and not by_tag:
        output = "size" if metric == "bytes" else "count"
        with warnings.catch_warnings():  # sizes of -1 are left out, as the view leaves them
            warnings.simplefilter("ignore", UnknownMessageSizeWarning)
            expected = trace.comm_matrix(output)
        np.testing.assert_array_equal(view.matrix().to_numpy(), expected)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages_strategy, st.data())
def test_a_blocks_messages_are_those_between_its_processes(case, data):
    n, messages = case
    trace = make_trace(n, messages)
    senders = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    receivers = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    view = CommMatrix(trace).select(sorted(senders), sorted(receivers))
    got = view.messages()
    expected = [
        (GAP * (i + 1), GAP * (i + 1) + latency, s, r, tag, size)
        for i, (s, r, tag, size, latency) in enumerate(messages)
        if s in senders and r in receivers
    ]
    assert (
        list(
            zip(
                got["Send time (ns)"],
                got["Receive time (ns)"],
                got["Sender"],
                got["Receiver"],
                got["Tag"],
                got["Message Size"],
                strict=True,
            )
        )
        == expected
    )
    result = trace.query(view.query, level="calls").events
    assert len(result) == 2 * len(expected)
    assert sorted(result["Timestamp (ns)"]) == sorted([t for e in expected for t in e[:2]])


@st.composite
def cells_and_window(draw):
    n = draw(st.integers(1, 40))
    pairs = draw(
        st.lists(
            st.tuples(
                st.integers(0, n - 1), st.integers(0, n - 1), st.integers(1, 5), st.integers(0, 100)
            ),
            max_size=60,
        )
    )
    r0 = draw(st.integers(0, n - 1))
    r1 = draw(st.integers(r0 + 1, n))
    c0 = draw(st.integers(0, n - 1))
    c1 = draw(st.integers(c0 + 1, n))
    return (
        n,
        pairs,
        (r0, r1, c0, c1),
        draw(st.integers(1, 12)),
        draw(st.sampled_from(cellmath.ORDERS)),
    )


@settings(max_examples=examples(40), deadline=None)
@given(cells_and_window())
def test_pooled_blocks_conserve_sums(case):
    n, pairs, (r0, r1, c0, c1), max_cells, order = case
    messages = [(s, r, 0, size, 1) for s, r, count, size in pairs for _ in range(count)]
    trace = make_trace(n, messages)
    cells = cellmath.Cells.of(MessageIndex(trace), None, latency=False)
    ordering = cellmath.ordering(cells, order)
    assert sorted(ordering) == list(range(n))
    place = np.empty(n, dtype=np.int64)
    place[ordering] = np.arange(n)
    window = cellmath.Window.of(n, r0, r1, c0, c1, max_cells)
    assert max(window.rows, window.cols) <= max_cells
    pooled = cellmath.pool(cells, "bytes", place, window, cellmath.process_margins(cells, "bytes"))
    full = oracle(n, messages, "bytes")[np.ix_(ordering, ordering)]
    value = pooled.value.reshape(window.rows, window.cols)
    b = window.block
    for i in range(window.rows):
        for j in range(window.cols):
            lo_r, lo_c = r0 + i * b, c0 + j * b
            block = full[lo_r : min(r1, lo_r + b), lo_c : min(c1, lo_c + b)]
            assert value[i, j] == block.sum()
    assert value.sum() == full[r0:r1, c0:c1].sum()
    sent = full.sum(axis=1)[r0:r1]
    np.testing.assert_allclose(
        pooled.row_sum, [sent[k : k + b].sum() for k in range(0, r1 - r0, b)]
    )
    if order == "volume":
        volume = full.sum(axis=0) + full.sum(axis=1)
        assert np.all(np.diff(volume) <= 0)


@settings(max_examples=examples(15), deadline=None)
@given(st.integers(20, 80), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_rcm_gathers_a_shuffled_band_near_the_diagonal(n, width, seed):
    rng = np.random.default_rng(seed)
    shuffle = rng.permutation(n)
    messages = [
        (int(shuffle[i]), int(shuffle[j]), 0, 8, 1)
        for i in range(n)
        for j in range(max(0, i - width), min(n, i + width + 1))
        if i != j
    ]
    trace = make_trace(n, messages)
    cells = cellmath.Cells.of(MessageIndex(trace), None, latency=False)
    matrix = cells.matrix("count")
    order = cellmath.ordering(cells, "rcm")
    assert sorted(order) == list(range(n))
    banded = cellmath.bandwidth(matrix[np.ix_(order, order)])
    assert banded <= 2 * width
    assert banded < cellmath.bandwidth(matrix)


def test_bandwidth():
    assert cellmath.bandwidth(np.zeros((3, 3))) == 0
    assert cellmath.bandwidth(np.eye(4)) == 0
    assert cellmath.bandwidth(np.array([[0, 0, 1], [0, 0, 0], [0, 0, 0]])) == 2


@pytest.mark.parametrize("metric", cellmath.METRICS)
def test_an_empty_trace_of_messages(metric):
    trace = make_trace(3, [])
    view = CommMatrix(trace, metric=metric)
    assert view.messages().empty
    assert view.picture_meta["messages"] == 0


def test_cells_numbered_by_sorting_equal_the_dense_numbering(monkeypatch):
    rng = np.random.default_rng(3)
    messages = [
        (int(s), int(r), 0, int(size), int(lat))
        for s, r, size, lat in zip(
            rng.integers(0, 9, 300),
            rng.integers(0, 9, 300),
            rng.integers(-1, 500, 300),
            rng.integers(1, MAX_LATENCY + 1, 300),
            strict=True,
        )
    ]
    trace = make_trace(9, messages)
    dense = MessageIndex(trace)
    monkeypatch.setattr(matrix_index, "DENSE_CELLS", 0)
    sorted_ = MessageIndex(trace)
    np.testing.assert_array_equal(sorted_.cell, dense.cell)
    np.testing.assert_array_equal(sorted_.cell_keys, dense.cell_keys)
    np.testing.assert_array_equal(
        dense.cell_keys[dense.cell], dense.sender.astype(np.int64) * 9 + dense.receiver
    )
    assert np.all(np.diff(dense.cell_keys) > 0)
    np.testing.assert_array_equal(sorted_.receive_row, dense.receive_row)
    expected = message_pairs(trace)[0]
    at = np.searchsorted(dense.send_row, expected["Send event"])
    np.testing.assert_array_equal(dense.receive_row[at], expected["Receive event"])
