"""Trace.filter with Filter objects (name, time range, process; combined with &, |,
~) and with call-path queries."""

from __future__ import annotations

import numpy as np
import pytest

from glade.datasets import synthetic_trace
from glade.errors import MetricError, QueryError, TraceError
from glade.trace.filter import Filter, time_value

S = 1e9


def names(trace) -> list[str]:
    return trace.events["Name"].astype(str).tolist()


def test_name_process_and_combinations(foo_bar):
    mpi = foo_bar.filter(Filter("Name", "matches", "MPI_.*"))
    assert names(mpi) == ["MPI_Send", "MPI_Send", "MPI_Recv", "MPI_Recv"]
    listed = foo_bar.filter(Filter("Name", "in", ["foo()", "baz()"]))
    assert sorted(set(names(listed))) == ["baz()", "foo()"] and len(listed) == 4
    second = foo_bar.filter(Filter("Process", "==", 1))
    assert len(second) == 12 and (second.events["Process"] == 1).all()
    both = foo_bar.filter(Filter("Process", "==", 1) & ~Filter("Name", "==", "Idle"))
    assert "Idle" not in names(both) and len(both) == 8
    either = foo_bar.filter(Filter("Name", "==", "foo()") | Filter("Name", "==", "grault()"))
    assert sorted(set(names(either))) == ["foo()", "grault()"]
    outside = foo_bar.filter(Filter("Name", "not-in", ["main()", "Idle"]))
    assert {"main()", "Idle"}.isdisjoint(names(outside)) and len(outside) == 12
    assert (
        repr(Filter("Name", "==", "a") & ~Filter("Process", ">", 1))
        == "(Filter('Name', '==', 'a')) & (~(Filter('Process', '>', 1)))"
    )


def test_time_ranges_keep_whole_calls(foo_bar):
    # calls entirely inside [0 s, 30 s]: foo() and its callees, bar() and its callees
    early = foo_bar.filter(Filter("Timestamp (ns)", "between", ["0s", "30 s"]))
    assert sorted(set(names(early))) == ["Idle", "MPI_Recv", "MPI_Send", "baz()", "foo()"]
    assert "bar()" not in names(early)  # bar() ends at 39 s
    late = foo_bar.filter(Filter("Timestamp (ns)", ">=", 39 * S))
    assert names(late) == ["Idle", "Idle", "grault()", "grault()"]
    assert time_value("1.5 ms") == 1.5e6 and time_value("200us") == 2e5
    assert time_value("7") == 7.0
    with pytest.raises(TraceError, match="not a time"):
        time_value("soon")


def test_derived_columns_are_recomputed_on_the_selection(foo_bar):
    foo_bar.calc_exc_metrics()
    no_baz = foo_bar.filter(~Filter("Name", "==", "baz()"))
    assert "time.exc" not in no_baz.events.columns
    assert "_matching_event" not in no_baz.events.columns
    profile = no_baz.flat_profile("time.exc")
    assert profile.loc["foo()", "time.exc"] == 22 * S  # 24 - MPI_Send 2
    assert len(foo_bar.events) == 20  # the original is unchanged


def test_query_filters_keep_instants_inside_the_matched_calls():
    trace = synthetic_trace(3, 4)
    sends = trace.filter('MATCH (".", p) WHERE p.name = "MPI_Isend"')
    assert sorted(set(names(sends))) == ["MPI_Isend", "MpiIsend"]
    assert (sends.events["Name"] == "MpiIsend").sum() == 3 * 4
    np.testing.assert_array_equal(sends.comm_matrix(), trace.comm_matrix())
    compute = trace.filter([(".", {"name": "compute_step"}), "*"])
    assert set(names(compute)) == {"compute_step", "compute_flux", "flux_kernel", "update_field"}


def test_bad_filters():
    trace = synthetic_trace(2, 2)
    with pytest.raises(TraceError, match="unknown filter operator"):
        Filter("Name", "~", "x")
    with pytest.raises(TraceError, match="list of values"):
        Filter("Name", "in", "x")
    with pytest.raises(TraceError, match="pair"):
        Filter("Timestamp (ns)", "between", [1])
    with pytest.raises(QueryError, match="regular expression"):
        Filter("Name", "matches", "(")
    with pytest.raises(MetricError, match="no column named 'Nom'"):
        trace.filter(Filter("Nom", "==", "x"))
    with pytest.raises(TraceError, match="cannot compare"):
        trace.filter(Filter("Name", "<", 3))
    with pytest.raises(QueryError):
        trace.filter("MATCH (")
    with pytest.raises(QueryError):
        trace.filter(lambda row: True)
