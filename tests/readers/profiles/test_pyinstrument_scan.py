"""The compiled reader of pyinstrument JSON files
(:mod:`glade.readers.profiles.pyinstrument_scan`) against a brute-force oracle (a
recursive walk of the frames) and against reading the same file as Python objects: the
same profile (dataframe, graph, metadata, units, warnings) or the same error, on random
frame trees, plain or not."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from glade.errors import GladeError
from glade.readers.profiles import pyinstrument as reader
from glade.readers.profiles.pyinstrument_scan import read_tables
from glade.readers.traces import json_scan


def outcome(path):
    """A GraphFrame and the warnings it gave, or the error's type and message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            gf = reader.read_pyinstrument(path)
        except GladeError as exc:
            return type(exc), str(exc)
    return gf, [str(w.message) for w in caught]


def as_objects(path):
    """The outcome of reading ``path`` as Python objects (the compiled reader off)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(reader, "read_tables", lambda content: None)
        return outcome(path)


def assert_same(a, b):
    if not hasattr(a[0], "dataframe") or not hasattr(b[0], "dataframe"):
        assert a == b
        return
    (x, x_warnings), (y, y_warnings) = a, b
    pd.testing.assert_frame_equal(x.dataframe, y.dataframe)
    pd.testing.assert_frame_equal(x.graph.frames, y.graph.frames)
    assert np.array_equal(x.graph.tree_parent, y.graph.tree_parent)
    assert (x.exc_metrics, x.inc_metrics) == (y.exc_metrics, y.inc_metrics)
    assert x.metadata == y.metadata
    assert x.units == y.units
    assert x_warnings == y_warnings


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=5)
plain_names = st.text("abcd_<>:. é", min_size=0, max_size=4)
times = st.one_of(
    st.integers(0, 2**62), st.floats(0, 1e12, allow_nan=False), st.just(0.5), st.just(0)
)
odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    names,
    st.builds(list),
    st.just({"a": [1, {"b": None}]}),
)


@st.composite
def frames(draw, name_text=names, odd=True):
    """A random pyinstrument document: a frame tree (a few names, so equal siblings
    occur), optional fields, and in a third of them (when ``odd``) now and then a field
    of an unexpected kind."""
    n = draw(st.integers(1, 25))
    odd = odd and draw(st.integers(0, 2)) == 0  # a third of the documents
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    pool = draw(st.lists(name_text, min_size=1, max_size=4))
    nodes = []
    for _ in range(n):
        frame = {"function": draw(st.sampled_from(pool)), "time": draw(times)}
        if draw(st.integers(0, 3)):
            frame["file_path_short"] = draw(st.sampled_from(["a.py", "b/c.py", "é.py"]))
        if draw(st.booleans()):
            frame["file_path"] = draw(st.sampled_from(["/x/a.py", "/y/b/c.py"]))
        if draw(st.integers(0, 3)):
            frame["line_no"] = draw(st.sampled_from([0, 1, 7, 2**40]))
        if draw(st.integers(0, 3)):
            frame["is_application_code"] = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            frame["await_time"] = draw(times)
        if draw(st.integers(0, 5)) == 0:
            frame[draw(st.sampled_from(["group_id", "class_name"]))] = draw(odd_values)
        if odd and draw(st.integers(0, 6)) == 0:
            field = draw(
                st.sampled_from(
                    [
                        "function",
                        "time",
                        "line_no",
                        "await_time",
                        "is_application_code",
                        "file_path_short",
                        "file_path",
                        "children",
                    ]
                )
            )
            frame[field] = draw(odd_values)
        keys = draw(st.permutations(list(frame)))
        nodes.append({key: frame[key] for key in keys})
    for i in range(1, n):
        kids = nodes[parent[i]].get("children")
        if not isinstance(kids, list):
            kids = nodes[parent[i]]["children"] = []
        kids.append(nodes[i])
    doc = {"start_time": draw(times), "duration": draw(times), "program": "x.py"}
    if draw(st.booleans()):
        doc["sample_count"] = draw(st.integers(0, 10**6))
    if odd and draw(st.integers(0, 5)) == 0:
        doc["cpu_time"] = draw(odd_values)
    doc["root_frame"] = nodes[0]
    if draw(st.booleans()):
        doc = {"root_frame": doc.pop("root_frame"), **doc}
    return doc


def preorder(root):
    """Brute force: every frame in pre-order, with its parent's index."""
    out = []

    def visit(frame, parent):
        out.append((frame, parent))
        here = len(out) - 1
        for child in frame.get("children", []):
            visit(child, here)

    visit(root, -1)
    return out


@given(frames(plain_names, odd=False), st.sampled_from([None, 1]))
def test_random_plain_trees_match_the_brute_force_walk(tmp_path_factory, doc, indent):
    path = tmp_path_factory.mktemp("scan") / "p.json"
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=indent))
    tables = read_tables(path.read_bytes())
    assert tables is not None, "read from its bytes"
    session, columns = tables
    expected = preorder(doc["root_frame"])
    assert session == {**doc, "root_frame": None}
    assert columns["parent"].tolist() == [p for _, p in expected]
    assert columns["name"].tolist() == [f["function"] for f, _ in expected]
    assert columns["time"].tolist() == [float(f["time"]) for f, _ in expected]
    files = [f.get("file_path_short", f.get("file_path")) for f, _ in expected]
    assert columns["file"].isna().tolist() == [file is None for file in files]
    assert columns["file"].dropna().tolist() == [file for file in files if file is not None]
    lines = [f.get("line_no") for f, _ in expected]
    got = columns["line"].to_numpy(np.float64)
    assert np.array_equal(got, [np.nan if x is None else x for x in lines], equal_nan=True)
    awaits = [f.get("await_time", np.nan) for f, _ in expected]
    assert np.array_equal(columns["await_time"], np.array(awaits, float), equal_nan=True)


