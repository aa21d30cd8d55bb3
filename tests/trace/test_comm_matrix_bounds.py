"""The communication matrix stays bounded: past a few thousand processes it is a sparse
table of the pairs that communicate (memory linear in the messages), and a dense matrix
past the memory bound is refused with a TraceError naming its size and the bound."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glade.datasets import synthetic_trace
from glade.errors import TraceError
from glade.trace import Trace, comm


def sends(senders: np.ndarray, partners: np.ndarray, sizes: np.ndarray | None = None) -> Trace:
    """A trace of one MpiSend per (sender, partner), in that order."""
    n = senders.size
    return Trace(
        pd.DataFrame(
            {
                "Timestamp (ns)": np.arange(n, dtype=np.int64),
                "Event Type": "Instant",
                "Name": "MpiSend",
                "Process": senders,
                "Thread": 0,
                "Partner": partners,
                "Message Size": np.full(n, 8, dtype=np.int64) if sizes is None else sizes,
            }
        )
    )


def spread(n: int) -> Trace:
    """Process 0 sends one message to each of ``n`` partners whose ids are far apart
    (not ranks), so the dense matrix would have (n + 1)^2 cells."""
    return sends(np.zeros(n, dtype=np.int64), np.arange(1, n + 1, dtype=np.int64) * 1000)


def test_small_traces_keep_the_dense_matrix():
    trace = synthetic_trace(4, 3, exchange="halo")
    dense = trace.comm_matrix()
    assert isinstance(dense, np.ndarray) and dense.shape == (4, 4)
    np.testing.assert_array_equal(trace.comm_matrix(form="dense"), dense)
    table = trace.comm_matrix(form="sparse")
    assert list(table.columns) == ["Sender", "Receiver", "size"]
    rebuilt = np.zeros_like(dense)
    rebuilt[table["Sender"], table["Receiver"]] = table["size"]
    np.testing.assert_array_equal(rebuilt, dense)
    np.testing.assert_array_equal(table.attrs["processes"], np.arange(4))
    count = trace.comm_matrix("count", as_frame=True, form="sparse")
    assert count["count"].sum() == trace.comm_matrix("count").sum()


def test_many_partners_give_a_sparse_table_linear_in_the_messages():
    # 20,000 partners: a dense matrix would hold 4 * 10^8 cells (3.2 GB)
    sizes = {}
    for n in (10_000, 20_000):
        table = spread(n).comm_matrix()
        assert isinstance(table, pd.DataFrame) and len(table) == n
        assert (table["Sender"] == 0).all() and (table["size"] == 8).all()
        sizes[n] = int(table.memory_usage(deep=True).sum())
    assert sizes[20_000] <= 2 * sizes[10_000] + 1024
    assert sizes[20_000] < 64 * 20_000


def test_ranks_past_the_automatic_bound_are_sparse_and_exact():
    n = 3000  # 9 * 10^6 cells: past AUTO_DENSE_CELLS
    ranks = np.arange(n, dtype=np.int64)
    big = np.full(n, 2**40, dtype=np.int64)
    trace = sends(ranks, (ranks + 1) % n, big)
    table = trace.comm_matrix()
    assert isinstance(table, pd.DataFrame) and len(table) == n
    assert (table["size"] == 2**40).all()
    np.testing.assert_array_equal(table.attrs["processes"], ranks)
    by_process = trace.comm_by_process()
    assert (by_process["Sent"] == 2**40).all() and (by_process["Received"] == 2**40).all()


def test_a_dense_matrix_past_the_memory_bound_is_refused():
    trace = spread(20_000)
    with pytest.raises(TraceError, match=r"20001 x 20001 processes .* bound of 1 GiB"):
        trace.comm_matrix(form="dense")
    with pytest.raises(TraceError, match="form must be one of"):
        trace.comm_matrix(form="wide")
    assert comm.DENSE_LIMIT_BYTES == 2**30
