"""Nothing gathered: on a DaskTrace, ``match_messages()``, ``calls()`` and
``query(..., level="calls")`` are Dask collections computed on the workers, and only
``compute()`` brings rows to the client; computed, they equal the pandas engine's
(same rows, same order once sorted, same types). ``detect_pattern`` and
``multirun_analysis`` give the pandas answers on random traces.

Call-level queries are compared with the pandas trace that went through the same
steps: on pandas, ``match_messages`` on a trace never matched adds ``_matching_event``
of -1 to its Enters and Leaves, and a later call-level query can then keep an Enter
without its Leave, unlike the same query on the fresh trace (a pandas-engine quirk,
reproduced exactly by the Dask engine). On the shared 2-worker
LocalCluster of processes (the laziness is read from the workers' task stream)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.trace import Trace

from .test_dask_trace import random_events

dd = pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")

PAIR_ORDER = ["Send time (ns)", "Send event"]
QUERIES = (
    'MATCH (".", p)->("*") WHERE p.start >= 20 AND p.Process <> 1',
    '{MATCH (".", p) WHERE p.sent >= 10} OR {MATCH (".", p) WHERE p.name = "a"}',
    'MATCH (".", p) WHERE p."waiting time" > 0 OR p."critical path" > 0',
)
#: The tasks that make rows of pairs, of call forests or of kept events.
ROW_TASKS = {
    "sends_by_partition",
    "received_table",
    "by_partition",
    "set_matches",
    "wait_share",
    "wait_tables",
    "path_share",
    "forest_part",
    "select_calls",
}


def sorted_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """The pairs in the pandas engine's order (send time, then send event)."""
    return table.sort_values(PAIR_ORDER, kind="stable").reset_index(drop=True)


def assert_meta_is_true(collection) -> pd.DataFrame:
    """``collection`` computed, its types those its meta announced."""
    computed = collection.compute()
    pd.testing.assert_series_equal(computed.dtypes, collection._meta.dtypes)
    return computed


