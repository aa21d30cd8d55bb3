"""Profiles of a trace: flat profile, time profile, load imbalance, idle time,
outlier calls, and the comparison of several runs (Pipit's operations, computed with
``bincount`` over the Enter rows instead of loops over functions or events).

Inclusive metrics (``*.inc``) are summed over *outermost* calls only: a call nested
inside another call of the same group (recursion) is not counted twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numba import njit

from glade.errors import MetricError, TraceError
from glade.profile.analyses import imbalance_columns
from glade.trace.events import ENTER, LEAVE, NAME, PROCESS, TIMESTAMP, metric_column_name
from glade.trace.matching import (
    MATCHING_EVENT,
    MATCHING_TIMESTAMP,
    PARENT,
    group_order,
    run_starts,
    segmented_cumsum,
)

if TYPE_CHECKING:
    from glade.trace.model import Trace

MPI_WAIT_FUNCTIONS = ("MPI_Wait", "MPI_Waitall", "MPI_Recv")


def column_codes(column: pd.Series, rows: np.ndarray) -> tuple[np.ndarray, pd.Index]:
    """Codes (0..G-1) of ``column`` at ``rows`` and the G values they stand for, in the
    column's category order (sorted values for other columns)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()[rows].astype(np.int64)
        if codes.size and codes.min() < 0:
            raise TraceError(f"column {column.name!r} has missing values on Enter rows")
        used = np.bincount(codes, minlength=len(column.cat.categories)) > 0
        remap = np.cumsum(used) - 1
        return remap[codes], pd.Index(np.asarray(column.cat.categories)[used], name=column.name)
    codes, uniques = pd.factorize(column.to_numpy()[rows], sort=True)
    if codes.size and codes.min() < 0:
        raise TraceError(f"column {column.name!r} has missing values on Enter rows")
    return codes.astype(np.int64), pd.Index(uniques, name=column.name)


def _ensure_matched(trace: Trace) -> None:
    if MATCHING_EVENT not in trace.events.columns:
        trace.match_events()


def outermost_calls(trace: Trace, group: np.ndarray) -> np.ndarray:
    """Per Enter event, in row order: True for a call with no enclosing call of the same
    ``group`` (a non-negative integer code per Enter event, in row order). A running
    count of open calls per (location, group) finds them, with one stable sort."""
    _ensure_matched(trace)
    kind = trace.event_kinds()
    matching = trace.events[MATCHING_EVENT].to_numpy()
    enter = kind == ENTER
    rows = np.flatnonzero(enter | ((kind == LEAVE) & (matching >= 0)))
    code = np.zeros(kind.size, dtype=np.int64)
    code[enter] = group
    leave = kind[rows] == LEAVE
    code[rows[leave]] = code[matching[rows[leave]]]
    loc, num_loc = trace.location_codes()
    num_groups = int(group.max()) + 1 if group.size else 1
    key = loc[rows] * num_groups + code[rows]
    order = group_order(key, num_loc * num_groups)
    step = np.where(leave[order], -1, 1).astype(np.int32)
    open_calls = segmented_cumsum(step, run_starts(key[order]))
    outermost = np.zeros(kind.size, dtype=bool)
    outermost[rows[order[(step == 1) & (open_calls == 1)]]] = True
    return outermost[enter]


def _metric_values(
    trace: Trace, metric: str, enter: np.ndarray, outer: np.ndarray | None
) -> np.ndarray | None:
    """The values of ``metric`` on the Enter rows ``enter`` (None for the call ``count``),
    zero where missing and, for an inclusive metric, for calls that are not outermost
    (``outer``, one flag per Enter row, when known)."""
    if metric == "count":
        return None
    trace.ensure_metric(metric)
    values = np.nan_to_num(trace.events[metric].to_numpy(dtype=np.float64, na_value=np.nan)[enter])
    if outer is not None and metric.endswith(".inc"):
        return np.where(outer, values, 0.0)
    return values


