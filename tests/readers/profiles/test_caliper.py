"""The Caliper reader on Hatchet's and Thicket's real json-split and .cali profiles.

Expected values were read from the files themselves (the JSON rows, or the records
that caliperreader returns); node counts were compared with Hatchet 2026.2
(``GraphFrame.from_caliper`` / ``from_caliperreader``), which agreed on every file
and on every call path's metric values.
"""

from __future__ import annotations

import pytest

import glade
from glade.errors import ReaderError
from glade.profile import GraphFrame
from glade.readers.profiles.caliper import detect, read_caliper
from tests.readers.corruption import copy_input, empty, garble, truncate
from tests.readers.helpers import edit_json

CPI_JSON = "caliper-cpi-json/cpi-callpath-profile.json"
LULESH_JSON = "caliper-lulesh-json/lulesh-annotation-profile.json"
ORDERED_JSON = "caliper-ordered-json/caliper-region-node-order.json"
DUP_JSON = "caliper-ordered-duplicate-json/caliper-region-dup-node-order.json"
LULESH_CALI = "caliper-lulesh-cali/lulesh-annotation-profile.cali"
ORDERED_CALI = "caliper-ordered-cali/230525-151052_1930517_eWbGeyrlBOPT.cali"
ORDERED_MPI = "caliper-ordered-cali-mpi/230525-151723_1930647_FSY8b8cKSEEi.cali"
SW4 = "caliper-sw4-cuda-activity-profile-cali/caliper_cuda_activity_profile_summary_v2.cali"
QUARTZ = "rajaperf/quartz/gcc10.3.1_1048576/O3/1/Base_Seq-default.cali"
LASSEN = "rajaperf/lassen/clang10.0.1_nvcc10.2.89_1048576/1/Base_CUDA-block_256.cali"

LEAPFROG_CHILDREN = ["LagrangeNodal", "LagrangeElements", "CalcTimeConstraintsForElems"]


def node_id(gf: GraphFrame, *path: str) -> int:
    """The node at call path ``path`` (names from the root)."""
    ids = [n.nid for n in gf.graph.nodes() if n.path() == path]
    assert len(ids) == 1, path
    return ids[0]


def children(gf: GraphFrame, *path: str) -> list[str]:
    return list(gf.graph.names[gf.graph.children_of(node_id(gf, *path))])


def leaves(gf: GraphFrame) -> set[str]:
    return set(gf.graph.names[gf.graph.num_children == 0])


def value(gf: GraphFrame, metric: str, *path: str, rank: int | None = None) -> float:
    row = node_id(gf, *path) if rank is None else (node_id(gf, *path), rank)
    return float(gf.dataframe.loc[row, metric])


LEAPFROG = ("main", "lulesh.cycle", "LagrangeLeapFrog")


# --------------------------------------------------------------------------- json-split


def test_cpi_json_call_tree_ranks_and_statements(hatchet_data):
    gf = read_caliper(hatchet_data / CPI_JSON)
    # 85 nodes of column source.function#callpath.address, plus 42 "statement" children
    # of the 12 functions whose samples fall on several source lines: 127, as Hatchet.
    assert len(gf.graph) == 127 and gf.graph.is_tree()
    assert int((gf.graph.frames["type"] == "statement").sum()) == 42
    assert [r.name for r in gf.graph.roots] == ["_start", "pthread_spin_lock", "log2"]
    assert gf.dataframe.index.names == ["node", "rank"]
    assert sorted(gf.dataframe.index.get_level_values("rank").unique()) == [0, 1, 2, 3]
    assert len(gf.dataframe) == 127 * 4
    assert gf.exc_metrics == ["count", "time"]
    assert set(gf.inc_metrics) == {"count (inc)", "time (inc)"}
    assert {"module", "file", "line"} <= set(gf.other_metrics)
    main = ("_start", "__libc_start_main", "main")
    # rows [62, 0, 0, 3, 4, 309432.0] and [69, 0, 3, 3, 4, 344782.0]: node 3 is "main",
    # module node 0 "cpi", sourceloc node 4 "UNKNOWN:0"
    assert value(gf, "time", *main, rank=0) == 309432.0
    assert value(gf, "time", *main, rank=3) == 344782.0
    assert value(gf, "count", *main, rank=3) == 69
    row = gf.dataframe.loc[(node_id(gf, *main), 0)]
    assert (row["module"], row["file"], row["line"]) == ("cpi", "UNKNOWN", 0)
    # row [1, 5, 0, 12, 119, 4999.0]: MPIR_Bcast_index_tuned_intra_MV2 sampled at
    # .../mpi/coll/bcast_osu.c:2475 on rank 0 only
    bcast = (
        *main,
        "MPI_Bcast",
        "MPIR_Bcast_impl",
        "MPIR_Bcast_MV2",
        "MPIR_Bcast_index_tuned_intra_MV2",
    )
    stmt = (*bcast, "bcast_osu.c:2475")
    assert gf.graph.frames["type"][node_id(gf, *stmt)] == "statement"
    assert value(gf, "time", *stmt, rank=0) == 4999.0
    assert value(gf, "time", *stmt, rank=1) == 0.0
    assert value(gf, "time", *bcast, rank=0) == 0.0
    assert gf.dataframe.loc[(node_id(gf, *stmt), 0), "line"] == 2475
    assert "bcast_osu.c:2475" in leaves(gf) and "PMPI_Comm_test_inter" in leaves(gf)


