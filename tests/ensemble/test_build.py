"""Building ensembles: from files (lists, directories, globs; in parallel), from
GraphFrames, profile ids, the unified graph, the three tables, and every error."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import glade
from glade.datasets import synthetic_profile
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.ensemble.build import content_hash
from glade.errors import GladeError, GraphError, ReaderError
from tests.ensemble.oracles import (
    METRIC,
    call_paths,
    ensemble_values,
    profile_values,
    same_ensemble,
)
from tests.readers.corruption import copy_input, truncate


def test_rows_are_each_profiles_own_values(rajaperf, raw_profiles):
    # Every (call path, profile) value of the ensemble is the value the profile's own
    # file gives at that call path, and nothing else is there.
    expected = {}
    for path, gf in raw_profiles.items():
        pid = rajaperf.metadata.index[rajaperf.metadata["path"] == str(path)][0]
        expected.update({(cp, pid): v for cp, v in profile_values(gf, METRIC).items()})
    assert ensemble_values(rajaperf, METRIC) == expected


def test_graph_is_the_union_of_call_paths(rajaperf, raw_profiles):
    union = set()
    for gf in raw_profiles.values():
        union |= set(call_paths(gf.graph))
    paths = call_paths(rajaperf.graph)
    assert len(paths) == len(set(paths)) == len(union)
    assert set(paths) == union


def test_tables_shape_and_index(rajaperf, raw_profiles):
    df = rajaperf.dataframe
    assert list(df.index.names) == ["node", "profile"]
    assert len(df) == sum(len(gf.dataframe) for gf in raw_profiles.values())
    assert df.index.is_monotonic_increasing or np.all(
        np.diff(df.index.get_level_values("node")) >= 0
    )
    assert list(df.columns[-2:]) == ["name", "type"]
    assert rajaperf.metadata.index.name == "profile"
    assert list(rajaperf.metadata.index) == rajaperf.profiles
    assert len(rajaperf.stats) == len(rajaperf.graph)
    assert list(rajaperf.stats.columns) == ["name"]


def test_metadata_holds_each_profiles_metadata_and_path(rajaperf, raw_profiles):
    for path, gf in raw_profiles.items():
        row = rajaperf.metadata[rajaperf.metadata["path"] == str(path)]
        assert len(row) == 1
        assert row["compiler"].iloc[0] == gf.metadata["compiler"]
        assert row["ProblemSizeRunParam"].iloc[0] == gf.metadata["ProblemSizeRunParam"]


def test_profile_ids_are_content_hashes_not_paths(rajaperf, raw_profiles, tmp_path):
    for path, gf in raw_profiles.items():
        pid = rajaperf.metadata.index[rajaperf.metadata["path"] == str(path)][0]
        assert pid == content_hash(gf)
        assert re.fullmatch(r"[0-9a-f]{12}", pid)
    # the same content under another file name gets the same id
    first = next(iter(raw_profiles))
    copy = tmp_path / "renamed.cali"
    shutil.copy(first, copy)
    moved = Ensemble.from_files([copy], workers=1, progress=False)
    assert moved.profiles == [content_hash(raw_profiles[first])]


def test_directory_glob_and_list_give_the_same_ensemble(rajaperf, rajaperf_dir, rajaperf_files):
    from_dir = Ensemble.from_files(rajaperf_dir, workers=1, progress=False)
    from_glob = Ensemble.from_files(str(rajaperf_dir / "**" / "*.cali"), workers=1, progress=False)
    assert from_dir.profiles == from_glob.profiles == rajaperf.profiles
    pd.testing.assert_frame_equal(from_dir.dataframe, rajaperf.dataframe)
    pd.testing.assert_frame_equal(from_glob.dataframe, rajaperf.dataframe)


def test_parallel_reading_equals_reading_here(rajaperf, rajaperf_files):
    parallel = Ensemble.from_files(rajaperf_files, workers=2, progress=False)
    assert parallel.profiles == rajaperf.profiles
    pd.testing.assert_frame_equal(parallel.dataframe, rajaperf.dataframe)
    pd.testing.assert_frame_equal(parallel.metadata, rajaperf.metadata)


def test_same_file_twice_needs_two_labels(rajaperf_files):
    path = rajaperf_files[0]
    with pytest.raises(GladeError, match="same content"):
        Ensemble.from_files([path, path], workers=1, progress=False)
    twice = Ensemble.from_files([path, path], labels=["first", "second"], workers=1, progress=False)
    assert twice.profiles == ["first", "second"]
    values = twice.dataframe[METRIC].unstack("profile")
    np.testing.assert_array_equal(values["first"].to_numpy(), values["second"].to_numpy())


def test_reader_by_name_and_function(rajaperf_files):
    some = rajaperf_files[:3]
    by_name = Ensemble.from_files(some, reader="caliper", workers=1, progress=False)
    by_function = Ensemble.from_files(
        some, reader=glade.GraphFrame.from_caliper, workers=2, progress=False
    )
    pd.testing.assert_frame_equal(by_name.dataframe, by_function.dataframe)


def test_from_graphframes_labels_and_metadata():
    gfs = synthetic_ensemble(6, 40)
    ens = Ensemble.from_graphframes(
        gfs, metadata=[{"batch": i % 2} for i in range(6)], labels=[f"run{i}" for i in range(6)]
    )
    assert ens.profiles == [f"run{i}" for i in range(6)]
    assert ens.metadata["batch"].tolist() == [0, 1, 0, 1, 0, 1]
    assert ens.metadata["compiler"].tolist() == [gf.metadata["compiler"] for gf in gfs]
    keyed = Ensemble.from_graphframes(dict(zip(ens.profiles, gfs, strict=True)))
    pd.testing.assert_frame_equal(keyed.dataframe, ens.dataframe)
    assert ens.exc_metrics == ["time"] and ens.inc_metrics == ["time (inc)"]


def test_ranks_become_an_index_level():
    gfs = [synthetic_profile(30, ranks=4, seed=1), synthetic_profile(30, ranks=4, seed=1)]
    ens = Ensemble.from_graphframes(gfs, labels=["a", "b"])
    assert list(ens.dataframe.index.names) == ["node", "profile", "rank"]
    assert len(ens.dataframe) == 2 * 30 * 4
    row = ens.dataframe.loc[(3, "b", 2)]
    assert row["time"] == gfs[1].dataframe.loc[(3, 2), "time"]


def test_nodes_without_data_anywhere_are_not_in_the_ensemble():
    # main -> idle, main -> wrapper -> work. "idle" has only NaN and nothing below it:
    # the missing-data rule leaves it out; "wrapper" has no value itself but data
    # below it, so it stays (call paths stay whole).
    graph, _ = glade.Graph.from_parents(
        pd.DataFrame({"name": ["main", "idle", "wrapper", "work"]}), [-1, 0, 0, 2]
    )
    rows = pd.DataFrame(
        {"time": [1.0, np.nan, np.nan, 2.0], "name": graph.names},
        index=pd.Index(range(4), name="node"),
    )
    gf = glade.GraphFrame(graph, rows)
    ens = Ensemble.from_graphframes([gf], labels=["p"])
    assert sorted(ens.graph.names) == ["main", "work", "wrapper"]


def test_nan_rows_and_absent_rows_give_the_same_ensemble():
    gfs = synthetic_ensemble(9, 200, seed=3)
    sparse = Ensemble.from_graphframes(gfs)
    full_index = pd.MultiIndex.from_product(
        [range(len(sparse.graph)), sparse.profiles], names=["node", "profile"]
    )
    padded_rows = sparse.dataframe[sparse.metric_columns].reindex(full_index)
    padded = Ensemble(
        sparse.graph, padded_rows, sparse.metadata, sparse.exc_metrics, sparse.inc_metrics
    )
    assert len(padded.dataframe) > len(sparse.dataframe)
    for ids in (sparse.profiles[:1], sparse.profiles[::3], sparse.profiles[2:5]):
        a, b = sparse.filter_profiles(ids), padded.filter_profiles(ids)
        assert call_paths(a.graph) == call_paths(b.graph)
        assert ensemble_values(a, "time") == ensemble_values(b, "time")
    assert call_paths(sparse.intersection().graph) == call_paths(padded.intersection().graph)
    query = "MATCH (p) WHERE p.time > 20"
    assert [n.nid for n in sparse.match(query, profile_mode="all")] == [
        n.nid for n in padded.match(query, profile_mode="all")
    ]


def test_constructor_round_trip():
    ens = Ensemble.from_graphframes(synthetic_ensemble(4, 30))
    again = Ensemble(ens.graph, ens.dataframe, ens.metadata, ens.exc_metrics, ens.inc_metrics)
    same_ensemble(ens, again)


# ----------------------------------------------------------------- errors
def test_missing_and_unreadable_files_are_named(rajaperf_files, tmp_path):
    with pytest.raises(ReaderError, match="no such file"):
        Ensemble.from_files([rajaperf_files[0], tmp_path / "nope.cali"], progress=False)
    broken = truncate(copy_input(rajaperf_files[1], tmp_path))
    for workers in (1, 2):
        with pytest.raises(ReaderError) as info:
            Ensemble.from_files(
                [rajaperf_files[0], broken], reader="caliper", workers=workers, progress=False
            )
        assert info.value.path == str(broken)


def test_sources_that_name_no_profile(tmp_path):
    with pytest.raises(ReaderError, match="matches no file"):
        Ensemble.from_files(str(tmp_path / "*.cali"), progress=False)
    (tmp_path / "notes.txt").write_text("not a profile")
    with pytest.raises(ReaderError, match="no profile found"):
        Ensemble.from_files(tmp_path, progress=False)
    with pytest.raises(GladeError, match="no profile files"):
        Ensemble.from_files([], progress=False)


def test_bad_reader_and_workers(rajaperf_files):
    with pytest.raises(GladeError, match="unknown reader 'excel'"):
        Ensemble.from_files(rajaperf_files[:1], reader="excel")
    with pytest.raises(GladeError, match="workers"):
        Ensemble.from_files(rajaperf_files[:1], workers=0)
    with pytest.raises(ReaderError, match="returned a int"):
        Ensemble.from_files(rajaperf_files[:1], reader=len, workers=1, progress=False)


def test_bad_graphframes_labels_and_metadata():
    gfs = synthetic_ensemble(3, 20)
    with pytest.raises(GladeError, match="profile 1 is a str"):
        Ensemble.from_graphframes([gfs[0], "profile"])
    with pytest.raises(GladeError, match="2 labels for 3 profiles"):
        Ensemble.from_graphframes(gfs, labels=["a", "b"])
    with pytest.raises(GladeError, match="same label 'a'"):
        Ensemble.from_graphframes(gfs, labels=["a", "b", "a"])
    with pytest.raises(GladeError, match="not a string or a number"):
        Ensemble.from_graphframes(gfs, labels=["a", ("b",), "c"])
    with pytest.raises(GladeError, match="1 metadata entries for 3 profiles"):
        Ensemble.from_graphframes(gfs, metadata=[{}])
    with pytest.raises(GladeError, match="at least one profile"):
        Ensemble.from_graphframes([])


def test_mixed_index_levels_are_refused():
    with pytest.raises(GladeError, match="same index levels"):
        Ensemble.from_graphframes([synthetic_profile(20), synthetic_profile(20, ranks=2)])


def test_a_metric_with_two_kinds_is_refused():
    gf = synthetic_profile(20)
    other = glade.GraphFrame(gf.graph, gf.dataframe, exc_metrics=[], inc_metrics=["time"])
    with pytest.raises(GladeError, match=r"metric 'time.*' is \w+ in profile '\w+' but"):
        Ensemble.from_graphframes([gf, other])


def test_constructor_checks_its_tables():
    ens = Ensemble.from_graphframes(synthetic_ensemble(2, 20))
    with pytest.raises(GraphError, match="'node', 'profile'"):
        Ensemble(ens.graph, ens.dataframe.droplevel("profile"), ens.metadata)
    with pytest.raises(GladeError, match="no metadata row"):
        Ensemble(ens.graph, ens.dataframe, ens.metadata.iloc[:1])


def test_paths_in_metadata_are_the_files(rajaperf, rajaperf_files):
    assert sorted(rajaperf.metadata["path"]) == sorted(str(p) for p in rajaperf_files)
    assert all(Path(p).exists() for p in rajaperf.metadata["path"])


def test_workers_send_each_graph_structure_back_once(tmp_path):
    # 30 runs of three structures (one per compiler): with two workers at most 2 x 3
    # parts come back with a graph, and the ensemble is the one read here.
    from glade.readers.ensembles import read_profiles

    paths = []
    for i, gf in enumerate(synthetic_ensemble(30, 120, seed=5)):
        paths.append(tmp_path / f"run{i:02d}.json")
        gf.to_json(paths[-1])
    parts = read_profiles(paths, None, workers=2, progress=False)
    assert len({p.structure for p in parts}) == 3
    assert 3 <= sum(p.carries_graph for p in parts) <= 6
    parallel = Ensemble.from_files(paths, workers=2, progress=False)
    here = Ensemble.from_files(paths, workers=1, progress=False)
    same_ensemble(parallel, here)
