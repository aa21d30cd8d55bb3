"""Opening input files: JSON (also as Python's json module writes it) and UTF-8 text."""

from __future__ import annotations

import json
import math

import pytest

from glade.errors import ReaderError
from glade.readers.files import load_json, read_text


def test_json_as_python_writes_it_with_nan_and_infinity(tmp_path):
    path = tmp_path / "values.json"
    path.write_text(json.dumps({"a": [1, float("nan"), float("inf")], "big": 2**70}))
    doc = load_json(path)
    assert doc["a"][0] == 1 and math.isnan(doc["a"][1]) and doc["a"][2] == math.inf
    assert doc["big"] == 2**70


@pytest.mark.parametrize(
    "content",
    [b'{"a": [1, 2', b"", b"\xff\xfe{}", b"{} trailing"],
    ids=["truncated", "empty", "not-utf8", "trailing"],
)
def test_bad_json_names_the_file(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ReaderError, match="not valid JSON") as err:
        load_json(path)
    assert err.value.path == str(path)


def test_missing_files_are_named(tmp_path):
    for load in (load_json, read_text):
        with pytest.raises(ReaderError, match="no such file") as err:
            load(tmp_path / "nope")
        assert err.value.path == str(tmp_path / "nope")


def test_text_must_be_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ReaderError, match="not a UTF-8 text file"):
        read_text(path)
    path.write_text("café", encoding="utf-8")
    assert read_text(path) == "café"


DEEP = 5000


@pytest.mark.parametrize("opener", ["[", '{"a":'], ids=["lists", "objects"])
def test_json_nested_too_deep_is_refused(tmp_path, opener):
    closer = "]" if opener == "[" else "}"
    path = tmp_path / "deep.json"
    path.write_text(opener * DEEP + "1" + closer * DEEP)
    with pytest.raises(ReaderError, match="nested deeper than 1000 levels") as err:
        load_json(path)
    assert err.value.path == str(path)
    # Python's json module (the fallback for NaN) would recurse
    path.write_text(opener * DEEP + "NaN" + closer * DEEP)
    with pytest.raises(ReaderError, match="nested deeper than 1000 levels"):
        load_json(path)


@pytest.mark.parametrize("fmt", ["caliper", "pyinstrument", "timemory", "json", "literal"])
def test_every_json_reader_refuses_deep_documents(tmp_path, fmt):
    from glade.readers import read

    path = tmp_path / "deep.json"
    path.write_text('{"a":' * DEEP + "[]" + "}" * DEEP)
    with pytest.raises(ReaderError, match="nested deeper"):
        read(path, format=fmt)


def test_deep_documents_in_text_are_refused():
    from glade import GraphFrame

    with pytest.raises(ReaderError, match="nested deeper"):
        GraphFrame.from_json("[" * DEEP + "]" * DEEP)
