"""Arrays kept on disk (:mod:`glade.trace.engines.spill`): written once, read back the
same, read-only, in a fresh directory that goes with its object and nothing else; and a
timeline part that spills answers as one held in memory, also once moved (pickled) to
another worker; the parts of one worker answer a picture in one task as each would."""

from __future__ import annotations

import gc
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from glade.trace.engines import spill as spill_module
from glade.trace.engines.spill import SpillDirectory, is_mapped


def test_arrays_come_back_the_same_read_only_and_small_ones_stay_in_memory(tmp_path):
    spill = SpillDirectory(str(tmp_path))
    big = np.arange(300_000, dtype=np.int64).reshape(-1, 3) * 7
    kept = spill.array(big)
    assert is_mapped(kept) and not kept.flags.writeable
    np.testing.assert_array_equal(kept, big)
    assert kept.dtype == big.dtype and kept.shape == big.shape
    assert spill.array(kept) is kept  # already on disk: not written twice
    small = np.arange(10)
    assert spill.array(small) is small and not is_mapped(small)
    empty = np.zeros(0)
    assert spill.array(empty) is empty
    assert spill.nbytes() == big.nbytes
    spill.release()  # pages given back, values read again from the file
    assert int(kept[99_999, 2]) == 7 * 299_999
    assert pickle.loads(pickle.dumps(kept)).tolist() == big.tolist()


def test_objects_are_read_back_afresh(tmp_path):
    spill = SpillDirectory(str(tmp_path))
    path = spill.put({"a": [1, 2]})
    first = SpillDirectory.get(path)
    first["a"].append(3)
    assert SpillDirectory.get(path) == {"a": [1, 2]}


def test_the_directory_is_fresh_and_only_it_goes_when_closed_or_collected(tmp_path):
    (tmp_path / "theirs.txt").write_text("not glade's")
    one, two = SpillDirectory(str(tmp_path)), SpillDirectory(str(tmp_path))
    assert one.path != two.path and one.path.parent == tmp_path
    kept = one.array(np.arange(500_000))
    one.close()
    assert not one.path.exists() and two.path.exists()
    assert int(kept[-1]) == 499_999  # a mapped array stays readable
    path = two.path
    two.array(np.ones(500_000))
    del two
    gc.collect()
    assert not path.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.txt"]


