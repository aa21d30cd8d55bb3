"""The pyinstrument JSON reader on Hatchet's real pyinstrument profile."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from glade.errors import ReaderError
from glade.profile import GraphFrame
from glade.readers.profiles.checks import RepairWarning
from glade.readers.profiles.pyinstrument import detect, read_pyinstrument
from tests.readers.corruption import copy_input, empty, garble, truncate
from tests.readers.helpers import edit_json


@pytest.fixture(scope="module")
def json_file(hatchet_data: Path) -> Path:
    return hatchet_data / "pyinstrument-hatchet-json" / "pyinstrument-hatchet-profile.json"


@pytest.fixture(scope="module")
def gf(json_file: Path) -> GraphFrame:
    return read_pyinstrument(json_file)


def test_tree_shape(gf):
    # Counted by walking root_frame/children with json.load: 111 frames, 29 without children.
    graph = gf.graph
    assert len(graph) == 111
    assert graph.is_tree()
    assert [n.name for n in graph.roots] == ["<module>"]
    assert int((graph.num_children == 0).sum()) == 29
    # root_frame's children, in file order
    root_children = [gf.node(int(c)).frame for c in graph.children_of(0)]
    assert [(f["name"], f["file"], f["line"]) for f in root_children] == [
        ("<module>", "hatchet/__init__.py", 9),
        ("from_caliper_json", "hatchet/graphframe.py", 98),
        ("__repr__", "pandas/core/frame.py", 726),
        ("print", "<built-in>", 0),
    ]
    assert gf.node(0).frame == {
        "name": "<module>",
        "type": "function",
        "file": "examples.py",
        "line": 1,
    }


def test_inclusive_and_exclusive_time(gf):
    df = gf.dataframe
    # root_frame "time": 0.47815; its children take 0.339553 + 0.063092 + 0.061964 + 0.013541,
    # which is all of it, so the root's own time is 0.
    assert df.loc[0, "time (inc)"] == pytest.approx(0.47815)
    assert df.loc[0, "time"] == pytest.approx(0.0, abs=1e-12)
    # from_caliper_json (graphframe.py:98): time 0.063092, one child "read" with 0.062091
    node = int(gf.graph.children_of(0)[1])
    assert df.loc[node, "time (inc)"] == pytest.approx(0.063092)
    assert df.loc[node, "time"] == pytest.approx(0.063092 - 0.062091)
    assert df.loc[node, "is_application_code"]
    # print (<built-in>) is a leaf: exclusive == inclusive == 0.013541
    leaf = int(gf.graph.children_of(0)[3])
    assert df.loc[leaf, "time"] == df.loc[leaf, "time (inc)"] == pytest.approx(0.013541)
    assert not df.loc[leaf, "is_application_code"]
    # exclusive times add up to the root's inclusive time
    assert df["time"].sum() == pytest.approx(0.47815)
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]


def test_metadata(gf):
    assert gf.metadata["sample_count"] == 432
    assert gf.metadata["duration"] == pytest.approx(0.478172)
    assert gf.metadata["program"] == "examples.py"


def test_detect(json_file, hatchet_data, tmp_path):
    assert detect(json_file)
    assert not detect(hatchet_data / "timemory" / "wall.tree.json")
    assert not detect(hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats")
    assert not detect(hatchet_data / "pyinstrument-hatchet-json")
    assert not detect(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "damage",
    [truncate, empty, garble, lambda p: garble(p, offset=3000)],
    ids=["truncated", "empty", "garbled", "garbled-inside"],
)
def test_damaged_file(json_file, tmp_path, damage):
    path = damage(copy_input(json_file, tmp_path))
    with pytest.raises(ReaderError) as err:
        read_pyinstrument(path)
    assert err.value.path == str(path)


def test_wrong_format(hatchet_data):
    path = hatchet_data / "timemory" / "wall.tree.json"
    with pytest.raises(ReaderError, match="root_frame") as err:
        read_pyinstrument(path)
    assert err.value.path == str(path)


def test_not_json(hatchet_data):
    path = hatchet_data / "tau-cpi-mpi" / "profile.0.0.0"
    with pytest.raises(ReaderError, match="JSON") as err:
        read_pyinstrument(path)
    assert err.value.path == str(path)


def _first_child(data: dict) -> dict:
    return data["root_frame"]["children"][1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(root_frame=None), "no samples"),
        (lambda d: _first_child(d).pop("function"), "root_frame.children\\[1\\] needs"),
        (lambda d: _first_child(d).update(time="slow"), "numeric 'time'"),
        (lambda d: _first_child(d).update(children={}), "not a list"),
        (lambda d: _first_child(d)["children"].append(3), "is a int"),
        (lambda d: _first_child(d).update(line_no="98"), "line_no"),
    ],
    ids=["null-root", "no-function", "text-time", "children-dict", "child-int", "text-line"],
)
def test_malformed_frames(json_file, tmp_path, change, message):
    path = edit_json(json_file, tmp_path / "edited.json", change)
    with pytest.raises(ReaderError, match=message) as err:
        read_pyinstrument(path)
    assert err.value.path == str(path)


def test_await_time_is_kept(json_file, tmp_path):
    path = edit_json(
        json_file, tmp_path / "edited.json", lambda d: _first_child(d).update(await_time=0.01)
    )
    gf = read_pyinstrument(path)
    node = int(gf.graph.children_of(0)[1])
    assert gf.dataframe.loc[node, "await_time"] == 0.01
    assert np.isnan(gf.dataframe.loc[0, "await_time"])
    assert "await_time" in gf.other_metrics


def test_equal_sibling_frames_merge(json_file, tmp_path):
    # the root's last child "print" (<built-in>, 0.013541 s) appears a second time
    def twice(data):
        children = data["root_frame"]["children"]
        children.append(dict(children[3], file_path="elsewhere/<built-in>"))

    # the root's children now add up to more than its time: its exclusive time would be
    # negative, so it is 0 and counted as a repair
    with pytest.warns(RepairWarning, match="repaired 1 negative exclusive times"):
        gf = read_pyinstrument(edit_json(json_file, tmp_path / "edited.json", twice))
    assert gf.metadata["repairs"] == {"negative_exclusive_times": 1}
    assert gf.dataframe.loc[0, "time"] == 0.0
    assert (gf.dataframe["time"] >= 0).all()
    assert len(gf.graph) == 111
    leaf = int(gf.graph.children_of(0)[3])
    assert gf.dataframe.loc[leaf, "time (inc)"] == pytest.approx(2 * 0.013541)
