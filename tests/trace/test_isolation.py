"""Results share nothing mutable with their inputs: every operation of a Trace that
returns a new model or table runs on Pipit's real traces, its result is edited every way
the API allows (its own in-place analyses included), and the input must be exactly as
it was (deep comparison): no derived column appears in its events. Pipit's in-place
analyses (``match_events``, ``calc_exc_metrics``, ``flat_profile``...) add columns to
the trace itself by design."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from glade import Filter, Trace
from glade.pandas_compat import copy_on_write
from tests.isolation import assert_same, edit, snapshot

QUERY = 'MATCH (".", p)->("*") WHERE p.name =~ "main.*|MPI_.*"'

OPERATIONS = {
    "copy": lambda trace: trace.copy(),
    "filter": lambda trace: trace.filter(Filter("Name", "matches", "main.*|MPI_.*")),
    "filter by time": lambda trace: trace.filter(Filter("Timestamp (ns)", "<", "5 s")),
    "filter by query": lambda trace: trace.filter(QUERY),
    "query": lambda trace: trace.query(QUERY),
    "to_graphframe": lambda trace: trace.to_graphframe(),
    "comm_matrix": lambda trace: trace.comm_matrix(),
    "comm_by_process": lambda trace: trace.comm_by_process(),
    "message_histogram": lambda trace: list(trace.message_histogram()),
}


@pytest.fixture(params=["foo-bar.csv", "ping-pong-otf2"])
def trace_path(request, pipit_data):
    if request.param.endswith("otf2"):
        pytest.importorskip("otf2", reason="the otf2 package (glade[otf2]) is not installed")
    return pipit_data / request.param


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_editing_a_result_leaves_the_trace_unchanged(trace_path, name):
    from glade import read_trace

    trace = read_trace(trace_path)
    before = snapshot(trace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # repaired events
        result = OPERATIONS[name](trace)
    edit(result)
    assert_same(before, snapshot(trace))
    assert trace.recorded_columns() == list(trace.events.columns)


def test_in_place_analyses_add_pipits_columns(pipit_data):
    trace = Trace.from_csv(pipit_data / "foo-bar.csv")
    trace.calc_exc_metrics()
    added = set(trace.events.columns) - set(trace.recorded_columns())
    assert {
        "_matching_event",
        "_matching_timestamp",
        "_parent",
        "_depth",
        "time.inc",
        "time.exc",
    } <= added
    assert trace.metadata["repairs"] == {"orphan_leaves": 0, "open_enters": 0}


def test_the_call_structure_reads_the_events_columns_and_survives_their_edits(pipit_data):
    """After ``match_caller_callee`` the cached call structure holds no second copy of
    ``_matching_event``, ``_matching_timestamp``, ``_parent`` and ``_depth`` (it reads
    the columns, under copy on write), and editing them in place leaves it as computed."""
    trace = Trace.from_csv(pipit_data / "foo-bar.csv")
    trace.match_caller_callee()
    structure = trace._call_structure()
    fields = {
        "matching": "_matching_event",
        "matching_timestamp": "_matching_timestamp",
        "parent": "_parent",
        "depth": "_depth",
    }
    before = {field: getattr(structure, field).copy() for field in fields}
    for field, column in fields.items():
        # shared only where pandas copies a column before writing into it
        shared = np.shares_memory(getattr(structure, field), trace.events[column].to_numpy())
        assert shared == copy_on_write()
        trace.events.loc[0, column] = 12345
        trace.events[column] += 1
    after = trace._call_structure()
    for field in fields:
        np.testing.assert_array_equal(getattr(after, field), before[field])
    assert trace.events.loc[0, "_parent"] == 12346
