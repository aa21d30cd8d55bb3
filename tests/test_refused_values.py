"""Values glade cannot have written, or must not guess at, are refused with a
ReaderError naming the file and the field: a Caliper value column of numbers written as
text, a sidecar value of a numpy dtype glade never writes (``|V2000000000``), and a
store file that is a link to another store outside the folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from glade import Ensemble, GraphFrame
from glade.errors import ReaderError
from glade.parquet import decode_value, encode_value
from glade.readers.profiles.caliper import read_caliper
from glade.trace import Trace
from tests.trace.helpers import make_trace

LITERAL = [
    {
        "frame": {"name": "main"},
        "metrics": {"time": 3.0, "time (inc)": 5.0},
        "children": [{"frame": {"name": "solve"}, "metrics": {"time": 2.0, "time (inc)": 2.0}}],
    }
]


def split(values: list) -> dict:
    """A Caliper json-split document of three regions with a value column ``time``."""
    return {
        "data": [[i, v] for i, v in enumerate(values)],
        "columns": ["path", "time"],
        "column_metadata": [{"is_value": False}, {"is_value": True}],
        "nodes": [
            {"label": "main", "column": "path"},
            {"label": "a", "column": "path", "parent": 0},
            {"label": "b", "column": "path", "parent": 0},
        ],
    }


@pytest.mark.parametrize(("values", "row"), [(["5", "12abc", None], 0), (["x", None, "1e3"], 2)])
def test_caliper_numbers_written_as_text_are_refused(tmp_path, values, row):
    path = tmp_path / "text.json"
    path.write_text(json.dumps(split(values)))
    with pytest.raises(ReaderError, match=rf"value column 'time' .* \(data row {row}:") as info:
        read_caliper(path)
    assert str(path) in str(info.value)


def test_caliper_text_attributes_still_read(tmp_path):
    path = tmp_path / "attr.json"
    path.write_text(json.dumps(split(["kernel", None, "copy"])))
    assert read_caliper(path).dataframe["time"].tolist()[0] == "kernel"


@pytest.mark.parametrize(
    "value",
    [
        {"$numpy": "|V2000000000", "value": 0},
        {"$numpy": "<M8[ns]", "value": 0},
        {"$numpy": "<i8", "value": "text"},
        {"$numpy": "not a dtype", "value": 1},
        {"$array": "|V8", "shape": [1], "data": [0]},
        {"$array": "<f8", "shape": [4], "data": [1.0]},
        {"$array": "<f8", "shape": [1], "data": ["x"]},
        {"$float": {}},
    ],
)
def test_sidecar_values_glade_never_writes_are_refused(gf_store, value):
    sidecar = gf_store / "glade.json"
    body = json.loads(sidecar.read_text())
    body["metadata"] = {"bad": value}
    sidecar.write_text(json.dumps(body))
    with pytest.raises(ReaderError, match="sidecar entry 'metadata'") as info:
        GraphFrame.from_parquet(gf_store)
    assert str(sidecar) in str(info.value)


def test_sidecar_values_glade_writes_decode_exactly():
    values = [
        np.int16(-3),
        np.float32(1.5),
        np.bool_(True),
        np.arange(6, dtype=np.uint8).reshape(2, 3),
        (1, "a"),
        {(1, 2): [None]},
    ]
    for value in values:
        back = decode_value(json.loads(json.dumps(encode_value(value))))
        assert type(back) is type(value)
        np.testing.assert_array_equal(back, value)


@pytest.fixture
def gf_store(tmp_path) -> Path:
    return GraphFrame.from_literal(LITERAL).to_parquet(tmp_path / "gf")


def _relink(store: Path, other: Path, name: str) -> Path:
    """Replace ``store/name`` by a link to the same file of the store ``other``."""
    target = store / name
    target.unlink()
    os.symlink(other / name, target)
    return target


def test_store_files_linking_out_of_the_store_are_refused(tmp_path):
    gf = GraphFrame.from_literal(LITERAL)
    a, b = gf.to_parquet(tmp_path / "a"), gf.to_parquet(tmp_path / "b")
    linked = _relink(a, b, "dataframe.parquet")
    with pytest.raises(ReaderError, match=r"is a link to .* outside the store") as info:
        GraphFrame.from_parquet(a)
    assert str(linked) in str(info.value)
    linked = _relink(b, a, "glade.json")
    with pytest.raises(ReaderError, match="outside the store"):
        GraphFrame.from_parquet(b)

    ens = Ensemble.from_graphframes([gf, gf], labels=["x", "y"])
    a, b = ens.to_parquet(tmp_path / "ea"), ens.to_parquet(tmp_path / "eb")
    name = next(p.name for p in Path(a).iterdir() if p.suffix == ".parquet")
    _relink(Path(a), Path(b), name)
    with pytest.raises(ReaderError, match="outside the store"):
        Ensemble.from_parquet(a)

    trace = make_trace([(0, "Enter", "f", 0), (5, "Leave", "f", 0)])
    a, b = trace.to_parquet(tmp_path / "ta"), trace.to_parquet(tmp_path / "tb")
    _relink(Path(a), Path(b), "events/Process=0/part-0.parquet")
    with pytest.raises(ReaderError, match=r"part-0\.parquet: is a link to .* outside the store"):
        Trace.from_parquet(a)


def test_a_store_reached_through_a_link_still_reads(tmp_path):
    gf = GraphFrame.from_literal(LITERAL)
    store = gf.to_parquet(tmp_path / "real")
    os.symlink(store, tmp_path / "alias")
    assert GraphFrame.from_parquet(tmp_path / "alias").dataframe.equals(
        GraphFrame.from_parquet(store).dataframe
    )
