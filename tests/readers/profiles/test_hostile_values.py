"""Numbers that cannot be times, in every profile reader: infinite, NaN where the
format requires a number, negative, or beyond int64. Each edit of a real file is refused
with a ReaderError naming the file (and the metric, node or line where the reader
knows it), or, for what is suspicious but readable (a child recorded twice makes its
parent's derived exclusive time negative), repaired and counted in
``metadata["repairs"]``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import glade
from glade import Graph, GraphFrame
from glade.errors import GladeError, ReaderError
from glade.readers.profiles.checks import RepairWarning
from tests.readers.corruption import copy_input, patch
from tests.readers.helpers import edit_json

CPI_JSON = "caliper-cpi-json/cpi-callpath-profile.json"
LULESH_CALI = "caliper-lulesh-cali/lulesh-annotation-profile.cali"
QUARTZ = "rajaperf/quartz/gcc10.3.1_1048576/O3/1/Base_Seq-default.cali"
PYINSTRUMENT = "pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json"
HATCHET_JSON = "json/hatchet-graph-literal.json"


def refused(path: Path, message: str, **kwargs) -> ReaderError:
    """The ReaderError reading ``path`` gives; it must name the file and match."""
    with pytest.raises(ReaderError, match=message) as info:
        glade.read(path, **kwargs)
    assert str(path) in str(info.value)
    return info.value


# ----------------------------------------------------------------------- Caliper
@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("inf"), r"metric 'time' of node 'main' \(rank 0\) is inf, not a finite number"),
        (-5.0, r"time 'time' of node 'main' \(rank 0\) is negative \(-5.0\): it cannot be a time"),
    ],
)
def test_caliper_json_times(hatchet_data, tmp_path, value, message):
    def change(doc):
        main = next(r for r in doc["data"] if r[3] == 3 and r[2] == 0)
        main[5] = value

    path = edit_json(hatchet_data / CPI_JSON, tmp_path / "cpi.json", change)
    refused(path, message)


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("inf", "is inf, not a finite number"),
        ("-0.5", r"is negative \(-0.5\)"),
    ],
)
def test_caliper_cali_times(hatchet_data, tmp_path, token, message):
    path = copy_input(hatchet_data / LULESH_CALI, tmp_path)
    text = path.read_text()
    # the sum#time.duration of main, the third value of its record
    path.write_text(
        text.replace("data=0.000285=0.024836=0.025121=", f"data=0.000285=0.024836={token}=")
    )
    refused(path, message)


def test_caliper_region_recorded_twice_is_repaired(thicket_data, tmp_path):
    # a RAJAPerf profile records inclusive times only; a child's record written twice makes
    # its children outweigh its parent: the derived exclusive time would be negative
    path = copy_input(thicket_data / QUARTZ, tmp_path)
    lines = path.read_text().split("\n")
    at = next(
        i
        for i, line in enumerate(lines)
        if line.startswith("__rec=ctx") and "Stream" in lines[i - 1]
    )
    path.write_text("\n".join([*lines[: at + 1], lines[at], *lines[at + 1 :]]))
    with pytest.warns(RepairWarning, match="negative exclusive values"):
        gf = glade.read(path)
    repaired = gf.metadata["repairs"]["negative_exclusive_values"]
    assert repaired >= 1
    for column in gf.exc_metrics:
        assert (gf.dataframe[column] >= 0).all(), column


# ------------------------------------------------------------------------- TAU
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-449", r"time 'time' of node '.TAU application' \(rank 0\) is negative \(-449.0\)"),
        ("inf", r"metric 'time' of node '.TAU application' \(rank 0\) is inf"),
        ("nan", "line 3: non-numeric excl value 'nan'"),
        ("1e999", "is inf, not a finite number"),
    ],
)
def test_tau_times(hatchet_data, tmp_path, value, message):
    directory = copy_input(hatchet_data / "tau-cpi-mpi", tmp_path)
    path = directory / "profile.0.0.0"
    text = path.read_text()
    path.write_text(
        text.replace('".TAU application" 1 7 449 ', f'".TAU application" 1 7 {value} ', 1)
    )
    refused(directory, message)


# ---------------------------------------------------------------- pyinstrument
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda root: root.update(time=float("nan")), r"root_frame has 'time' nan, which cannot"),
        (
            lambda root: root["children"][0].update(time=-1.0),
            r"root_frame.children\[0\] has 'time' -1.0, which cannot be a time",
        ),
        (lambda root: root["children"][0].update(time=float("inf")), "has 'time' inf"),
        (
            lambda root: root["children"][1].update(line_no=2**70),
            r"root_frame.children\[1\] 'line_no' is not an integer",
        ),
        (
            lambda root: root["children"][1].update(line_no=2**63),
            r"root_frame.children\[1\] has 'line_no' 9223372036854775808, too large",
        ),
    ],
)
def test_pyinstrument_times(hatchet_data, tmp_path, edit, message):
    path = edit_json(
        hatchet_data / PYINSTRUMENT, tmp_path / "p.json", lambda doc: edit(doc["root_frame"])
    )
    refused(path, message)


# -------------------------------------------------------------------- timemory
def _timemory_edit(hatchet_data, tmp_path, change) -> Path:
    def edit(doc):
        component = doc["timemory"]["WALL_CLOCK"]
        first = component["mpi"][0][0]["children"][0]["node"]
        change(first)

    return edit_json(hatchet_data / "timemory" / "wall.tree.json", tmp_path / "t.tree.json", edit)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda node: node["exclusive"]["stats"].update(sum=float("inf")),
            r"'sum.wall_clock' of region .* \(rank 0\) is inf, not a finite number",
        ),
        (
            lambda node: node["inclusive"]["stats"].update(sum=float("nan")),
            r"'sum.wall_clock \(inc\)' of region .* is nan",
        ),
        (lambda node: node["exclusive"]["stats"].update(sum=-3.0), r"is negative \(-3.0\)"),
        (lambda node: node.update(tid=[2**64]), "expected an id or a list of ids"),
        (lambda node: node.update(pid=2**63), "expected an id or a list of ids"),
    ],
)
def test_timemory_values(hatchet_data, tmp_path, change, message):
    refused(_timemory_edit(hatchet_data, tmp_path, change), message)


# ------------------------------------------------------------------ HPCToolkit
@pytest.mark.parametrize(
    ("fmt", "value", "message"),
    [
        (">d", float("nan"), "metric 'time \\(inc\\)' of node 0 is nan, not a finite number"),
        (">d", float("-inf"), "is -inf, not a finite number"),
        (">d", -1.0, r"time 'time \(inc\)' of node '<program root>' \(rank 0\) is negative"),
    ],
)
def test_hpctoolkit_metric_db_values(hatchet_data, tmp_path, fmt, value, message):
    database = copy_input(hatchet_data / "hpctoolkit-cpi-database", tmp_path)
    metric_db = next(database.glob("*-000000-000-*.metric-db"))
    # row 1 (node i=2, <program root>), column 0 (CPUTIME inclusive), after 32 header bytes
    patch(metric_db, 32 + 16, fmt, value)
    error = refused(database, message)
    if np.isnan(value) or np.isinf(value):
        assert error.path == str(metric_db)  # the very file that holds the value


# ------------------------------------------------------------------- cProfile
def test_one_deleted_byte_fails_cheaply_under_a_memory_cap(hatchet_data, tmp_path):
    # marshal would allocate what a damaged count announces (13 GB for one deleted byte of
    # this 1 KB file); read every one-byte deletion in a child with a memory cap
    from tests.readers.fuzzing import Case, run_cases

    original = (hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats").read_bytes()
    cases = []
    for at in range(len(original)):
        path = tmp_path / f"cut{at}.pstats"
        path.write_bytes(original[:at] + original[at + 1 :])
        cases.append(
            Case(
                at,
                "cprofile-cycle.pstats",
                "profile",
                "cprofile",
                str(path),
                str(path),
                f"delete byte {at}",
                0,
            )
        )
    outcomes = run_cases(cases, tmp_path)
    assert {o.status for o in outcomes} == {"error"}, [
        o.detail for o in outcomes if o.status != "error"
    ][:5]


@pytest.mark.parametrize(
    ("stats", "message"),
    [
        ((1, 1, float("nan"), 0.1), r"statistics of 'f' \(\[1.0, 1.0, nan, 0.1\]\) are not"),
        ((1, 1, 0.1, -0.1), "are not call counts and times"),
        ((1.5, 2, 0.1, 0.1), "are not call counts and times"),
        ((2**64, 2, 0.1, 0.1), "are not call counts and times"),
    ],
)
def test_cprofile_statistics(tmp_path, stats, message):
    import marshal

    path = tmp_path / "bad.pstats"
    path.write_bytes(marshal.dumps({("a.py", 1, "f"): (*stats, {})}))
    refused(path, message)
    path.write_bytes(marshal.dumps({("a.py", 2**70, "f"): (1, 1, 0.1, 0.1, {})}))
    refused(path, "malformed function key")


# ---------------------------------------------------------- glade / Hatchet JSON
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda doc: doc["graph"][0]["0"]["data"].update(name=["foo"]),
            r"node \d+ has the name \['foo'\] \(list\), not a string",
        ),
        (lambda doc: doc["graph"][0]["1"]["data"].update(name={"n": 1}), r"\(dict\), not a string"),
        (
            lambda doc: doc["graph"][0]["2"]["data"].update(type={"kind": "f"}),
            r"frame attribute 'type' = \{'kind': 'f'\}: frame attributes are single values",
        ),
        (lambda doc: doc["dataframe"][0].update(time=float("inf")), "metric 'time' of node 'foo'"),
        (lambda doc: doc["dataframe"][1].update(time=-5), r"time 'time' of node 'bar' is negative"),
        (lambda doc: doc["dataframe"][0].update(node=2**64), "names a node that is not in"),
        (
            lambda doc: doc["dataframe"][2].update(children=[]),
            r"dataframe record 2 has 'children' = \[\], not a single value",
        ),
        (lambda doc: doc["graph"][0]["0"].update(children=float("nan")), "malformed Hatchet JSON"),
    ],
)
def test_hatchet_json_hostile_values(hatchet_data, tmp_path, change, message):
    path = edit_json(hatchet_data / HATCHET_JSON, tmp_path / "h.json", change)
    refused(path, message)


def test_hatchet_json_cycles_are_a_call_graph(hatchet_data, tmp_path):
    # baz calls foo, the root: a cycle, as cProfile's recursion makes; every operation is
    # cycle-safe, so it is read as a call graph (and written and read back the same)
    def cycle(doc):
        doc["graph"][0]["2"]["children"] = [0]

    gf = glade.read(edit_json(hatchet_data / HATCHET_JSON, tmp_path / "c.json", cycle))
    assert not gf.graph.is_tree()
    assert "↪ foo" in gf.tree()
    assert len(gf.squash().graph) == len(gf.graph)
    assert len(gf.match('MATCH (".", p)->("*") WHERE p.name = "baz"')) > 0
    back = GraphFrame.from_json(gf.to_json())
    assert back.graph.edges()[0].tolist() == gf.graph.edges()[0].tolist()


def _glade_doc(hatchet_data) -> dict:
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    return json.loads(gf.to_json())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: doc["edges"]["src"].__setitem__(0, 2**64), "edges.src must be a list"),
        (lambda doc: doc["edges"]["dst"].__setitem__(0, 1.5), "edges.dst must be a list"),
        (lambda doc: doc["roots"].__setitem__(0, float("inf")), "roots must be a list"),
        (
            lambda doc: doc["index"]["rank"]["data"].__setitem__(0, 2**64),
            "column 'rank' cannot be decoded",
        ),
        (
            lambda doc: doc["frames"]["name"]["data"].__setitem__(3, ["MPI_Init"]),
            "column 'name' cannot be decoded .a str column holds a value that is not a string",
        ),
        (
            lambda doc: doc["frames"].update(type={"dtype": "object", "data": [["f"]] * 34}),
            r"frame attribute 'type' = \['f'\]: frame attributes are single values",
        ),
        (
            lambda doc: doc["frames"].update(type={"dtype": "object", "data": [{"a": 1}] * 34}),
            "column 'type' cannot be decoded",
        ),
        (lambda doc: doc.update(frames=1.5), "malformed glade JSON"),
    ],
)
def test_glade_json_structure(hatchet_data, tmp_path, change, message):
    doc = _glade_doc(hatchet_data)
    change(doc)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(doc))
    refused(path, message)


def test_glade_json_keeps_derived_values_exactly(hatchet_data):
    # glade's own format stores what glade computed: differences can be negative and
    # ratios infinite or NaN; they read back exactly, so to_json and from_json agree
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    shifted = gf.copy()
    shifted.dataframe["time"] = shifted.dataframe["time"] + 1.0
    difference = gf - shifted
    ratio = gf / (gf - gf)
    for derived in (difference, ratio):
        back = GraphFrame.from_json(derived.to_json())
        np.testing.assert_array_equal(
            back.dataframe["time"].to_numpy(), derived.dataframe["time"].to_numpy()
        )
    assert (difference.dataframe["time"] < 0).all()
    assert np.isinf(ratio.dataframe["time (inc)"]).any()


def test_to_json_writes_nothing_from_json_refuses(hatchet_data):
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    frames = gf.graph.frames.copy()
    frames["name"] = frames["name"].astype(object)
    frames.at[2, "name"] = ["MPI_Init"]
    graph, _ = Graph.from_parents(frames, gf.graph.tree_parent)
    bad = GraphFrame(graph, gf.dataframe.copy(), gf.exc_metrics, gf.inc_metrics)
    with pytest.raises(GladeError, match="cannot write this profile as glade JSON: node 2"):
        bad.to_json()
    gf.metadata["nested"] = {"nan": float("nan")}
    back = GraphFrame.from_json(gf.to_json())
    assert np.isnan(back.metadata["nested"]["nan"])


# ------------------------------------------------------- errors name the file
def test_errors_while_building_a_profile_name_the_file(tmp_path):
    # a metric named like a frame attribute: the GraphError from the profile's table
    path = tmp_path / "literal.json"
    path.write_text(
        json.dumps(
            [{"frame": {"name": "a", "type": "function"}, "metrics": {"type": 1.0, "time": 1.0}}]
        )
    )
    with pytest.raises(
        ReaderError,
        match=re.escape(f"{path}: metric column 'type' has the name of a frame attribute"),
    ):
        glade.read(path)
    with pytest.raises(ReaderError, match="has the name of a frame attribute"):
        GraphFrame.from_literal(path)


def test_thicket_children_must_be_lists(thicket_data, tmp_path):
    def change(doc):
        first = doc["graph"][0]
        first[next(iter(first))]["children"] = float("nan")

    path = edit_json(
        thicket_data / "example-json" / "user_ensemble.json", tmp_path / "u.json", change
    )
    with pytest.raises(ReaderError, match="'children' is nan, not a list") as info:
        glade.Ensemble.from_thicket_json(path)
    assert str(path) in str(info.value)


# ------------------------------------------------------------- metadata, types
def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_metadata_nested_too_deeply_is_refused(hatchet_data, tmp_path):
    # every copy of a profile copies its metadata, which Python does recursively
    deep = _nested(200)
    caliper = edit_json(
        hatchet_data / CPI_JSON, tmp_path / "c.json", lambda doc: doc.update(note=deep)
    )
    refused(caliper, "metadata 'note' nests deeper than 64 levels")
    pyinstrument = edit_json(
        hatchet_data / PYINSTRUMENT, tmp_path / "p.json", lambda doc: doc.update(program=deep)
    )
    refused(pyinstrument, "metadata 'program' nests deeper than 64 levels")
    doc = _glade_doc(hatchet_data)
    doc["metadata"]["note"] = deep
    path = tmp_path / "g.json"
    path.write_text(json.dumps(doc))
    refused(path, "metadata 'note' nests deeper")
    doc["metadata"]["note"] = _nested(60)  # deep, but copies fine
    path.write_text(json.dumps(doc))
    assert glade.read(path).copy().metadata["note"] == _nested(60)


def test_values_of_the_wrong_type(hatchet_data, tmp_path):
    def text_in_numbers(doc):
        doc["data"][3][5] = "fast"

    path = edit_json(hatchet_data / CPI_JSON, tmp_path / "c.json", text_in_numbers)
    refused(path, r"column 'sum#time.duration' mixes numbers and text \(row 3: 'fast'\)")
    path = edit_json(
        hatchet_data / PYINSTRUMENT,
        tmp_path / "p.json",
        lambda doc: doc["root_frame"].update(is_application_code={"yes": 1}),
    )
    refused(path, "'is_application_code' is not true or false")


def test_to_json_refuses_metric_cells_that_are_not_values(hatchet_data):
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    gf.dataframe["note"] = [{"a": 1}] + [None] * (len(gf.dataframe) - 1)
    with pytest.raises(GladeError, match=re.escape("metric 'note' holds {'a': 1}, not a")):
        gf.to_json()
