"""The TAU profile reader on Hatchet's real 4-rank cpi profiles."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from glade.errors import ReaderError
from glade.profile import GraphFrame
from glade.readers.profiles.tau import _frame, detect, read_tau
from tests.readers.corruption import copy_input, empty, garble, truncate
from tests.readers.helpers import by_name

ROOT_CHILDREN = [
    "MPI_Init()",
    "MPI_Comm_size()",
    "MPI_Comm_rank()",
    "MPI_Get_processor_name()",
    "MPI_Bcast()",
    "MPI_Reduce()",
    "MPI_Finalize()",
]


@pytest.fixture(scope="module")
def tau_dir(hatchet_data: Path) -> Path:
    return hatchet_data / "tau-cpi-mpi"


@pytest.fixture(scope="module")
def gf(tau_dir: Path) -> GraphFrame:
    return read_tau(tau_dir)


def test_tree_and_ranks(gf):
    # Each file has 23 entries: 12 flat, 11 call paths ".TAU application => ...";
    # the call paths and their root give 12 nodes, for ranks 0..3.
    graph = gf.graph
    assert len(graph) == 12 and graph.is_tree()
    assert [n.name for n in graph.roots] == [".TAU application"]
    assert list(graph.names[graph.children_of(0)]) == ROOT_CHILDREN
    finalize = by_name(gf, "MPI_Finalize()")
    assert list(graph.names[graph.children_of(finalize)]) == [
        "MPI_Info_create()",
        "MPI_File_open()",
        "MPI_Info_free()",
        "MPI_Comm_get_attr()",
    ]
    assert int((graph.num_children == 0).sum()) == 10
    assert gf.dataframe.index.names == ["node", "rank"]
    assert sorted(gf.dataframe.index.get_level_values("rank").unique()) == [0, 1, 2, 3]
    assert len(gf.dataframe) == 48


def test_metric_values(gf):
    df = gf.dataframe
    # profile.0.0.0 line 3: ".TAU application" 1 7 449 51781 0 GROUP="TAU_DEFAULT"
    root = df.loc[(0, 0)]
    assert (root["Calls"], root["Subrs"], root["time"], root["time (inc)"]) == (1, 7, 449, 51781)
    # profile.1.0.0 line 3: ".TAU application" 1 7 419 55329 0 GROUP="TAU_DEFAULT"
    assert (df.loc[(0, 1), "time"], df.loc[(0, 1), "time (inc)"]) == (419, 55329)
    # profile.0.0.0: ".TAU application => MPI_Finalize()  " 1 4 4458 32304 0
    finalize = df.loc[(by_name(gf, "MPI_Finalize()"), 0)]
    assert (finalize["Subrs"], finalize["time"], finalize["time (inc)"]) == (4, 4458, 32304)
    # profile.0.0.0: "... => MPI_Finalize()   => MPI_File_open()" 1 0 27490 27490 0
    assert df.loc[(by_name(gf, "MPI_File_open()"), 0), "time"] == 27490
    # GROUP="TAU_CALLPATH|MPI" is the MPI group
    assert df.loc[(by_name(gf, "MPI_Init()"), 0), "group"] == "MPI"
    assert root["group"] == "TAU_DEFAULT"
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.default_metric == "time (inc)"


def test_frames_and_metadata(gf):
    frame = gf.node(by_name(gf, "MPI_Bcast()")).frame
    assert frame == {"name": "MPI_Bcast()", "type": "function"}
    assert gf.metadata["Metric Name"] == "TIME"
    assert gf.metadata["Hostname"] == "nid01045"  # rank 0's attribute block
    assert gf.metadata["format"] == "tau"


def test_single_file(tau_dir, tmp_path):
    one = read_tau(tau_dir / "profile.2.0.0")
    assert one.dataframe.index.names == ["node"]
    assert len(one.graph) == 12
    # profile.2.0.0 line 3: ".TAU application" 1 7 429 54029 0
    assert one.dataframe.loc[0, "time (inc)"] == 54029
    renamed = shutil.copy(tau_dir / "profile.2.0.0", tmp_path / "rank2.txt")
    assert read_tau(renamed).dataframe.loc[0, "time (inc)"] == 54029


def test_multi_metric_directory(tau_dir, tmp_path):
    # TAU writes one MULTI__<metric> directory per metric; make a second metric
    # from the same files so that both must line up row by row.
    root = tmp_path / "multi"
    shutil.copytree(tau_dir, root / "MULTI__TIME")
    papi = root / "MULTI__PAPI_TOT_CYC"
    papi.mkdir()
    for src in sorted(tau_dir.glob("profile.*")):
        text = src.read_text()
        text = text.replace("_MULTI_TIME", "_MULTI_PAPI_TOT_CYC")
        text = text.replace("<value>TIME</value>", "<value>PAPI_TOT_CYC</value>")
        (papi / src.name).write_text(text)
    gf = read_tau(root)
    assert gf.exc_metrics == ["PAPI_TOT_CYC", "time"]
    assert gf.inc_metrics == ["PAPI_TOT_CYC (inc)", "time (inc)"]
    df = gf.dataframe
    assert len(gf.graph) == 12 and len(df) == 48
    assert (df["PAPI_TOT_CYC"] == df["time"]).all()
    assert (df["PAPI_TOT_CYC (inc)"] == df["time (inc)"]).all()
    assert gf.default_metric == "time (inc)"
    assert df.loc[(0, 0), "Calls"] == 1


def test_threads_become_an_index_level(tau_dir, tmp_path):
    root = tmp_path / "threads"
    root.mkdir()
    shutil.copy(tau_dir / "profile.0.0.0", root / "profile.0.0.0")
    shutil.copy(tau_dir / "profile.1.0.0", root / "profile.0.0.1")
    gf = read_tau(root)
    assert gf.dataframe.index.names == ["node", "thread"]
    assert (gf.dataframe.loc[(0, 1), "time"], gf.dataframe.loc[(0, 0), "time"]) == (419, 449)


@pytest.mark.parametrize(
    ("component", "expected"),
    [
        ("MPI_Send()  ", ("MPI_Send()", np.nan, np.nan, np.nan, np.nan)),
        (
            "int main(int, char **) C [{cpi.c} {10,1}-{60,1}]",
            ("int main(int, char **)", "cpi.c", 10.0, 60.0, np.nan),
        ),
        ("[SAMPLE] foo [{lulesh.cc} {13}]", ("[SAMPLE] foo", "lulesh.cc", 13.0, np.nan, np.nan)),
        (
            "[UNWIND] /usr/lib64/libc.so.6 [@] memcpy",
            ("[UNWIND] memcpy", np.nan, np.nan, np.nan, "/usr/lib64/libc.so.6"),
        ),
        (
            "[SAMPLE] UNRESOLVED /lib64/libm.so.6",
            ("[SAMPLE] UNRESOLVED", np.nan, np.nan, np.nan, "/lib64/libm.so.6"),
        ),
        (".TAU application", (".TAU application", np.nan, np.nan, np.nan, np.nan)),
        ("foo C", ("foo", np.nan, np.nan, np.nan, np.nan)),
    ],
    ids=["plain", "c-function", "sample", "unwind", "unresolved", "application", "c-no-place"],
)
def test_entry_names(component, expected):
    np.testing.assert_equal(_frame(component), expected)


def test_detect(tau_dir, hatchet_data, tmp_path):
    assert detect(tau_dir)
    assert detect(tau_dir / "profile.3.0.0")
    assert not detect(hatchet_data / "timemory")
    assert not detect(hatchet_data / "timemory" / "wall.tree.json")
    assert not detect(tmp_path / "missing")
    bogus = tmp_path / "profile.0.0.0"
    bogus.write_text('{"root_frame": {}}')
    assert not detect(bogus)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (truncate, "announces 23 functions"),
        (empty, "empty file"),
        (garble, "UTF-8"),
        (lambda p: garble(p, offset=9000, length=8), "UTF-8"),
    ],
    ids=["truncated", "empty", "garbled", "garbled-entry"],
)
def test_damaged_file(tau_dir, tmp_path, damage, message):
    root = copy_input(tau_dir, tmp_path)
    broken = damage(root / "profile.1.0.0")
    with pytest.raises(ReaderError, match=message) as err:
        read_tau(root)
    assert err.value.path == str(broken)


@pytest.mark.parametrize("count", [25, 20, 0])
def test_function_count_that_lies(tau_dir, tmp_path, count):
    root = copy_input(tau_dir, tmp_path)
    path = root / "profile.2.0.0"
    text = path.read_text()
    path.write_text(re.sub(r"^23 ", f"{count} ", text))
    with pytest.raises(ReaderError, match=f"announces {count} functions") as err:
        read_tau(root)
    assert err.value.path == str(path)


def test_mangled_entry_line(tau_dir, tmp_path):
    root = copy_input(tau_dir, tmp_path)
    path = root / "profile.3.0.0"
    path.write_text(path.read_text().replace('"MPI_Bcast()  " 1 0 406 406 0 GROUP', "MPI_Bcast 1"))
    with pytest.raises(ReaderError, match="line 12 is not a function entry") as err:
        read_tau(root)
    assert err.value.path == str(path)


def test_non_numeric_value(tau_dir, tmp_path):
    root = copy_input(tau_dir, tmp_path)
    path = root / "profile.3.0.0"
    path.write_text(path.read_text().replace('"MPI_Bcast()  " 1 0 406', '"MPI_Bcast()  " 1 0 4x6'))
    with pytest.raises(ReaderError, match="non-numeric") as err:
        read_tau(root)
    assert err.value.path == str(path)


def test_wrong_format(hatchet_data, tmp_path):
    # a JSON file given to the TAU reader, as a file and under a TAU file name in a directory
    path = hatchet_data / "pyinstrument-hatchet-json" / "pyinstrument-hatchet-profile.json"
    with pytest.raises(ReaderError, match="not a TAU profile") as err:
        read_tau(path)
    assert err.value.path == str(path)
    disguised = tmp_path / "run" / "profile.0.0.0"
    disguised.parent.mkdir()
    shutil.copy(path, disguised)
    with pytest.raises(ReaderError, match="not a TAU profile") as err:
        read_tau(disguised.parent)
    assert err.value.path == str(disguised)


def test_directory_without_profiles(hatchet_data, tmp_path):
    with pytest.raises(ReaderError, match="no TAU profile") as err:
        read_tau(hatchet_data / "timemory")
    assert err.value.path == str(hatchet_data / "timemory")
    with pytest.raises(ReaderError, match="no such file"):
        read_tau(tmp_path / "missing")


def test_windows_line_ends(tau_dir, tmp_path):
    root = copy_input(tau_dir, tmp_path)
    for path in root.glob("profile.*"):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    gf = read_tau(root)
    assert len(gf.graph) == 12 and len(gf.dataframe) == 48
    assert gf.dataframe.loc[(0, 0), "time (inc)"] == 51781


def test_metric_directories_must_agree(tau_dir, tmp_path):
    root = copy_input(tau_dir, tmp_path)
    path = root / "profile.1.0.0"
    path.write_text(path.read_text().replace("<value>TIME</value>", "<value>PAPI_FP_OPS</value>"))
    with pytest.raises(ReaderError, match="records metric 'PAPI_FP_OPS'") as err:
        read_tau(root)
    assert err.value.path == str(path)
