"""Reading on the cluster: a CSV trace read by blocks and partitioned by process, and an
ensemble whose files the workers read, give what the pandas readers give."""

from __future__ import annotations

import pandas as pd
import pytest

from glade.errors import ReaderError
from glade.trace import Trace

pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")


def test_a_csv_trace_read_by_blocks_is_the_pandas_one(dask_client, tmp_path):
    from glade.datasets import synthetic_trace
    from glade.readers.traces.csv import _header
    from glade.readers.traces.csv_dask import read_csv_dask

    from .test_dask_trace import assert_analyses_alike

    path = tmp_path / "run.csv"
    synthetic_trace(5, 6, exchange="halo", imbalance=0.4).to_csv(path)
    trace = Trace.from_csv(path)
    # 4 kB blocks: a dozen blocks, each cut in the middle of some process's events
    on_dask = read_csv_dask(path, _header(path)[0], npartitions=3, blocksize=4096)
    assert on_dask.npartitions == 3
    computed = on_dask.compute()
    pd.testing.assert_frame_equal(computed.events, trace.events, check_exact=True)
    assert computed.metadata == trace.metadata
    assert_analyses_alike(trace, on_dask)


def test_pipit_foo_bar_csv_on_dask(dask_client, foo_bar_path):
    trace = Trace.from_csv(foo_bar_path)
    on_dask = Trace.from_csv(foo_bar_path, engine="dask", npartitions=2)
    pd.testing.assert_frame_equal(on_dask.compute().events, trace.events, check_exact=True)
    pd.testing.assert_frame_equal(
        on_dask.flat_profile(["time.exc", "count"]), trace.flat_profile(["time.exc", "count"])
    )


def test_a_bad_csv_block_names_the_file_and_block(dask_client, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(
        "Timestamp (s), Event Type, Name, Process\n0, Enter, a, 0\n1, Leave, a, 0\n2, Sleep, b, 1\n"
    )
    with pytest.raises(ReaderError, match=r"bad\.csv: block 0: line 4: unknown event type"):
        Trace.from_csv(path, engine="dask")


def test_an_ensemble_read_on_the_cluster_is_the_local_one(dask_client, thicket_data):
    from glade.ensemble import Ensemble

    files = sorted((thicket_data / "rajaperf").rglob("*.cali"))[:6]
    if not files:
        pytest.skip("no RAJAPerf profiles in the shared data")
    local = Ensemble.from_files(files, workers=1, progress=False)
    remote = Ensemble.from_files(files, client=dask_client, progress=False)
    pd.testing.assert_frame_equal(remote.dataframe, local.dataframe)
    pd.testing.assert_frame_equal(remote.metadata, local.metadata)
    assert len(remote.graph) == len(local.graph)


def test_a_file_the_cluster_cannot_read_is_a_reader_error(dask_client, tmp_path):
    from glade.ensemble import Ensemble

    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ReaderError, match=r"broken\.json"):
        Ensemble.from_files([broken], reader="json", client=dask_client, progress=False)