def cell_sums(
    trace: Trace, metrics: Sequence[str], groupby_column: str
) -> tuple[dict[str, np.ndarray], np.ndarray, pd.Index, np.ndarray]:
    """Sums of ``metrics`` per (group, process) as dense (G, P) arrays, the number of
    calls per cell, the group labels and the process ids."""
    events = trace.events
    if groupby_column not in events.columns:
        raise MetricError(groupby_column, list(events.columns), what="column")
    enter = np.flatnonzero(trace.event_kinds() == ENTER)
    group, labels = column_codes(events[groupby_column], enter)
    codes, processes = trace.process_codes()
    pcode = codes[enter]
    shape = (len(labels), len(processes))
    cell = group * shape[1] + pcode
    outer = outermost_calls(trace, group) if any(m.endswith(".inc") for m in metrics) else None
    sums = {}
    for metric in metrics:
        weights = _metric_values(trace, metric, enter, outer)
        total = np.bincount(cell, weights=weights, minlength=shape[0] * shape[1])
        sums[metric] = total.reshape(shape)
    calls = np.bincount(cell, minlength=shape[0] * shape[1]).reshape(shape)
    return sums, calls, labels, processes


def metric_list(metrics: str | Sequence[str]) -> list[str]:
    """``metrics`` (one name or several) as a non-empty list."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise TraceError("no metric given")
    return names


def flat_profile(
    trace: Trace,
    metrics: str | Sequence[str] = "time.exc",
    groupby_column: str = NAME,
    per_process: bool = False,
    mean: bool = False,
) -> pd.DataFrame:
    """``metrics`` of the calls (Enter rows) summed per value of ``groupby_column``.

    Sums over all processes by default; ``mean=True`` divides by the number of
    processes of the trace (processes that never call a function count as 0);
    ``per_process=True`` gives one row per (group, process) that has calls.
    ``"count"`` is the number of calls. Derived metrics (``time.exc``, ``m.inc``)
    are computed when missing; inclusive ones count outermost calls only. Rows are
    sorted by the first metric, largest first (ties keep the group order).
    """
    names = metric_list(metrics)
    return flat_profile_table(
        *cell_sums(trace, names, groupby_column), names, groupby_column, per_process, mean
    )


def flat_profile_table(
    sums: dict[str, np.ndarray],
    calls: np.ndarray,
    labels: pd.Index,
    processes: np.ndarray,
    names: list[str],
    groupby_column: str,
    per_process: bool,
    mean: bool,
) -> pd.DataFrame:
    """The table of :func:`flat_profile` from the sums of :func:`cell_sums` (dense
    (group, process) arrays per metric, calls per cell, group labels, process ids)."""
    scale = len(processes) if mean and len(processes) else 1
    if per_process:
        g, p = np.nonzero(calls)
        data = {m: sums[m][g, p] / scale if mean else sums[m][g, p] for m in names}
        first = sums[names[0]].sum(axis=1)
        rank = np.empty(len(labels), dtype=np.int64)
        rank[np.argsort(-first, kind="stable")] = np.arange(len(labels))
        order = np.lexsort((p, rank[g]))
        index = pd.MultiIndex.from_arrays(
            [labels[g[order]], processes[p[order]]], names=[groupby_column, PROCESS]
        )
        table = pd.DataFrame({m: v[order] for m, v in data.items()}, index=index)
    else:
        table = pd.DataFrame(
            {m: sums[m].sum(axis=1) / scale if mean else sums[m].sum(axis=1) for m in names},
            index=labels,
        )
        table = table.sort_values(names[0], ascending=False, kind="stable")
    if "count" in names and not mean:
        table["count"] = table["count"].astype(np.int64)
    return table


@njit(cache=True, nogil=True, inline="always")
def _bin_of(edges, t):
    """The bin [edges[k], edges[k + 1]) holding ``t`` (the first before it, the last
    after it): guessed as if the bins were even, then moved to the right one, so even
    bins cost no search."""
    num_bins = edges.size - 1
    span = edges[num_bins] - edges[0]
    k = int((t - edges[0]) / span * num_bins) if span > 0 else 0
    k = min(max(k, 0), num_bins - 1)
    while k > 0 and t < edges[k]:
        k -= 1
    while k < num_bins - 1 and t >= edges[k + 1]:
        k += 1
    return k


@njit(cache=True, nogil=True)
def _spread(start, end, group, caller, nested, edges, out):
    """The loop of :func:`spread_exclusive`: each call's overlap with every bin it
    touches, added to its group and taken from its caller's."""
    for i in range(start.size):
        s = start[i]
        e = end[i]
        first = _bin_of(edges, s)
        last = first
        if e > edges[first + 1]:
            last = _bin_of(edges, e)
        for b in range(first, last + 1):
            if last == first:
                part = e - s
            elif b == first:
                part = edges[b + 1] - s
            elif b == last:
                part = e - edges[b]
            else:
                part = edges[b + 1] - edges[b]
            out[group[i], b] += part
            if nested[i]:
                out[caller[i], b] -= part


