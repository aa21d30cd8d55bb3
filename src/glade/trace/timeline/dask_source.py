"""The timeline source of a DaskTrace: every answer is computed on the workers that hold
the trace's partitions (see :mod:`glade.trace.timeline.source` for the contract).

Every partition's timeline (:class:`glade.trace.engines.timeline.TimelinePart`: its call
forest and the index of what the view keeps) is built once and persisted on the
cluster, its arrays and levels of detail on the worker's local disk (see
:mod:`glade.trace.engines.spill`), and every task on a part runs on the part's worker
(:mod:`glade.trace.engines.placement`); an edit builds new indexes there from the
persisted forests. A range request is one round of tasks, one per worker: each partition
whose rows are visible gives its exact boxes and instants and adds the rest of its
calls to one raster of the worker's partitions, with the pandas timeline's kernels;
the raster rows that hold anything come back, and the client adds them (see
:mod:`glade.trace.engines.rasters`). When all partitions hold more boxes than a
picture draws, the longest are kept and the others join the raster, as the pandas
timeline does.

The whole trace's messages are paired once (as ``match_messages`` pairs them); the
client keeps the pairs and, after every edit, the lane of each end, and draws the
arrows of a range with the pandas timeline's own code
(:class:`~glade.trace.timeline.messages.KeptMessages`). A one-off picture
(:func:`picture_once`) pairs them on the workers instead, by receiver, and brings back
only the arrows it draws (:mod:`glade.trace.engines.arrows`). Node ids are the pandas
engine's, so the front end, the selection and the highlights work as on pandas; a
selected call is named by its query (name, process, thread and start). Arrows carry
their tag and communicator.

Wait states and the critical path are the whole run's, computed on the cluster once
(:meth:`~glade.trace.engines.dask_trace.DaskTrace.wait_states`): every part keeps its own
waits, the global node of each wait's cause found by the part that holds it, and the
path's segments stay on one worker. A picture's waits are each part's share (the waits
it draws exactly and the raster sums of the others) combined as the pandas timeline
combines them; the rows of the drawn waits' causes are asked of their parts, and only
the segments a picture draws come back.

Rows pinned and sorted by a metric (:meth:`DaskSource.order_rows`): each part measures
its locations, the client orders them (one number per location) and every part shows
its locations in that order, so a part's rows need not be one block: each answer gets
the display row of each of its rows (see
:func:`~glade.trace.timeline.render.displayed`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from operator import getitem, is_, methodcaller
from typing import Any, TypeVar

import dask
import numpy as np
import pandas as pd

from glade.errors import GladeError
from glade.query import EVERYTHING, anchor, query_mask
from glade.query.engine import RowTable
from glade.trace.calls import call_forest, reads_wait_columns
from glade.trace.critical_path import ON_PATH
from glade.trace.engines.arrows import arrow_shares, combine_arrows, pair_received
from glade.trace.engines.messages import paired_by_receiver
from glade.trace.engines.parts import compute_all
from glade.trace.engines.placement import check_homes, homes, on
from glade.trace.engines.rasters import add_band, empty_raster, keep_longest
from glade.trace.engines.timeline import (
    INSTANT_FIELDS,
    TimelinePart,
    picture_share,
    segments_in_range,
    shares,
    summarized_part,
    timeline_part,
    wait_causes,
)
from glade.trace.profiles import bin_edges
from glade.trace.timeline import messages
from glade.trace.timeline.lanes import Lanes
from glade.trace.timeline.messages import Arrows, KeptMessages
from glade.trace.timeline.payload import OVERVIEW_BINS, overview_groups, pack_overview
from glade.trace.timeline.render import (
    MAX_INSTANTS,
    Picture,
    Request,
    instant_counts,
    key_codes,
    row_layout,
)
from glade.trace.timeline.source import (
    ROW_ORDERS,
    TimelineSource,
    activity_ranks,
    check_node,
    padded_activity,
    row_order,
)
from glade.trace.timeline.waiting import (
    exact_waits,
    path_arrays,
    wait_arrays,
    wait_pixels,
    wait_sums,
)
from glade.trace.waits import PATTERNS, WAITING_TIME
from glade.trace.windows import SUMMARY_BY, Window, combine_window_tables


def _call(method: str, *args: Any, home: str | None = None):
    """A task calling ``part.<method>(*args)`` on a persisted part, run on worker
    ``home`` (the part's, see :mod:`glade.trace.engines.placement`) when given."""
    call = dask.delayed(methodcaller(method, *args))

    def task(part: Any) -> Any:
        with on(home):
            return call(part)

    return task


def _all_instants(
    pieces: list[dict], request: Request, row0: int, pool: int, bins: int
) -> tuple[dict[str, np.ndarray], bool]:
    """The instants of the picture from its partitions': exact marks when they are few
    enough, else the counts per raster pixel (a partition's exact marks counted there
    as the pandas timeline counts them)."""
    exact = [p for p in pieces if "count" not in p]
    if len(exact) == len(pieces) and sum(p["time"].size for p in exact) <= MAX_INSTANTS:
        if not exact:
            return {f: np.zeros(0, dtype=np.int64) for f in INSTANT_FIELDS}, False
        return {f: np.concatenate([p[f] for p in exact]) for f in INSTANT_FIELDS}, False
    counts = sum(
        (p["count"] for p in pieces if "count" in p),
        np.zeros((bins, request.width), dtype=np.int64),
    )
    for p in exact:
        counts += instant_counts(p["time"], p["row"], request, row0, pool, bins)
    return {"count": counts}, True


def _in_row_order(found: dict[str, np.ndarray], key: np.ndarray | None) -> dict:
    """Boxes or instants joined from the parts' answers (each part's in the order of its
    rows) in the order the pandas timeline lists them, that of ``key[row]`` (the rows of
    a part need not be one block: see :meth:`DaskSource.order_rows`); as they are
    without ``key`` or when pooled into counts."""
    if key is None or "row" not in found:
        return found
    order = np.argsort(key[found["row"]], kind="stable")
    return {f: v[order] for f, v in found.items()}


def _combine(
    answers: Sequence[dict[str, Any]],
    request: Request,
    layout: tuple[int, int, int, int],
    arrows: Arrows,
    locations: np.ndarray | None = None,
) -> Picture:
    """The picture of ``request`` from the computed ``answers`` (of one partition each,
    or of a worker's partitions, see :meth:`TimelinePart.share`: the rows of their
    raster, their boxes and instants with nodes numbered globally, how many calls are
    visible, and their box threshold and candidates, see
    :func:`~glade.trace.engines.rasters.keep_longest`): the longest boxes of all kept,
    the others demoted into the raster. Boxes are listed by row and instants by location
    (``locations``: that of each display row), as the pandas timeline lists them; as the
    answers list them without ``locations``."""
    row0, _, pool, bins = layout
    raster = empty_raster(bins, request.width)
    for answer in answers:
        add_band(raster, *answer["raster"])
    boxes, threshold = keep_longest(answers, request, row0, pool, raster)
    kept = _in_row_order(
        {f: v for f, v in boxes.items() if f != "share"},
        None if locations is None else np.arange(locations.size),
    )
    instants, pooled = _all_instants(
        [found for a in answers for found in a["instants"]], request, row0, pool, bins
    )
    instants = _in_row_order(instants, locations)
    cover, busy, key = raster
    return Picture(
        request,
        *layout,
        threshold,
        sum(a["visible"] for a in answers),
        kept,
        cover,
        busy,
        key_codes(key),
        instants,
        pooled,
        arrows,
        {"level": None, "engine": "dask"},
    )


def _picture_answer(share: dict[str, Any]) -> dict[str, Any]:
    """A one-off picture's share (see :func:`picture_share`) but its messages."""
    return {k: v for k, v in share.items() if k != "messages"}


#: What a method of a DaskSource returns (see :func:`_placed`).
T = TypeVar("T")

#: What the client keeps of every message pair (see :func:`_pair_arrays`).
PAIR_ARRAYS = (
    "send_id",
    "receive_id",
    "send_time",
    "receive_time",
    "size",
    "tag",
    "communicator",
)


def _pair_arrays(pairs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays of a partition's message pairs that the client keeps to draw arrows."""
    return {f: pairs[f] for f in PAIR_ARRAYS}


#: The most ids per event id (see :func:`_positions`) a table of positions by id holds.
DENSE_IDS = 16


def _positions(ids: np.ndarray, *events: np.ndarray) -> tuple[np.ndarray, ...]:
    """The position in ``ids`` (distinct event ids) of every event of each of
    ``events`` (each one of them): read from a table of the positions by id when the
    ids are dense enough (from 0 to under :data:`DENSE_IDS` times their number, as the
    ids of a trace's message events are: no sort, 4 bytes per id), else found with
    both sorted (a search in sorted order reads memory in order)."""
    if ids.size and ids.size < 2**31 and ids.min() >= 0 and ids.max() < DENSE_IDS * ids.size:
        table = np.empty(int(ids.max()) + 1, dtype=np.int32)
        table[ids] = np.arange(ids.size, dtype=np.int32)
        return tuple(table[e] for e in events)
    order = np.argsort(ids)
    ordered = ids[order]
    found = []
    for e in events:
        by = np.argsort(e)
        at = np.empty_like(by)
        at[by] = np.searchsorted(ordered, e[by])
        found.append(order[at])
    return tuple(found)


def _in_location_order(trace: Any) -> list[int]:
    """The partitions of DaskTrace ``trace`` in location order (by first process), which
    numbers rows and nodes as the pandas engine does."""
    summaries = trace._summary()
    return sorted(
        range(len(summaries)),
        key=lambda i: summaries[i].processes[0] if summaries[i].processes.size else np.inf,
    )


def _built_parts(trace: Any, labels: pd.Index) -> tuple[list, list[int]]:
    """The :class:`TimelinePart` of every partition of DaskTrace ``trace`` (function
    names ``labels``), persisted, in location order (see :func:`_in_location_order`),
    and that order. Each partition is read once: when the trace has not been scanned
    yet, each part summarizes the partition it reads (see
    :func:`~glade.trace.engines.timeline.summarized_part`), which is the trace's scan,
    and a part whose Enters never left were closed before the trace's end is built
    again (the pandas engine closes them at the trace's last time)."""
    delayed = trace.events.to_delayed()
    if trace._summaries is not None:
        order = _in_location_order(trace)
        end = trace._end()
        built = [
            dask.delayed(timeline_part)(delayed[i], trace.metadata, end, labels) for i in order
        ]
        return list(dask.persist(*built)), order
    built = dask.persist(
        *[dask.delayed(summarized_part)(p, trace.metadata, labels) for p in delayed]
    )
    parts, scans = [], []
    for both, home in zip(built, homes(built), strict=True):
        with on(home):
            parts.append(dask.delayed(getitem)(both, 0))
            scans.append(dask.delayed(getitem)(both, 1))
    parts = list(dask.persist(*parts))
    found = compute_all(scans, "scanning partitions")
    trace._summary([summary for summary, _ in found])
    end = trace._end()
    for k, (summary, opened) in enumerate(found):
        if opened and summary.end != end:
            parts[k] = dask.delayed(timeline_part)(delayed[k], trace.metadata, end, labels)
            parts[k] = parts[k].persist()
    order = _in_location_order(trace)
    return [parts[i] for i in order], order


def picture_once(trace: Any, request: Request) -> Picture:
    """The picture of ``request`` (one row per location) of DaskTrace ``trace`` in one
    pass over its partitions, none of them kept: each builds its timeline and answers;
    its messages are paired by receiver and cut to the range on the workers (see
    :mod:`glade.trace.engines.arrows`)."""
    summaries = trace._summary()
    order = _in_location_order(trace)
    bases = np.concatenate([[0], np.cumsum([summaries[i].locations for i in order])])
    total = int(bases[-1])
    layout = row_layout(
        max(0, min(request.row0, total)), max(0, min(request.row1, total)), request.height
    )
    row0, row1, pool, _ = layout
    delayed = trace.events.to_delayed()
    shares = [
        dask.delayed(picture_share)(
            delayed[i], trace.metadata, trace._end(), trace.name_labels(), request, int(b), layout
        )
        for i, b in zip(order, bases, strict=False)
    ]
    # paired and cut to the range on the workers: only what the picture draws comes here
    pairs = paired_by_receiver(
        [dask.delayed(getitem)(s, "messages") for s in shares],
        [summaries[i].processes for i in order],
        pair_received,
    )
    cut = arrow_shares(pairs, request.t0, request.t1, row0, row1, pool, total)
    answers, cut = dask.compute([dask.delayed(_picture_answer)(s) for s in shares], cut)
    offsets = np.concatenate([[0], np.cumsum([a["size"] for a in answers])])
    for answer, offset in zip(answers, offsets, strict=False):
        for found in (answer["boxes"], *answer["instants"]):
            if "node" in found:
                found["node"] = found["node"] + offset
    arrows = combine_arrows(cut, request.t0, request.t1, row0, pool, total, messages.MAX_ARROWS)
    return _combine(answers, request, layout, arrows)


def _placed(method: Callable[..., T]) -> Callable[..., T]:
    """``method`` of a DaskSource, which pins tasks to the workers holding its parts,
    once they are known to be all there (a GladeError otherwise, see
    :func:`glade.trace.engines.placement.check_homes`)."""

    @functools.wraps(method)
    def placed(self: DaskSource, *args: Any, **kwargs: Any) -> T:
        check_homes(self._homes, "parts of this timeline view")
        return method(self, *args, **kwargs)

    return placed


class DaskSource(TimelineSource):
    """The timeline source of a DaskTrace (see the module doc)."""

    def __init__(self, trace: Any):
        self._trace = trace
        labels = trace.name_labels()
        self.names = [str(n) for n in labels]
        parts, order = _built_parts(trace, labels)
        # every task on a part runs where the part is (a part moved is rebuilt whole)
        self._homes = homes(parts)
        # paired by receiver on the workers; each part learns its receives' send times
        pairs = dask.persist(
            *paired_by_receiver(
                [
                    _call("message_events", home=h)(p)
                    for p, h in zip(parts, self._homes, strict=True)
                ],
                [trace._summary()[i].processes for i in order],
                pair_received,
                persist=True,
            )
        )
        received = []
        for p, m, h in zip(parts, pairs, self._homes, strict=True):
            with on(h):
                received.append(
                    dask.delayed(TimelinePart.with_received)(
                        p,
                        dask.delayed(getitem)(m, "receive_id"),
                        dask.delayed(getitem)(m, "send_time"),
                    )
                )
        parts = list(dask.persist(*received))
        compact = compute_all([dask.delayed(_pair_arrays)(m) for m in pairs], "messages")
        sizes = compute_all(
            [_call("size", home=h)(p) for p, h in zip(parts, self._homes, strict=True)],
            "call forests",
        )
        counts = np.array([s[0] for s in sizes], dtype=np.int64)
        self._offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.num_nodes = int(self._offsets[-1])
        used = [s for s in sizes if s[0]]
        self.extent = (min(s[1] for s in used), max(s[2] for s in used)) if used else (0, 0)
        joined = {
            f: np.concatenate([c[f] for c in compact] + [np.zeros(0, np.int64)])
            for f in PAIR_ARRAYS
        }
        # in send order (time, then event id), as the pandas engine lists the pairs
        send_order = np.lexsort((joined["send_id"], joined["send_time"]))
        self._pairs = {f: v[send_order] for f, v in joined.items()}
        empty = call_forest(trace._meta_trace())
        # the columns a query may read once the wait states are known (see _know_waits)
        frame = empty.dataframe.assign(**{WAITING_TIME: 0, ON_PATH: 0})
        self._empty = RowTable(empty.graph, frame)
        self._shown = (EVERYTHING, "")
        self._waits_known = False
        self._layers = (False, False)
        self._segments: Any = None
        # the view's order of the locations (of their first order: the parts' one after
        # the other); None for that order
        self._order: np.ndarray | None = None
        self._ends: tuple[np.ndarray, ...] | None = None
        self._end_nodes: tuple[np.ndarray, ...] = ()
        self._install(parts)
        self._first_processes = self._lanes.processes

    def _install(self, parts: list, window: Window | None = None) -> None:
        """Show what ``parts`` (persisted) keep: rows, totals (inside ``window``, if any),
        overview profile and the messages whose two ends they keep, from every part's
        summary."""
        edges = bin_edges(*self.extent, OVERVIEW_BINS)
        pieces = compute_all(
            [
                _call("summary", edges, len(self.names), window, self._ends is None, home=h)(p)
                for p, h in zip(parts, self._homes, strict=True)
            ],
            "timeline rows",
        )
        self._window = window
        self._lay_out(pieces)
        self._totals = np.sum([p["totals"] for p in pieces], axis=0)
        self._profile = np.sum([p["profile"] for p in pieces], axis=0)
        self._counts = (
            sum(p["calls"] for p in pieces),
            sum(p["instants"] for p in pieces),
            sum(p["all_calls"] for p in pieces),
        )
        if self._ends is None:
            # where each pair's two ends are among the parts' message events, joined, and
            # their global nodes (the same events in the same order after every edit:
            # found once; int32 as the pandas timeline's, a forest has under 2^31 nodes)
            ids = np.concatenate([p["message_ids"] for p in pieces] + [np.zeros(0, np.int64)])
            self._ends = _positions(ids, self._pairs["send_id"], self._pairs["receive_id"])
            nodes = np.concatenate(
                [
                    np.where(p["message_nodes"] >= 0, p["message_nodes"] + offset, -1)
                    for p, offset in zip(pieces, self._offsets, strict=False)
                ]
                + [np.zeros(0, dtype=np.int64)]
            ).astype(np.int32)
            self._end_nodes = tuple(nodes[at] for at in self._ends)
        lanes = np.concatenate(
            [
                np.where(p["message_lanes"] >= 0, shown[np.maximum(p["message_lanes"], 0)], -1)
                for p, shown in zip(pieces, self._display[True], strict=True)
            ]
            + [np.zeros(0, dtype=np.int64)]
        )
        pairs = self._pairs
        send, receive = (lanes[at] for at in self._ends)
        kept = (send >= 0) & (receive >= 0)
        self._messages = KeptMessages.sorting(
            pairs["send_time"][kept].astype(np.float64),
            pairs["receive_time"][kept].astype(np.float64),
            send[kept],
            receive[kept],
            pairs["size"][kept].astype(np.float64),
            {
                **{f: pairs[f][kept] for f in ("tag", "communicator")},
                "send_node": self._end_nodes[0][kept],
                "receive_node": self._end_nodes[1][kept],
            },
        )
        self._parts = parts

    def _lay_out(self, pieces: list[dict[str, Any]]) -> None:
        """The rows of the parts' locations (``pieces``: their summaries, each part's
        locations in its order, which is their order in :attr:`_order`): the view's
        lanes, in the order :attr:`_order` gives (the parts' locations one after the
        other when None), and the display rows of every part's rows in both layouts
        (:attr:`_display`, see :func:`glade.trace.timeline.render.displayed`)."""
        counts = np.array([p["processes"].size for p in pieces], dtype=np.int64)
        start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        total = int(start[-1])
        order = np.arange(total) if self._order is None else self._order
        # each part shows its locations in the view's order: the location at a display
        # row is its part's next one, so its place among the parts' locations joined
        # (each part's in its order) is its rank when the rows are grouped by part
        part = np.repeat(np.arange(counts.size), counts)[order]
        joined = np.empty(total, dtype=np.int64)
        joined[np.argsort(part, kind="stable")] = np.arange(total)
        lane_counts = np.concatenate(
            [np.diff(p["offset"]) for p in pieces] + [np.zeros(0, dtype=np.int64)]
        ).astype(np.int64)
        offset = np.concatenate([[0], np.cumsum(lane_counts[joined])]).astype(np.int64)
        self._lanes = Lanes(
            np.concatenate([p["processes"] for p in pieces] + [np.zeros(0)])[joined].astype(
                np.int64
            ),
            np.concatenate([p["threads"] for p in pieces] + [np.zeros(0)])[joined].astype(np.int64),
            offset,
        )
        row = np.empty(total, dtype=np.int64)
        row[joined] = np.arange(total)  # the display row of each joined location
        # the display lane of each lane of the parts joined: its location's first, plus
        # its depth
        lane_start = np.concatenate([[0], np.cumsum(lane_counts)]).astype(np.int64)
        location = np.repeat(np.arange(total), lane_counts)
        lane = offset[row[location]] + np.arange(location.size) - lane_start[location]
        lanes_per_part = np.concatenate([[0], np.cumsum([int(p["offset"][-1]) for p in pieces])])
        self._display = {
            False: [row[a:b] for a, b in itertools.pairwise(start)],
            True: [lane[a:b] for a, b in itertools.pairwise(lanes_per_part)],
        }

    # ------------------------------------------------------------ contract
    @property
    def lanes(self) -> Lanes:
        return self._lanes

    @property
    def totals(self) -> np.ndarray:
        return self._totals

    @property
    def window(self) -> Window | None:
        return self._window

    def status(self) -> str:
        calls, instants, everything = self._counts
        return (
            f"{calls:,} of {everything:,} calls, {instants:,} instants, "
            f"{len(self._messages):,} messages (Dask, {len(self._parts)} partitions)"
        )

    def _absolute(self, text: str) -> str:
        """Query ``text`` with its times from START made absolute: each part knows only
        its own first call, not the trace's. A query reading ``waiting time`` or
        ``critical path`` first gives the parts the wait states (:meth:`_know_waits`)."""
        if not text:
            return text
        parsed = anchor(text, self.extent[0])
        if reads_wait_columns(parsed):
            self._know_waits()
        return str(parsed)

    @_placed
    def check(self, text: str) -> None:
        parsed = anchor(text, self.extent[0])
        if str(parsed) != EVERYTHING:
            query_mask(self._empty, parsed)

    @_placed
    def show(self, query: str, restriction: str) -> bool:
        query, restriction = self._absolute(query), self._absolute(restriction)
        if (query, restriction) == self._shown:
            return False
        parts = list(
            dask.persist(
                *[
                    _call("kept", query, restriction, home=h)(p)
                    for p, h in zip(self._parts, self._homes, strict=True)
                ]
            )
        )
        same = []
        for new, old, home in zip(parts, self._parts, self._homes, strict=True):
            with on(home):
                same.append(dask.delayed(is_)(new, old))
        same = dask.compute(*same)
        self._shown = (query, restriction)
        window = self.window_of(query, restriction)
        if all(same) and window == self._window:
            return False
        self._install(parts, window)
        return True

    def overview(self) -> tuple[dict[str, Any], bytes]:
        shown, group = overview_groups(self._totals)
        grouped = np.zeros((len(shown) + 1, OVERVIEW_BINS), dtype=np.int64)
        np.add.at(grouped, group, self._profile)
        return pack_overview(grouped, shown, self.extent, self._lanes.num_locations)

    @_placed
    def picture(self, request: Request) -> Picture:
        depth_rows = request.depth_rows
        layout = row_layout(
            *self._lanes.check_rows(request.row0, request.row1, depth_rows), request.height
        )
        row0, row1, pool, _ = layout
        display = self._display[depth_rows]
        visible: dict[str | None, list[int]] = {}
        for k, shown in enumerate(display):
            if ((shown >= row0) & (shown < row1)).any():
                visible.setdefault(self._homes[k], []).append(k)
        waits, path = self._layers
        # one round of tasks, one per worker: it answers for all its parts, whose calls
        # share one raster
        found = []
        for home, mine in visible.items():
            with on(home):
                found.append(
                    dask.delayed(shares)(
                        [self._parts[k] for k in mine],
                        request,
                        [display[k] for k in mine],
                        layout,
                        [int(self._offsets[k]) for k in mine],
                        waits,
                    )
                )
        segments = (
            dask.delayed(segments_in_range)(self._segments, request.t0, request.t1, request.width)
            if path
            else None
        )
        answers, segments = dask.compute(found, segments)
        lanes = self._lanes
        # as the pandas timeline: no arrows (nor their envelope) without messages
        arrows = (
            self._messages.in_range(
                request.t0,
                request.t1,
                lanes.row_of_lane(np.arange(lanes.num_lanes), depth_rows),
                row0,
                row1,
                pool,
            )
            if len(self._messages)
            else Arrows.empty()
        )
        locations = lanes.lane_location() if depth_rows else np.arange(lanes.num_locations)
        picture = _combine(answers, request, layout, arrows, locations)
        if waits or path:
            arrays: dict[str, np.ndarray] = {}
            if waits:
                arrays.update(
                    self._wait_arrays([w for a in answers for w in a["waits"]], request, layout)
                )
            if path:
                arrays.update(
                    path_arrays(
                        lanes,
                        segments["from"],
                        segments["to"],
                        segments["Process"],
                        segments["Thread"],
                        depth_rows,
                    )
                )
            picture.extra["arrays"] = arrays
        return picture

    def _know_waits(self) -> None:
        """Give every part the wait states and the critical path of its calls, with the
        global node of each wait's cause (the whole trace's, computed on the cluster
        once; see :meth:`TimelinePart.with_waiting`), and keep the path's segments on
        the cluster."""
        if self._waits_known:
            return
        waits, path, self._segments = dask.persist(*self._trace._wait_graph())
        found = []
        for p, o, h in zip(self._parts, self._offsets, self._homes, strict=False):
            with on(h):
                found.append(dask.delayed(TimelinePart.cause_nodes)(p, waits, int(o)))
        causes = dask.delayed(wait_causes)(waits, found)
        parts = []
        for p, h in zip(self._parts, self._homes, strict=True):
            with on(h):
                parts.append(dask.delayed(TimelinePart.with_waiting)(p, waits, path, causes))
        self._parts = list(dask.persist(*parts))
        self._waits_known = True

    @_placed
    def summary(self, window: Window, by: str) -> pd.DataFrame:
        if by not in SUMMARY_BY:
            raise GladeError(f"a window summary is by one of {list(SUMMARY_BY)}, not {by!r}")
        self._know_waits()
        tables = compute_all(
            [_call("window_table", window, by)(p) for p in self._parts], "window summary"
        )
        return combine_window_tables(tables, window, by, self._lanes.processes)

    @_placed
    def next_call(self, codes: list[int], after: float, forward: bool) -> int:
        found = [
            f
            for f in compute_all(
                [
                    _call("next_call", list(codes), after, forward, int(o))(p)
                    for p, o in zip(self._parts, self._offsets, strict=False)
                ],
                "search",
            )
            if f is not None
        ]
        if not found:
            return -1
        # the first (last) start; among equal starts the first node, the outermost call
        best = min(f[0] for f in found) if forward else max(f[0] for f in found)
        return min(f[1] for f in found if f[0] == best)

    @_placed
    def activity(self) -> tuple[int, int]:
        count = self._counts[0]
        if count < 2:
            return self.extent
        first, last = activity_ranks(count)
        tails = compute_all(
            [_call("activity_tails", first + 1, count - last)(p) for p in self._parts],
            "activity",
        )
        early = np.concatenate([t[0] for t in tails])
        late = np.concatenate([t[1] for t in tails])
        start = np.partition(early, first)[first]
        end = np.partition(late, late.size - (count - last))[late.size - (count - last)]
        return padded_activity(int(start), int(end), self.extent)

    @_placed
    def count_named(self, names: list[str], window: Window | None) -> list[int]:
        counts = compute_all(
            [_call("count_named", list(names), window)(p) for p in self._parts], "hidden calls"
        )
        return np.sum([np.zeros(len(names), dtype=np.int64), *counts], axis=0).tolist()

    @_placed
    def place(self, node: int) -> dict[str, Any]:
        k, local = self._part_of(node)
        return _call(
            "place", local, int(self._offsets[k]), self._display[False][k], home=self._homes[k]
        )(self._parts[k]).compute()

    @_placed
    def show_layers(self, waits: bool, path: bool) -> None:
        if waits or path:
            self._know_waits()
        self._layers = (bool(waits), bool(path))

    def _node_lanes(self, nodes: np.ndarray) -> np.ndarray:
        """The global lane of every node of ``nodes`` (global ids) that is kept, -1 for
        the others (-1 too for a node -1): asked of the parts that hold them."""
        out = np.full(nodes.size, -1, dtype=np.int64)
        named = np.flatnonzero(nodes >= 0)
        part = np.searchsorted(self._offsets, nodes[named], side="right") - 1
        asked = np.unique(part).tolist()
        lanes = compute_all(
            [
                _call(
                    "node_lanes", nodes[named[part == k]] - self._offsets[k], home=self._homes[k]
                )(self._parts[k])
                for k in asked
            ],
            "wait causes",
        )
        for k, found in zip(asked, lanes, strict=True):
            shown = self._display[True][k]
            out[named[part == k]] = np.where(found >= 0, shown[np.maximum(found, 0)], -1)
        return out

    @_placed
    def wait_of(self, node: int) -> tuple[str, int, int] | None:
        self._know_waits()
        k, local = self._part_of(node)
        wait = _call("wait_of", local, home=self._homes[k])(self._parts[k]).compute()
        if wait is None:
            return None
        pattern, waiting, cause = wait
        shown = self._node_lanes(np.array([cause], dtype=np.int64))[0] >= 0
        return PATTERNS[pattern], waiting, cause if shown else -1

    def _wait_arrays(
        self, pieces: Sequence[dict], request: Request, layout: tuple[int, int, int, int]
    ) -> dict[str, np.ndarray]:
        """The arrays ``wait_*`` of the picture of ``request`` (see
        :meth:`glade.trace.timeline.waiting.WaitLayer.waits_in_range`) from every part's
        :meth:`TimelinePart.wait_share` (``pieces``): their exact waits in the pandas
        engine's order (by enter, then row of the run's table), the longest
        :data:`~glade.trace.timeline.waiting.MAX_WAITS` of them kept and the others
        added to the parts' raster sums; the rows of the causes asked of their parts."""
        row0, _, pool, bins = layout
        t0, width = request.t0, request.width
        px = (request.t1 - t0) / width
        fields = ("start", "end", "row", "pattern", "node", "cause", "cause_time", "rank")
        joined = {
            f: np.concatenate([np.zeros(0, np.int64), *(p[f] for p in pieces)]) for f in fields
        }
        order = np.lexsort((joined["rank"], joined["start"]))
        joined = {f: v[order] for f, v in joined.items()}
        exact = exact_waits(joined["end"] - joined["start"], px)
        demoted = np.ones(order.size, dtype=bool)
        demoted[exact] = False
        keys, sums = wait_sums(
            joined["start"][demoted],
            joined["end"][demoted],
            joined["pattern"][demoted],
            (joined["row"][demoted] - row0) // pool,
            t0,
            px,
            width,
            bins,
        )
        raster = wait_pixels(
            np.concatenate([keys, *(p["keys"] for p in pieces)]),
            np.concatenate([sums, *(p["sums"] for p in pieces)]),
            px * pool,
            bins * width,
        )
        shown = {f: v[exact] for f, v in joined.items()}
        lanes = self._node_lanes(shown["cause"])
        shown["cause_row"] = np.where(
            lanes >= 0, self._lanes.row_of_lane(np.maximum(lanes, 0), request.depth_rows), -1
        )
        return wait_arrays(shown, raster)

    @_placed
    def order_rows(self, by: str, pinned: list[int]) -> bool:
        if by not in ROW_ORDERS:
            raise GladeError(f"rows are ordered by one of {list(ROW_ORDERS)}, not {by!r}")
        processes = self._first_processes
        if by == "process":
            measure = -np.arange(processes.size, dtype=np.float64)
        else:
            if by == "waiting time":
                self._know_waits()
            measure = np.concatenate(
                [
                    *compute_all(
                        [
                            _call("row_measure", by, home=h)(p)
                            for p, h in zip(self._parts, self._homes, strict=True)
                        ],
                        "row order",
                    ),
                    np.zeros(0),
                ]
            )
        order = row_order(measure, processes, pinned)
        if np.array_equal(order, np.arange(order.size) if self._order is None else self._order):
            return False
        self._order = order
        # each part shows its locations in the view's order
        position = np.empty_like(order)
        position[order] = np.arange(order.size)
        start = np.concatenate([[0], np.cumsum([d.size for d in self._display[False]])])
        parts = dask.persist(
            *[
                _call("reordered", np.argsort(position[a:b], kind="stable"), home=h)(p)
                for p, h, a, b in zip(self._parts, self._homes, start[:-1], start[1:], strict=True)
            ]
        )
        self._install(list(parts), self._window)
        return True

    def _part_of(self, node: Any) -> tuple[int, int]:
        """The part holding node ``node`` and its id there."""
        node = check_node(node, self.num_nodes)
        k = int(np.searchsorted(self._offsets, node, side="right") - 1)
        return k, node - int(self._offsets[k])

    @_placed
    def call_query(self, node: int) -> str:
        k, local = self._part_of(node)
        return _call("call_query", local, home=self._homes[k])(self._parts[k]).compute()

    @_placed
    def holder(self, node: int) -> int:
        k, local = self._part_of(node)
        found = _call("holder", local, home=self._homes[k])(self._parts[k]).compute()
        return found + int(self._offsets[k])

    @_placed
    def path(self, node: int) -> list[str]:
        k, local = self._part_of(node)
        return _call("path", local, home=self._homes[k])(self._parts[k]).compute()

    @_placed
    def marks(self, text: str, limit: int) -> np.ndarray:
        text = self._absolute(text)
        found = compute_all(
            [
                _call("marks", text, limit, int(o), home=h)(p)
                for p, o, h in zip(self._parts, self._offsets, self._homes, strict=False)
            ],
            "highlight",
        )
        return np.concatenate([np.zeros(0, dtype=np.int64), *found])[:limit]

    @_placed
    def selected(self, text: str) -> pd.DataFrame:
        text = self._absolute(text)
        parts = list(zip(self._parts, self._offsets, self._homes, strict=False))
        frames = compute_all(
            [
                _call("selected", text, int(o), home=h)(p)
                for p, o, h in (parts if text else parts[:1])
            ],
            "selection",
        )
        return pd.concat(frames) if frames else pd.DataFrame()

    def apply(self, query: str) -> Any:
        return self._trace.query(query, level="calls")

    def close(self) -> None:
        # dropping the last references releases the persisted parts on the cluster
        self._parts = []
