"""Results share nothing mutable with their inputs: every operation of a Trace that
returns a new model or table runs on Pipit's real traces, its result is edited every way
the API allows (its own in-place analyses included), and the input must be exactly as
it was (deep comparison): no derived column appears in its events. Pipit's in-place
analyses (``match_events``, ``calc_exc_metrics``, ``flat_profile``...) add columns to
the trace itself by design."""

from __future__ import annotations

import warnings

import pytest

from glade import Filter, Trace
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
