"""The analyses of a DaskTrace that need more than per-partition sums — message pairing,
messages over time, the call forest, call-level queries, outliers, several runs — equal
the pandas engine's, exactly, on random traces (hypothesis), on synthetic MPI runs and on
Pipit's real traces (a 2-worker LocalCluster of processes). Patterns: test_dask_gather."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.errors import TraceError
from glade.trace import Trace
from tests.hypothesis_budget import examples

from .test_dask_trace import assert_equal, random_events

dd = pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")

WINDOW_QUERY = 'MATCH (".", p)->("*") WHERE p.start >= 20 AND p.Process <> 1'
SENT_QUERY = '{MATCH (".", p) WHERE p.sent >= 10} OR {MATCH (".", p) WHERE p.name = "a"}'


def forest_parts(gf) -> dict[str, object]:
    return {
        "table": gf.dataframe,
        "frames": gf.graph.frames,
        "parents": gf.graph.tree_parent,
        "metadata": gf.metadata,
    }


def gathered(result):
    """A result of either engine as pandas gives it: a DaskTrace's call forest computed,
    its message pairs computed in send order."""
    if isinstance(result, dd.DataFrame):
        table = result.compute().sort_values(["Send time (ns)", "Send event"], kind="stable")
        return table.reset_index(drop=True)
    return result.compute() if hasattr(result, "compute") else result


def more_analyses(trace) -> dict[str, object]:
    """The analyses this module checks, on a trace of either engine (``Send event``,
    ``Receive event`` and the forest's ``event`` are rows on pandas and event ids on
    Dask: the same numbers for a DaskTrace made by ``to_dask``)."""
    out = {
        "over time size": trace.comm_over_time("size", "send", 5),
        "over time receive count": trace.comm_over_time("count", "receive", 3),
        "over time edges": trace.comm_over_time(
            "size", "receive", np.array([0.0, 10.0, 25.0, 1e12])
        ),
        "over time density": trace.comm_over_time("count", bins=4, density=True),
    }
    out.update({f"forest {k}": v for k, v in forest_parts(gathered(trace.calls())).items()})
    out["pairs"] = gathered(trace.match_messages())
    out["unmatched"] = trace.metadata["unmatched_messages"]
    return out


def assert_more_answers(trace: Trace, npartitions: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pandas_trace = trace.copy()
        expected = more_analyses(pandas_trace)
        on_dask = trace.to_dask(npartitions)
        for what, value in more_analyses(on_dask).items():
            assert_equal(expected[what], value, what)
        # match_messages set the matching columns of the messages, as on pandas
        computed = on_dask.compute().events
        for column in ("_matching_event", "_matching_timestamp"):
            np.testing.assert_array_equal(computed[column], pandas_trace.events[column], column)
        # outliers: means and deviations summed over partitions, so equal up to rounding
        for args in (("time.exc", 1.0), ("time.inc", 0.5, "Process")):
            pd.testing.assert_frame_equal(
                on_dask.outlier_detection(*args),
                trace.copy().outlier_detection(*args),
                check_exact=False,
                rtol=1e-12,
                obj=str(args),
            )
        # a receive's 'sent' comes from its send, which may lie in another partition
        for query in (WINDOW_QUERY, SENT_QUERY):
            queried = on_dask.query(query, level="calls").compute()
            expected_query = trace.query(query, level="calls")
            pd.testing.assert_frame_equal(
                queried.events, expected_query.events, check_exact=True, obj=query
            )


@settings(max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_events(), st.integers(1, 4))
def test_random_traces_get_the_pandas_answers(dask_client, table, npartitions):
    assert_more_answers(Trace(table), npartitions)


def test_a_synthetic_mpi_run_gets_the_pandas_answers(dask_client):
    from glade.datasets import synthetic_trace

    assert_more_answers(synthetic_trace(7, 5, exchange="halo", imbalance=0.5), 3)
    assert_more_answers(synthetic_trace(6, 4, exchange="pingpong"), 4)


def test_pipit_traces_get_the_pandas_answers(dask_client, pipit_data):
    pytest.importorskip("otf2", reason="the OTF2 reader needs the glade[otf2] extra")
    assert_more_answers(Trace.from_csv(pipit_data / "foo-bar.csv"), 2)
    assert_more_answers(Trace.from_otf2(pipit_data / "ping-pong-otf2"), 2)
    assert_more_answers(Trace.from_hpctoolkit(pipit_data / "ping-pong-hpctoolkit"), 2)


def test_ping_pong_messages_by_hand(dask_client, pipit_data):
    pytest.importorskip("otf2", reason="the OTF2 reader needs the glade[otf2] extra")
    trace = Trace.from_otf2(pipit_data / "ping-pong-otf2")
    pairs = trace.to_dask(2).match_messages().compute()
    # the ping-pong: every send of one process is received by the other, none is lost
    sends = trace.events["Name"].isin(["MpiSend", "MpiIsend"]).sum()
    assert len(pairs) == sends > 0
    assert set(zip(pairs["Sender"], pairs["Receiver"], strict=True)) == {(0, 1), (1, 0)}
    assert (pairs["Receive time (ns)"] >= pairs["Send time (ns)"]).all()


def test_pattern_arguments_are_checked_before_stumpy_runs(dask_client):
    pytest.importorskip("stumpy", reason="detect_pattern needs the glade[stumpy] extra")
    from glade.datasets import synthetic_trace

    on_dask = synthetic_trace(4, 3).to_dask(2)
    with pytest.raises(TraceError, match="no process 9"):
        on_dask.detect_pattern(5, process=9)
    with pytest.raises(TraceError, match="window_size"):
        on_dask.detect_pattern(2)


def test_multirun_analysis_takes_dask_traces(dask_client):
    from glade.datasets import synthetic_trace

    runs = [synthetic_trace(p, 3, exchange="ring") for p in (2, 4, 8)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = Trace.multirun_analysis([r.copy() for r in runs])
        mixed = [runs[0].copy(), runs[1].to_dask(2), runs[2].to_dask(3)]
        pd.testing.assert_frame_equal(Trace.multirun_analysis(mixed), expected)
        on_dask = type(mixed[1]).multirun_analysis([r.to_dask(2) for r in runs], mean=False)
        pd.testing.assert_frame_equal(
            on_dask, Trace.multirun_analysis([r.copy() for r in runs], mean=False)
        )
    assert list(expected.index) == [2, 4, 8]


def test_comm_over_time_refuses_what_needs_every_message_at_once(dask_client):
    from glade.datasets import synthetic_trace

    on_dask = synthetic_trace(2, 2).to_dask(2)
    with pytest.raises(TraceError, match="weights"):
        on_dask.comm_over_time(bins="auto")
    with pytest.raises(TraceError, match="message_type"):
        on_dask.comm_over_time(message_type="both")
    with pytest.raises(TraceError, match="output"):
        on_dask.comm_over_time("bytes")
