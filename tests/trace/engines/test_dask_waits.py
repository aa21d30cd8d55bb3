"""Wait states, their summaries, the critical path, the CCT's waiting time and call-level
queries on them: a DaskTrace gives the pandas engine's answers exactly (synthetic runs
with a slow process, Pipit's ping-pong; a 2-worker LocalCluster of processes)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from glade.trace import Trace

pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")

QUERIES = (
    'MATCH (".", p) WHERE p."waiting time" > 0',
    'MATCH (".", p) WHERE p."critical path" > 0',
)


def assert_same_waits(trace: Trace, npartitions: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dask = trace.to_dask(npartitions)
        pd.testing.assert_frame_equal(on_dask.wait_states(), trace.wait_states())
        for by in ("name", "Process", "pattern"):
            pd.testing.assert_frame_equal(on_dask.wait_summary(by), trace.wait_summary(by))
        pd.testing.assert_frame_equal(on_dask.critical_path(), trace.critical_path())
        pd.testing.assert_frame_equal(
            on_dask.critical_path_summary(), trace.critical_path_summary()
        )
        pd.testing.assert_frame_equal(
            on_dask.to_graphframe().dataframe, trace.to_graphframe().dataframe
        )
        pd.testing.assert_frame_equal(on_dask.calls().compute().dataframe, trace.calls().dataframe)
        for query in QUERIES:
            pd.testing.assert_frame_equal(
                on_dask.query(query, level="calls").compute().events,
                trace.query(query, level="calls").events,
                obj=query,
            )
        sent = '{MATCH (".", p) WHERE p.sent >= 0} OR {' + QUERIES[0] + "}"
        pd.testing.assert_frame_equal(
            on_dask.query(sent, level="calls").compute().events,
            trace.query(sent, level="calls").events,
            obj=sent,
        )


def test_synthetic_runs_with_a_slow_process(dask_client):
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(7, 4, exchange="halo", imbalance=0.8, slow_process=3)
    assert len(trace.wait_states()) and len(trace.critical_path())
    assert_same_waits(trace, 3)
    assert_same_waits(synthetic_trace(6, 3, exchange="pingpong", imbalance=0.5), 4)


def test_pipit_ping_pong(dask_client, pipit_data):
    pytest.importorskip("otf2", reason="the OTF2 reader needs the glade[otf2] extra")
    assert_same_waits(Trace.from_otf2(pipit_data / "ping-pong-otf2"), 2)


def test_a_callable_query_sees_the_whole_trace_waits(dask_client):
    from glade.datasets import synthetic_trace
    from glade.query import Query

    trace = synthetic_trace(5, 2, exchange="halo", imbalance=1.0)
    query = Query().match(".", lambda row: row["waiting time"] > 0)
    pd.testing.assert_frame_equal(
        trace.to_dask(3).query(query, level="calls").compute().events,
        trace.query(query, level="calls").events,
    )