def test_lulesh_json_eight_ranks(hatchet_data):
    gf = read_caliper(hatchet_data / LULESH_JSON)
    assert len(gf.graph) == 24  # 24 'path' nodes, as Hatchet
    assert [r.name for r in gf.graph.roots] == ["main"]
    assert sorted(gf.dataframe.index.get_level_values("rank").unique()) == list(range(8))
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]
    assert gf.default_metric == "time (inc)"
    # row [5882425.0, 0, 121489.0, 0]: (inclusive#sum#time.duration, mpi.rank,
    # sum#time.duration, path=node 0 "main"); the rows with a null path are left out
    assert value(gf, "time", "main", rank=0) == 121489.0
    assert value(gf, "time (inc)", "main", rank=0) == 5882425.0
    assert {"CalcPressureForElems", "TimeIncrement", "CalcMonotonicQRegionForElems"} <= leaves(gf)
    assert set(gf.graph.frames["type"]) == {"region"}


def test_exclusive_derived_from_inclusive_per_rank(hatchet_data, tmp_path):
    # Drop sum#time.duration: "time" is then derived from inclusive#sum#time.duration
    # per rank, and must equal what Caliper recorded (the values are whole numbers).
    def drop_exclusive(obj):
        j = obj["columns"].index("sum#time.duration")
        for key in ("columns", "column_metadata"):
            obj[key].pop(j)
        for row in obj["data"]:
            row.pop(j)

    full = read_caliper(hatchet_data / LULESH_JSON)
    derived = read_caliper(
        edit_json(hatchet_data / LULESH_JSON, tmp_path / "inclusive-only.json", drop_exclusive)
    )
    assert derived.exc_metrics == ["time"] and derived.inc_metrics == ["time (inc)"]
    assert derived.dataframe.index.equals(full.dataframe.index)
    assert derived.dataframe["time"].tolist() == full.dataframe["time"].tolist()


def test_ordered_json_keeps_region_order_and_globals(hatchet_data):
    gf = read_caliper(hatchet_data / ORDERED_JSON)
    assert len(gf.graph) == 19
    assert "Node order" not in gf.dataframe.columns
    assert children(gf, *LEAPFROG) == LEAPFROG_CHILDREN
    assert children(gf, "main", "lulesh.cycle") == ["TimeIncrement", "LagrangeLeapFrog"]
    # row [61, 0, 0.01073, 18]: node 18 is CalcTimeConstraintsForElems, a leaf
    assert value(gf, "time", *LEAPFROG, "CalcTimeConstraintsForElems", rank=0) == 0.01073
    assert value(gf, "time (inc)", *LEAPFROG, "CalcTimeConstraintsForElems", rank=0) == 0.01073
    # globals are written as strings; exact numbers become numbers
    assert gf.metadata["problem_size"] == 30 and gf.metadata["cluster"] == "quartz"
    assert gf.metadata["figure_of_merit"] == 218.037069
    assert gf.metadata["Compiler Version"] == "10.3.1"
    assert gf.metadata["launchdate"] == 1685046480


def test_duplicate_order_values_keep_file_order(hatchet_data):
    gf = read_caliper(hatchet_data / DUP_JSON)
    # IntegrateStressForElems and CalcHourglassControlForElems both have Node order 8
    volume = (*LEAPFROG, "LagrangeNodal", "CalcForceForNodes", "CalcVolumeForceForElems")
    assert children(gf, *volume) == ["IntegrateStressForElems", "CalcHourglassControlForElems"]
    assert len(gf.graph) == 19


