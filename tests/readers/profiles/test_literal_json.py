"""glade JSON (lossless round trip), Hatchet literal files, format detection, their errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import glade
from glade import GraphFrame
from glade.errors import GladeError, ReaderError
from glade.readers import detect_format
from glade.readers.profiles.literal import read_literal
from tests.hypothesis_budget import examples
from tests.readers.corruption import garble, truncate


@st.composite
def random_graphframes(draw):
    n = draw(st.integers(1, 25))
    shared = draw(st.booleans())
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    src = [parent[i] for i in range(1, n)]
    dst = list(range(1, n))
    if shared and n > 2:
        extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n - 1)), max_size=4))
        src += [a for a, _ in extra]
        dst += [b for _, b in extra]
    text = st.text(max_size=6)
    frames = pd.DataFrame(
        {
            "name": draw(st.lists(text, min_size=n, max_size=n)),
            "line": draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n)),
            "file": pd.Series(
                draw(st.lists(st.one_of(st.none(), text), min_size=n, max_size=n)), dtype=object
            ),
        }
    )
    ranks = draw(st.integers(1, 3))
    floats = st.floats(allow_nan=True, allow_infinity=True)
    rows = pd.DataFrame(
        {
            "node": np.repeat(np.arange(n), ranks),
            "rank": np.tile(np.arange(ranks), n),
            "time": draw(st.lists(floats, min_size=n * ranks, max_size=n * ranks)),
            "count": draw(st.lists(st.integers(-5, 5), min_size=n * ranks, max_size=n * ranks)),
            "label": pd.Series(
                draw(
                    st.lists(
                        st.one_of(st.none(), text, floats), min_size=n * ranks, max_size=n * ranks
                    )
                ),
                dtype=object,
            ),
        }
    )
    index = ("node", "rank") if ranks > 1 else ("node",)
    if ranks == 1:
        rows = rows.drop(columns="rank")
    # integers glade JSON reads back exactly (64 bits); larger ones are refused, see below
    meta = draw(
        st.dictionaries(
            st.text(max_size=5),
            st.one_of(st.integers(-(2**63), 2**64 - 1), text, st.none()),
            max_size=3,
        )
    )
    gf = GraphFrame.from_tables(frames, src, dst, rows, ["time"], [], index=index, metadata=meta)
    return gf.update_inclusive_columns()


@settings(max_examples=examples(75), deadline=None)
@given(random_graphframes())
def test_json_round_trip_is_lossless(gf):
    again = GraphFrame.from_json(gf.to_json())
    pd.testing.assert_frame_equal(again.dataframe, gf.dataframe)
    pd.testing.assert_frame_equal(again.graph.frames, gf.graph.frames)
    for a, b in zip(again.graph.edges(), gf.graph.edges(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(again.graph.root_ids, gf.graph.root_ids)
    assert (again.exc_metrics, again.inc_metrics, again.default_metric, again.metadata) == (
        gf.exc_metrics,
        gf.inc_metrics,
        gf.default_metric,
        gf.metadata,
    )


def test_json_refuses_an_integer_it_would_not_read_back():
    """An integer beyond 64 bits would come back a float: refused, naming its key."""
    for value in (-(2**63) - 1, 2**64, [1, {"deep": 2**70}]):
        gf = glade.datasets.synthetic_profile(4)
        gf.metadata["big"] = value
        with pytest.raises(GladeError, match=r"'big'.*64 bits"):
            gf.to_json()
    gf.metadata["big"] = 2**64 - 1
    assert GraphFrame.from_json(gf.to_json()).metadata["big"] == 2**64 - 1


def test_json_file_and_detection(tmp_path):
    gf = glade.datasets.synthetic_profile(40, ranks=2)
    path = tmp_path / "profile.json"
    gf.to_json(path)
    assert detect_format(path) == "json"
    pd.testing.assert_frame_equal(glade.read(path).dataframe, gf.dataframe)
    literal = tmp_path / "literal.json"
    literal.write_text(json.dumps(gf.drop_index_levels().to_literal()))
    assert detect_format(literal) == "literal"
    assert len(glade.read(literal).graph) == 40


def test_every_real_profile_is_detected(hatchet_data):
    expected = {
        "hpctoolkit-cpi-database": "hpctoolkit",
        "caliper-cpi-json/cpi-callpath-profile.json": "caliper",
        "caliper-lulesh-cali/lulesh-annotation-profile.cali": "caliper",
        "cprofile-hatchet-pstats/cprofile-cycle.pstats": "cprofile",
        "gprof2dot-cpi/callgrind.dot.64042.0.1": "gprof_dot",
        "pyinstrument-hatchet-json/pyinstrument-hatchet-profile.json": "pyinstrument",
        "tau-cpi-mpi": "tau",
        "timemory/wall.tree.json": "timemory",
        "json/hatchet-graph-literal.json": "json",
    }
    for rel, fmt in expected.items():
        assert detect_format(hatchet_data / rel) == fmt, rel
        assert len(glade.read(hatchet_data / rel).graph) > 0


def test_unknown_and_missing_inputs(tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("nothing a profiler writes\n")
    with pytest.raises(ReaderError, match=r"notes\.txt: not a profile format"):
        glade.read(junk)
    with pytest.raises(ReaderError, match="no such file"):
        glade.read(tmp_path / "absent")


@pytest.mark.parametrize("damage", ["truncate", "garble", "empty", "not-json-doc"])
def test_broken_glade_json(tmp_path, damage):
    path = tmp_path / "p.json"
    glade.datasets.synthetic_profile(30).to_json(path)
    if damage == "truncate":
        truncate(path, 0.6)
    elif damage == "garble":
        garble(path, offset=200, length=40)
    elif damage == "empty":
        path.write_text("")
    else:
        path.write_text(json.dumps({"format": "glade-graphframe", "version": 1, "frames": {}}))
    with pytest.raises(ReaderError) as info:
        GraphFrame.from_json(path)
    assert str(path) in str(info.value)


def test_glade_json_with_inconsistent_parts(tmp_path):
    doc = json.loads(glade.datasets.synthetic_profile(10).to_json())
    doc["index"]["node"]["data"][3] = 99
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match="nodes the graph does not have"):
        GraphFrame.from_json(path)
    doc = json.loads(glade.datasets.synthetic_profile(10).to_json())
    doc["metrics"]["time"]["data"] = "oops"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match="column 'time'"):
        GraphFrame.from_json(path)


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ([], "non-empty list"),
        ([{"metrics": {}}], r"node \[0\] needs a 'frame' dict"),
        (
            [{"frame": {"name": "a"}, "metrics": {}, "children": [3]}],
            r"node \[0\].children\[0\] is a int",
        ),
        ([{"frame": {"type": "x"}, "metrics": {}}], "has no name"),
        ([{"frame": {"name": "a"}, "metrics": {}, "children": {"b": 1}}], "not a list"),
    ],
)
def test_broken_literals(literal, message):
    with pytest.raises(ReaderError, match=message):
        GraphFrame.from_literal(literal)


def test_broken_literal_file(tmp_path):
    path = tmp_path / "lit.json"
    path.write_text(json.dumps(glade.datasets.synthetic_literal(20)))
    truncate(path)
    with pytest.raises(ReaderError) as info:
        read_literal(path)
    assert str(path) in str(info.value)


def test_hatchet_json_errors(tmp_path, hatchet_data):
    doc = json.loads((hatchet_data / "json" / "hatchet-graph-literal.json").read_text())
    doc["dataframe"][0]["node"] = 999
    path = tmp_path / "h.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match="names a node that is not in the graph"):
        GraphFrame.from_json(path)
    del doc["graph"][0]["0"]["data"]
    path.write_text(json.dumps(doc))
    with pytest.raises(ReaderError, match="malformed Hatchet JSON"):
        GraphFrame.from_json(path)
