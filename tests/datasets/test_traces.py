"""Synthetic traces with known answers: the generator's structure, a ring exchange's
communication matrix, message pairing, exclusive times fixed by construction, and a
planted load imbalance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from glade.datasets import synthetic_trace
from glade.errors import TraceError
from glade.trace import Trace
from glade.trace.comm import UnknownMessageSizeWarning
from tests.trace.helpers import make_trace


def ring_bytes(iterations: int, size: int = 4096) -> int:
    """Bytes one process sends in a ring: step k sends size * (1 + k % 4)."""
    return size * sum(1 + k % 4 for k in range(iterations))


def test_generator_is_deterministic_and_sized():
    a = synthetic_trace(3, 5, seed=7)
    b = synthetic_trace(3, 5, seed=7)
    pd.testing.assert_frame_equal(a.events, b.events)
    c = synthetic_trace(3, 5, seed=8)
    assert not a.events["Timestamp (ns)"].equals(c.events["Timestamp (ns)"])
    assert len(a) == 3 * (6 + 18 * 5)
    assert len(synthetic_trace(4, 2, exchange="halo")) == 4 * (6 + 24 * 2)
    assert len(synthetic_trace(2, 2, exchange="pingpong")) == 2 * (6 + 16 * 2)
    big = synthetic_trace(8, events=100_000)
    assert abs(len(big) - 100_000) < 8 * 18
    stamps = a.events["Timestamp (ns)"].to_numpy()
    assert (np.diff(stamps) >= 0).all()
    a.match_events(unmatched="error")
    with pytest.raises(ValueError):
        synthetic_trace(3, 2, exchange="pingpong")
    with pytest.raises(ValueError):
        synthetic_trace(2, 2, exchange="mesh")


def test_ring_comm_matrix():
    trace = synthetic_trace(5, 9)
    expected = np.zeros((5, 5), dtype=np.int64)
    for p in range(5):
        expected[p, (p + 1) % 5] = ring_bytes(9)
    np.testing.assert_array_equal(trace.comm_matrix(), expected)
    np.testing.assert_array_equal(trace.comm_matrix("count"), (expected > 0) * 9)
    frame = trace.comm_matrix(as_frame=True)
    assert frame.index.name == "Sender" and frame.loc[4, 0] == ring_bytes(9)
    by_process = trace.comm_by_process()
    assert (by_process["Sent"] == ring_bytes(9)).all()
    assert (by_process["Received"] == ring_bytes(9)).all()
    with pytest.raises(TraceError, match="output must be"):
        trace.comm_matrix("bytes")


def test_halo_and_pingpong_matrices():
    halo = synthetic_trace(4, 6, exchange="halo").comm_matrix()
    for p in range(4):
        assert halo[p, (p + 1) % 4] == ring_bytes(6) and halo[p, (p - 1) % 4] == ring_bytes(6)
    assert halo.sum() == 8 * ring_bytes(6)
    ping = synthetic_trace(2, 6, exchange="pingpong").comm_matrix()
    np.testing.assert_array_equal(ping, [[0, ring_bytes(6)], [ring_bytes(6), 0]])


def test_messages_pair_in_order():
    trace = synthetic_trace(4, 7, exchange="halo")
    pairs = trace.match_messages()
    assert len(pairs) == 4 * 7 * 2
    assert trace.metadata["unmatched_messages"] == {"sends": 0, "receives": 0}
    assert (pairs["Receive time (ns)"] >= pairs["Send time (ns)"]).all()
    right = pairs[pairs["Tag"] == 0]
    assert ((right["Sender"] + 1) % 4 == right["Receiver"]).all()
    left = pairs[pairs["Tag"] == 1]
    assert ((left["Sender"] - 1) % 4 == left["Receiver"]).all()
    events = trace.events
    send, recv = pairs["Send event"].to_numpy(), pairs["Receive event"].to_numpy()
    assert (events["_matching_event"].to_numpy()[send] == recv).all()
    assert (
        events["_matching_timestamp"].to_numpy()[recv] == events["Timestamp (ns)"].to_numpy()[send]
    ).all()
    trace.match_events()  # Enter/Leave matching keeps the message pairs
    assert (trace.events["_matching_event"].to_numpy()[recv] == send).all()


def test_message_pairing_uses_the_envelope_order():
    # two messages 0 -> 1 with tags 5 then 6, received in the opposite order
    trace = make_trace(
        [
            (0, "Instant", "MpiSend", 0),
            (1, "Instant", "MpiSend", 0),
            (2, "Instant", "MpiRecv", 1),
            (3, "Instant", "MpiRecv", 1),
            (4, "Instant", "MpiSend", 0),
        ],
        Partner=[1, 1, 0, 0, 1],
        Tag=[5, 6, 6, 5, 5],
        **{"Message Size": [10, 20, 20, 10, 30]},
    )
    pairs = trace.match_messages()
    assert pairs[["Send event", "Receive event"]].values.tolist() == [[0, 3], [1, 2]]
    assert trace.metadata["unmatched_messages"] == {"sends": 1, "receives": 0}


def test_histograms_and_volume_over_time():
    trace = synthetic_trace(3, 8)
    counts, edges = trace.message_histogram(bins=4)
    assert counts.sum() == 3 * 8 and edges[0] == 4096 and edges[-1] == 4 * 4096
    volume, edges = trace.comm_over_time(bins=10)
    assert volume.sum() == 3 * ring_bytes(8)
    count, _ = trace.comm_over_time(output="count", message_type="receive", bins=10)
    assert count.sum() == 3 * 8
    stamps = trace.events["Timestamp (ns)"]
    assert edges[0] == stamps.min() and edges[-1] == stamps.max()
    with pytest.raises(TraceError, match="message_type"):
        trace.comm_over_time(message_type="both")


def test_unknown_sizes_are_left_out_of_volumes_with_a_warning():
    trace = make_trace(
        [(0, "Instant", "MpiSend", 0), (1, "Instant", "MpiSend", 0)],
        Partner=[1, 1],
        **{"Message Size": [100, -1]},
    )
    with pytest.warns(UnknownMessageSizeWarning, match="1 of 2"):
        assert trace.comm_matrix().tolist() == [[0, 100], [0, 0]]
    assert trace.comm_matrix("count").tolist() == [[0, 2], [0, 0]]


def test_exclusive_times_fixed_by_construction():
    # compute_step { compute_flux, update_field } leaves 3 gaps of 100 ns of its own
    trace = synthetic_trace(3, 6, noise=0.3)
    profile = trace.flat_profile(["time.exc", "count"])
    assert profile.loc["compute_step", "time.exc"] == 300 * 3 * 6
    assert profile.loc["compute_step", "count"] == 3 * 6
    trace.calc_exc_metrics()
    kernel = trace.events[
        (trace.events["Name"] == "flux_kernel") & (trace.events["Event Type"] == "Enter")
    ]
    assert (kernel["time.exc"] == kernel["time.inc"]).all()
    total = trace.flat_profile("time.exc")["time.exc"].sum()
    main = trace.flat_profile("time.inc").loc["main", "time.inc"]
    assert total == main  # every ns of every process belongs to exactly one call


def test_planted_load_imbalance():
    trace = synthetic_trace(4, 30, imbalance=1.0, slow_process=2, seed=3)
    imbalance = trace.load_imbalance(num_processes=4)
    flux = imbalance.loc["compute_flux"]
    assert flux["Top process 1"] == 2
    # the slow process computes 2x, the mean is (1 + 1 + 2 + 1) / 4 = 1.25x: ratio 1.6
    assert 1.45 < flux["time.exc.imbalance"] < 1.75
    # everybody else waits for process 2: in MPI_Allreduce, and process 3 (which
    # receives from process 2) in MPI_Waitall
    per_process = trace.flat_profile("time.exc", per_process=True)["time.exc"]
    waiting = per_process.loc["MPI_Allreduce"] + per_process.loc["MPI_Waitall"]
    assert waiting.idxmin() == 2
    assert imbalance.loc["MPI_Allreduce", "Top process 4"] in (2, 3)
    balanced = synthetic_trace(4, 30, seed=3).load_imbalance()
    assert balanced.loc["compute_flux", "time.exc.imbalance"] < 1.15
    with pytest.raises(TraceError):
        trace.load_imbalance(num_processes=0)


def test_time_profile_accounts_for_every_location():
    trace = synthetic_trace(3, 5)
    profile = trace.time_profile(num_bins=7)
    width = profile["bin_end"] - profile["bin_start"]
    functions = profile.drop(columns=["bin_start", "bin_end"])
    assert np.allclose(functions.sum(axis=1), 3 * width)
    assert (profile.drop(columns=["bin_start", "bin_end", "idle_time"]) >= -1e-6).all().all()
    exc = trace.flat_profile("time.exc")["time.exc"]
    assert np.allclose(profile[exc.index].sum(axis=0), exc)
    with pytest.raises(TraceError, match="num_bins"):
        trace.time_profile(0)


def test_idle_time_counts_outermost_idle_calls():
    # Idle [0, 10] { Idle [2, 4] } on process 0; MPI_Wait [1, 3] on process 1
    trace = make_trace(
        [
            (0, "Enter", "Idle", 0),
            (2, "Enter", "Idle", 0),
            (4, "Leave", "Idle", 0),
            (10, "Leave", "Idle", 0),
            (1, "Enter", "MPI_Wait", 1),
            (3, "Leave", "MPI_Wait", 1),
        ]
    )
    assert trace.idle_time()["Idle Time"].tolist() == [10, 0]
    assert trace.idle_time(mpi_events=True)["Idle Time"].tolist() == [10, 2]
    assert trace.idle_time("MPI_Wait")["Idle Time"].tolist() == [0, 2]


def test_outlier_detection_finds_the_slow_call():
    rows = []
    for i in range(20):
        length = 1000 if i == 13 else 100 + i % 3
        rows += [(i * 2000, "Enter", "step", 0), (i * 2000 + length, "Leave", "step", 0)]
    outliers = make_trace(rows).outlier_detection(metric="time.inc", threshold=3)
    assert len(outliers) == 1
    assert outliers.index[0] == 26 and outliers["time.inc"].iat[0] == 1000
    assert outliers["z-score"].iat[0] > 3
    same = make_trace(
        [(0, "Enter", "a", 0), (1, "Leave", "a", 0), (2, "Enter", "a", 0), (3, "Leave", "a", 0)]
    )
    assert same.outlier_detection().empty


def test_multirun_analysis():
    small, large = synthetic_trace(2, 4, seed=1), synthetic_trace(6, 4, seed=1)
    table = Trace.multirun_analysis([small, large])
    assert table.index.tolist() == [2, 6] and table.index.name == "Number of Processes"
    expected = large.flat_profile("time.exc", mean=True).loc["compute_flux", "time.exc"]
    assert table.loc[6, "compute_flux"] == pytest.approx(expected)
    totals = table.sum(axis=0).to_numpy()
    assert (np.diff(totals) <= 0).all()
    with pytest.raises(TraceError):
        Trace.multirun_analysis([])