def test_json_region_order_beats_file_order(hatchet_data, tmp_path):
    def reorder(obj):
        row = next(r for r in obj["data"] if r[3] == 4)  # node 4: LagrangeNodal, order 5
        assert row[0] == 5
        row[0] = 100

    path = edit_json(hatchet_data / ORDERED_JSON, tmp_path / "reordered.json", reorder)
    gf = read_caliper(path)
    assert children(gf, *LEAPFROG) == [
        "LagrangeElements",
        "CalcTimeConstraintsForElems",
        "LagrangeNodal",
    ]
    assert children(read_caliper(path, node_ordering=False), *LEAPFROG) == LEAPFROG_CHILDREN


# --------------------------------------------------------------------------- .cali


def test_lulesh_cali_exclusive_metrics_get_inclusive(hatchet_data):
    gf = read_caliper(hatchet_data / LULESH_CALI)
    assert len(gf.graph) == 19 and [r.name for r in gf.graph.roots] == ["main"]
    assert gf.dataframe.index.names == ["node"]
    assert gf.exc_metrics == ["time", "count"]
    assert gf.inc_metrics == ["time (inc)", "count (inc)"]
    assert {"min#time.duration", "max#time.duration", "avg#time.duration"} == set(gf.other_metrics)
    # record ref=155 (main): sum#time.duration 0.025121, count 2;
    # record ref=165 (lulesh.cycle, a "loop" annotation): 0.000206, count 41
    assert value(gf, "time", "main") == 0.025121
    assert value(gf, "count", "main") == 2
    assert value(gf, "time", "main", "lulesh.cycle") == 0.000206
    frames = gf.graph.frames
    assert frames["type"][node_id(gf, "main")] == "function"
    assert frames["type"][node_id(gf, "main", "lulesh.cycle")] == "loop"
    total = gf.dataframe["time"].sum()
    assert value(gf, "time (inc)", "main") == pytest.approx(total)
    units = gf.metadata.pop("units")
    assert gf.metadata == {"cali.caliper.version": "2.2.0-dev", "cali.channel": "default"}
    # time.duration is in seconds in a .cali file; count and its sums are counts
    assert units == {
        "time": "s",
        "time (inc)": "s",
        "min#time.duration": "s",
        "max#time.duration": "s",
        "avg#time.duration": "s",
        "count": "count",
        "count (inc)": "count",
    }


def test_ordered_cali_inclusive_metrics_and_derived_exclusive(hatchet_data):
    gf = read_caliper(hatchet_data / ORDERED_CALI)
    assert len(gf.graph) == 19
    assert children(gf, *LEAPFROG) == LEAPFROG_CHILDREN
    assert gf.inc_metrics == ["Avg time/rank", "Total time"]
    assert gf.exc_metrics == ["Avg time/rank (exc)", "Total time (exc)"]
    assert gf.other_metrics == ["Min time/rank", "Max time/rank"]
    assert "Node order" not in gf.dataframe.columns
    # records: main avg#inclusive#sum#time.duration 1.250952, its only child
    # lulesh.cycle 1.229935
    assert value(gf, "Avg time/rank", "main") == 1.250952
    assert value(gf, "Avg time/rank (exc)", "main") == pytest.approx(1.250952 - 1.229935)
    leaf = (*LEAPFROG, "CalcTimeConstraintsForElems")
    assert value(gf, "Avg time/rank (exc)", *leaf) == value(gf, "Avg time/rank", *leaf)
    assert gf.metadata["problem_size"] == 30 and gf.metadata["elapsed_time"] == 1.229984
    assert gf.metadata["cmdline"] == "[./lulesh2.0,-i,10,-P,spot]"