def spread_exclusive(
    start: np.ndarray,
    end: np.ndarray,
    group: np.ndarray,
    caller: np.ndarray,
    nested: np.ndarray,
    num_groups: int,
    edges: np.ndarray,
) -> np.ndarray:
    """Per group and bin (a (num_groups, num_bins) int64 array of ns): the overlap of
    the intervals [start, end) of its calls (int64 ns) with each bin
    [edges[k], edges[k+1]), minus the overlaps of the calls directly inside them (where
    ``nested``, the group of the enclosing call is ``caller``). A call starting in the
    last bin counts whole there. One pass over the calls, each costing the bins it
    touches."""
    out = np.zeros((num_groups, len(edges) - 1), dtype=np.int64)
    _spread(
        np.asarray(start, dtype=np.int64),
        np.asarray(end, dtype=np.int64),
        np.asarray(group, dtype=np.int64),
        np.asarray(caller, dtype=np.int64),
        np.asarray(nested, dtype=np.bool_),
        np.asarray(edges, dtype=np.int64),
        out,
    )
    return out


def bin_edges(t0: int, t1: int, num_bins: int) -> np.ndarray:
    """``num_bins + 1`` integer edges (ns) splitting [t0, t1] as evenly as integers allow
    (widths differ by at most 1 ns); every bin is at least 1 ns wide."""
    span = max(int(t1) - int(t0), num_bins)
    whole, rest = divmod(span, num_bins)
    k = np.arange(num_bins + 1, dtype=np.int64)
    return int(t0) + k * whole + (k * rest) // num_bins


def check_num_bins(num_bins: int) -> int:
    """``num_bins`` as an int; TraceError unless it is a positive integer."""
    if isinstance(num_bins, bool) or not isinstance(num_bins, int | np.integer) or num_bins < 1:
        raise TraceError(f"num_bins must be a positive integer, not {num_bins!r}")
    return int(num_bins)


def time_profile(trace: Trace, num_bins: int = 50, normalized: bool = False) -> pd.DataFrame:
    """Exclusive time of every function in each of ``num_bins`` intervals between the
    first and the last timestamp of the trace, summed over processes.

    Columns: ``bin_start``, ``bin_end`` (integer ns; widths differ by at most 1 ns),
    ``idle_time`` (bin width times the number of locations, minus the time of all
    functions) and one column per function, largest total first, all in integer ns,
    so ``idle_time`` is exact and never negative. With ``normalized`` every value is a
    fraction of the bin's capacity (bin width times the number of locations). A call's
    time in a bin is its overlap with the bin minus its direct callees' overlaps.
    """
    num_bins = check_num_bins(num_bins)
    stamps = trace.events[TIMESTAMP].to_numpy()
    t0 = int(stamps.min()) if stamps.size else 0
    t1 = int(stamps.max()) if stamps.size else 0
    edges = bin_edges(t0, t1, num_bins)
    profile, labels = exclusive_bins(trace, edges)
    return time_profile_table(profile, labels, edges, trace.location_codes()[1], normalized)


