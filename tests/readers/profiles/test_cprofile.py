"""The cProfile/pstats reader on Hatchet's real pstats files."""

from __future__ import annotations

import marshal
from pathlib import Path

import numpy as np
import pytest

from glade.errors import ReaderError
from glade.profile import GraphFrame
from glade.readers.profiles.cprofile import detect, read_cprofile
from tests.readers.corruption import copy_input, empty, garble, truncate
from tests.readers.helpers import by_name


@pytest.fixture(scope="module")
def pstats_file(hatchet_data: Path) -> Path:
    return hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats"


@pytest.fixture(scope="module")
def gf(pstats_file: Path) -> GraphFrame:
    return read_cprofile(pstats_file)


def test_nodes_roots_and_leaves(gf):
    # The pstats table lists 9 functions; e (the test driver) and contextlib's
    # __exit__ have no callers; disable() calls nothing.
    assert len(gf.graph) == 9
    assert [n.name for n in gf.graph.roots] == ["e", "__exit__"]
    leaves = set(gf.graph.names[gf.graph.num_children == 0])
    assert leaves == {"<method 'disable' of '_lsprof.Profiler' objects>"}
    assert gf.dataframe.index.names == ["node"]


def test_edges_follow_the_callers_table(gf):
    # callers of recursive: g, f and recursive itself; f calls g and recursive
    # (g comes first in the table), e calls f.
    graph = gf.graph
    recursive = by_name(gf, "recursive")
    assert set(graph.names[graph.parents_of(recursive)]) == {"f", "g", "recursive"}
    assert list(graph.names[graph.children_of(by_name(gf, "f"))]) == ["g", "recursive"]
    assert list(graph.names[graph.children_of(by_name(gf, "e"))]) == ["f"]
    assert not graph.is_tree()


def test_recursion_is_a_cycle(gf):
    graph = gf.graph
    reach = graph.reachability().tocsr()
    src, dst = graph.edges()
    # an edge parent -> child where the parent is reachable from the child closes a cycle
    closes_cycle = np.asarray(reach[dst, src]).ravel()
    assert closes_cycle.any()
    assert set(graph.names[dst[closes_cycle]]) == {"recursive"}


def test_frames(gf):
    frame = gf.node(by_name(gf, "g")).frame
    assert frame == {"name": "g", "type": "function", "file": "pstats_reader_test.py", "line": 12}
    builtin = gf.node(by_name(gf, "<built-in method builtins.next>")).frame
    assert builtin["file"] == "~" and builtin["line"] == 0


def test_metric_values(gf):
    # Values read from the file with pstats.Stats(path).stats:
    # ('pstats_reader_test.py', 27, 'recursive'): (1002000, 101202000, 22.7388, 22.7388)
    # ('pstats_reader_test.py', 17, 'e'): (1, 1, 0.000267, 23.0226)
    df = gf.dataframe
    row = df.loc[by_name(gf, "recursive")]
    assert row["time"] == pytest.approx(22.7388)
    assert row["time (inc)"] == pytest.approx(22.7388)
    assert row["numcalls"] == 1002000
    assert row["nativecalls"] == 101202000
    e = df.loc[by_name(gf, "e")]
    assert e["time"] == pytest.approx(0.000267)
    assert e["time (inc)"] == pytest.approx(23.0226)
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert set(gf.other_metrics) == {"numcalls", "nativecalls"}


def test_python2_file_is_refused(hatchet_data):
    path = hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle-py2.pstats"
    with pytest.raises(ReaderError) as err:
        read_cprofile(path)
    assert err.value.path == str(path)
    assert "Python 2" in str(err.value)


def test_detect(pstats_file, hatchet_data, tmp_path):
    assert detect(pstats_file)
    json_file = hatchet_data / "pyinstrument-hatchet-json" / "pyinstrument-hatchet-profile.json"
    assert not detect(json_file)
    assert not detect(hatchet_data / "tau-cpi-mpi")
    assert not detect(tmp_path / "missing")
    assert not detect(empty(tmp_path / "empty.pstats"))


@pytest.mark.parametrize(
    "damage",
    [truncate, empty, garble, lambda p: garble(p, offset=40)],
    ids=["truncated", "empty", "garbled", "garbled-inside"],
)
def test_damaged_file(pstats_file, tmp_path, damage):
    path = damage(copy_input(pstats_file, tmp_path))
    with pytest.raises(ReaderError) as err:
        read_cprofile(path)
    assert err.value.path == str(path)


def test_wrong_format(hatchet_data):
    path = hatchet_data / "pyinstrument-hatchet-json" / "pyinstrument-hatchet-profile.json"
    with pytest.raises(ReaderError) as err:
        read_cprofile(path)
    assert str(path) in str(err.value)


def test_directory_or_missing_path_is_refused(hatchet_data, tmp_path):
    with pytest.raises(ReaderError, match="directory"):
        read_cprofile(hatchet_data / "cprofile-hatchet-pstats")
    with pytest.raises(ReaderError, match="no such file"):
        read_cprofile(tmp_path / "missing.pstats")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ([1, 2, 3], "does not start with a marshalled dict"),
        ({}, "no function"),
        ({("a.py", 1, "f"): (1, 1)}, "malformed entry"),
        ({("a.py", "one", "f"): (1, 1, 0.1, 0.1, {})}, "malformed function key"),
        ({("a.py", 1, 7): (1, 1, 0.1, 0.1, {})}, "malformed function key"),
        ({("a.py", 1, "f"): (1, 1, "x", 0.1, {})}, "not numbers"),
        ({("a.py", 1, "f"): [1, 1, 0.1, 0.1, {}]}, "malformed entry"),
        ({("a.py", 1, "f"): (1, 1, 0.1, 0.1, {("a.py",): (1, 1, 0.1, 0.1)})}, "function key"),
        ({("a.py", 1, "f"): (10**400, 1, 0.1, 0.1, {})}, "not numbers"),
    ],
    ids=[
        "list",
        "empty-dict",
        "short-entry",
        "text-line",
        "bad-key",
        "text-time",
        "list-entry",
        "bad-caller",
        "huge-count",
    ],
)
def test_malformed_tables(tmp_path, table, message):
    path = tmp_path / "bad.pstats"
    path.write_bytes(marshal.dumps(table))
    with pytest.raises(ReaderError, match=message) as err:
        read_cprofile(path)
    assert err.value.path == str(path)


def test_hand_made_table(tmp_path):
    # main calls work twice recursively; helper is called by work and by an unprofiled caller
    main, work, helper, outside = (
        ("m.py", 1, "main"),
        ("m.py", 5, "work"),
        ("m.py", 9, "helper"),
        (
            "x.py",
            3,
            "outside",
        ),
    )
    table = {
        main: (1, 1, 0.5, 3.0, {}),
        work: (1, 2, 1.0, 2.5, {main: (1, 1, 0.5, 2.5), work: (1, 1, 0.5, 1.2)}),
        helper: (2, 2, 1.5, 1.5, {work: (1, 1, 1.0, 1.0), outside: (1, 1, 0.5, 0.5)}),
    }
    path = tmp_path / "hand.pstats"
    path.write_bytes(marshal.dumps(table))
    gf = read_cprofile(path)
    assert list(gf.graph.names) == ["main", "work", "helper", "outside"]
    assert [n.name for n in gf.graph.roots] == ["main", "outside"]
    helper_row = gf.dataframe.loc[2]
    assert helper_row["time"] == 1.5 and helper_row["numcalls"] == 2
    # a caller missing from the table is a node without measurements
    assert gf.dataframe.loc[3, "time"] == 0.0
