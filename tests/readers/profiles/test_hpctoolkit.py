"""The HPCToolkit reader on real databases: Hatchet's classic cpi database
(experiment.xml + metric-db, 4 ranks) and Pipit's v4 ping-pong database
(meta.db + profile.db, 2 ranks)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from glade.errors import ReaderError
from glade.profile import GraphFrame
from glade.readers import read
from glade.readers.profiles.hpctoolkit import detect, read_hpctoolkit
from tests.readers.corruption import copy_input, empty, garble, patch, truncate

RANK2_DB = "1.cpi-000002-000-a8c00270-160445-0.metric-db"


@pytest.fixture(scope="module")
def cpi_dir(hatchet_data: Path) -> Path:
    return hatchet_data / "hpctoolkit-cpi-database"


@pytest.fixture(scope="module")
def pingpong_dir(pipit_data: Path) -> Path:
    return pipit_data / "ping-pong-hpctoolkit"


@pytest.fixture(scope="module")
def cpi(cpi_dir: Path) -> GraphFrame:
    return read_hpctoolkit(cpi_dir)


@pytest.fixture(scope="module")
def pingpong(pingpong_dir: Path) -> GraphFrame:
    return read_hpctoolkit(pingpong_dir)


def by_nid(gf: GraphFrame, nid: int) -> pd.DataFrame:
    """The rows of the node HPCToolkit numbers ``nid``, indexed by rank."""
    df = gf.dataframe
    return df[df["nid"] == nid].droplevel("node")


# ------------------------------------------------------------------ classic
def test_cpi_tree(cpi):
    graph = cpi.graph
    # experiment.xml has 59 scopes (i=2..60): 26 procedure frames and 8 statements are
    # nodes, the 25 call sites (C) are folded into the procedures they call
    assert len(graph) == 34 and graph.is_tree()
    assert [n.name for n in graph.roots] == ["<program root>"]
    main = graph.roots[0].children
    assert [n.name for n in main] == ["main"]
    # a procedure reached through a call site keeps its name; the call site's line is
    # a frame attribute of its own
    calls = main[0].children
    assert [n.name for n in calls] == ["MPI_Init", "MPI_Finalize"]
    assert [n.frame["callsite_line"] for n in calls] == [27, 62]
    leaves = graph.names[graph.num_children == 0]
    assert sorted(leaves) == ["<unknown file>:0"] * 7 + ["interp.c:0"]
    init = next(n for n in graph.nodes() if n.name == "MPIR_Init_thread")
    assert init.path() == ("<program root>", "main", "MPI_Init", "PMPI_Init", init.name)
    assert init.frame["callsite_line"] == 198
    assert set(graph.frames["type"]) == {"function", "statement"}
    assert main[0].frame["callsite_line"] == 0  # not reached through a call site


def test_cpi_mpi_query_finds_the_call_sites(cpi):
    # the README's query: with Hatchet's names it missed 27:MPI_Init and 62:MPI_Finalize
    mpi = cpi.match('MATCH (".", p) WHERE p.name =~ "P?MPI_.*"')
    assert sorted({n.name for n in mpi}) == [
        "MPI_Finalize",
        "MPI_Init",
        "PMPI_Finalize",
        "PMPI_Init",
    ]
    init = cpi.match('MATCH (".", p) WHERE p.name = "MPI_Init" AND p.callsite_line = 27')
    assert [n.path() for n in init] == [("<program root>", "main", "MPI_Init")]


def test_hatchet_callsite_names_are_an_option(cpi_dir, cpi):
    hatchet = read_hpctoolkit(cpi_dir, callsite_names="hatchet")
    main = hatchet.graph.roots[0].children[0]
    assert [n.name for n in main.children] == ["27:MPI_Init", "62:MPI_Finalize"]
    assert "198:MPIR_Init_thread" in set(hatchet.graph.names)
    # the same profile otherwise: the prefix is the call site's line
    prefixed = [
        f"{line}:{name}" if line else name
        for name, line in zip(cpi.graph.names, cpi.graph.frames["callsite_line"], strict=True)
    ]
    assert list(hatchet.graph.names) == prefixed
    assert hatchet.dataframe.drop(columns="name").equals(cpi.dataframe.drop(columns="name"))
    with pytest.raises(ReaderError, match="callsite_names must be one of"):
        read_hpctoolkit(cpi_dir, callsite_names="lines")


def test_same_name_call_sites_are_told_apart(cpi_dir, tmp_path):
    # main calls MPI_Finalize from a second call site, line 70: two siblings named
    # MPI_Finalize that only their call-site lines tell apart, in queries and views
    import copy
    import xml.etree.ElementTree as ET

    from glade.views.cct.calltree import ViewTree

    database = copy_input(cpi_dir, tmp_path)
    tree = ET.parse(database / "experiment.xml")
    main = next(pf for pf in tree.iter("PF") if pf.get("l") == "19")
    call = next(c for c in main.iter("C") if c.get("l") == "62")
    second = copy.deepcopy(call)
    second.set("l", "70")
    main.append(second)
    tree.write(database / "experiment.xml")
    gf = read_hpctoolkit(database)
    finalize = [n for n in gf.graph.roots[0].children[0].children if n.name == "MPI_Finalize"]
    assert [n.frame["callsite_line"] for n in finalize] == [62, 70]
    view_tree = ViewTree(gf.graph, {})
    text = str(view_tree.path_query(finalize[1].nid))
    assert "n2.callsite_line = 70" in text
    matched = [n.nid for n in gf.match(text)]  # the nodes on the path: root, main, it
    assert matched == [0, 1, finalize[1].nid]


def test_cpi_frames(cpi):
    frames = cpi.graph.frames.set_index("name")
    main = frames.loc["main"]
    assert (main["type"], main["file"], main["line"], main["module"]) == (
        "function",
        "./src/cpi.c",
        19,
        "cpi",
    )
    sched = frames.loc["__GI_sched_yield"]
    assert (sched["file"], sched["module"]) == ("interp.c", "/lib64/libc-2.12.so")
    stmt = frames.loc["interp.c:0"]
    assert (stmt["type"], stmt["file"], stmt["line"]) == ("statement", "interp.c", 0)
    assert pd.isna(stmt["module"])


def test_cpi_ranks_and_metrics(cpi):
    df = cpi.dataframe
    assert df.index.names == ["node", "rank"]
    assert sorted(df.index.get_level_values("rank").unique()) == [0, 1, 2, 3]
    assert len(df) == 34 * 4
    assert cpi.exc_metrics == ["time"] and cpi.inc_metrics == ["time (inc)"]
    assert cpi.default_metric == "time (inc)"
    assert cpi.metadata["experiment"] == "cpi" and cpi.metadata["num_ranks"] == 4


def test_cpi_values_decoded_by_hand(cpi):
    # Read with struct from each metric-db (big-endian doubles after a 32-byte header,
    # row i-1 for node i, column 0 inclusive, column 1 exclusive CPUTIME (usec)):
    root = by_nid(cpi, 2)  # <program root>
    assert root["time (inc)"].tolist() == [999238.0, 999390.0, 1000306.0, 999308.0]
    assert root["time"].tolist() == [0.0] * 4
    stmt = by_nid(cpi, 44)  # <unknown file>:0
    assert stmt["time"].tolist() == [298806.0, 293767.0, 317865.0, 310812.0]
    assert stmt["time (inc)"].tolist() == stmt["time"].tolist()
    # node 41 stores exclusive 59960 (rank 0): the cost of its statement 60, which
    # is a node of its own, so the procedure keeps 0
    assert by_nid(cpi, 60)["time"].tolist() == [59960.0, 35980.0, 59961.0, 23976.0]
    assert by_nid(cpi, 41)["time"].tolist() == [0.0] * 4
    assert by_nid(cpi, 41)["time (inc)"].loc[2] == 1000306.0


def test_cpi_exclusive_sums_to_inclusive(cpi):
    df = cpi.dataframe
    assert (df["time (inc)"] >= df["time"]).all()
    totals = df.groupby(level="rank")["time"].sum()
    roots = df.xs(0, level="node")["time (inc)"]
    assert np.allclose(totals.to_numpy(), roots.to_numpy())
    recomputed = cpi.update_inclusive_columns(["time"]).dataframe["time (inc)"]
    assert np.array_equal(recomputed.to_numpy(), df["time (inc)"].to_numpy())


def test_cpi_matches_hatchet_csv(cpi_dir, hatchet_data):
    ref = pd.read_csv(hatchet_data / "hpctoolkit-cpi-graphframe.csv")
    ref = ref.set_index(["nid", "rank"]).sort_index()
    hatchet = read_hpctoolkit(cpi_dir, callsite_names="hatchet")
    ours = hatchet.dataframe.reset_index().set_index(["nid", "rank"]).sort_index()
    assert ours.index.equals(ref.index)
    for col in ["time", "time (inc)", "line"]:
        assert np.array_equal(ours[col].to_numpy(), ref[col].to_numpy()), col
    # Statement 60 sits in procedure frame 41 (file <unknown file>); Hatchet names it
    # after interp.c, the file of the last procedure it visited before (node 58).
    same = ours["name"] == ref["name"]
    assert set(ours.index[~same].get_level_values("nid")) == {60}
    assert (ref.loc[60, "name"] == "interp.c:0").all()
    assert (ours.loc[60, "name"] == "<unknown file>:0").all()
    assert (ours.loc[60, "file"] == "<unknown file>").all()


# A database small enough to compute by hand: loops, a call and two threads.
SMALL_XML = """<?xml version="1.0"?>
<!DOCTYPE HPCToolkitExperiment [<!ELEMENT HPCToolkitExperiment ANY>]>
<HPCToolkitExperiment version="2.0">
<Header n="small"><Info><NV n="kind" v="handmade"/></Info></Header>
<SecCallPathProfile i="0" n="small">
<SecHeader>
  <MetricDBTable>
    <MetricDB i="0" n="PAPI_TOT_CYC (I)" t="inclusive" db-glob="*.metric-db" db-id="0"
      db-num-metrics="2" db-header-sz="24"/>
    <MetricDB i="1" n="PAPI_TOT_CYC (E)" t="exclusive" db-glob="*.metric-db" db-id="1"
      db-num-metrics="2" db-header-sz="24"/>
  </MetricDBTable>
  <LoadModuleTable><LoadModule i="1" n="/bin/small"/></LoadModuleTable>
  <FileTable><File i="1" n="./src/small.c"/></FileTable>
  <ProcedureTable><Procedure i="1" n="main"/><Procedure i="2" n="work"/></ProcedureTable>
