"""The main entry points of the public API document themselves in numpy style: a
Parameters section when they take arguments, Returns when they return something, and
Examples that run (as doctests, here) and give what they say."""

from __future__ import annotations

import doctest
import inspect
import re

import pytest

import glade
from glade import Ensemble, GraphFrame, Trace
from glade.query import col, parse
from glade.views import CCT, CommMatrix, SupergraphView, Timeline

ENTRY_POINTS = [
    glade.read,
    glade.read_trace,
    parse,
    col,
    glade.link,
    GraphFrame.tree,
    GraphFrame.query,
    GraphFrame.match,
    GraphFrame.filter,
    GraphFrame.squash,
    GraphFrame.flat_profile,
    GraphFrame.show,
    Ensemble.from_files,
    Ensemble.filter_metadata,
    Ensemble.groupby,
    Ensemble.query,
    Ensemble.tree,
    Ensemble.supergraph,
    Ensemble.show_supergraph,
    Trace.flat_profile,
    Trace.comm_matrix,
    Trace.query,
    Trace.calls,
    Trace.show,
    Trace.show_timeline,
    Trace.to_graphframe,
    Trace.filter,
    Trace.time_profile,
    Trace.load_imbalance,
    Trace.from_otf2,
    GraphFrame.from_hpctoolkit,
    Ensemble.from_graphframes,
    Ensemble.filter_profiles,
    CCT,
    Timeline,
    SupergraphView,
    CommMatrix,
]


def sections(doc: str) -> set[str]:
    return set(re.findall(r"^\s*(Parameters|Returns|Raises|Examples)\n\s*-+\s*$", doc, re.M))


def title(obj) -> str:
    return getattr(obj, "__qualname__", repr(obj))


@pytest.mark.parametrize("obj", ENTRY_POINTS, ids=title)
def test_entry_point_has_numpy_sections(obj):
    doc = inspect.getdoc(obj) or ""
    found = sections(doc)
    function = obj.__init__ if inspect.isclass(obj) else obj
    takes = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    if takes:
        assert "Parameters" in found, title(obj)
    if not inspect.isclass(obj):
        assert "Returns" in found, title(obj)
    assert "Examples" in found or obj is Trace.show or obj is Ensemble.show_supergraph


@pytest.mark.parametrize("obj", ENTRY_POINTS, ids=title)
def test_entry_point_examples_run(obj):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(obj, title(obj), globs={}):
        runner.run(test)
    assert runner.failures == 0, title(obj)
    assert runner.tries > 0 or "Examples" not in sections(inspect.getdoc(obj) or "")
