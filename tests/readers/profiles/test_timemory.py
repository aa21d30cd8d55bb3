"""The timemory tree JSON reader on Hatchet's real 2-rank wall.tree.json."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import numpy as np
import pytest

from glade.errors import ReaderError
from glade.profile import GraphFrame
from glade.readers.profiles.timemory import _region, detect, read_timemory
from tests.readers.corruption import copy_input, empty, garble, truncate
from tests.readers.helpers import edit_json


@pytest.fixture(scope="module")
def tree_file(hatchet_data: Path) -> Path:
    return hatchet_data / "timemory" / "wall.tree.json"


@pytest.fixture(scope="module")
def gf(tree_file: Path) -> GraphFrame:
    return read_timemory(tree_file)


def paths(gf: GraphFrame) -> list[tuple[str, ...]]:
    return [n.path() for n in gf.graph.nodes()]


def test_tree_and_ranks(gf):
    # WALL_CLOCK.mpi holds 2 ranks; each has a hash-0 placeholder root over
    # outer-loop-0 and outer-loop-1, each with inner-loop-0/1, each with do-sleep and consume.
    graph = gf.graph
    assert len(graph) == 14 and graph.is_tree()
    assert [n.name for n in graph.roots] == [
        "generate_history/outer-loop-0",
        "generate_history/outer-loop-1",
    ]
    assert paths(gf)[:4] == [
        ("generate_history/outer-loop-0",),
        ("generate_history/outer-loop-0", "generate_history/inner-loop-0"),
        (
            "generate_history/outer-loop-0",
            "generate_history/inner-loop-0",
            "generate_history/do-sleep",
        ),
        (
            "generate_history/outer-loop-0",
            "generate_history/inner-loop-0",
            "generate_history/consume",
        ),
    ]
    leaves = set(graph.names[graph.num_children == 0])
    assert leaves == {"generate_history/do-sleep", "generate_history/consume"}
    assert int((graph.num_children == 0).sum()) == 8
    assert gf.dataframe.index.names == ["node", "rank"]
    assert len(gf.dataframe) == 28


def test_frames(gf):
    # prefix "generate_history@hatchet_tests.cpp:114/outer-loop-0" -> func@file:line/tail
    assert gf.node(0).frame == {
        "name": "generate_history/outer-loop-0",
        "type": "region",
        "file": "hatchet_tests.cpp",
        "line": 114.0,
    }
    # prefix "generate_history/do-sleep" has no file or line
    assert gf.node(2).frame == {"name": "generate_history/do-sleep", "type": "region"}


def test_metric_values(gf):
    # mpi[0][0].children[0].node: inclusive.stats.sum 35.638487534999996,
    # exclusive.stats.sum 1.5015853749999977, inclusive min 5.803666744, laps 3, pid 41379,
    # tid [1, 2]; on rank 1 (mpi[1]) the inclusive sum is 33.403509927.
    df = gf.dataframe
    row = df.loc[(0, 0)]
    assert row["sum.wall_clock (inc)"] == pytest.approx(35.638487534999996)
    assert row["sum.wall_clock"] == pytest.approx(1.5015853749999977)
    assert row["min.wall_clock (inc)"] == pytest.approx(5.803666744)
    assert row["stddev.wall_clock"] == pytest.approx(4.643330229683394)
    assert (row["count"], row["pid"], row["thread"]) == (3, 41379, "1,2")
    assert df.loc[(0, 1), "sum.wall_clock (inc)"] == pytest.approx(33.403509927)
    assert df.loc[(0, 1), "pid"] == 41380
    assert gf.exc_metrics == ["sum.wall_clock"]
    assert gf.inc_metrics == ["sum.wall_clock (inc)"]
    assert gf.default_metric == "sum.wall_clock (inc)"
    assert gf.metadata["unit.wall_clock"] == "sec"


def test_exclusive_sums_add_up_to_inclusive(gf):
    # the file's inclusive sums equal the sums of its exclusive ones over each subtree
    recomputed = gf.update_inclusive_columns(["sum.wall_clock"])
    np.testing.assert_allclose(
        recomputed.dataframe["sum.wall_clock (inc)"], gf.dataframe["sum.wall_clock (inc)"]
    )


def test_directory_of_tree_files(tree_file, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(tree_file, folder / "wall.tree.json")
    gf = read_timemory(folder)
    assert len(gf.graph) == 14 and len(gf.dataframe) == 28


def test_two_components_line_up(tree_file, tmp_path):
    def add_cpu(data):
        data["timemory"]["CPU_CLOCK"] = copy.deepcopy(data["timemory"]["WALL_CLOCK"])

    gf = read_timemory(edit_json(tree_file, tmp_path / "edited.tree.json", add_cpu))
    assert gf.exc_metrics == ["sum.wall_clock", "sum.cpu_clock"]
    df = gf.dataframe
    assert len(gf.graph) == 14 and len(df) == 28
    assert (df["sum.cpu_clock"] == df["sum.wall_clock"]).all()
    assert (df["max.cpu_clock (inc)"] == df["max.wall_clock (inc)"]).all()
    assert df.loc[(0, 0), "count"] == 3


def test_multi_valued_component(tree_file, tmp_path):
    # A component measuring two values per region: its "type" names them and every
    # stat is a list; make one from wall_clock with the values (v, 2 v).
    def vectorize(data):
        comp = data["timemory"].pop("WALL_CLOCK")
        comp["type"] = ["Total cycles", "L2_misses"]
        stack = [t for rank in comp["mpi"] for t in rank]
        while stack:
            item = stack.pop()
            for block in ("inclusive", "exclusive"):
                stats = item["node"][block]["stats"]
                for key in ("sum", "min", "max", "sqr", "mean", "stddev"):
                    stats[key] = [stats[key], 2 * stats[key]]
            stack.extend(item.get("children", []))
        data["timemory"]["PAPI_ARRAY"] = comp

    gf = read_timemory(edit_json(tree_file, tmp_path / "edited.tree.json", vectorize))
    assert gf.exc_metrics == ["sum.Total-cycles", "sum.L2-misses"]
    df = gf.dataframe
    assert df.loc[(0, 0), "sum.Total-cycles (inc)"] == pytest.approx(35.638487534999996)
    assert df.loc[(0, 0), "sum.L2-misses (inc)"] == pytest.approx(2 * 35.638487534999996)


def test_single_thread_records_give_a_thread_level(tree_file, tmp_path):
    # Split rank 0's tree into one tree per thread (tid [1] and [2]), both under rank 0.
    def per_thread(data):
        comp = data["timemory"]["WALL_CLOCK"]
        rank0 = comp["mpi"][0][0]
        second = copy.deepcopy(rank0)
        for tree, tid in ((rank0, 1), (second, 2)):
            stack = list(tree["children"])
            while stack:
                item = stack.pop()
                item["node"]["tid"] = [tid]
                stack.extend(item.get("children", []))
        comp["mpi"] = [[rank0, second]]

    gf = read_timemory(edit_json(tree_file, tmp_path / "edited.tree.json", per_thread))
    assert gf.dataframe.index.names == ["node", "thread"]
    assert len(gf.graph) == 14 and len(gf.dataframe) == 28
    assert gf.dataframe.loc[(0, 2), "sum.wall_clock (inc)"] == pytest.approx(35.638487534999996)


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        (
            "generate_history@hatchet_tests.cpp:114/outer-loop-0",
            ("generate_history/outer-loop-0", "hatchet_tests.cpp", 114.0),
        ),
        ("main/file.cpp:7", ("main", "file.cpp", 7.0)),
        ("[solve][solver.py]", ("solve", "solver.py", np.nan)),
        ("compute  [kernel/mod.cpp:42]", ("compute", "mod.cpp", 42.0)),
        ("run@driver.c/setup", ("run/setup", "driver.c", np.nan)),
        ("loop:12/body", ("loop/body", None, 12.0)),
        ("generate_history/do-sleep", ("generate_history/do-sleep", None, np.nan)),
    ],
    ids=[
        "func-file-line-tail",
        "func-file-line",
        "brackets",
        "labelled",
        "func-file-tail",
        "func-line-tail",
        "plain",
    ],
)
def test_region_labels(prefix, expected):
    np.testing.assert_equal(_region(prefix), expected)


def test_detect(tree_file, hatchet_data, tmp_path):
    assert detect(tree_file)
    assert detect(tree_file.parent)
    json_file = hatchet_data / "pyinstrument-hatchet-json" / "pyinstrument-hatchet-profile.json"
    assert not detect(json_file)
    assert not detect(hatchet_data / "tau-cpi-mpi")
    assert not detect(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "damage",
    [truncate, empty, garble, lambda p: garble(p, offset=5000)],
    ids=["truncated", "empty", "garbled", "garbled-inside"],
)
def test_damaged_file(tree_file, tmp_path, damage):
    path = damage(copy_input(tree_file, tmp_path))
    with pytest.raises(ReaderError, match="not valid JSON") as err:
        read_timemory(path)
    assert err.value.path == str(path)


def test_wrong_format(hatchet_data):
    path = hatchet_data / "pyinstrument-hatchet-json" / "pyinstrument-hatchet-profile.json"
    with pytest.raises(ReaderError, match="no top-level 'timemory'") as err:
        read_timemory(path)
    assert err.value.path == str(path)


def _wall(data: dict) -> dict:
    return data["timemory"]["WALL_CLOCK"]


def _first_region(data: dict) -> dict:
    return _wall(data)["mpi"][0][0]["children"][0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(timemory={}), "lists no components"),
        (lambda d: d["timemory"].update(WALL_CLOCK=[]), "is not an object"),
        (lambda d: _wall(d).pop("mpi"), "no component has a call tree"),
        (lambda d: _wall(d).update(mpi={"0": {}}), "not a list of ranks"),
        (lambda d: _first_region(d)["node"].pop("inclusive"), "malformed node"),
        (lambda d: _first_region(d)["node"].update(tid="one"), "malformed node"),
        (lambda d: _first_region(d).pop("node"), "needs a 'node' object"),
        (lambda d: _first_region(d).update(children={}), "not a list"),
        (
            lambda d: _first_region(d)["node"]["exclusive"]["stats"].update(sum=[1.0, 2.0]),
            "mixes lists",
        ),
        (
            lambda d: _first_region(d)["node"]["exclusive"]["stats"].update(sum="x"),
            "component 'WALL_CLOCK'",
        ),
        (
            lambda d: d["timemory"].update(CPU_CLOCK=dict(_wall(d), graph=_wall(d)["mpi"][0])),
            "per-rank trees and others do not",
        ),
    ],
    ids=[
        "no-components",
        "component-list",
        "no-trees",
        "ranks-dict",
        "no-inclusive",
        "text-tid",
        "no-node",
        "children-dict",
        "ragged-stat",
        "text-stat",
        "mixed-ranks",
    ],
)
def test_malformed_content(tree_file, tmp_path, change, message):
    path = edit_json(tree_file, tmp_path / "edited.tree.json", change)
    with pytest.raises(ReaderError, match=message) as err:
        read_timemory(path)
    assert err.value.path == str(path)


def test_missing_input(tmp_path):
    with pytest.raises(ReaderError, match="no such file"):
        read_timemory(tmp_path / "missing.tree.json")
    with pytest.raises(ReaderError, match=r"no \*\.tree\.json"):
        read_timemory(tmp_path)
