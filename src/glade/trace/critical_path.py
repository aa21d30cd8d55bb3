"""The critical path of a trace: the chain of calls and waits that fixes the run's length.

The walk starts at the last Leave of the run (the latest timestamp; on ties the last
event) and goes back in time on its location (a process and thread). Whenever it meets
the end of a wait (see :mod:`glade.trace.waits`: a call that waited from its enter
until its cause was entered), the location's progress was set by the cause: the walk
crosses to the cause's location at the cause's enter (or at the end of the wait, if
earlier: a wait bounded by its call's duration) and goes on back from there. With no
wait left behind it, the walk ends at the location's first event. Each wait is crossed
at most once and time never increases, so the walk ends after at most as many steps
as there are waits, and is one compiled pass over them.

The path is a list of *segments*, each an interval of one location, in time order;
they join end to end (across the waits), so their lengths add up to the path's length.
The calls on the path are the calls of each segment's location that overlap it, with
their time on the path: their exclusive time clipped to the segment (what the segment
spent in the call itself, not in its callees), so the times of a segment's calls add
up to the segment's length wherever some call is running.

A Dask trace walks the same path from the wait states and the locations' bounds it
gathers from its partitions, then asks every partition for the calls of its segments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.compiled import kernel
from glade.trace.events import LEAVE, NAME, PROCESS, THREAD, TIMESTAMP
from glade.trace.matching import location_codes_of
from glade.trace.waits import WAITING_TIME

if TYPE_CHECKING:
    from glade.trace.model import Trace

#: The time a call spends on the critical path (ns), in the path table and the forest.
ON_PATH = "critical path"
#: Columns of :func:`critical_path`.
PATH_COLUMNS = (
    "segment",
    PROCESS,
    THREAD,
    "event",
    "name",
    "start",
    "end",
    "path start",
    "path end",
    ON_PATH,
)


def location_bounds(trace: Trace, ids: np.ndarray | None = None) -> pd.DataFrame:
    """Per location of ``trace`` (``Process``, ``Thread``): its first event's time
    (``first``), and its last Leave's time and event (``last``, ``last event``, -1 when
    it has none), events named by ``ids`` (default: rows)."""
    events = trace.events
    loc, count = trace.location_codes()
    stamps = events[TIMESTAMP].to_numpy()
    first_row = np.full(count, -1, dtype=np.int64)
    rows = np.arange(len(events), dtype=np.int64)
    first_row[loc[::-1]] = rows[::-1]  # the last write per location is its first row
    last_row = np.full(count, -1, dtype=np.int64)
    leaves = np.flatnonzero(trace.event_kinds() == LEAVE)
    last_row[loc[leaves]] = leaves  # stamps ascend with rows: the latest Leave wins
    name_of = ids if ids is not None else rows
    has_last = last_row >= 0
    return pd.DataFrame(
        {
            PROCESS: events[PROCESS].to_numpy()[first_row],
            THREAD: events[THREAD].to_numpy()[first_row],
            "first": stamps[first_row],
            "last": np.where(has_last, stamps[np.maximum(last_row, 0)], -1),
            "last event": np.where(has_last, name_of[np.maximum(last_row, 0)], -1),
        }
    )


@kernel
def _walk(lo, hi, wait_end, cause_loc, cause_time, first, loc, t):
    """The segments (location, from, to), last first, of the walk back from time ``t``
    on location ``loc`` over the waits of each location c (``lo[c]:hi[c]``, sorted by
    the end of the wait ``wait_end``), each crossing to ``cause_loc`` at
    ``cause_time``; a location's walk ends at its ``first`` event's time."""
    top = hi.copy()
    size = lo.size + wait_end.size + 1
    seg_loc = np.empty(size, np.int64)
    seg_from = np.empty(size, np.int64)
    seg_to = np.empty(size, np.int64)
    n = 0
    while True:
        j = top[loc] - 1
        while j >= lo[loc] and wait_end[j] > t:
            j -= 1
        if j < lo[loc]:
            top[loc] = lo[loc]
            if t > first[loc]:
                seg_loc[n], seg_from[n], seg_to[n] = loc, first[loc], t
                n += 1
            break
        top[loc] = j
        if t > wait_end[j]:
            seg_loc[n], seg_from[n], seg_to[n] = loc, wait_end[j], t
            n += 1
        t = min(cause_time[j], wait_end[j])
        loc = cause_loc[j]
    return seg_loc[:n][::-1].copy(), seg_from[:n][::-1].copy(), seg_to[:n][::-1].copy()


def path_segments(waits: pd.DataFrame, bounds: pd.DataFrame) -> pd.DataFrame:
    """The segments of the critical path (``Process``, ``Thread``, ``from``, ``to``, in
    time order) from the wait states ``waits`` (see :func:`glade.trace.waits.wait_states`)
    and the bounds of every location (see :func:`location_bounds`)."""
    empty = pd.DataFrame({c: np.zeros(0, np.int64) for c in (PROCESS, THREAD, "from", "to")})
    with_leave = bounds[bounds["last event"] >= 0]
    if not len(with_leave):
        return empty
    processes = np.concatenate([bounds[PROCESS], waits[PROCESS], waits["cause process"]]).astype(
        np.int64
    )
    threads = np.concatenate([bounds[THREAD], waits[THREAD], waits["cause thread"]]).astype(
        np.int64
    )
    codes, count = location_codes_of(processes, threads)
    num_bounds, num_waits = len(bounds), len(waits)
    bound_loc = codes[:num_bounds]
    wait_loc = codes[num_bounds : num_bounds + num_waits]
    cause_loc = codes[num_bounds + num_waits :]
    first = np.zeros(count, dtype=np.int64)
    first[bound_loc] = bounds["first"].to_numpy()
    wait_end = (waits["start"] + waits[WAITING_TIME]).to_numpy().astype(np.int64)
    order = np.lexsort((waits["event"].to_numpy(), wait_end, wait_loc))
    bounds_of = np.searchsorted(wait_loc[order], np.arange(count + 1))
    last = with_leave.iloc[
        np.lexsort((with_leave["last event"].to_numpy(), with_leave["last"].to_numpy()))[-1]
    ]
    end_loc = bound_loc[bounds.index.get_loc(last.name)]
    seg_loc, seg_from, seg_to = _walk(
        bounds_of[:-1].astype(np.int64),
        bounds_of[1:].astype(np.int64),
        wait_end[order],
        cause_loc[order].astype(np.int64),
        waits["cause start"].to_numpy().astype(np.int64)[order],
        first,
        np.int64(end_loc),
        np.int64(last["last"]),
    )
    loc_process = np.zeros(count, dtype=np.int64)
    loc_thread = np.zeros(count, dtype=np.int64)
    loc_process[codes], loc_thread[codes] = processes, threads
    return pd.DataFrame(
        {
            PROCESS: loc_process[seg_loc],
            THREAD: loc_thread[seg_loc],
            "from": seg_from,
            "to": seg_to,
        }
    )


@kernel
def _clipped_calls(seg_lo, seg_hi, seg_from, seg_to, start, end, parent, instant):
    """Per segment s (its location's forest nodes ``seg_lo[s]:seg_hi[s]``, in
    pre-order, over ``[seg_from[s], seg_to[s]]``) the calls that overlap it: the calls
    running at its start (the last node starting before it and its callers) and the
    calls starting inside it; returns (segment, node, clipped inclusive time, clipped
    exclusive time) per overlapping call, segment by segment, in pre-order. A call's
    overlapping callees are among its segment's rows, so its exclusive time is its
    inclusive time minus theirs."""
    size = 16
    out_seg = np.empty(size, np.int64)
    out_node = np.empty(size, np.int64)
    out_inc = np.empty(size, np.int64)
    out_exc = np.empty(size, np.int64)
    n = 0
    for s in range(seg_lo.size):
        a, b = seg_from[s], seg_to[s]
        lo, hi = seg_lo[s], seg_hi[s]
        j0 = lo + np.searchsorted(start[lo:hi], a, side="left")
        j1 = lo + np.searchsorted(start[lo:hi], b, side="left")
        chain = [np.int64(x) for x in range(0)]
        x = j0 - 1
        while x >= lo:
            if not instant[x] and end[x] > a:
                chain.append(x)
            x = parent[x] if parent[x] >= lo else lo - 1
        need = n + len(chain) + (j1 - j0)
        if need > size:
            size = max(need, 2 * size)
            out_seg = np.concatenate((out_seg, np.empty(size - out_seg.size, np.int64)))
            out_node = np.concatenate((out_node, np.empty(size - out_node.size, np.int64)))
            out_inc = np.concatenate((out_inc, np.empty(size - out_inc.size, np.int64)))
            out_exc = np.concatenate((out_exc, np.empty(size - out_exc.size, np.int64)))
        first = n
        position = np.full(j1 - j0, -1, np.int64)
        for k in range(len(chain) - 1, -1, -1):
            x = chain[k]
            out_seg[n], out_node[n] = s, x
            out_inc[n] = min(end[x], b) - max(start[x], a)
            out_exc[n] = out_inc[n]
            n += 1
        for x in range(j0, j1):
            if instant[x]:
                continue
            position[x - j0] = n
            out_seg[n], out_node[n] = s, x
            out_inc[n] = min(end[x], b) - max(start[x], a)
            out_exc[n] = out_inc[n]
            n += 1
        for i in range(first, n):
            p = parent[out_node[i]]
            at = -1
            if j0 <= p < j1:
                at = position[p - j0]
            else:
                for k in range(first, first + len(chain)):
                    if out_node[k] == p:
                        at = k
            if at >= 0:
                out_exc[at] -= out_inc[i]
    return out_seg[:n].copy(), out_node[:n].copy(), out_inc[:n].copy(), out_exc[:n].copy()


def calls_on_path(
    trace: Trace, segments: pd.DataFrame, ids: np.ndarray | None = None
) -> pd.DataFrame:
    """The calls of ``trace`` (a whole trace, or a partition of whole processes) on the
    path ``segments`` (see :func:`path_segments`; the ``segment`` column numbers them,
    default 0, 1, ... in order), events named by ``ids`` (default: rows): the table of
    :func:`critical_path` for the segments of the trace's locations, plus each call's
    clipped inclusive time (``inclusive``)."""
    from glade.trace.calls import forest_nodes

    if "segment" not in segments.columns:
        segments = segments.assign(segment=np.arange(len(segments), dtype=np.int64))
    nodes = forest_nodes(trace)
    events = trace.events
    loc, count = trace.location_codes()
    processes = np.zeros(count, dtype=np.int64)
    threads = np.zeros(count, dtype=np.int64)
    processes[loc] = events[PROCESS].to_numpy()
    threads[loc] = events[THREAD].to_numpy()
    codes, _ = location_codes_of(
        np.concatenate([processes, segments[PROCESS].to_numpy()]),
        np.concatenate([threads, segments[THREAD].to_numpy()]),
    )
    code_to_loc = np.full(int(codes.max(initial=-1)) + 1, -1, dtype=np.int64)
    code_to_loc[codes[:count]] = np.arange(count)
    seg_loc = code_to_loc[codes[count:]]
    here = np.flatnonzero(seg_loc >= 0)
    seg_loc = seg_loc[here]
    seg, node, inc, exc = _clipped_calls(
        nodes.ptr[seg_loc],
        nodes.ptr[seg_loc + 1],
        segments["from"].to_numpy()[here].astype(np.int64),
        segments["to"].to_numpy()[here].astype(np.int64),
        nodes.start,
        nodes.end,
        nodes.parent,
        nodes.instant,
    )
    keep = inc > 0
    seg, node, inc, exc = seg[keep], node[keep], inc[keep], exc[keep]
    rows = nodes.rows[node]
    name_of = ids if ids is not None else np.arange(len(events), dtype=np.int64)
    seg_from = segments["from"].to_numpy()[here][seg]
    seg_to = segments["to"].to_numpy()[here][seg]
    return pd.DataFrame(
        {
            "segment": segments["segment"].to_numpy()[here][seg],
            PROCESS: events[PROCESS].to_numpy()[rows],
            THREAD: events[THREAD].to_numpy()[rows],
            "event": name_of[rows],
            "name": np.asarray(events[NAME].cat.categories, dtype=object)[
                events[NAME].cat.codes.to_numpy()[rows]
            ],
            "start": nodes.start[node],
            "end": nodes.end[node],
            "path start": np.maximum(nodes.start[node], seg_from),
            "path end": np.minimum(nodes.end[node], seg_to),
            ON_PATH: exc,
            "inclusive": inc,
        }
    )


def path_table(pieces: list[pd.DataFrame]) -> pd.DataFrame:
    """The table of :func:`critical_path` from the calls on the path of the parts of a
    trace (:func:`calls_on_path`, each in segment order)."""
    table = pd.concat(pieces, ignore_index=True)
    table = table.iloc[np.argsort(table["segment"].to_numpy(), kind="stable")]
    table = table.reset_index(drop=True)[list(PATH_COLUMNS)]
    return table.assign(name=pd.Categorical(table["name"].astype(str)))


def critical_path(trace: Trace) -> pd.DataFrame:
    """The calls on the critical path of ``trace`` in time order (see the module doc):
    one row per call and path segment with the ``segment`` (0, 1, ... in time order),
    the call (``Process``, ``Thread``, ``event``: its Enter row, ``name``, ``start``,
    ``end``), the part of it on the path (``path start``, ``path end``) and its
    ``critical path`` time (ns: its exclusive time in that part). Computed once per
    events table; every call gets its own copy."""
    table = trace._memo("critical path", lambda: _critical_path(trace))
    return table.copy()


def _critical_path(trace: Trace) -> pd.DataFrame:
    """:func:`critical_path`, computed."""
    segments = path_segments(trace.wait_states(), location_bounds(trace))
    return path_table([calls_on_path(trace, segments)])


def path_summary(path: pd.DataFrame, profile: pd.DataFrame) -> pd.DataFrame:
    """Per function (``name``): its time on the critical path ``path`` (see
    :func:`critical_path`), its exclusive time over the whole run (``time``, from the
    flat ``profile`` of ``time.exc`` indexed by name), the time off the path (the
    difference) and its ``share of path`` (time on the path over the path's length);
    largest time on the path first (ties in name order)."""
    on_path = path.groupby("name", observed=True, sort=True)[ON_PATH].sum()
    names = profile.index.union(on_path.index)
    total = profile["time.exc"].reindex(names, fill_value=0.0).to_numpy()
    on = on_path.reindex(names, fill_value=0).to_numpy().astype(np.int64)
    length = path["path end"].max() - path["path start"].min() if len(path) else 0
    table = pd.DataFrame(
        {
            "time on path": on,
            "time": total,
            "time off path": total - on,
            "share of path": on / length if length else np.zeros(on.size),
        },
        index=pd.Index(names, name="name"),
    )
    return table.sort_values("time on path", ascending=False, kind="stable")


def add_forest_columns(
    table: pd.DataFrame,
    waits: pd.DataFrame,
    path: pd.DataFrame,
    events: np.ndarray | None = None,
) -> None:
    """Add to the call forest's ``table`` (whose nodes are the events ``events``,
    default its ``event`` column) the ``waiting time`` of every call (see
    :func:`glade.trace.waits.wait_states`) and its time on the ``critical path``
    (summed over its path segments), in ns, 0 for the other nodes: so a call-level
    query selects the waiting calls (``p."waiting time" > 0``) or the calls on the
    critical path (``p."critical path" > 0``)."""
    events = table["event"].to_numpy() if events is None else events
    for column, source in ((WAITING_TIME, waits), (ON_PATH, path)):
        per_event = source.groupby("event", sort=True)[column].sum()
        keys = per_event.index.to_numpy()
        at = np.minimum(np.searchsorted(keys, events), max(keys.size - 1, 0))
        found = (keys[at] == events) if keys.size else np.zeros(events.size, dtype=bool)
        values = per_event.to_numpy().astype(np.int64)
        table[column] = np.where(found, values[at] if keys.size else 0, 0)
