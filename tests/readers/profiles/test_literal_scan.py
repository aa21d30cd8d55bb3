"""The compiled reader of Hatchet literal files (:mod:`glade.readers.profiles.literal_scan`)
against a brute-force oracle (a recursive walk of the literal) and against reading the
same literal as Python objects: same profile on random trees, same error or result on
every literal it does not read itself."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from glade import GraphFrame
from glade.errors import GladeError
from glade.readers.profiles import literal as literal_reader
from glade.readers.profiles.literal_scan import read_tables

MAX_CELLS = literal_reader.MAX_CELLS


def as_objects(path, monkeypatch):
    """The outcome of reading ``path`` as Python objects (the compiled reader off):
    a GraphFrame or the error's type and message."""
    with monkeypatch.context() as m:
        m.setattr(literal_reader, "read_tables", lambda *a: None)
        return outcome(path)


def outcome(path):
    try:
        return literal_reader.read_literal(path)
    except GladeError as exc:
        return type(exc), str(exc)


def assert_same(a, b):
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b
        return
    pd.testing.assert_frame_equal(a.dataframe, b.dataframe)
    pd.testing.assert_frame_equal(a.graph.frames, b.graph.frames)
    assert np.array_equal(a.graph.tree_parent, b.graph.tree_parent)
    assert (a.exc_metrics, a.inc_metrics) == (b.exc_metrics, b.inc_metrics)


def preorder(roots):
    """Brute force: every node of the literal in pre-order, with its parent's index."""
    out = []

    def visit(node, parent):
        out.append((node, parent))
        here = len(out) - 1
        for child in node.get("children", []):
            visit(child, here)

    for root in roots:
        visit(root, -1)
    return out


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=5)
plain_names = st.text("abcdefg_<>:. ", min_size=1, max_size=5)
numbers = st.one_of(
    st.integers(-(2**62), 2**62), st.floats(allow_nan=False, allow_infinity=False, width=64)
)


@st.composite
def literals(draw, name_text=names):
    n = draw(st.integers(1, 30))
    parent = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)]
    with_line = draw(st.booleans())
    nodes = []
    for _ in range(n):
        frame = {"name": draw(name_text)}
        if draw(st.booleans()):
            frame["type"] = draw(st.sampled_from(["function", "loop", "statement"]))
        if with_line and draw(st.integers(0, 3)):
            frame["line"] = draw(st.integers(0, 10**6))
        metrics = {"time": draw(numbers)}
        if draw(st.booleans()):
            metrics["time (inc)"] = abs(draw(st.floats(0, 1e9)))
        if draw(st.integers(0, 3)) == 0:
            metrics[draw(st.sampled_from(["count", "label", "m (inc)"]))] = draw(
                st.one_of(numbers, st.booleans(), st.none(), names)
            )
        keys = draw(st.permutations(["frame", "metrics"]))
        nodes.append({key: frame if key == "frame" else metrics for key in keys})
    for i in range(1, n):
        if parent[i] >= 0:
            nodes[parent[i]].setdefault("children", []).append(nodes[i])
    return [nodes[i] for i in range(n) if parent[i] < 0]


@given(literals(plain_names))
def test_random_plain_trees_match_the_brute_force_walk(tmp_path_factory, literal):
    expected = preorder(literal)
    for node, _ in expected:  # numbers only, times at least 0
        metrics = node["metrics"]
        metrics.update({k: 1 for k, v in metrics.items() if not isinstance(v, int | float)})
        metrics.update({k: 2 for k, v in metrics.items() if isinstance(v, bool)})
        metrics["time"] = abs(metrics["time"])
    path = tmp_path_factory.mktemp("scan") / "literal.json"
    path.write_text(json.dumps(literal, ensure_ascii=False))
    assert read_tables(path.read_bytes(), MAX_CELLS) is not None, "read from its bytes"
    gf = GraphFrame.from_literal(path)
    graph = gf.graph
    assert graph.names.tolist() == [n["frame"]["name"] for n, _ in expected]
    assert graph.tree_parent.tolist() == [p for _, p in expected]
    for column in ("time", "time (inc)", "count", "label", "m (inc)"):
        has = [column in n["metrics"] for n, _ in expected]
        if any(has):
            want = [n["metrics"][column] for n, _ in expected if column in n["metrics"]]
            values = gf.dataframe[column].to_numpy()
            if values.dtype == np.float64:
                want = [float(w) for w in want]
            assert values[has].tolist() == want
    if "line" in graph.frames:
        want = [n["frame"].get("line", math.nan) for n, _ in expected]
        assert np.array_equal(graph.frames["line"].to_numpy(np.float64), want, equal_nan=True)