def test_a_part_that_spills_answers_as_one_in_memory_also_once_pickled(monkeypatch):
    pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")
    from glade.datasets import synthetic_trace
    from glade.trace.engines.timeline import TimelinePart
    from glade.trace.timeline.render import Request, row_layout

    monkeypatch.setattr(spill_module, "SPILL_BYTES", 0)  # every array goes to disk
    trace = synthetic_trace(3, 6, exchange="ring").to_dask(1)
    part, names = trace.events.partitions[0].compute(), trace.name_labels()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        held = TimelinePart(part, trace.metadata, None, names)
        spilled = TimelinePart(part, trace.metadata, None, names, spill=True)
    assert is_mapped(spilled.forest.start) and is_mapped(spilled.index.call_start)
    # its events are written without the message columns' -1s, read back the same
    assert {"Partner", "Tag", "Message Size"} <= set(SpillDirectory.get(spilled._trace)[1])
    columns = list(part.columns)
    pd.testing.assert_frame_equal(spilled.trace.events[columns], held.trace.events[columns])
    assert spilled.nbytes() < held.nbytes() / 4
    moved = pickle.loads(pickle.dumps(spilled))
    assert moved._spill.path != spilled._spill.path and is_mapped(moved.forest.start)
    first, last = held.size()[1:]
    layout = row_layout(0, 3, 3)
    for t0, t1, width in [(first, last, 50), (first + (last - first) // 3, last, 7)]:
        request = Request(t0, t1, width, 0, 3, 3)
        want = held.share(request, np.arange(3), layout, 0)
        for other in (spilled, moved):
            got = other.share(request, np.arange(3), layout, 0)
            for got_part, want_part in zip(got["raster"], want["raster"], strict=True):
                np.testing.assert_array_equal(got_part, want_part)  # its rows, their pixels
            for field, values in want["boxes"].items():
                np.testing.assert_array_equal(got["boxes"][field], values, field)
    query = 'MATCH (".", n) WHERE n.name = "MPI_Send"'
    assert np.array_equal(held.kept(query, "").index.keep, moved.kept(query, "").index.keep)
    assert held.selected(query, 5).equals(spilled.selected(query, 5))
    edges = np.linspace(first, last, 5)
    for key, value in held.summary(edges, len(names)).items():
        np.testing.assert_array_equal(spilled.summary(edges, len(names))[key], value, key)


def test_spilling_needs_a_place_to_write(tmp_path):
    with pytest.raises(FileNotFoundError):
        SpillDirectory(str(tmp_path / "absent"))


def test_a_file_put_in_the_directory_by_someone_else_stays(tmp_path):
    spill = SpillDirectory(str(tmp_path))
    spill.array(np.arange(500_000))
    spill.put({"a": 1})
    theirs = spill.path / "theirs.txt"
    theirs.write_text("not glade's")
    spill.close()
    assert theirs.read_text() == "not glade's"
    assert [p.name for p in spill.path.iterdir()] == ["theirs.txt"]


def _directory() -> str | None:
    return spill_module.worker_directory()


def _local_directory(dask_worker) -> str:
    return dask_worker.local_directory


def test_outside_a_task_a_worker_writes_in_its_own_directory(dask_client):
    # what unpickles a part that arrives from another worker (or back from Dask's own
    # spill) runs outside any task: it writes where the worker's tasks write, not /tmp
    workers = dask_client.run(_local_directory)
    for address, directory in workers.items():
        assert dask_client.submit(_directory, workers=[address], pure=False).result() == directory
    assert dask_client.run(_directory) == workers


@pytest.mark.parametrize("pooled", [False, True])
def test_the_shares_of_several_parts_are_their_shares_joined(monkeypatch, pooled):
    pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")
    from glade.datasets import synthetic_trace
    from glade.trace.engines.rasters import add_band, empty_raster
    from glade.trace.engines.timeline import TimelinePart, shares
    from glade.trace.timeline import render
    from glade.trace.timeline.render import Request, row_layout

    if pooled:  # every part counts its instants per pixel
        monkeypatch.setattr(render, "MAX_INSTANTS", 1)

    trace = synthetic_trace(6, 8, exchange="ring").to_dask(2)
    names = trace.name_labels()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = [
            TimelinePart(trace.events.partitions[k].compute(), trace.metadata, None, names)
            for k in range(2)
        ]
    rows = [p.index.lanes.num_rows(False) for p in parts]
    bases = [np.arange(rows[0]), rows[0] + np.arange(rows[1])]  # the display rows of each
    offsets = [0, len(parts[0].forest)]
    first, last = parts[0].size()[1:]
    layout = row_layout(0, 6, 2)  # three rows per raster row
    request = Request(first, last, 40, 0, 6, 2)
    one = [p.share(request, b, layout, o) for p, b, o in zip(parts, bases, offsets, strict=True)]
    both = shares(parts, request, bases, layout, offsets)

    def whole(*bands):  # the raster the bands' rows make
        raster = empty_raster(layout[3], request.width)
        for found, band in bands:
            add_band(raster, found, band)
        return raster

    np.testing.assert_array_equal(both["raster"][0], [0, 1])  # both raster rows hold time
    np.testing.assert_allclose(whole(both["raster"]), whole(*(s["raster"] for s in one)))
    for field, values in both["boxes"].items():
        np.testing.assert_array_equal(values, np.concatenate([s["boxes"][field] for s in one]))
    assert both["visible"] == sum(s["visible"] for s in one)
    instants = [found for s in one for found in s["instants"]]
    exact = [found for found in instants if "count" not in found]
    counts = [found["count"] for found in instants if "count" in found]
    assert len(both["instants"]) == len(exact) + bool(counts)
    for got, want in zip(both["instants"], exact, strict=False):
        for field, values in want.items():
            np.testing.assert_array_equal(got[field], values, field)
    assert len(counts) == (2 if pooled else 0)
    if counts:
        np.testing.assert_array_equal(both["instants"][-1]["count"], np.sum(counts, axis=0))