def test_cali_region_order_beats_file_order(hatchet_data, tmp_path):
    path = copy_input(hatchet_data / ORDERED_CALI, tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    # the record of LagrangeNodal (node 42) ends with min#min#aggregate.slot = 5
    index = next(i for i, line in enumerate(lines) if line.startswith("__rec=ctx,ref=42=134,"))
    assert lines[index].endswith("=5\n")
    lines[index] = lines[index][: -len("5\n")] + "100\n"
    path.write_text("".join(lines))
    gf = read_caliper(path)
    assert children(gf, *LEAPFROG) == [
        "LagrangeElements",
        "CalcTimeConstraintsForElems",
        "LagrangeNodal",
    ]
    assert children(read_caliper(path, node_ordering=False), *LEAPFROG) == LEAPFROG_CHILDREN


def test_ordered_mpi_cali_roots_and_annotation_types(hatchet_data):
    gf = read_caliper(hatchet_data / ORDERED_MPI)
    assert len(gf.graph) == 26
    roots = ["main", "MPI_Finalize", "MPI_Initialized", "MPI_Finalized", "MPI_Comm_dup"]
    assert [r.name for r in gf.graph.roots] == roots
    assert children(gf, "main") == ["MPI_Barrier", "lulesh.cycle", "MPI_Reduce"]
    types = gf.graph.frames["type"]
    assert types[node_id(gf, "main", "MPI_Barrier")] == "mpi.function"
    assert types[node_id(gf, "main")] == "region"
    assert types[node_id(gf, "main", "lulesh.cycle")] == "loop"


@pytest.mark.parametrize(
    ("name", "nodes", "roots"),
    [
        (
            "caliper-example-cali/example-profile.cali",
            24,
            ["main", "MPI_Initialized", "MPI_Comm_dup"],
        ),
        ("caliper-ordered-duplicate/duplicate-node-order.cali", 19, ["main"]),
        (
            "caliper-ordered-duplicate/duplicate-node-order-old.cali",
            26,
            ["main", "MPI_Finalize", "MPI_Initialized", "MPI_Finalized", "MPI_Comm_dup"],
        ),
        ("caliper-timeseries-cali/timeseries.cali", 19, ["main"]),
        ("spotdb/0.cali", 31, ["main"]),
        ("spotdb/2.cali", 19, ["main"]),
        (SW4, 393, ["main"]),
    ],
)
def test_node_counts_match_hatchet(hatchet_data, name, nodes, roots):
    gf = read_caliper(hatchet_data / name)
    assert len(gf.graph) == nodes and gf.graph.is_tree()
    assert [r.name for r in gf.graph.roots] == roots


def test_spotdb_keeps_the_region_profile_channel(hatchet_data):
    gf = read_caliper(hatchet_data / "spotdb/0.cali")
    # the timeseries channel's attributes (block, Time (s), ...) are not on any
    # regionprofile record
    assert "block" not in gf.dataframe.columns and "Time (s)" not in gf.dataframe.columns
    assert value(gf, "Total time", "main") == 15043.856074


def test_sw4_cuda_annotation_types(hatchet_data):
    gf = read_caliper(hatchet_data / SW4)
    types = gf.graph.frames["type"]
    path = ("main", "solve", "TIME_STEPPING", "Force_tt", "set_to_zero", "cudaLaunchKernel")
    assert types[node_id(gf, *path[:2])] == "function"
    # written by the `annotation` attribute, which Caliper later renamed `region`
    assert types[node_id(gf, *path[:3])] == "region"
    assert types[node_id(gf, *path)] == "cupti.runtimeAPI"
    assert gf.inc_metrics[0] == "inclusive#scale#sum#cupti.host.duration"
    # record: ...set_to_zero/cudaLaunchKernel: inclusive 0.002184, activity 0.000550
    assert value(gf, "inclusive#scale#sum#cupti.host.duration", *path) == 0.002184
    assert value(gf, "sum#scale#cupti.activity.duration", *path) == 0.000550
    assert value(gf, "sum#scale#cupti.activity.duration", "main") == 0.0


def test_metric_kinds_override(hatchet_data):
    gf = read_caliper(
        hatchet_data / ORDERED_CALI,
        metric_kinds={"Max time/rank": "inclusive", "Total time": "other"},
    )
    assert "Max time/rank" in gf.inc_metrics and "Max time/rank (exc)" in gf.exc_metrics
    assert "Total time" in gf.other_metrics and "Total time (exc)" not in gf.dataframe
    native = read_caliper(
        hatchet_data / ORDERED_CALI,
        native=True,
        metric_kinds={"min#inclusive#sum#time.duration": "inclusive"},
    )
    assert "min#inclusive#sum#time.duration" in native.inc_metrics
    assert "avg#inclusive#sum#time.duration (exc)" in native.exc_metrics
    with pytest.raises(ValueError, match="metric_kinds"):
        read_caliper(hatchet_data / ORDERED_CALI, metric_kinds={"Total time": "average"})


def test_string_attributes_and_column_name_clashes(hatchet_data, tmp_path):
    def add_type_column(obj):
        obj["columns"].append("type")
        obj["column_metadata"].append({"is_value": True})
        for row in obj["data"]:
            row.append("kernel")

    gf = read_caliper(hatchet_data / LULESH_CALI, string_attributes=["cali.channel"])
    # every record of this file carries cali.channel=default (node 28)
    assert set(gf.dataframe["cali.channel"]) == {"default"}
    assert "cali.channel" not in read_caliper(hatchet_data / LULESH_CALI).dataframe
    clash = read_caliper(
        edit_json(hatchet_data / ORDERED_JSON, tmp_path / "type.json", add_type_column)
    )
    assert set(clash.dataframe["type (attribute)"]) == {"kernel"}
    assert set(clash.dataframe["type"]) == {"region"}


def test_glade_read_detects_caliper(hatchet_data):
    for name in (ORDERED_JSON, ORDERED_CALI):
        gf = glade.read(hatchet_data / name)
        assert len(gf.graph) == 19 and children(gf, *LEAPFROG) == LEAPFROG_CHILDREN


# --------------------------------------------------------------------------- rajaperf


def test_rajaperf_metadata_and_metrics(thicket_data):
    gf = read_caliper(thicket_data / QUARTZ)
    assert len(gf.graph) == 74 and [r.name for r in gf.graph.roots] == ["RAJAPerf"]
    md = gf.metadata
    # globals: compiler (string) g++-10.3.1, ProblemSizeRunParam (double)
    # "1048576.000000", launchdate (uint) "1690619785", omp_max_threads (string) "72"
    assert md["compiler"] == "g++-10.3.1" and md["cluster"] == "quartz"
    assert md["ProblemSizeRunParam"] == 1048576.0
    assert isinstance(md["ProblemSizeRunParam"], float)
    assert md["launchdate"] == 1690619785 and type(md["launchdate"]) is int
    assert md["omp_max_threads"] == "72"
    assert md["variant"] == "Base_Seq" and md["user"] == "mckinsey"
    # records: Stream 5.233181, Stream/Stream_TRIAD 0.906754 (Reps 1000)
    triad = ("RAJAPerf", "Stream", "Stream_TRIAD")
    assert value(gf, "Avg time/rank", *triad) == 0.906754
    assert value(gf, "Reps", *triad) == 1000.0
    assert value(gf, "Avg time/rank", *triad[:2]) == 5.233181
    assert children(gf, "RAJAPerf")[:2] == ["Basic", "Lcals"]
    assert "Stream_TRIAD" in leaves(gf) and "Basic_COPY8" in leaves(gf)


def test_rajaperf_lassen_file(thicket_data):
    gf = read_caliper(thicket_data / LASSEN)
    assert len(gf.graph) == 67
    assert gf.metadata["compiler"] == "clang++-10.0.1"
    assert gf.metadata["cluster"] == "lassen" and gf.metadata["tuning"] == "block_256"
    assert value(gf, "Avg time/rank", "RAJAPerf", "Stream", "Stream_TRIAD") == 0.033669


def test_all_rajaperf_profiles(thicket_data):
    files = sorted((thicket_data / "rajaperf").rglob("*.cali"))
    assert len(files) == 18
    counts = {}
    for path in files:
        gf = read_caliper(path)
        assert [r.name for r in gf.graph.roots] == ["RAJAPerf"]
        counts[path.name] = counts.get(path.name, set()) | {len(gf.graph)}
    # Hatchet: 64 nodes for every block_128 file, 67 for block_256, 74 for Base_Seq
    assert counts == {
        "Base_CUDA-block_128.cali": {64},
        "Base_CUDA-block_256.cali": {67},
        "Base_Seq-default.cali": {74},
    }


def test_thicket_ordered_lulesh(thicket_data):
    gf = read_caliper(thicket_data / "caliper-ordered" / ORDERED_CALI.split("/")[1])
    assert len(gf.graph) == 19 and children(gf, *LEAPFROG) == LEAPFROG_CHILDREN


# --------------------------------------------------------------------------- detect


def test_detect(hatchet_data, thicket_data):
    for name in (CPI_JSON, LULESH_JSON, ORDERED_JSON, LULESH_CALI, SW4):
        assert detect(hatchet_data / name)
    assert detect(thicket_data / QUARTZ)
    for name in (
        "json/hatchet-graph-literal.json",
        "timemory/wall.tree.json",
        "pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json",
        "hpctoolkit-cpi-database",
    ):
        assert not detect(hatchet_data / name)
    assert not detect(thicket_data / "example-json/user_ensemble.json")
    assert not detect(hatchet_data / "no-such-file.cali")


def test_detect_reads_head_and_tail_of_large_json(hatchet_data, tmp_path):
    # json-split writes "data" first and "nodes" last: a big file still looks right
    path = edit_json(
        hatchet_data / CPI_JSON,
        tmp_path / "big.json",
        lambda obj: obj.update(data=obj["data"] * 50),
    )
    assert path.stat().st_size > 100_000
    assert detect(path)
    assert len(read_caliper(path).graph) == 127


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", [CPI_JSON, ORDERED_JSON, LULESH_CALI, ORDERED_CALI])
@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.97])
def test_truncated_files(hatchet_data, tmp_path, name, fraction):
    path = truncate(copy_input(hatchet_data / name, tmp_path), fraction)
    with pytest.raises(ReaderError, match=str(path)):
        read_caliper(path)


