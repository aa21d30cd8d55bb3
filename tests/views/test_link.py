"""glade.link in the kernel: a timeline's window restricts a CCT view of the same trace to
exactly ``trace.query(window, level="calls").to_graphframe()`` with every call clipped to
the window (``measured``: by hand on a tiny trace,
against that GraphFrame on synthetic traces, and for random windows), a CCT selection
highlights its calls in the timeline, unlinking restores every view, the views' own edits
and queries are never touched, and links of views that cannot be linked fail clearly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade.datasets import synthetic_trace
from glade.errors import GladeError, QuerySyntaxError
from glade.trace.call_level import call_level
from glade.trace.windows import clip_trace, window_of
from glade.views import CCT, CommMatrix, SupergraphView, Timeline
from glade.views.timeline.edits import window_predicate
from tests.hypothesis_budget import examples
from tests.trace.helpers import make_trace

METRICS = ("time", "time (inc)", "count", "waiting time", "waiting time (inc)")


@pytest.fixture(scope="module")
def tiny():
    """Process 0: main [0, 100] calls A [10, 40] (which calls C [15, 25]) and B [50, 90];
    process 1: main [0, 100] calls A twice, [20, 30] and [60, 95]."""
    return make_trace(
        [
            (0, "Enter", "main", 0),
            (10, "Enter", "A", 0),
            (15, "Enter", "C", 0),
            (25, "Leave", "C", 0),
            (40, "Leave", "A", 0),
            (50, "Enter", "B", 0),
            (90, "Leave", "B", 0),
            (100, "Leave", "main", 0),
            (0, "Enter", "main", 1),
            (20, "Enter", "A", 1),
            (30, "Leave", "A", 1),
            (60, "Enter", "A", 1),
            (95, "Leave", "A", 1),
            (100, "Leave", "main", 1),
        ]
    )


@pytest.fixture(scope="module")
def trace():
    return synthetic_trace(6, 10, seed=5)


#: The waiting times of the tiny trace's calls: it records no messages, so nothing waits.
NO_WAITS = {"waiting time": 0.0, "waiting time (inc)": 0.0}


def measured(trace, text: str):
    """``trace.query(text, level="calls")`` with its Enter and Leave times clamped to the
    query's window (what a linked view measures)."""
    t0, t1, _ = window_of(text, int(trace.calls().dataframe["start"].min()))
    return clip_trace(trace.query(text, level="calls"), t0, t1)


def shown(view: CCT) -> dict[tuple[str, ...], dict[str, float]]:
    """What a CCT view draws, by call path: the values of each measured metric (not the
    rank spread columns), for the nodes a link keeps (every node without a link)."""
    n = len(view._tree.parent)
    names = [m["name"] for m in view.metrics]
    measured = [j for j, m in enumerate(view.metrics) if not m.get("column")]
    arrays = view.payload_arrays()
    values = arrays.get("link_values", arrays["values"]).reshape(len(names), n)
    keep = arrays.get("link_keep", np.ones(n))
    return {
        tuple(view._path_of(i)): {names[j]: float(values[j, i]) for j in measured}
        for i in range(n)
        if keep[i]
    }


def expected(gf) -> dict[tuple[str, ...], dict[str, float]]:
    """The same from a GraphFrame, one node at a time: each metric's mean over the
    ranks the GraphFrame has rows for."""
    out = {}
    for node in gf.graph.nodes():
        rows = gf.dataframe.xs(node.nid, level="node")
        out[tuple(node.path())] = {m: float(rows[m].mean()) for m in METRICS}
    return out


def flat(values: dict) -> dict[tuple, float]:
    """``{(path, metric): value}`` of a ``{path: {metric: value}}`` (for pytest.approx)."""
    return {(path, m): v for path, row in values.items() for m, v in row.items()}


def calls_on_path(trace, path: tuple[str, ...]) -> list[int]:
    """Nodes of the call forest whose call path (names from their root) is ``path``."""
    forest = trace.calls()
    return [node.nid for node in forest.graph.nodes() if tuple(node.path()) == path]


