"""The Hatchet literal reader under hostile input: cycles made of shared dict objects,
names and types that are not single values, non-finite or negative metrics, nesting
past the limit; each ends in a ReaderError naming the node's place (and the file), in
bounded time. Literals built from shared dict objects without a cycle read as trees, as
Hatchet reads them."""

from __future__ import annotations

import json
import math

import pytest

from glade import GraphFrame
from glade.errors import ReaderError
from glade.readers.profiles import literal as literal_reader


def node(name: str, time: float = 1.0, children=None) -> dict:
    out = {"frame": {"name": name, "type": "function"}, "metrics": {"time": time}}
    if children is not None:
        out["children"] = children
    return out


def test_a_node_that_is_its_own_child_is_a_cycle():
    loop = node("loop")
    loop["children"] = [loop]
    root = node("main", children=[node("a"), loop])
    with pytest.raises(
        ReaderError,
        match=r"node \[0\]\.children\[1\] \('loop'\) contains "
        r"itself 1 levels down: the literal has a cycle",
    ):
        GraphFrame.from_literal([root])


def test_a_cycle_through_another_node():
    a, b = node("a"), node("b")
    a["children"] = [node("leaf"), b]
    b["children"] = [a]
    with pytest.raises(
        ReaderError,
        match=r"node \[0\]\.children\[1\] \('b'\) contains "
        r"itself 2 levels down: the literal has a cycle",
    ):
        GraphFrame.from_literal([a])


def test_shared_dicts_without_a_cycle_read_as_a_tree():
    shared = node("kernel", 2.0)
    gf = GraphFrame.from_literal(
        [node("main", children=[node("a", children=[shared]), node("b", children=[shared])])]
    )
    assert [n.path() for n in gf.graph.nodes()] == [
        ("main",),
        ("main", "a"),
        ("main", "a", "kernel"),
        ("main", "b"),
        ("main", "b", "kernel"),
    ]
    assert gf.dataframe["time"].tolist() == [1.0, 1.0, 2.0, 1.0, 2.0]


def test_shared_dicts_that_expand_past_the_node_limit(monkeypatch):
    monkeypatch.setattr(literal_reader, "MAX_NODES", 1000)
    level = node("leaf")
    for depth in range(30):  # a chain of diamonds: 2**30 places, 31 dicts
        level = node(f"d{depth}", children=[level, level])
    with pytest.raises(ReaderError, match="more than 1,000 nodes"):
        GraphFrame.from_literal([level])


def test_nesting_past_the_limit(monkeypatch):
    monkeypatch.setattr(literal_reader, "MAX_DEPTH", 50)
    deep = node("leaf")
    for depth in range(60):
        deep = node(f"n{depth}", children=[deep])
    with pytest.raises(
        ReaderError,
        match=r"node \[0\](\.children\[0\]){4}\.\.\.\(50 levels\)"
        r"\.\.\.(\.children\[0\]){3} nests deeper than 50 "
        "levels",
    ):
        GraphFrame.from_literal([deep])
    shallow = node("leaf")
    for depth in range(40):
        shallow = node(f"n{depth}", children=[shallow])
    assert len(GraphFrame.from_literal([shallow]).graph) == 41


def test_a_deep_chain_reads_without_recursion():
    deep = node("leaf")
    for depth in range(20_000):
        deep = node(f"n{depth % 7}", children=[deep])
    gf = GraphFrame.from_literal([deep])
    assert len(gf.graph) == 20_001 and int(gf.graph.depth.max()) == 20_000


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda n: n["frame"].update(name=["a", "b"]),
            r"has the name \['a', 'b'\] \(list\), not a string",
        ),
        (lambda n: n["frame"].update(name={"x": 1}), r"\(dict\), not a string"),
        (
            lambda n: n["frame"].update(type={"x": 1}),
            r"has frame attribute 'type' = \{'x': 1\}: frame attributes are single values",
        ),
        (
            lambda n: n["metrics"].update(time=math.inf),
            r"metric 'time' of node 'b' is inf, "
            "not a finite number",
        ),
        (
            lambda n: n["metrics"].update(time=math.nan),
            r"node \[0\]\.children\[1\] \('b'\): metric 'time' is nan, not a number",
        ),
        (lambda n: n["metrics"].update(time=-1.0), r"time 'time' of node 'b' is negative"),
        (lambda n: n.update(children=5), r"node \[0\]\.children\[1\] 'children' is not a list"),
        (
            lambda n: n["metrics"].update(time=[[1.0]]),
            r"node \[0\]\.children\[1\] \('b'\): metric 'time' is a list, not a single value",
        ),
        (lambda n: n.update(frame=["b"]), r"node \[0\]\.children\[1\] needs a 'frame' dict"),
    ],
)
def test_bad_values_are_refused_naming_the_node(tmp_path, change, message):
    bad = node("b")
    change(bad)
    literal = [node("main", children=[node("a"), bad])]
    with pytest.raises(ReaderError, match=message):
        GraphFrame.from_literal(literal)
    path = tmp_path / "literal.json"
    try:
        path.write_text(json.dumps(literal))
    except ValueError:  # NaN and infinity are not JSON
        return
    with pytest.raises(ReaderError, match=message) as info:
        GraphFrame.from_literal(path)
    assert str(path) in str(info.value)
