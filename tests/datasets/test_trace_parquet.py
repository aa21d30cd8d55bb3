"""Synthetic traces written straight to Parquet one group of processes at a time: the
same trace as the in-memory generator with the same arguments, whatever the groups."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.datasets import synthetic_trace, write_synthetic_trace
from glade.datasets.traces import trace_events, trace_plan
from glade.errors import GladeError
from glade.trace import Trace
from glade.trace.storage import write_process_groups
from tests.hypothesis_budget import examples
from tests.trace.test_storage import assert_same_trace


@given(
    processes=st.integers(1, 9),
    iterations=st.integers(1, 4),
    seed=st.integers(0, 5),
    exchange=st.sampled_from(["ring", "halo", "pingpong"]),
    group_events=st.integers(1, 400),
    imbalance=st.sampled_from([0.0, 0.5]),
    noise=st.sampled_from([0.0, 0.1, 0.8]),
)
@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_written_trace_equals_the_generator(
    tmp_path_factory, processes, iterations, seed, exchange, group_events, imbalance, noise
):
    if exchange == "pingpong" and processes % 2:
        processes += 1
    args = dict(
        processes=processes,
        iterations=iterations,
        seed=seed,
        exchange=exchange,
        imbalance=imbalance,
        noise=noise,
    )
    path = tmp_path_factory.mktemp("synthetic") / "trace"
    write_synthetic_trace(path, group_events=group_events, **args)
    assert_same_trace(Trace.from_parquet(path), synthetic_trace(**args))


def test_events_argument_and_analyses_agree(tmp_path: Path):
    path = write_synthetic_trace(
        tmp_path / "t", processes=6, events=5000, seed=4, group_events=1000
    )
    stored, memory = Trace.from_parquet(path), synthetic_trace(6, events=5000, seed=4)
    assert_same_trace(stored, memory)
    np.testing.assert_array_equal(stored.comm_matrix(), memory.comm_matrix())
    pd.testing.assert_frame_equal(stored.flat_profile(), memory.flat_profile())


def test_groups_hold_whole_processes_within_the_budget():
    plan = trace_plan(10, 3)
    per_process = plan.events_per_process
    assert per_process == 6 + 18 * 3
    groups = plan.groups(3 * per_process + 1)
    assert [(g.start, g.stop) for g in groups] == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert [(g.start, g.stop) for g in plan.groups(1)] == [(i, i + 1) for i in range(10)]
    frames = [trace_events(plan, g) for g in groups]
    assert [len(f) for f in frames] == [3 * per_process] * 3 + [per_process]
    for frame in frames:  # each process's events in time order
        for _, events in frame.groupby("Process"):
            assert (np.diff(events["Timestamp (ns)"].to_numpy()) >= 0).all()


def test_groups_out_of_process_order_are_refused(tmp_path: Path):
    plan = trace_plan(4, 1)
    frames = [trace_events(plan, slice(2, 4)), trace_events(plan, slice(0, 2))]
    with pytest.raises(GladeError, match="increasing process order"):
        write_process_groups(tmp_path / "t", iter(frames), 100, {})
    assert not (tmp_path / "t").exists()
    with pytest.raises(GladeError, match="at least one group"):
        write_process_groups(tmp_path / "t", iter([]), 0, {})


def test_bad_arguments_write_nothing(tmp_path: Path):
    with pytest.raises(ValueError, match="pingpong"):
        write_synthetic_trace(tmp_path / "t", processes=3, exchange="pingpong")
    assert list(tmp_path.iterdir()) == []