def test_a_window_restricts_the_cct_view_by_hand(tiny):
    timeline, tree = Timeline(tiny), CCT(tiny)
    link = glade.link(timeline, tree)
    timeline.window(45, 55)
    # kept: both mains (they span the window) and B on process 0; A and C end before 45
    # or start after 55. Measured inside the window: main 10 ns on both processes, of
    # which B takes 5 on process 0; B 5 ns on process 0, none on 1.
    assert shown(tree) == {
        ("main",): {"time": 7.5, "time (inc)": 10.0, "count": 1.0, **NO_WAITS},
        ("main", "B"): {"time": 2.5, "time (inc)": 2.5, "count": 0.5, **NO_WAITS},
    }
    assert tree.restriction == timeline.query
    assert tree.notice.startswith("values: mean over 2 ranks; linked: showing only the calls of")
    timeline.window(101, 200)
    assert shown(tree) == {} and len(tree.shown().graph) == 0
    link.unlink()
    assert shown(tree)[("main",)] == {"time": 42.5, "time (inc)": 100.0, "count": 1.0, **NO_WAITS}
    assert "link_values" not in tree.payload_arrays() and tree.restriction == ""
    assert tree.notice == "values: mean over 2 ranks"


def test_a_call_path_the_tree_lacks_folds_into_its_caller(tiny):
    timeline, tree = Timeline(tiny), CCT(tiny)
    glade.link(timeline, tree)
    timeline.hide("A")
    # without A, C hangs under main: a path the view's tree does not have. Its 10 ns go
    # to main's exclusive time, which main's inclusive time already holds; its call to
    # main's count (an exclusive metric: folded, as a collapsed node's is).
    assert shown(tree) == {
        ("main",): {
            "time": (60.0 + 100.0) / 2,
            "time (inc)": 100.0,
            "count": (2 + 1) / 2,
            **NO_WAITS,
        },
        ("main", "B"): {"time": 20.0, "time (inc)": 20.0, "count": 0.5, **NO_WAITS},
    }
    assert tree.shown().dataframe.equals(
        tiny.query(timeline.query, level="calls").to_graphframe().dataframe
    )


def test_the_cct_view_shows_the_trace_of_the_window(trace):
    timeline, tree = Timeline(trace), CCT(trace)
    tree.collapse(("main", "compute_step"))
    own_query, own_history = tree.query, list(tree.history)
    glade.link(timeline, tree)
    first, last = timeline.extent
    t0, t1 = int(first + (last - first) * 0.3), int(first + (last - first) * 0.45)
    timeline.window(t0, t1, processes=[1, 2, 4])
    reference = measured(trace, timeline.query).to_graphframe()
    assert tree.shown().dataframe.equals(reference.dataframe)
    assert flat(shown(tree)) == pytest.approx(flat(expected(reference)))
    # the link never touches the CCT view's own edits
    assert tree.query == own_query and tree.history == own_history
    tree.undo()
    assert tree.query == 'MATCH ("*")' and tree.restriction == timeline.query
    timeline.clear_window()
    assert tree.restriction == "" and "link_values" not in tree.payload_arrays()


def test_views_linked_after_a_window_start_restricted(trace):
    timeline = Timeline(trace)
    first, last = timeline.extent
    timeline.window(int(first), int(first + (last - first) * 0.1))
    tree = CCT(trace)
    glade.link(timeline, tree)
    assert tree.restriction == timeline.query
    assert tree.shown().dataframe.equals(measured(trace, timeline.query).to_graphframe().dataframe)


@settings(
    max_examples=examples(6),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.floats(0, 1), st.floats(0, 1), st.sets(st.integers(0, 5), min_size=1))
def test_any_window_restricts_to_its_trace(trace, a, b, processes):
    timeline, tree = Timeline(trace), CCT(trace)
    link = glade.link(timeline, tree)
    first, last = timeline.extent
    t0, t1 = sorted((int(first + (last - first) * a), int(first + (last - first) * b)))
    timeline.window(t0, t1, processes=sorted(processes))
    window = str(
        glade.query.Query().match(
            ".",
            window_predicate({"t0": t0, "t1": t1, "processes": timeline.history[-1]["processes"]}),
        )
    )
    assert tree.restriction == timeline.query  # the window from the trace's start
    reference = measured(trace, window)  # and in absolute ns
    assert flat(shown(tree)) == pytest.approx(flat(expected(reference.to_graphframe())))
    link.unlink()


