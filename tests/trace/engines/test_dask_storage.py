"""A DaskTrace stored by its workers is lossless: read back by either engine it equals its
pandas Trace (``compute()``) stored and read back, derived columns included (reference
columns as the trace's rows), on random traces with arbitrary event ids (hypothesis), on
a synthetic MPI run and on Pipit's ping-pong trace; a pandas store with derived columns
reads on Dask; a damaged store is a ReaderError (a 2-worker LocalCluster of processes)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glade.errors import GladeError, ReaderError
from glade.trace import Trace
from tests.hypothesis_budget import examples

from .test_dask_trace import random_events

pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")

DERIVATIONS = (
    "match_events",
    "match_caller_callee",
    "calc_exc_metrics",
    "calc_inc_metrics",
    "match_messages",
)


def with_ids(trace: Trace, ids: np.ndarray, npartitions: int):
    """A DaskTrace of the events of ``trace`` whose event ids are ``ids`` (so its
    ``compute()`` orders events at equal times by these ids)."""
    import dask
    import dask.dataframe as dd

    from glade.trace.engines import DaskTrace
    from glade.trace.engines.parts import EVENT_ID, in_time_order, split_by_process

    events = trace.events.copy()
    events.index = pd.Index(ids, name=EVENT_ID)
    parts = [in_time_order(p) for p in split_by_process(events, npartitions)] or [events]
    ddf = dd.from_delayed([dask.delayed(p) for p in parts], meta=events.iloc[:0], verify_meta=False)
    return DaskTrace(ddf, None, dict(trace.metadata))


def assert_lossless(on_dask, tmp_path, name: str) -> None:
    """``on_dask`` stored by its workers reads back as its pandas Trace stored and read
    back, on both engines, and that pandas store reads back on Dask too."""
    expected = on_dask.compute()
    expected.to_parquet(tmp_path / f"{name}-pandas")
    stored = Trace.from_parquet(tmp_path / f"{name}-pandas")
    pd.testing.assert_frame_equal(stored.events, expected.events, check_exact=True)
    store = on_dask.to_parquet(tmp_path / f"{name}-dask")
    back = Trace.from_parquet(store)
    pd.testing.assert_frame_equal(back.events, stored.events, check_exact=True)
    assert back.metadata == stored.metadata
    for where in (store, tmp_path / f"{name}-pandas"):
        for npartitions in (1, 3):
            again = Trace.from_parquet(where, engine="dask", npartitions=npartitions)
            pd.testing.assert_frame_equal(
                again.compute().events, stored.events, check_exact=True, obj=f"{where} on Dask"
            )


@settings(
    max_examples=examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    random_events(),
    st.integers(1, 4),
    st.sampled_from(["rows", "random", "reversed"]),
    st.lists(st.sampled_from(DERIVATIONS), max_size=3, unique=True),
    st.randoms(),
)
def test_random_traces_round_trip_on_both_engines(
    dask_client, tmp_path_factory, table, npartitions, id_kind, derivations, rnd
):
    trace = Trace(table.reset_index(drop=True))
    n = len(trace)
    ids = {
        "rows": np.arange(n),
        # ids unrelated to the rows (so a row must be found by a merge of the keys)
        "random": np.array(rnd.sample(range(10 * n + 1), n), dtype=np.int64) * 3 + 5,
        "reversed": (n - np.arange(n)) << 40,
    }[id_kind]
    on_dask = with_ids(trace, ids, npartitions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in derivations:
            getattr(on_dask, method)()
        assert_lossless(on_dask, tmp_path_factory.mktemp("store"), "t")


def test_a_synthetic_run_with_every_derived_column_round_trips(dask_client, tmp_path):
    from glade.datasets import synthetic_trace

    trace = synthetic_trace(6, 4, exchange="halo", imbalance=0.3)
    on_dask = trace.to_dask(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in DERIVATIONS:
            getattr(on_dask, method)()
        derived = trace.copy()
        for method in DERIVATIONS:
            getattr(derived, method)()
    store = on_dask.to_parquet(tmp_path / "run")
    assert sorted(p.name for p in (store / "events").iterdir()) == [
        f"Process={p}" for p in range(6)
    ]
    back = Trace.from_parquet(store)
    pd.testing.assert_frame_equal(back.events, derived.events, check_exact=True)
    assert back.metadata == on_dask.metadata
    # messages name events of other partitions: their rows, checked by hand on one send
    events = back.events
    send = int(np.flatnonzero((events["Name"] == "MpiIsend").to_numpy())[0])
    partner = int(events["_matching_event"].iloc[send])
    assert events["Name"].iloc[partner] == "MpiIrecv"
    assert events["Process"].iloc[partner] == events["Partner"].iloc[send]
    assert events["Timestamp (ns)"].iloc[partner] == events["_matching_timestamp"].iloc[send]
    assert_lossless(on_dask, tmp_path, "again")
    with pytest.raises(GladeError, match="exists"):
        on_dask.to_parquet(store)
    on_dask.to_parquet(store, overwrite=True)
    pd.testing.assert_frame_equal(Trace.from_parquet(store).events, derived.events)


def test_a_store_read_on_dask_and_stored_again_is_the_same(dask_client, tmp_path):
    from glade.datasets import write_synthetic_trace

    first = write_synthetic_trace(tmp_path / "run", processes=5, iterations=3, exchange="halo")
    on_dask = Trace.from_parquet(first, engine="dask", npartitions=3)  # ids: not the rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dask.match_messages()
        on_dask.calc_inc_metrics()
    assert_lossless(on_dask, tmp_path, "copy")


def test_a_real_trace_stored_from_the_workers_keeps_its_definitions(
    dask_client, pipit_data, tmp_path
):
    pytest.importorskip("otf2", reason="the OTF2 reader needs the glade[otf2] extra")
    trace = Trace.from_otf2(pipit_data / "ping-pong-otf2")
    on_dask = Trace.from_otf2(pipit_data / "ping-pong-otf2", engine="dask")
    on_dask.match_messages()
    store = on_dask.to_parquet(tmp_path / "pp")
    back = Trace.from_parquet(store)
    trace.match_messages()
    pd.testing.assert_frame_equal(back.events, trace.events, check_exact=True)
    pd.testing.assert_frame_equal(back.definitions, trace.definitions)
    assert back.metadata == trace.metadata


def test_a_damaged_dask_store_is_a_reader_error(dask_client, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from glade.datasets import synthetic_trace

    on_dask = synthetic_trace(3, 2, exchange="halo").to_dask(2)
    on_dask.match_events()
    store = on_dask.to_parquet(tmp_path / "run")
    part = store / "events" / "Process=1" / "part-0.parquet"
    table = pq.read_table(part)
    rows = table.column("__glade_row__").to_numpy().copy()
    rows[1] = rows[0]  # two events claim one row
    pq.write_table(
        table.set_column(
            table.column_names.index("__glade_row__"), "__glade_row__", pa.array(rows)
        ),
        part,
    )
    with pytest.raises(ReaderError, match="permutation"):
        Trace.from_parquet(store)
    part.write_bytes(b"not parquet")
    with pytest.raises(ReaderError, match="Process=1"):
        Trace.from_parquet(store, engine="dask").flat_profile()
    # a store of reference columns without each event's row cannot give Dask event ids
    sidecar = store / "glade.json"
    body = json.loads(sidecar.read_text())
    body["events"]["order"] = "time"
    sidecar.write_text(json.dumps(body))
    with pytest.raises(ReaderError, match="reference columns"):
        Trace.from_parquet(store, engine="dask")


def test_calls_that_no_longer_nest_fail_on_the_workers(dask_client, tmp_path):
    import pyarrow.parquet as pq

    from glade.datasets import synthetic_trace

    on_dask = synthetic_trace(3, 2).to_dask(2)
    store = on_dask.to_parquet(tmp_path / "run")
    # written by the workers, the store records how each process's calls nest
    nested = json.loads((store / "glade.json").read_text())["events"]["nesting"]
    assert nested == {"orphan_leaves": [0, 0, 0], "open_enters": [0, 0, 0]}
    part = store / "events" / "Process=2" / "part-0.parquet"
    table = pq.read_table(part)
    frame = table.to_pandas()
    kinds = frame["Event Type"].astype(str).to_numpy()
    kinds[-1] = "Instant"  # the last Leave (of main) is lost
    frame["Event Type"] = pd.Categorical(kinds, categories=frame["Event Type"].cat.categories)
    pq.write_table(pa_table(frame, table.schema), part)
    with pytest.raises(ReaderError, match="holds 1 Enters never left") as err:
        Trace.from_parquet(store, engine="dask", npartitions=2).flat_profile()
    assert err.value.path == str(part)


def pa_table(frame: pd.DataFrame, schema):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, schema=schema, preserve_index=False)


def test_relative_paths_reach_workers_in_another_directory(dask_client, tmp_path, monkeypatch):
    # the cluster's workers started in the test session's directory, not in tmp_path
    from glade.datasets import write_synthetic_trace

    monkeypatch.chdir(tmp_path)
    write_synthetic_trace("run", processes=3, iterations=2)
    on_dask = Trace.from_parquet("run", engine="dask", npartitions=2)
    on_dask.match_events()
    on_dask.to_parquet("copy")
    pd.testing.assert_frame_equal(
        Trace.from_parquet("copy").events, on_dask.compute().events, check_exact=True
    )
