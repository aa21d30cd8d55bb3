"""The query vectors (cct_query_vectors.json): the readable query each edit sequence of
the CCT view gives on one small tree (see docs/guide/queries.md)."""

from __future__ import annotations

import json

import pytest

from glade.packing import mask_ranges
from glade.query import parse, query_mask
from glade.query.engine import RowTable
from glade.views import CCT

from .cct_cases import VECTORS, profile_from_spec

DATA = json.loads(VECTORS.read_text())


@pytest.fixture(scope="module")
def gf():
    return profile_from_spec(DATA["tree"])


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["why"] for c in DATA["cases"]])
def test_python_builds_the_vector_text(gf, case):
    view = CCT(gf)
    view.history = case["edits"]
    assert view.query == case["query"]
    for edit in case["edits"]:
        if edit["op"] == "base":
            keep = query_mask(RowTable(gf.graph, gf.dataframe), parse(edit["query"]))
            assert mask_ranges(keep) == edit["keep"]