def exclusive_bins(trace: Trace, edges: np.ndarray) -> tuple[np.ndarray, pd.Index]:
    """Exclusive time (int64 ns) of every function of the trace in each bin between
    ``edges``, as a (functions, bins) array, and the function names (see
    :func:`spread_exclusive`)."""
    if PARENT not in trace.events.columns:
        trace.match_caller_callee()
    events = trace.events
    enter = np.flatnonzero(trace.event_kinds() == ENTER)
    stamps = events[TIMESTAMP].to_numpy()
    all_codes = np.zeros(len(events), dtype=np.int64)
    code, labels = column_codes(events[NAME], enter)
    all_codes[enter] = code
    start = stamps[enter].astype(np.int64)
    end = events[MATCHING_TIMESTAMP].to_numpy()[enter].astype(np.int64)
    parent = events[PARENT].to_numpy()[enter]
    nested = parent >= 0
    caller = all_codes[np.maximum(parent, 0)]
    return spread_exclusive(start, end, code, caller, nested, len(labels), edges), labels


def time_profile_table(
    profile: np.ndarray, labels: pd.Index, edges: np.ndarray, num_locations: int, normalized: bool
) -> pd.DataFrame:
    """The table of :func:`time_profile` from the exclusive time of every function
    (labels) per bin (``profile``), the bin ``edges`` and the number of locations."""
    capacity = np.diff(edges) * num_locations
    idle = capacity - profile.sum(axis=0)
    order = np.argsort(-profile.sum(axis=1), kind="stable")
    table = pd.DataFrame({"bin_start": edges[:-1], "bin_end": edges[1:], "idle_time": idle})
    functions = pd.DataFrame(profile[order].T, columns=[str(v) for v in labels[order]])
    if normalized:
        table["idle_time"] = idle / capacity
        functions = functions.div(capacity, axis=0)
    return pd.concat([table, functions], axis=1)


def load_imbalance(trace: Trace, metric: str = "time.exc", num_processes: int = 1) -> pd.DataFrame:
    """Per function: ``<metric>.mean`` and ``<metric>.max`` over all processes of the
    trace (a process that never calls the function counts as 0, so a function run by
    one process out of P has an imbalance of P), ``<metric>.imbalance`` = max / mean,
    and ``Top process 1`` ... ``Top process k`` for the ``num_processes`` processes
    with the largest values (ties: lowest id first). Sorted by the mean, largest first.
    """
    num_processes = check_num_processes(num_processes)
    sums, _, labels, processes = cell_sums(trace, [metric], NAME)
    return load_imbalance_table(sums[metric], labels, processes, metric, num_processes)


def check_num_processes(num_processes: int) -> int:
    """``num_processes`` as an int; TraceError unless it is a positive integer."""
    if (
        isinstance(num_processes, bool)
        or not isinstance(num_processes, int | np.integer)
        or (num_processes < 1)
    ):
        raise TraceError(f"num_processes must be a positive integer, not {num_processes!r}")
    return int(num_processes)


def load_imbalance_table(
    sums: np.ndarray, labels: pd.Index, processes: np.ndarray, metric: str, num_processes: int
) -> pd.DataFrame:
    """The table of :func:`load_imbalance` from the sums of ``metric`` per (function,
    process) (a dense array), the function labels and the process ids."""
    table = pd.DataFrame(
        imbalance_columns(sums, np.asarray(processes), metric, num_processes, "process"),
        index=labels,
    )
    return table.sort_values(f"{metric}.mean", ascending=False, kind="stable")


def idle_time(
    trace: Trace,
    idle_functions: str | Sequence[str] = ("Idle",),
    mpi_events: bool = False,
) -> pd.DataFrame:
    """Time each process spends in calls of ``idle_functions`` (plus ``MPI_Wait``,
    ``MPI_Waitall`` and ``MPI_Recv`` with ``mpi_events``): the inclusive time of the
    outermost such calls, so an idle call inside another is not counted twice.
    Indexed by ``Process`` (every process of the trace), column ``Idle Time`` (ns).
    """
    names = [idle_functions] if isinstance(idle_functions, str) else list(idle_functions)
    if mpi_events:
        names += [n for n in MPI_WAIT_FUNCTIONS if n not in names]
    trace.ensure_metric("time.inc")
    events = trace.events
    enter = np.flatnonzero(trace.event_kinds() == ENTER)
    code, labels = column_codes(events[NAME], enter)
    idle = np.isin(np.asarray(labels, dtype=str), names)[code]
    counted = enter[outermost_calls(trace, idle.astype(np.int64)) & idle]
    codes, processes = trace.process_codes()
    pcode = codes[counted]
    total = np.bincount(
        pcode, weights=events["time.inc"].to_numpy()[counted], minlength=len(processes)
    )
    return pd.DataFrame({"Idle Time": total}, index=pd.Index(processes, name=PROCESS))