@pytest.mark.parametrize("name", [CPI_JSON, LULESH_CALI])
def test_empty_files(hatchet_data, tmp_path, name):
    path = empty(copy_input(hatchet_data / name, tmp_path))
    with pytest.raises(ReaderError, match="is empty") as info:
        read_caliper(path)
    assert info.value.path == str(path)


@pytest.mark.parametrize("name", [CPI_JSON, LULESH_CALI, ORDERED_CALI])
@pytest.mark.parametrize("offset", [0, 700, 2000])
def test_garbled_files(hatchet_data, tmp_path, name, offset):
    path = garble(copy_input(hatchet_data / name, tmp_path), offset)
    with pytest.raises(ReaderError, match=str(path)):
        read_caliper(path)


def test_cali_line_cut_at_a_record_boundary(hatchet_data, tmp_path):
    path = copy_input(hatchet_data / LULESH_CALI, tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:30]))
    with pytest.raises(ReaderError, match="globals record"):
        read_caliper(path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: [*lines[:5], "no record here\n", *lines[6:]], "__rec"),
        (lambda lines: [*lines[:15], "__rec=ctx,ref=99999\n", *lines[15:]], "99999"),
        (lambda lines: [x.replace("data=0.000285=", "data=abc=") for x in lines], "non-numeric"),
        (lambda lines: [x for x in lines if not x.startswith("__rec=ctx")], "no snapshot"),
    ],
)
def test_broken_cali_records(hatchet_data, tmp_path, edit, message):
    path = copy_input(hatchet_data / LULESH_CALI, tmp_path)
    path.write_text("".join(edit(path.read_text().splitlines(keepends=True))))
    with pytest.raises(ReaderError, match=message) as info:
        read_caliper(path)
    assert info.value.path == str(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda o: o.pop("nodes"), "no nodes"),
        (lambda o: o.pop("data"), "no data"),
        (lambda o: o["data"][3].__setitem__(3, 57), "names node 57"),
        (lambda o: o["data"][3].__setitem__(3, "x"), "names node 'x'"),
        (lambda o: o["data"].__setitem__(3, [1, 0]), "row"),
        (lambda o: o["nodes"][3].__setitem__("parent", 7), "parent 7"),
        (lambda o: o.__setitem__("data", []), "no data rows"),
        (lambda o: o["columns"].__setitem__(3, "region"), "no call path column"),
        (lambda o: o["data"][5].__setitem__(1, None), "mpi.rank"),
    ],
)
def test_broken_json(hatchet_data, tmp_path, change, message):
    path = edit_json(hatchet_data / ORDERED_JSON, tmp_path / "broken.json", change)
    with pytest.raises(ReaderError, match=message) as info:
        read_caliper(path)
    assert info.value.path == str(path)


def test_not_caliper_at_all(hatchet_data, tmp_path):
    with pytest.raises(ReaderError, match="is a directory"):
        read_caliper(tmp_path)
    with pytest.raises(ReaderError, match="no such file"):
        read_caliper(tmp_path / "missing.cali")
    with pytest.raises(ReaderError, match="json-split"):
        read_caliper(hatchet_data / "json/hatchet-graph-literal.json")
    text = tmp_path / "notes.txt"
    text.write_text("just some text\n")
    with pytest.raises(ReaderError, match="neither"):
        read_caliper(text)