def test_a_cct_selection_highlights_its_calls(trace):
    timeline, tree = Timeline(trace), CCT(trace)
    timeline.selection = 'MATCH (".", p) WHERE p.name = "MPI_Allreduce"'
    own = timeline.highlight
    link = glade.link(timeline, tree)
    path = ("main", "compute_step", "compute_flux")
    tree.selected_paths = [list(path)]
    assert tree.selection == str(
        glade.query.parse(
            '{MATCH (".", n0)->(".", n1)->(".", n2) WHERE n0 IS ROOT AND n0.name = "main" AND '
            'n1.name = "compute_step" AND n2.name = "compute_flux"} AND {NOT {MATCH (".", n0)->'
            '(".", n1) WHERE n0 IS ROOT AND n0.name = "main" AND n1.name = "compute_step"}}'
        )
    )
    marked = np.frombuffer(timeline.highlight, dtype="<i4").tolist()
    assert marked == calls_on_path(trace, path) and marked
    assert timeline.highlighted == tree.selection
    # the user's own selection in the timeline is left alone, and comes back on unlink
    assert timeline.selection == 'MATCH (".", n0) WHERE n0.name = "MPI_Allreduce"'
    tree.selected_paths = []
    assert tree.selection == "" and timeline.highlight == own
    tree.selected_paths = [list(path)]
    link.unlink()
    assert timeline.highlighted == "" and timeline.highlight == own


def test_a_selection_assigned_as_text_selects_rows(trace):
    tree = CCT(trace)
    tree.selection = 'MATCH (".", p) WHERE p.name = "compute_flux"'
    assert tree.selected_paths == [["main", "compute_step", "compute_flux"]]
    assert tree.selection == 'MATCH (".", n0) WHERE n0.name = "compute_flux"'
    tree.selection = ""
    assert tree.selected_paths == []
    with pytest.raises(QuerySyntaxError):
        tree.selection = "MATCH (("


def test_unlink_by_view_and_twice(trace):
    timeline, tree = Timeline(trace), CCT(trace)
    link = glade.link(timeline, tree)
    with pytest.raises(GladeError, match="already linked"):
        glade.link(tree, timeline)
    timeline.window(*timeline.extent[:2])
    glade.unlink(tree)
    assert not link.linked and "unlinked" in repr(link)
    timeline.clear_window()
    timeline.window(int(timeline.extent[0]), int(timeline.extent[0]) + 1)
    assert tree.restriction == ""
    with pytest.raises(GladeError, match="is not linked"):
        glade.unlink(tree)
    link.unlink()
    again = glade.link(timeline, tree)
    assert tree.restriction == timeline.query
    again.unlink()


def test_links_that_cannot_be_made(trace, tiny):
    timeline, tree = Timeline(trace), CCT(trace)
    with pytest.raises(GladeError, match="same data"):
        glade.link(timeline, CCT(tiny))
    with pytest.raises(GladeError, match="same data"):
        glade.link(timeline, CCT(trace.to_graphframe()))
    with pytest.raises(GladeError, match="at least two views"):
        glade.link(timeline)
    with pytest.raises(GladeError, match="twice"):
        glade.link(timeline, timeline)
    with pytest.raises(GladeError, match="not str"):
        glade.link(timeline, "cct")
    with pytest.raises(GladeError, match="nothing links these views"):
        glade.link(tree, CCT(trace))
    profile = CCT(trace.to_graphframe())
    with pytest.raises(GladeError, match="cannot be restricted"):
        profile.link_restrict('MATCH (".", p) WHERE p.name = "main"')
    with pytest.raises(GladeError, match="cannot be highlighted"):
        tree.link_highlight('MATCH (".", p) WHERE p.name = "main"')
    with pytest.raises(QuerySyntaxError):
        tree.link_restrict("MATCH ((")
    with pytest.raises(GladeError, match="query text"):
        tree.link_restrict(3)
    assert tree.restriction == "" and "link_values" not in tree.payload_arrays()