</SecHeader>
<SecCallPathProfileData>
<PF i="2" n="1" f="1" lm="1" l="10">
  <L i="3" f="1" l="12"><S i="4" l="13"/><L i="5" f="1" l="14"><S i="6" l="15"/></L></L>
  <S i="7" l="20"/>
  <C i="8" l="21"><PF i="9" n="2" f="1" lm="1" l="30"><S i="10" l="31"/></PF></C>
</PF>
</SecCallPathProfileData>
</SecCallPathProfile>
</HPCToolkitExperiment>
"""
# Statement costs S4=5, S6=7, S7=3, S10=11. hpcprof credits a statement's exclusive
# cost to its parent scope and to its procedure frame: L5=7, L3=5 (not S6),
# PF2=5+7+3=15, PF9=11. Inclusive: L5=7, L3=12, C8=PF9=11, PF2=26.
SMALL_INC = {1: 26, 2: 26, 3: 12, 4: 5, 5: 7, 6: 7, 7: 3, 8: 11, 9: 11, 10: 11}
SMALL_EXC = {1: 0, 2: 15, 3: 5, 4: 5, 5: 7, 6: 7, 7: 3, 8: 0, 9: 11, 10: 11}


def write_small(directory: Path, threads=((0, 0), (0, 1), (1, 0))) -> Path:
    """The hand-made database; thread (r, t) scales every value by 1 + r + 10 t."""
    directory.mkdir()
    (directory / "experiment.xml").write_text(SMALL_XML)
    for rank, thread in threads:
        scale = 1 + rank + 10 * thread
        table = np.array([[SMALL_INC[i], SMALL_EXC[i]] for i in range(1, 11)], float) * scale
        name = f"1.small-{rank:06d}-{thread:03d}-0a0b0c0d-{100 + rank}-0.metric-db"
        head = b"HPCPROF-metricdb__00.10b" + struct.pack(">II", 10, 2)
        (directory / name).write_bytes(head + table.astype(">f8").tobytes())
    return directory


def test_loops_statements_and_threads(tmp_path):
    gf = read_hpctoolkit(write_small(tmp_path / "small"))
    graph = gf.graph
    assert list(graph.names) == [
        "main", "Loop@small.c:12", "small.c:13", "Loop@small.c:14", "small.c:15",
        "small.c:20", "work", "small.c:31",
    ]  # fmt: skip
    assert list(graph.frames["callsite_line"]) == [0, 0, 0, 0, 0, 0, 21, 0]
    assert list(graph.frames["type"]) == [
        "function", "loop", "statement", "loop", "statement", "statement", "function", "statement",
    ]  # fmt: skip
    assert gf.dataframe.index.names == ["node", "rank", "thread"]
    assert gf.exc_metrics == ["PAPI_TOT_CYC"] and gf.inc_metrics == ["PAPI_TOT_CYC (inc)"]
    assert gf.metadata["kind"] == "handmade"
    one = gf.dataframe.xs((0, 0), level=("rank", "thread"))
    # Only statements keep exclusive cost; loops and frames give theirs back.
    assert one["PAPI_TOT_CYC"].tolist() == [0, 0, 5, 0, 7, 3, 0, 11]
    assert one["PAPI_TOT_CYC (inc)"].tolist() == [26, 12, 5, 7, 7, 3, 11, 11]
    scaled = gf.dataframe.xs((0, 1), level=("rank", "thread"))["PAPI_TOT_CYC"]
    assert scaled.tolist() == [0, 0, 55, 0, 77, 33, 0, 121]
    assert gf.dataframe.xs(1, level="rank")["PAPI_TOT_CYC (inc)"].iloc[0].item() == 52


def test_table_entries_and_nv_without_ids_name_nothing(tmp_path):
    # a table entry without an id (and an NV without a name) used to be keyed by None,
    # so a scope without an "f" or "lm" attribute took that entry's name
    xml = (
        SMALL_XML.replace(
            '<File i="1" n="./src/small.c"/>', '<File i="1" n="./src/small.c"/><File n="stray.c"/>'
        )
        .replace(
            '<LoadModule i="1" n="/bin/small"/>',
            '<LoadModule i="1" n="/bin/small"/><LoadModule n="stray.so"/>',
        )
        .replace('<PF i="9" n="2" f="1" lm="1" l="30">', '<PF i="9" n="2" l="30">')
        .replace('<NV n="kind" v="handmade"/>', '<NV n="kind" v="handmade"/><NV v="orphan"/>')
    )
    directory = write_small(tmp_path / "small")
    (directory / "experiment.xml").write_text(xml)
    gf = read_hpctoolkit(directory)
    frames = gf.graph.frames.set_index("name")
    assert frames.loc["main", "file"] == "./src/small.c"
    assert pd.isna(frames.loc["work", "file"]) and pd.isna(frames.loc["work", "module"])
    assert None not in gf.metadata and gf.metadata["kind"] == "handmade"


def test_one_thread_per_rank_has_no_thread_level(tmp_path):
    gf = read_hpctoolkit(write_small(tmp_path / "small", threads=((0, 0), (3, 0))))
    assert gf.dataframe.index.names == ["node", "rank"]
    assert sorted(gf.dataframe.index.get_level_values("rank").unique()) == [0, 3]


# ----------------------------------------------------------------------- v4
def test_pingpong_tree(pingpong):
    graph = pingpong.graph
    # meta.db's context section: one entry point (main thread) and 116 contexts
    # (44 functions, 57 lines, 15 loops), which fill its 5264 bytes exactly
    assert len(graph) == 117 and graph.is_tree()
    assert [n.name for n in graph.roots] == ["<program root>"]
    assert graph.frames["type"].value_counts().to_dict() == {
        "statement": 57, "function": 44, "loop": 15, "entry": 1,
    }  # fmt: skip
    main = graph.roots[0].children
    assert [n.name for n in main] == ["main"]
    assert [n.name for n in main[0].children] == ["ping-pong.c:77", "Loop@ping-pong.c:32"]
    names = set(graph.names)
    assert {"PMPI_Send", "PMPI_Recv", "MPI_Finalize", "psm_progress_wait"} <= names
    assert not any(name.endswith(".so.12.1.1]") for name in names)
    send = next(n for n in graph.nodes() if n.name == "PMPI_Send")
    assert send.path() == (
        "<program root>", "main", "Loop@ping-pong.c:32", "Loop@ping-pong.c:53",
        "ping-pong.c:55", "PMPI_Send",
    )  # fmt: skip
    frame = send.frame
    assert frame["file"] == "/builddir/build/BUILD/mvapich2-2.3.6/src/mpi/pt2pt/send.c"
    assert frame["line"] == 77
    assert frame["module"].endswith("/mvapich2-2.3.6-gcc-10.2.1/lib/libmpi.so.12.1.1")


def test_pingpong_ranks_and_metrics(pingpong):
    df = pingpong.dataframe
    assert df.index.names == ["node", "rank"]
    assert sorted(df.index.get_level_values("rank").unique()) == [0, 1]
    assert pingpong.exc_metrics == ["time"] and pingpong.inc_metrics == ["time (inc)"]
    assert pingpong.metadata["title"] == "ping-pong"
    assert pingpong.metadata["format"] == "hpctoolkit meta.db v4.0"


def test_pingpong_values_decoded_by_hand(pingpong):
    # Read with struct from profile.db: profile 2 is rank 0, profile 1 is rank 1
    # (RANK identifier); metric id 3 is CPUTIME (sec) "execution", 0 is "point".
    root = by_nid(pingpong, 6)
    assert root["time (inc)"].tolist() == [0.131009, 0.13106099999999998]
    send = by_nid(pingpong, 92)  # PMPI_Send at ping-pong.c:55
    assert send["time (inc)"].tolist() == [0.052211999999999995, 0.0]
    # context 24 (rank 1): execution 0.022676, its only listed child 21 has 0.017153;
    # the rest was measured at an instruction context meta.db does not list
    line = by_nid(pingpong, 24).loc[1]
    assert line["time (inc)"] == 0.022676
    assert line["time"] == pytest.approx(0.022676 - 0.017153, abs=1e-15)
    # context 12 (rank 1): the point value 0.005859 is stored at hidden context 11
    assert by_nid(pingpong, 12).loc[1, "time"] == pytest.approx(0.005859, abs=1e-15)


def test_pingpong_exclusive_sums_to_inclusive(pingpong):
    df = pingpong.dataframe
    assert (df["time (inc)"] >= df["time"]).all() and (df["time"] >= 0).all()
    totals = df.groupby(level="rank")["time"].sum()
    roots = df.xs(0, level="node")["time (inc)"]
    assert np.allclose(totals.to_numpy(), roots.to_numpy(), rtol=1e-12)
    recomputed = pingpong.update_inclusive_columns(["time"]).dataframe["time (inc)"]
    assert np.allclose(recomputed.to_numpy(), df["time (inc)"].to_numpy(), rtol=0, atol=1e-15)


# -------------------------------------------------------------- dispatching
def test_detect(cpi_dir, pingpong_dir, hatchet_data, tmp_path):
    assert detect(cpi_dir) and detect(pingpong_dir)
    assert detect(cpi_dir / "experiment.xml") and detect(pingpong_dir / "meta.db")
    assert not detect(tmp_path)
    assert not detect(tmp_path / "nowhere")
    assert not detect(hatchet_data / "hpctoolkit-cpi-graphframe.csv")
    assert not detect(hatchet_data / "tau-cpi-mpi")
    (tmp_path / "experiment.xml").write_text("<?xml version='1.0'?><other/>")
    assert not detect(tmp_path)


def test_read_and_from_hpctoolkit_dispatch(cpi_dir, pingpong_dir):
    assert len(read(cpi_dir)) == 34
    assert len(read(pingpong_dir / "profile.db")) == 117
    assert len(GraphFrame.from_hpctoolkit(str(pingpong_dir))) == 117


# ------------------------------------------------------------------ errors
def expect_error(path: Path, culprit: str) -> ReaderError:
    with pytest.raises(ReaderError) as info:
        read_hpctoolkit(path)
    assert culprit in str(info.value)
    return info.value


def test_missing_and_empty_directories(tmp_path):
    expect_error(tmp_path, str(tmp_path))
    expect_error(tmp_path / "nowhere", "nowhere")


def test_missing_experiment_xml(cpi_dir, tmp_path):
    db = copy_input(cpi_dir, tmp_path)
    (db / "experiment.xml").unlink()
    expect_error(db, "experiment.xml")


@pytest.mark.parametrize("damage", [truncate, empty, lambda p: garble(p, 0)])
def test_broken_experiment_xml(cpi_dir, tmp_path, damage):
    db = copy_input(cpi_dir, tmp_path)
    damage(db / "experiment.xml")
    expect_error(db, "experiment.xml")


def test_garbled_call_path_profile(cpi_dir, tmp_path):
    db = copy_input(cpi_dir, tmp_path)
    xml = db / "experiment.xml"
    garble(xml, xml.read_bytes().index(b'<PF i="43"'), 16)
    assert "malformed XML" in str(expect_error(db, "experiment.xml"))


def test_unreadable_node_id(cpi_dir, tmp_path):
    db = copy_input(cpi_dir, tmp_path)
    xml = db / "experiment.xml"
    xml.write_text(xml.read_text().replace('<S i="44"', '<S i="x44"'))
    assert "'x44' is not an integer" in str(expect_error(db, "experiment.xml"))


@pytest.mark.parametrize("damage", [truncate, empty, lambda p: truncate(p, 0.98)])
def test_broken_metric_db(cpi_dir, tmp_path, damage):
    db = copy_input(cpi_dir, tmp_path)
    damage(db / RANK2_DB)
    expect_error(db, RANK2_DB)


def test_metric_db_metric_count_mismatch(cpi_dir, tmp_path):
    db = copy_input(cpi_dir, tmp_path)
    patch(db / RANK2_DB, 28, ">I", 3)  # header: 60 nodes, 3 metrics (experiment.xml: 2)
    error = expect_error(db, RANK2_DB)
    assert "holds 3 metrics but experiment.xml describes 2" in str(error)


def test_metric_db_node_count_mismatch(cpi_dir, tmp_path):
    db = copy_input(cpi_dir, tmp_path)
    rank0 = "1.cpi-000000-000-a8c00270-160443-0.metric-db"
    data = bytearray((db / rank0).read_bytes()[: 32 + 59 * 16])
    data[24:28] = struct.pack(">I", 59)  # a consistent file of 59 nodes, XML names 60
    (db / rank0).write_bytes(bytes(data))
    assert "names node 60" in str(expect_error(db, rank0))


def test_metric_db_files_disagree_on_size(cpi_dir, tmp_path):
    db = copy_input(cpi_dir, tmp_path)
    data = (db / RANK2_DB).read_bytes()
    (db / RANK2_DB).write_bytes(data[:24] + struct.pack(">I", 61) + data[28:] + bytes(16))
    assert "other metric-db files do not" in str(expect_error(db, RANK2_DB))


def test_metric_db_files_missing_or_misnamed(cpi_dir, tmp_path):
    db = copy_input(cpi_dir, tmp_path)
    (db / RANK2_DB).rename(db / "cpi-rank-two.metric-db")
    expect_error(db, "cpi-rank-two.metric-db")
    for path in db.glob("*.metric-db"):
        path.unlink()
    assert "no metric-db files" in str(expect_error(db, str(db)))


def test_missing_v4_files(pingpong_dir, tmp_path):
    db = copy_input(pingpong_dir, tmp_path)
    (db / "profile.db").unlink()
    expect_error(db, "profile.db")
    shutil.copy(pingpong_dir / "profile.db", db / "profile.db")
    (db / "meta.db").unlink()
    expect_error(db, "meta.db")


@pytest.mark.parametrize("name", ["meta.db", "profile.db"])
@pytest.mark.parametrize("damage", [truncate, empty, lambda p: truncate(p, 0.999)])
def test_broken_v4_files(pingpong_dir, tmp_path, name, damage):
    db = copy_input(pingpong_dir, tmp_path)
    damage(db / name)
    expect_error(db, name)


def test_garbled_v4_headers(pingpong_dir, tmp_path):
    db = copy_input(pingpong_dir, tmp_path)
    garble(db / "meta.db", 0, 16)
    assert "bad magic" in str(expect_error(db, "meta.db"))
    (db / "meta.db").write_bytes((pingpong_dir / "meta.db").read_bytes())
    garble(db / "profile.db", 0x10, 32)  # the section table: sizes and offsets
    expect_error(db, "profile.db")


def id_tuple(profile_db: Path, profile: int) -> int:
    """Byte offset of the identifier tuple of profile ``profile`` (FORMATS.md: the
    profile infos section pointer at 0x18, its {PI} array, pIdTuple at {PI}+0x20)."""
    data = profile_db.read_bytes()
    (p_infos,) = struct.unpack_from("<Q", data, 0x18)
    p_profiles, _, size = struct.unpack_from("<QIB", data, p_infos)
    (p_ids,) = struct.unpack_from("<Q", data, p_profiles + profile * size + 0x20)
    return p_ids


def test_v4_profiles_without_thread_id_are_streams(pingpong_dir, tmp_path):
    # Profile 1 (rank 1) has ids NODE, RANK=1, THREAD=0; make its THREAD (kind 3)
    # a GPUSTREAM (kind 6): it becomes thread 500 of rank 1.
    db = copy_input(pingpong_dir, tmp_path)
    patch(db / "profile.db", id_tuple(db / "profile.db", 1) + 8 + 2 * 16, "<B", 6)
    gf = read_hpctoolkit(db)
    assert gf.dataframe.index.names == ["node", "rank", "thread"]
    pairs = gf.dataframe.index.droplevel("node").unique().tolist()
    assert sorted(pairs) == [(0, 0), (1, 500)]


def test_v4_two_profiles_for_one_rank(pingpong_dir, tmp_path):
    # Profile 2 is rank 0: give it rank 1, which profile 1 already is
    db = copy_input(pingpong_dir, tmp_path)
    patch(db / "profile.db", id_tuple(db / "profile.db", 2) + 8 + 16 + 4, "<I", 1)
    assert "same rank and thread" in str(expect_error(db, "profile.db"))


@pytest.mark.parametrize("name", ["meta.db", "profile.db"])
def test_garbled_v4_anywhere(pingpong_dir, tmp_path, name):
    """Garbling any 8 bytes gives a profile or a ReaderError naming a database file,
    never another exception."""
    db = copy_input(pingpong_dir, tmp_path)
    target = db / name
    original = (pingpong_dir / name).read_bytes()
    failures = 0
    for offset in range(0, len(original), len(original) // 40):
        target.write_bytes(original)
        garble(target, offset, 8)
        try:
            read_hpctoolkit(db)
        except ReaderError as error:
            failures += 1
            assert "meta.db" in str(error) or "profile.db" in str(error)
    assert failures > 0
