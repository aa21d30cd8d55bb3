"""An OTF2 archive read on the cluster (``engine="dask"``: definitions once, each worker
reading the event files of a run of whole processes) is the trace the pandas reader
gives, on Pipit's real archive, on archives with threads and metrics, and on random
traces written to OTF2 (a 2-worker LocalCluster of processes)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from glade.errors import GladeError, ReaderError, TraceError
from glade.readers.traces import read_trace
from glade.trace import Trace
from tests.hypothesis_budget import examples

from .test_dask_trace import assert_analyses_alike, random_events

pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")
pytest.importorskip("otf2", reason="the OTF2 reader needs the glade[otf2] extra")


def assert_read_alike(anchor: Path, npartitions: int | None, analyse: bool = True) -> None:
    """The archive read on Dask computes to the pandas reader's trace; its partitions
    hold whole processes; every analysis agrees (when ``analyse``)."""
    trace = Trace.from_otf2(anchor)
    on_dask = Trace.from_otf2(anchor, engine="dask", npartitions=npartitions)
    computed = on_dask.compute()
    pd.testing.assert_frame_equal(computed.events, trace.events, check_exact=True)
    pd.testing.assert_frame_equal(on_dask.definitions, trace.definitions)
    assert on_dask.metadata == trace.metadata
    owners = [set(p["Process"]) for p in (d.compute() for d in on_dask.events.to_delayed())]
    assert sum(len(o) for o in owners) == len(set().union(*owners))
    if not analyse:
        return
    assert_analyses_alike(trace, on_dask)


def test_pipit_ping_pong_read_on_the_workers(dask_client, pipit_data):
    archive = pipit_data / "ping-pong-otf2"
    assert_read_alike(archive / "traces.otf2", 2)
    on_dask = read_trace(archive, engine="dask")
    assert on_dask.npartitions == 1
    assert len(on_dask) == len(Trace.from_otf2(archive))


def threads_and_metrics() -> Trace:
    """Three processes of two threads; a counter recorded on process 1 only, so the
    other partitions have no such column until the engine adds it (NaN)."""
    rows = []
    for p in range(3):
        for t in range(2):
            base = 100 * p + 10 * t
            rows += [
                (base, "Enter", "main", p, t),
                (base + 1, "Enter", f"work{t}", p, t),
                (base + 5, "Leave", f"work{t}", p, t),
                (base + 9, "Leave", "main", p, t),
            ]
    events = pd.DataFrame(
        rows, columns=["Timestamp (ns)", "Event Type", "Name", "Process", "Thread"]
    )
    counted = (events["Process"] == 1) & (events["Name"] == "work1")
    events["cycles"] = np.where(counted, 7.0 * events.index, np.nan)
    return Trace(events, metadata={"program": "threads"})


def test_threads_and_a_metric_of_one_process(dask_client, tmp_path):
    anchor = threads_and_metrics().to_otf2(tmp_path / "t")
    for npartitions in (1, 2, 3):
        assert_read_alike(anchor, npartitions)
    on_dask = Trace.from_otf2(anchor, engine="dask", npartitions=3)
    parts = [p.compute() for p in on_dask.events.to_delayed()]
    without = [p for p in parts if 1 not in set(p["Process"])]
    assert len(parts) == 2 and len(without) == 1  # the metric records weigh process 1
    assert without[0]["cycles"].isna().all()  # no counter recorded there: NaN


def test_a_synthetic_mpi_run(dask_client, tmp_path):
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(5, 4, exchange="halo", imbalance=0.3)
    assert_read_alike(trace.to_otf2(tmp_path / "halo"), 3)


@settings(
    max_examples=examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(random_events(), st.integers(1, 4))
def test_random_traces_written_to_otf2(dask_client, tmp_path_factory, table, npartitions):
    """What the pandas reader reads, the Dask reader reads alike; what it refuses (an
    Enter never left, a Leave without its Enter), the Dask reader refuses too."""
    table = table.assign(Tag=0, **{"Message Size": table["Message Size"].clip(lower=0)})
    try:
        anchor = Trace(table).to_otf2(tmp_path_factory.mktemp("random") / "r")
    except GladeError:  # e.g. a message to a process without events: OTF2 cannot hold it
        assume(False)
    try:
        Trace.from_otf2(anchor)
    except ReaderError as exc:
        assert refused_event(exc, table)
        # each partition checks its own processes, and the first to fail may name another
        # unmatched event than the pandas reader, which checks every process at once
        with pytest.raises(ReaderError) as caught:
            Trace.from_otf2(anchor, engine="dask", npartitions=npartitions)
        assert refused_event(caught.value, table)
        return
    assert_read_alike(anchor, npartitions, analyse=False)


REFUSALS = (
    "a Leave without a matching Enter",
    "an Enter that is never left",
    "a Leave that does not match its Enter",
)


def refused_event(error: ReaderError, table: pd.DataFrame) -> bool:
    """Whether ``error`` refuses the archive for one of the reasons the reader gives,
    naming an event of ``table`` (its name, time, process and thread, whose ids the
    archive keeps)."""
    found = re.search(
        r"traces\.otf2: (.+): '(.*)' at (\d+) ns on process (\d+), thread (\d+)$", str(error)
    )
    if found is None or found[1] not in REFUSALS:
        return False
    return bool(
        (
            (table["Name"] == found[2])
            & (table["Timestamp (ns)"] == int(found[3]))
            & (table["Process"] == int(found[4]))
            & (table["Thread"] == int(found[5]))
            & (table["Event Type"] != "Instant")
        ).any()
    )


def test_a_damaged_event_file_is_a_reader_error_at_read_time(dask_client, pipit_data, tmp_path):
    from tests.readers.corruption import copy_input

    copy = copy_input(pipit_data / "ping-pong-otf2", tmp_path)
    events = copy / "traces" / "1.evt"
    events.write_bytes(events.read_bytes()[: events.stat().st_size // 2])
    with pytest.raises(ReaderError, match=r"traces\.otf2"):
        Trace.from_otf2(copy, engine="dask", npartitions=2)


def test_bad_options(dask_client, pipit_data):
    archive = pipit_data / "ping-pong-otf2"
    with pytest.raises(TraceError, match="npartitions"):
        Trace.from_otf2(archive, engine="dask", npartitions=0)
    with pytest.raises(GladeError, match="engine"):
        Trace.from_otf2(archive, engine="spark")
    with pytest.raises(GladeError, match="npartitions is an option of engine='dask'"):
        Trace.from_otf2(archive, npartitions=2)