def call_values(trace: Trace, metric: str, groupby_column: str) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the calls (Enters) whose ``metric`` has a value, and those values
    (float64); ``metric`` derived when missing, a MetricError when ``groupby_column`` is
    not a column."""
    trace.ensure_metric(metric)
    events = trace.events
    if groupby_column not in events.columns:
        raise MetricError(groupby_column, list(events.columns), what="column")
    enter = np.flatnonzero(trace.event_kinds() == ENTER)
    values = events[metric].to_numpy(dtype=np.float64, na_value=np.nan)[enter]
    valid = ~np.isnan(values)
    return enter[valid], values[valid]


def outlier_detection(
    trace: Trace, metric: str = "time.exc", threshold: float = 3.0, groupby_column: str = NAME
) -> pd.DataFrame:
    """Calls whose ``metric`` lies more than ``threshold`` standard deviations (ddof=1)
    from the mean of the calls of the same ``groupby_column`` value.

    One row per such call (indexed by its event row): the group, process, thread,
    timestamp, the metric, the group's mean and standard deviation and the
    ``z-score``; largest absolute z-score first. Groups of one call or of equal
    values have no outliers.
    """
    enter, values = call_values(trace, metric, groupby_column)
    events = trace.events
    group, labels = column_codes(events[groupby_column], enter)
    count = np.bincount(group, minlength=len(labels))
    mean = np.bincount(group, weights=values, minlength=len(labels)) / np.maximum(count, 1)
    deviation = values - mean[group]
    spread = np.bincount(group, weights=deviation**2, minlength=len(labels))
    std = np.where(count > 1, np.sqrt(spread / np.maximum(count - 1, 1)), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(std[group] > 0, deviation / np.where(std[group] > 0, std[group], 1.0), 0.0)
    hits = np.flatnonzero(np.abs(z) > threshold)
    hits = hits[np.argsort(-np.abs(z[hits]), kind="stable")]
    rows = enter[hits]
    table = pd.DataFrame(
        {
            groupby_column: labels[group[hits]],
            PROCESS: events[PROCESS].to_numpy()[rows],
            "Thread": events["Thread"].to_numpy()[rows],
            TIMESTAMP: events[TIMESTAMP].to_numpy()[rows],
            metric: values[hits],
            f"{metric}.mean": mean[group[hits]],
            f"{metric}.std": std[group[hits]],
            "z-score": z[hits],
        },
        index=pd.Index(rows, name="event"),
    )
    return table


def multirun_analysis(
    traces: Sequence[Trace],
    metric_column: str = TIMESTAMP,
    groupby_column: str = NAME,
    mean: bool = True,
) -> pd.DataFrame:
    """One row per trace, indexed by its number of processes (``Number of
    Processes``), one column per group: the exclusive ``metric_column`` (time by
    default) per process (``mean=True``, as Pipit) or summed over processes. A
    function missing from a run took 0 there. Columns sorted by their total, largest
    first."""
    traces = list(traces)
    if not traces:
        raise TraceError("multirun_analysis needs at least one trace")
    metric = metric_column_name(metric_column, "exc")
    profiles = []
    for trace in traces:
        profile = trace.flat_profile(metric, groupby_column, mean=mean)[metric]
        profiles.append(profile.set_axis(profile.index.astype(object)))
    table = pd.concat(profiles, axis=1, sort=False).T.fillna(0.0)
    table.index = pd.Index([len(t.processes) for t in traces], name="Number of Processes")
    order = np.argsort(-table.sum(axis=0).to_numpy(), kind="stable")
    return table.iloc[:, order]