@given(literals(), st.booleans())
def test_random_trees_read_as_the_object_reader_reads_them(tmp_path_factory, literal, ascii_only):
    path = tmp_path_factory.mktemp("scan") / "literal.json"
    path.write_text(json.dumps(literal, ensure_ascii=ascii_only, allow_nan=False))
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert_same(outcome(path), as_objects(path, monkeypatch))


def node(name, children=None, **metrics):
    out = {"frame": {"name": name, "type": "function"}, "metrics": metrics or {"time": 1.0}}
    if children is not None:
        out["children"] = children
    return out


def chain(depth):
    text = '{"frame": {"name": "leaf"}, "metrics": {"time": 1}}'
    for i in range(depth):
        text = f'{{"frame": {{"name": "n{i}"}}, "metrics": {{"time": 1}}, "children": [{text}]}}'
    return f"[{text}]"


PLAIN = json.dumps([node("main", [node("a"), node("b", [node("c")])])])


@pytest.mark.parametrize(
    "text",
    [
        PLAIN.replace('"type": "function"', '"name": "x", "type": "function"', 1),  # key twice
        PLAIN.replace('"time": 1.0', '"_hatchet_nid": 3, "time": 1.0', 1),
        PLAIN.replace('"time": 1.0', '"time": true', 1),
        PLAIN.replace('"time": 1.0', '"time": null', 1),
        PLAIN.replace('"time": 1.0', '"time": NaN', 1),
        PLAIN.replace('"time": 1.0', '"time": 1e999', 1),
        PLAIN.replace('"time": 1.0', '"time": -2.0', 1),
        PLAIN.replace('"time": 1.0', '"time": "5"', 1),
        PLAIN.replace('"time": 1.0', f'"time": {2**63 + 1}', 1),
        PLAIN.replace('"time": 1.0', '"time": [1]', 1),
        PLAIN.replace('"type": "function"', '"type": {"x": 1}', 1),
        PLAIN.replace('"type": "function"', '"type": 7', 1),
        PLAIN.replace('"name": "a"', '"name": 5', 1),
        PLAIN.replace('"name": "a"', '"nom": "a"', 1),
        PLAIN.replace('"name": "c"', '"name": "caf\\u00e9"', 1),
        PLAIN.replace(
            '"children": [{"frame": {"name": "c"', '"children": {"x": [{"frame": {"name": "c"', 1
        )
        + "}",
        PLAIN.replace('"children": [', '"children": null, "other": [', 1),
        PLAIN[:-1] + ', "extra"]',
        PLAIN[:-5],
        PLAIN + " x",
        json.dumps(node("main", [node("a")])),
        "[]",
        "[1]",
        '[{"metrics": {}}]',
        '[{"frame": {"name": "a"}, "name": "b"}]',
        '[{"frame": {"name": "a"}, "children": []}, {"frame": {"name": "b"}}]',
        '[{"children": [{"frame": {"name": "b"}}], "frame": {"name": "a"}, "metrics": {}}]',
        '[{"frame": {"name": "a"}, "children": [{"frame": {"name": "b"}}], "children": []}]',
        chain(200),
        chain(2000),
        '[{"frame": {"name": "a\xff"}}]',
    ],
)
def test_any_other_literal_reads_as_the_object_reader_reads_it(tmp_path, monkeypatch, text):
    path = tmp_path / "literal.json"
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    assert_same(outcome(path), as_objects(path, monkeypatch))


def test_a_shallow_chain_is_read_from_its_bytes_and_a_deep_one_is_not():
    assert read_tables(chain(100).encode(), MAX_CELLS) is not None
    assert read_tables(chain(200).encode(), MAX_CELLS) is None
    frames, _, src, dst, roots = read_tables(chain(100).encode(), MAX_CELLS)
    assert frames["name"].tolist() == [f"n{i}" for i in reversed(range(100))] + ["leaf"]
    assert (src.tolist(), dst.tolist(), roots) == (list(range(100)), list(range(1, 101)), [0])


def test_children_before_the_frame_are_read_from_the_bytes():
    text = (
        b'[{"children": [{"frame": {"name": "b"}}], "frame": {"name": "a"}},'
        b' {"frame": {"name": "c"}}]'
    )
    frames, _, src, dst, roots = read_tables(text, MAX_CELLS)
    assert (frames["name"].tolist(), src.tolist(), dst.tolist(), roots) == (
        ["a", "b", "c"],
        [0],
        [1],
        [0, 2],
    )


def test_a_table_too_large_is_left_to_the_object_reader():
    # 21 nodes, 23 names (name, type, time, m0...m19)
    text = json.dumps([node("main", [node(f"f{i}", **{f"m{i}": 1.0}) for i in range(20)])])
    assert read_tables(text.encode(), 23 * 21 - 1) is None
    assert read_tables(text.encode(), 23 * 21) is not None