def assert_gathered_alike(trace: Trace, npartitions: int) -> None:
    """match_messages, calls and call-level queries of ``trace`` on Dask are lazy
    collections whose computed values are the pandas engine's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_pandas = trace.copy()
        expected_pairs = on_pandas.match_messages()
        expected_calls = on_pandas.calls()
        on_dask = trace.to_dask(npartitions)
        pairs = on_dask.match_messages()
        assert isinstance(pairs, dd.DataFrame)
        pd.testing.assert_frame_equal(
            sorted_pairs(assert_meta_is_true(pairs)), expected_pairs, check_exact=True
        )
        assert on_dask.metadata["unmatched_messages"] == on_pandas.metadata["unmatched_messages"]
        calls = on_dask.calls()
        assert isinstance(calls.dataframe, dd.DataFrame)
        assert_meta_is_true(calls.dataframe)
        forest = calls.compute()
        pd.testing.assert_frame_equal(forest.dataframe, expected_calls.dataframe, check_exact=True)
        np.testing.assert_array_equal(forest.graph.tree_parent, expected_calls.graph.tree_parent)
        assert forest.metadata == expected_calls.metadata
        computed = on_dask.compute().events
        pd.testing.assert_frame_equal(computed, on_pandas.events, check_exact=True)
        for query in QUERIES:
            kept = on_dask.query(query, level="calls")
            assert isinstance(kept.events, dd.DataFrame)
            # the pandas trace with the same history: after match_messages, a call-level
            # query on pandas can differ from one on a fresh trace (see the module doc)
            pd.testing.assert_frame_equal(
                kept.compute().events,
                on_pandas.query(query, level="calls").events,
                check_exact=True,
                obj=query,
            )


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_events(), st.integers(1, 4))
def test_random_traces_computed_are_the_pandas_answers(dask_client, table, npartitions):
    assert_gathered_alike(Trace(table), npartitions)


def test_synthetic_runs_computed_are_the_pandas_answers(dask_client):
    from glade.datasets import synthetic_trace

    assert_gathered_alike(synthetic_trace(7, 3, exchange="halo", imbalance=0.8, slow_process=3), 3)
    assert_gathered_alike(synthetic_trace(6, 3, exchange="pingpong"), 4)


def test_pairs_are_partitioned_by_receiver(dask_client):
    from glade.datasets import synthetic_trace

    on_dask = synthetic_trace(6, 3, exchange="ring").to_dask(3)
    pairs = on_dask.match_messages()
    for k, summary in enumerate(on_dask._summary()):
        part = pairs.get_partition(k).compute()
        assert len(part) and np.isin(part["Receiver"], summary.processes).all()


def test_unmatched_messages_are_counted_by_channel(dask_client):
    # by hand: 0 sends 3 messages to 1 (tag 7), 1 receives 2 of them; 1 sends 1 to 0,
    # never received; 0 receives one from 1 with tag 5, never sent; a send to process 9
    # (not in the trace) stays unmatched
    rows = [
        (0, 0, "MpiSend", 1, 7),
        (1, 0, "MpiSend", 1, 7),
        (2, 0, "MpiSend", 1, 7),
        (3, 1, "MpiRecv", 0, 7),
        (4, 1, "MpiRecv", 0, 7),
        (5, 1, "MpiSend", 0, 7),
        (6, 0, "MpiRecv", 1, 5),
        (7, 0, "MpiSend", 9, 7),
    ]
    table = pd.DataFrame(
        {
            "Timestamp (ns)": np.array([r[0] for r in rows], dtype=np.int64),
            "Event Type": "Instant",
            "Name": [r[2] for r in rows],
            "Process": np.array([r[1] for r in rows], dtype=np.int64),
            "Thread": np.zeros(len(rows), dtype=np.int64),
            "Partner": np.array([r[3] for r in rows], dtype=np.int64),
            "Tag": np.array([r[4] for r in rows], dtype=np.int64),
        }
    )
    on_dask = Trace(table).to_dask(2)
    pairs = on_dask.match_messages().compute()
    assert on_dask.metadata["unmatched_messages"] == {"sends": 3, "receives": 1}
    assert sorted_pairs(pairs)["Send event"].tolist() == [0, 1]
    assert sorted_pairs(pairs)["Receive event"].tolist() == [3, 4]


def test_nothing_is_computed_before_compute(dask_client):
    from dask.utils import key_split
    from distributed import get_task_stream

    from glade.datasets import synthetic_trace

    trace = synthetic_trace(6, 3, exchange="halo", imbalance=0.5)
    on_dask = trace.to_dask(3)
    assert len(on_dask) == len(trace)  # the partitions' summaries, known once
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with get_task_stream(dask_client) as before:
            pairs = on_dask.match_messages()
            calls = on_dask.calls()
            kept = on_dask.query(QUERIES[2], level="calls")
        ran = {key_split(t["key"]) for t in before.data}
        # only the channel counts of the unmatched messages ran (integers per channel),
        # besides the tasks that hand them the partitions
        assert {"channel_counts", "matched_counts"} <= ran, ran
        with get_task_stream(dask_client) as after:
            gathered = pairs.compute(), calls.compute(), kept.compute()
    done = {key_split(t["key"]) for t in after.data}
    assert {"received_table", "forest_part", "select_calls", "wait_tables"} <= done, done
    assert not ran & ROW_TASKS
    assert len(gathered[0]) == len(trace.copy().match_messages())
    # a reduction of the forest is computed on the workers: one number comes back
    waiting = calls.dataframe["waiting time"].sum()
    assert int(waiting.compute()) == int(gathered[1].dataframe["waiting time"].sum()) > 0


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(random_events(), min_size=1, max_size=3),
    st.sampled_from(["Timestamp (ns)", "Message Size"]),
    st.booleans(),
)
def test_multirun_analysis_of_random_dask_traces(dask_client, tables, metric, mean):
    runs = [Trace(t) for t in tables]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = Trace.multirun_analysis([r.copy() for r in runs], metric, mean=mean)
        on_dask = [r.to_dask(1 + k % 3) for k, r in enumerate(runs)]
        pd.testing.assert_frame_equal(
            Trace.multirun_analysis(on_dask, metric, mean=mean), expected, check_exact=True
        )


PATTERN_SCRIPT = """
import json, warnings
import pandas as pd
from distributed import Client, LocalCluster
from hypothesis import given, settings, strategies as st
from glade.datasets import synthetic_trace
warnings.simplefilter("ignore")
runs = []

@settings(max_examples=4, deadline=None, database=None)
@given(st.integers(2, 4), st.integers(8, 12), st.sampled_from([0.0, 0.2, 0.5]),
       st.integers(0, 100), st.integers(3, 6), st.integers(1, 3), st.data())
def same_patterns(processes, iterations, noise, seed, window, npartitions, data):
    trace = synthetic_trace(processes, iterations, noise=noise, seed=seed)
    process = data.draw(st.sampled_from([None, *range(processes)]))
    metric = data.draw(st.sampled_from(["time.exc", "time.inc"]))
    expected = trace.copy().detect_pattern(window, 3, metric, process)
    found = trace.to_dask(npartitions).detect_pattern(window, 3, metric, process)
    pd.testing.assert_frame_equal(found, expected, check_exact=True)
    runs.append(len(found))

with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GB",
                  dashboard_address=":0") as cluster, Client(cluster):
    # three processes over three partitions: process 2's pattern is found in its partition
    trace = synthetic_trace(3, 12, noise=0.3)
    for process in (None, 2):
        expected = trace.copy().detect_pattern(6, iterations=3, process=process)
        found = trace.to_dask(3).detect_pattern(6, iterations=3, process=process)
        pd.testing.assert_frame_equal(found, expected, check_exact=True)
        runs.append(len(found))
    same_patterns()
print(json.dumps(runs))
"""


def test_patterns_of_random_runs_on_dask_are_the_pandas_ones():
    """A synthetic run with a pattern per process, then Hypothesis's random runs, in a
    child process with numba's JIT off (STUMPY's kernels interpreted, see
    tests/trace/test_patterns.py), on its own 2-worker LocalCluster whose workers inherit
    that setting and run STUMPY where the process's partition lives."""
    pytest.importorskip("stumpy", reason="detect_pattern needs the glade[stumpy] extra")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-c", PATTERN_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(runs) >= 3 and all(n == 3 for n in runs)
