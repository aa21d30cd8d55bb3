"""The time profile in integer nanoseconds, against a call-by-call oracle: exact values,
so idle time is exact and never negative (it used to be -1.86e-09)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.datasets import synthetic_trace
from glade.trace.profiles import _bin_of, bin_edges
from tests.hypothesis_budget import examples


def oracle(trace, num_bins: int) -> dict[str, np.ndarray]:
    """Per function and bin: every call's overlap with the bin minus its direct callees'
    overlaps, call by call."""
    trace.match_caller_callee()
    events = trace.events
    stamps = events["Timestamp (ns)"].to_numpy()
    edges = bin_edges(int(stamps.min()), int(stamps.max()), num_bins).tolist()
    lo, hi = np.array(edges[:-1], dtype=object), np.array(edges[1:], dtype=object)
    out: dict[str, np.ndarray] = {}
    kinds = events["Event Type"].astype(str).to_numpy()
    names = events["Name"].astype(str).to_numpy()
    matching = events["_matching_timestamp"].to_numpy()
    parents = events["_parent"].to_numpy()
    for row in np.flatnonzero(kinds == "Enter"):
        start, end = int(stamps[row]), int(matching[row])
        # Python integers in object arrays: no float rounding anywhere
        share = np.maximum(0, np.minimum(end, hi) - np.maximum(start, lo))
        out[names[row]] = out.get(names[row], 0) + share
        if parents[row] >= 0:
            caller = names[parents[row]]
            out[caller] = out.get(caller, 0) - share
    return {name: values.astype(np.int64) for name, values in out.items()}


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 10), st.integers(1, 60))
def test_time_profile_is_exact(processes, iterations, seed, num_bins):
    trace = synthetic_trace(processes, iterations, seed=seed, imbalance=0.3)
    profile = trace.time_profile(num_bins)
    expected = oracle(trace, num_bins)
    for name, values in expected.items():
        assert profile[name].dtype == np.int64
        np.testing.assert_array_equal(profile[name].to_numpy(), values, err_msg=name)
    width = (profile["bin_end"] - profile["bin_start"]).to_numpy()
    assert width.max() - width.min() <= 1
    assert profile["idle_time"].dtype == np.int64 and (profile["idle_time"] >= 0).all()
    functions = profile.drop(columns=["bin_start", "bin_end"])
    np.testing.assert_array_equal(functions.sum(axis=1).to_numpy(), processes * width)


def test_bin_edges_cover_the_span_evenly():
    assert bin_edges(10, 20, 3).tolist() == [10, 13, 16, 20]
    assert bin_edges(0, 2, 4).tolist() == [0, 1, 2, 3, 4]  # at least 1 ns per bin
    big = bin_edges(0, 2**62, 7)
    assert big[-1] == 2**62 and np.diff(big).min() == 2**62 // 7


@settings(max_examples=examples(30), deadline=None)
@given(
    st.lists(st.integers(-50, 10**6), min_size=2, max_size=30, unique=True),
    st.lists(st.integers(-(10**5), 2 * 10**6), min_size=1, max_size=40),
)
def test_spread_bins_any_sorted_edges_like_a_binary_search(edges, times):
    # the guess assumes even bins; uneven edges must still land in the searched bin
    edges = np.sort(np.array(edges, dtype=np.int64))
    times = np.array(times, dtype=np.int64)
    last = edges.size - 2
    expected = np.clip(np.searchsorted(edges, times, side="right") - 1, 0, last)
    assert [_bin_of(edges, t) for t in times.tolist()] == expected.tolist()