@given(frames(), st.booleans())
def test_random_trees_read_as_the_object_reader_reads_them(tmp_path_factory, doc, ascii_only):
    # ensure_ascii writes every non-ASCII character escaped: those files are read as
    # Python objects, the others (when plain) from their bytes
    path = tmp_path_factory.mktemp("scan") / "p.json"
    path.write_text(json.dumps(doc, ensure_ascii=ascii_only, allow_nan=False))
    assert_same(outcome(path), as_objects(path))


def frame(name, *children, **fields):
    return {"function": name, "time": 1.0, **fields, "children": list(children)}


def write(tmp_path, text):
    path = tmp_path / "p.json"
    path.write_text(text)
    return path


def doc_text(root):
    return json.dumps({"duration": 1.0, "root_frame": root})


def test_the_wide_file_is_read_from_its_bytes(tmp_path):
    root = frame("<module>", *(frame(f"f{i}", file_path_short="x.py") for i in range(50)))
    root["time"] = 50.0
    path = write(tmp_path, doc_text(root))
    assert read_tables(path.read_bytes()) is not None
    gf, caught = outcome(path)
    assert len(gf.graph) == 51 and not caught
    assert gf.dataframe["time"].tolist() == [0.0] + [1.0] * 50
    assert_same((gf, caught), as_objects(path))


@pytest.mark.parametrize(
    "text",
    [
        # a field twice: the object reader keeps the last one
        '{"root_frame": {"function": "a", "time": 1, "time": 2}}',
        '{"root_frame": {"function": "a", "time": 1, "children": [], "children": []}}',
        '{"root_frame": {"function": "a", "time": 1}, "root_frame": {"function": "b", "time": 2}}',
        # an escaped key that spells a field, an escaped name
        '{"root_frame": {"function": "a", "tim\\u0065": 1}}',
        '{"root\\u005fframe": {"function": "a", "time": 1}}',
        '{"root_frame": {"function": "a\\"b", "time": 1}}',
        # kinds the object reader refuses or reads its own way
        '{"root_frame": {"function": "a", "time": 1, "line_no": 1.0}}',
        '{"root_frame": {"function": "a", "time": 1, "line_no": null}}',
        '{"root_frame": {"function": "a", "time": 1, "line_no": 9223372036854775808}}',
        '{"root_frame": {"function": "a", "time": 1e400}}',
        '{"root_frame": {"function": "a", "time": 123456789012345678901234567890}}',
        '{"root_frame": {"function": "a", "time": -0.0, "await_time": null}}',
        '{"root_frame": {"function": "a", "time": 1, "is_application_code": null}}',
        '{"root_frame": {"function": "a", "time": 1, "children": [1]}}',
        '{"root_frame": {"function": "a", "time": 1, "children": {}}}',
        '{"root_frame": null}',
        '{"root_frame": []}',
        "{}",
        "[]",
        '{"root_frame": {"function": "a", "time": NaN}}',
        '{"root_frame": {"function": "a", "time": 1}, "program": {"a": [1, 2]}}',
    ],
)
def test_irregular_files_read_as_objects_read_them(tmp_path, text):
    path = write(tmp_path, text)
    assert_same(outcome(path), as_objects(path))


def test_the_exact_parse_of_long_numbers(tmp_path):
    # 17 significant digits and an 18-digit integer: parsed exactly, as orjson does
    root = frame("a", frame("b", time=0.12345678901234567, line_no=123456789012345678))
    root["time"] = 10**17 + 1
    path = write(tmp_path, doc_text(root))
    assert read_tables(path.read_bytes()) is not None
    gf, _ = outcome(path)
    assert gf.dataframe["time (inc)"].tolist() == [float(10**17 + 1), 0.12345678901234567]
    assert gf.graph.frames["line"].tolist()[1] == float(123456789012345678)
    assert_same((gf, []), as_objects(path))


def test_deep_chains_within_and_past_the_scan_depth(tmp_path):
    # JSON nests two levels per frame: past MAX_DEPTH the file is read as objects
    for depth in (json_scan.MAX_DEPTH // 2 - 2, json_scan.MAX_DEPTH):
        root = frame("f0")
        below = root
        for level in range(1, depth):
            child = frame(f"f{level % 3}")
            below["children"] = [child]
            below = child
        path = write(tmp_path, doc_text(root))
        plain = read_tables(path.read_bytes()) is not None
        assert plain == (depth < json_scan.MAX_DEPTH // 2)
        gf, _ = outcome(path)
        assert len(gf.graph) == depth
        assert_same((gf, []), as_objects(path))


def test_merged_siblings_keep_their_first_values_in_file_order(tmp_path):
    # the two "a" frames merge, and so do their "c" children: the merged "c" keeps the
    # is_application_code of the first "c" in the file, however the frames are numbered
    first = frame("a", frame("c", is_application_code=True, await_time=0.5))
    second = frame("a", frame("c", is_application_code=False, await_time=0.25))
    root = frame("root", first, second)
    root["time"] = 2.0
    path = write(tmp_path, doc_text(root))
    assert read_tables(path.read_bytes()) is not None
    gf, _ = outcome(path)
    assert gf.graph.names.tolist() == ["root", "a", "c"]
    assert gf.dataframe["is_application_code"].tolist() == [False, False, True]
    assert gf.dataframe["await_time"].tolist()[2] == 0.5
    assert gf.dataframe["time (inc)"].tolist() == [2.0, 2.0, 2.0]
    assert_same((gf, []), as_objects(path))