def test_a_restriction_to_everything_is_none(trace):
    timeline = Timeline(trace)
    timeline.link_restrict('match ("*")')
    assert timeline.restriction == ""
    first = timeline.extent[0]
    window = f'MATCH (".", p) WHERE p.end >= {int(first)} AND p.start <= {int(first) + 1}'
    timeline.link_restrict(window)
    assert timeline.query == 'MATCH ("*")' and timeline.history == []
    assert timeline.index.calls.size < int(timeline.index.forest.call.sum())
    timeline.link_restrict("")
    assert timeline.index.calls.size == int(timeline.index.forest.call.sum())


MPI = {"MPI_.*": "MPI"}


def test_a_window_restricts_the_supergraph_of_a_trace(trace):
    timeline, sankey = Timeline(trace), SupergraphView(trace, by=MPI)
    assert sankey.unit == "ns"  # a trace's times, from its call tree's units metadata
    sankey.hide("MPI")
    own_query, whole = sankey.query, sankey.supergraph().nodes
    link = glade.link(timeline, sankey)
    first, last = timeline.extent
    timeline.window(
        int(first + (last - first) * 0.2), int(first + (last - first) * 0.3), processes=[0, 3]
    )
    window = measured(trace, timeline.query).to_graphframe()
    expected_sg = window.query(own_query, fold=True).supergraph(by=MPI)
    assert sankey.supergraph().nodes.equals(expected_sg.nodes)
    assert sankey.supergraph().edges.equals(expected_sg.edges)
    assert sankey.query == own_query and "linked: showing only the calls of" in sankey.notice
    assert sankey.code() == (
        "trace.query('''" + own_query + "''', fold=True).to_graphframe()"
        ".supergraph(by={'MPI_.*': 'MPI'}, metric='time (inc)', "
        "rank_agg='mean')"
    )
    # a window that keeps nothing leaves the last supergraph, and says so
    timeline.window(int(last) + 10, int(last) + 20)
    assert sankey.supergraph().nodes.equals(expected_sg.nodes)
    assert "keeps no call of the trace" in sankey.notice
    link.unlink()
    assert sankey.supergraph().nodes.equals(whole) and "linked" not in sankey.notice


def test_three_views_in_one_link(trace):
    timeline, tree, sankey = Timeline(trace), CCT(trace), SupergraphView(trace, by=MPI)
    link = glade.link(timeline, tree, sankey)
    first, last = timeline.extent
    timeline.window(int(first), int(first + (last - first) * 0.25))
    assert tree.restriction == sankey.restriction == timeline.query
    tree.selected_paths = [["main", "MPI_Allreduce"]]
    assert timeline.highlighted == tree.selection
    assert sankey.highlighted == ""  # a supergraph takes no highlight
    link.unlink()
    assert tree.restriction == sankey.restriction == timeline.highlighted == ""


def test_a_supergraph_of_a_profile_takes_no_link(trace):
    with pytest.raises(GladeError, match="same data"):
        glade.link(Timeline(trace), SupergraphView(trace.to_graphframe(), by=MPI))
    with pytest.raises(GladeError, match="nothing links"):
        glade.link(SupergraphView(trace, by=MPI), CCT(trace))


@pytest.fixture(scope="module")
def halo():
    return synthetic_trace(6, 12, seed=4, exchange="halo", imbalance=0.4)


def test_a_window_restricts_the_matrix(halo):
    timeline, matrix = Timeline(halo), CommMatrix(halo, metric="bytes")
    link = glade.link(timeline, matrix)
    first, last = timeline.extent
    t0, t1 = int(first + (last - first) * 0.3), int(first + (last - first) * 0.6)
    timeline.window(t0, t1, processes=[1, 2, 3, 4])
    assert matrix.restriction == timeline.query and matrix.query == 'MATCH ("*")'
    # by brute force: the messages the brushed processes send inside the window (to
    # anyone, received whenever: a message belongs to the window of its send)
    m = halo.match_messages()
    inside = m["Send time (ns)"].between(t0, t1) & m["Sender"].isin([1, 2, 3, 4])
    assert (inside & ~m["Receiver"].isin([1, 2, 3, 4])).any()
    expected_bytes = m[inside].groupby(["Sender", "Receiver"])["Message Size"].sum()
    shown_bytes = matrix.matrix().stack()
    shown_bytes = shown_bytes[shown_bytes > 0]
    assert inside.any()
    assert shown_bytes.to_dict() == expected_bytes.astype(float).to_dict()
    link.unlink()
    assert matrix.restriction == "" and matrix.matrix().to_numpy().sum() == m["Message Size"].sum()


