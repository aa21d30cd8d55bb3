"""The gprof2dot DOT reader on Hatchet's real callgrind -> gprof2dot file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from glade.errors import ReaderError
from glade.profile import GraphFrame
from glade.readers.profiles.gprof_dot import detect, read_gprof_dot
from tests.readers.corruption import copy_input, empty, garble, truncate
from tests.readers.helpers import by_name


@pytest.fixture(scope="module")
def dot_file(hatchet_data: Path) -> Path:
    return hatchet_data / "gprof2dot-cpi" / "callgrind.dot.64042.0.1"


@pytest.fixture(scope="module")
def gf(dot_file: Path) -> GraphFrame:
    return read_gprof_dot(dot_file)


def test_nodes_edges_and_roots(gf, dot_file):
    # The file has 105 node statements and 107 "->" edge statements
    # (grep -c -- '->' gives 107); 7 functions are never called.
    assert len(gf.graph) == 105
    src, _ = gf.graph.edges()
    assert len(src) == 107
    assert gf.graph.roots[0].name == "(below main)"
    assert set(gf.graph.names[gf.graph.root_ids]) == {
        "(below main)",
        "0x0000000000000ff0",
        "_dl_catch_error'2",
        "hwloc_topology_load",
        "ibv_get_device_list",
        "psm_allocate_vbufs",
        "psm_no_lock",
    }
    main = by_name(gf, "main")
    assert list(gf.graph.names[gf.graph.parents_of(main)]) == ["(below main)"]
    # leaves: e.g. MPIR_SUM has no outgoing edge in the file
    assert gf.graph.num_children[by_name(gf, "MPIR_SUM")] == 0


def test_call_graph_is_a_dag_with_shared_callees(gf):
    graph = gf.graph
    assert not graph.is_tree()
    assert (graph.num_parents >= 2).any()
    # "... -> malloc" appears on lines 63, 87 and 89 of the file (and more callers elsewhere)
    callers = set(graph.names[graph.parents_of(by_name(gf, "malloc"))])
    assert {
        "MPIR_Knomial_Bcast_inter_node_MV2",
        "MPIR_Reduce_knomial_MV2",
        "MPIR_Reduce_knomial_trace",
    } <= callers


def test_children_keep_file_order(gf):
    # edges from MPIR_Bcast_index_tuned_intra_MV2, in file order
    node = by_name(gf, "MPIR_Bcast_index_tuned_intra_MV2")
    assert list(gf.graph.names[gf.graph.children_of(node)]) == [
        "MPIR_Bcast_tune_inter_node_helper_MV2",
        "exp2",
        "log2",
        "log2f",
    ]


def test_metric_values_and_frames(gf):
    # line 176: main [label="cpi\nmain\n97.94%\n(53.77%)\n1×"]
    # line 104: "PMPI_Bcast" [label="libmpi.so.12.0.5\nPMPI_Bcast\n10.33%\n(0.45%)\n99999×"]
    df = gf.dataframe
    main = df.loc[by_name(gf, "main")]
    assert main["time (inc)"] == pytest.approx(97.94)
    assert main["time"] == pytest.approx(53.77)
    assert main["calls"] == 1
    bcast = df.loc[by_name(gf, "PMPI_Bcast")]
    assert (bcast["time (inc)"], bcast["time"], bcast["calls"]) == (10.33, 0.45, 99999)
    assert gf.node(by_name(gf, "PMPI_Bcast")).frame == {
        "name": "PMPI_Bcast",
        "type": "function",
        "module": "libmpi.so.12.0.5",
    }
    assert gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"]


def test_detect(dot_file, hatchet_data, tmp_path):
    assert detect(dot_file)
    assert not detect(hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats")
    assert not detect(hatchet_data / "gprof2dot-cpi")
    plain = tmp_path / "plain.dot"
    plain.write_text("digraph { a -> b; }\n")
    assert not detect(plain)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (truncate, "truncated"),
        (empty, "empty"),
        (garble, "UTF-8"),
        (lambda p: garble(p, offset=2000, length=1), "NUL"),
    ],
    ids=["truncated", "empty", "garbled", "nul-byte"],
)
def test_damaged_file(dot_file, tmp_path, damage, message):
    path = damage(copy_input(dot_file, tmp_path))
    with pytest.raises(ReaderError, match=message) as err:
        read_gprof_dot(path)
    assert err.value.path == str(path)


def test_wrong_format(hatchet_data):
    path = hatchet_data / "pyinstrument-hatchet-json" / "pyinstrument-hatchet-profile.json"
    with pytest.raises(ReaderError, match="digraph") as err:
        read_gprof_dot(path)
    assert err.value.path == str(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("digraph { a -> b; }", "no node has a gprof2dot label"),
        ('digraph { a [label="x\\ny"]; }', "node 'a': not a gprof2dot label"),
        ('digraph { a [label="a\\n5%\\n7%"]; }', "expected '\\(self%\\)'"),
        ("digraph { }", "no nodes"),
        ('digraph { a [label="oops]; }', "unterminated"),
        ("graph { a -- b }", "expected 'digraph'"),
        ("digraph { a -> subgraph { b } }", "subgraphs"),
        ("digraph { a -> b } }", "after the end"),
        ("digraph { a [label=<b>x</b>] }", "HTML"),
    ],
    ids=[
        "plain-dot",
        "bad-label",
        "no-self",
        "no-nodes",
        "open-quote",
        "undirected",
        "subgraph-edge",
        "extra-brace",
        "html-label",
    ],
)
def test_malformed_dot(tmp_path, text, message):
    path = tmp_path / "bad.dot"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReaderError, match=message) as err:
        read_gprof_dot(path)
    assert err.value.path == str(path)


def test_hand_made_dot(tmp_path):
    # Quoted IDs with escaped quotes, an edge chain, comments, default attribute
    # statements, a graph attribute and a node that only appears in edges.
    text = r"""
    /* made by hand */
    strict digraph calls {
        rankdir = LR;
        node [shape=box];
        "top" [label="app\ntop\n100.00%\n(10.00%)\n1×"];
        "say \"hi\"" [label="say \"hi\"\n40.00%\n(40.00%)\n2×"];  // no module line
        "top" -> "say \"hi\"" -> leaf [label="40.00%\n2×"];
        "top" -> "say \"hi\"";
        leaf [label="libc.so\nleaf\n5.00%\n(5.00%)\n7×"]
        "top" -> ghost
    }
    """
    path = tmp_path / "hand.dot"
    path.write_text(text, encoding="utf-8")
    gf = read_gprof_dot(path)
    assert list(gf.graph.names) == ["top", 'say "hi"', "leaf", "ghost"]
    assert [n.name for n in gf.graph.roots] == ["top"]
    df = gf.dataframe
    assert list(df["time (inc)"]) == [100.0, 40.0, 5.0, 0.0]
    assert list(df["time"]) == [10.0, 40.0, 5.0, 0.0]
    assert pd.isna(df.loc[1, "module"]) and df.loc[2, "module"] == "libc.so"
    assert np.isnan(df.loc[3, "calls"]) and df.loc[2, "calls"] == 7