def test_a_matrix_cell_highlights_its_messages_in_the_timeline(halo):
    timeline, matrix = Timeline(halo), CommMatrix(halo)
    link = glade.link(timeline, matrix)
    matrix.select(2, 3)
    assert timeline.highlighted == matrix.selection != ""
    forest = halo.calls().dataframe
    marked = np.frombuffer(timeline.highlight, dtype="<i4")
    instants = marked[(forest["type"].to_numpy()[marked] == "instant")]
    # the send and receive events of exactly those messages, and the calls holding them
    messages = matrix.messages()
    assert sorted(forest["event"].to_numpy()[instants].tolist()) == sorted(
        messages["Send event"].tolist() + messages["Receive event"].tolist()
    )
    calls = marked[(forest["type"].to_numpy()[marked] == "call")]
    parents = halo.calls().graph.tree_parent[instants]
    assert sorted(set(parents.tolist())) == sorted(calls.tolist())
    # (the synthetic run records a receive in the MPI_Waitall that completes it)
    assert set(forest["name"].to_numpy()[calls]) == {"MPI_Isend", "MPI_Waitall"}
    matrix.clear_selection()
    assert timeline.highlighted == "" and timeline.highlight == b""
    link.unlink()


def test_four_views_in_one_link(halo):
    timeline, tree, matrix = Timeline(halo), CCT(halo), CommMatrix(halo)
    sankey = SupergraphView(halo, by=MPI)
    link = glade.link(timeline, tree, matrix, sankey)
    first, last = timeline.extent
    timeline.window(int(first), int(first + (last - first) * 0.5))
    assert tree.restriction == matrix.restriction == sankey.restriction == timeline.query
    # a CCT selection highlights in the timeline and outlines the matrix's cells
    tree.selected_paths = [["main", "MPI_Isend"]]
    assert timeline.highlighted == matrix.highlighted == tree.selection
    assert matrix.payload_arrays()["highlight"].size > 0
    # a matrix selection highlights in the timeline (the last selection wins)
    matrix.select(0, 1)
    assert timeline.highlighted == matrix.selection
    with pytest.raises(GladeError, match="set by a link"):
        tree.restriction = 'MATCH (".", p)'
    link.unlink()
    assert not any(
        [
            tree.restriction,
            matrix.restriction,
            sankey.restriction,
            timeline.highlighted,
            matrix.highlighted,
        ]
    )


def test_views_of_a_trace_share_its_call_level(trace):
    timeline = Timeline(trace)
    level = call_level(trace)
    assert timeline.source.level is level and call_level(trace) is level
    text = str(glade.query.parse('MATCH (".", p) WHERE p.name = "compute_flux"'))
    mask = level.mask(text)
    assert level.mask(text) is mask and not mask.flags.writeable
    assert mask.sum() == (trace.calls().dataframe["name"] == "compute_flux").sum()
    assert level.mask('MATCH ("*")') is None
    assert level.query(text).events.equals(trace.query(text, level="calls").events)


def test_a_matrix_sends_a_new_picture_with_its_descriptors(halo):
    # a linked restriction or a zoom redraws the matrix: its picture and the descriptors of
    # the arrays in it must reach the page in one message (a page that got the new
    # descriptors with the old picture read past its end, on 4096 pooled processes)
    matrix = CommMatrix(halo, max_cells=2)
    sent: list = []
    matrix.send_state = lambda key=None: sent.append(set(key) if key else None)
    matrix.zoom((0, 4))
    matrix.link_restrict('MATCH (".", p) WHERE p.Process <= 3')
    pictures = [keys for keys in sent if keys and keys & {"payload", "payload_meta"}]
    assert len(pictures) == 2
    assert all({"payload", "payload_meta"} <= keys for keys in pictures)
