"""OTF2 traces (Score-P and other tracers), read and written through the ``otf2``
package (the optional extra ``glade[otf2]``).

Reading: region Enter/Leave records become Enter/Leave events; MPI point-to-point
records become Instant events named after the record (``MpiSend``, ``MpiRecv``,
``MpiIsend``, ``MpiIrecv``, ``MpiIsendComplete``, ``MpiIrecvRequest``) with the
typed columns ``Partner`` (the process on the other side), ``Tag``,
``Communicator`` (the OTF2 communicator id), ``Message Size`` (bytes) and
``Request`` (-1 where they do not apply); every other record becomes an Instant
event named after its record type (``ProgramBegin``, ``MpiCollectiveEnd``, ...).
Metric records become float columns named after the metric members, on the event
recorded at the same time and location right after them (Score-P writes counters
just before the Enter/Leave they belong to), else on an Instant event ``Metric``.
A location group (an MPI rank), or the group that created it, is a ``Process``,
numbered in definition order; its locations are its ``Thread`` 0, 1, ...

Events are read location by location through the OTF2 library's event reader
with lean callbacks that only append numbers to flat arrays: no Python object is
made per event.
"""

from __future__ import annotations

import ctypes
import importlib
import os
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.readers.traces.events import (
    build_trace,
    categorical,
    check_nesting,
    event_types,
    progress,
    ticks_to_ns,
)
from glade.trace.events import (
    COMMUNICATOR,
    ENTER,
    EVENT_TYPE,
    INSTANT,
    LEAVE,
    MESSAGE_SIZE,
    NAME,
    PARTNER,
    PROCESS,
    TAG,
    THREAD,
    TIMESTAMP,
    is_derived,
)
from glade.trace.model import Trace

REQUEST = "Request"
METRIC_EVENT = "Metric"
_METRIC = 3  # kind code of a metric record until it is attached to an event
_BATCH = 1 << 16  # events read per call into the OTF2 library

# MPI point-to-point records: (name, whether it names a partner, whether it has a request)
_MESSAGES = {
    "MpiSend": (True, False),
    "MpiRecv": (True, False),
    "MpiIsend": (True, True),
    "MpiIrecv": (True, True),
    "MpiIsendComplete": (False, True),
    "MpiIrecvRequest": (False, True),
}
_LEAN = {"Enter", "Leave", "Metric", "ProgramBegin", *_MESSAGES}
_MPI_COLUMNS = (PARTNER, TAG, COMMUNICATOR, MESSAGE_SIZE)


def _otf2() -> tuple[Any, Any]:
    """The ``otf2`` package and its ctypes layer ``_otf2``, or a GladeError saying how
    to install them."""
    try:
        return importlib.import_module("otf2"), importlib.import_module("_otf2")
    except ImportError as exc:
        raise GladeError(
            "reading or writing OTF2 needs the otf2 package: pip install glade[otf2]"
        ) from exc


def detect(path: Path) -> bool:
    """Whether ``path`` is an OTF2 anchor file (``*.otf2``) or a directory with one."""
    try:
        path = Path(path)
        if path.is_dir():
            return len(list(path.glob("*.otf2"))) == 1
        return path.is_file() and path.suffix == ".otf2"
    except OSError:
        return False


def _anchor(path: str | os.PathLike) -> Path:
    """The ``.otf2`` anchor file of an archive given as the file or its directory."""
    target = Path(path)
    if target.is_dir():
        anchors = sorted(target.glob("*.otf2"))
        if len(anchors) != 1:
            found = f"{len(anchors)}" if anchors else "no"
            raise ReaderError(target, f"{found} .otf2 anchor files here; pass the one to read")
        target = anchors[0]
    if not target.is_file():
        raise ReaderError(target, "no such file or directory")
    if target.stat().st_size == 0:
        raise ReaderError(target, "empty file")
    return target


# ================================================================== reading
class _Records:
    """Flat arrays the event callbacks append to: one element per record in ``time``
    and ``code`` (which packs the record's kind in its two low bits), one per message
    record in the message arrays, one per metric record in the metric arrays."""

    def __init__(self) -> None:
        self.time = array("Q")
        self.code = array("q")  # (region id, record-type index or metric id) << 2 | kind
        self.other = array("q")  # message partner as a rank in its communicator
        self.comm = array("q")
        self.tag = array("q")
        self.size = array("q")
        self.request = array("q")
        self.metric_count = array("B")
        self.metric_values = bytearray()
        self.program = array("q")


def _record_names(_otf2_mod: Any) -> list[str]:
    """Every event record type the installed OTF2 library reports, sorted."""
    prefix, suffix = "EvtReaderCallbacks_Set", "Callback"
    names = {
        name[len(prefix) : -len(suffix)]
        for name in dir(_otf2_mod)
        if name.startswith(prefix) and name.endswith(suffix)
    }
    return sorted(names - {"Enter", "Leave", "Unknown"})


def _callbacks(_otf2_mod: Any, rec: _Records, names: list[str]) -> tuple[Any, list]:
    """A fresh OTF2 callback set appending into ``rec``, and the ctypes objects that
    must stay alive while it is in use. Frequent records get lean C callbacks of
    their exact signature; the others go through the package's own wrappers."""
    conf = importlib.import_module("_otf2.Config").conf
    u8, u32, u64, vp = ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
    head = (ctypes.c_int, u64, u64, u64, vp, vp)  # result; location, time, position, data, attrs
    t_add, c_add = rec.time.append, rec.code.append
    o_add, m_add, g_add = rec.other.append, rec.comm.append, rec.tag.append
    s_add, r_add = rec.size.append, rec.request.append

    def region(kind: int):
        def record(loc, time, pos, data, attrs, region_id):
            t_add(time)
            c_add(region_id << 2 | kind)
            return 0

        return record

    def message(code: int):
        def record(loc, time, pos, data, attrs, other, comm, tag, size, request=-1):
            t_add(time)
            c_add(code)
            o_add(other)
            m_add(comm)
            g_add(tag)
            s_add(size)
            r_add(request)
            return 0

        return record

    def completion(code: int):
        def record(loc, time, pos, data, attrs, request):
            t_add(time)
            c_add(code)
            o_add(-1)
            m_add(-1)
            g_add(-1)
            s_add(-1)
            r_add(request)
            return 0

        return record

    values_add, count_add = rec.metric_values.extend, rec.metric_count.append
    string_at = ctypes.string_at

    def metric(loc, time, pos, data, attrs, metric_id, count, types, values):
        t_add(time)
        c_add(metric_id << 2 | _METRIC)
        count_add(count)
        values_add(string_at(values, 8 * count))
        return 0

    program_code, program_add = names.index("ProgramBegin") << 2 | INSTANT, rec.program.append

    def program_begin(loc, time, pos, data, attrs, name, argc, argv):
        t_add(time)
        c_add(program_code)
        program_add(name)
        return 0

    lean = {
        "Enter": (region(ENTER), (u32,)),
        "Leave": (region(LEAVE), (u32,)),
        "Metric": (metric, (u32, u8, vp, vp)),
        "ProgramBegin": (program_begin, (u32, u32, vp)),
    }
    for name, (partner, request) in _MESSAGES.items():
        if partner:
            args = (u32, u32, u32, u64, u64) if request else (u32, u32, u32, u64)
            lean[name] = (message(names.index(name) << 2 | INSTANT), args)
        else:
            lean[name] = (completion(names.index(name) << 2 | INSTANT), (u64,))
    cbs = _otf2_mod.EvtReaderCallbacks_New()
    keep: list = []
    for name, (func, args) in lean.items():
        proto = ctypes.CFUNCTYPE(*head, *args)
        setter = ctypes.CFUNCTYPE(ctypes.c_int, vp, proto)(
            (f"OTF2_EvtReaderCallbacks_Set{name}Callback", conf.lib)
        )
        pointer = proto(func)
        keep.append(pointer)
        if setter(ctypes.cast(cbs, vp), pointer) != 0:
            raise GladeError(f"the OTF2 library refused a callback for {name} records")

    def instant(code: int):
        def record(loc, time, pos, data, attrs, *args):
            t_add(time)
            c_add(code)

        return record

    for code, name in enumerate(names):
        if name not in _LEAN:
            func = instant(code << 2 | INSTANT)
            keep.append(func)
            getattr(_otf2_mod, f"EvtReaderCallbacks_Set{name}Callback")(cbs, func)
    return cbs, keep


def _read_records(_otf2_mod: Any, handle: Any, locations: list, anchor: Path):
    """Every location's records, location after location; the record type names and
    the number of records read after each location."""
    rec = _Records()
    names = _record_names(_otf2_mod)
    for loc in locations:
        _otf2_mod.Reader_SelectLocation(handle, loc._ref)
    try:
        _otf2_mod.Reader_OpenDefFiles(handle)
        local_defs = True
    except _otf2_mod.Error:
        local_defs = False
    _otf2_mod.Reader_OpenEvtFiles(handle)
    cbs, keep = _callbacks(_otf2_mod, rec, names)
    ends = []
    total = sum(int(loc.number_of_events) for loc in locations)
    try:
        with progress(total, f"reading {anchor.name}") as bar:
            for loc in locations:
                if local_defs:
                    def_reader = _otf2_mod.Reader_GetDefReader(handle, loc._ref)
                    if def_reader:
                        _otf2_mod.Reader_ReadAllLocalDefinitions(handle, def_reader)
                        _otf2_mod.Reader_CloseDefReader(handle, def_reader)
                evt_reader = _otf2_mod.Reader_GetEvtReader(handle, loc._ref)
                _otf2_mod.Reader_RegisterEvtCallbacks(handle, evt_reader, cbs, None)
                got = _BATCH
                while got == _BATCH:
                    got = _otf2_mod.Reader_ReadLocalEvents(handle, evt_reader, _BATCH)
                    bar.update(got)
                _otf2_mod.Reader_CloseEvtReader(handle, evt_reader)
                ends.append(len(rec.time))
    finally:
        _otf2_mod.EvtReaderCallbacks_Delete(cbs)
        if local_defs:
            _otf2_mod.Reader_CloseDefFiles(handle)
        _otf2_mod.Reader_CloseEvtFiles(handle)
        keep.clear()
    return rec, names, ends


def _process_numbers(otf2: Any, defs: Any) -> tuple[dict[int, int], dict[int, int]]:
    """Process and thread number of every location ref (see the module docstring)."""
    owner = {}
    for group in defs.location_groups:
        creator = group.creating_location_group
        owner[group._ref] = creator._ref if creator is not None else group._ref
    numbers: dict[int, int] = {}
    for group in sorted(defs.location_groups, key=lambda g: g._ref):
        numbers.setdefault(owner[group._ref], len(numbers))
    process, thread, used = {}, {}, {}
    for loc in sorted(defs.locations, key=lambda loc: loc._ref):
        p = numbers[owner[loc.group._ref]]
        process[loc._ref], thread[loc._ref] = p, used.get(p, 0)
        used[p] = thread[loc._ref] + 1
    return process, thread


def _partners(otf2, anchor, defs, rec, sender: np.ndarray, process: dict) -> np.ndarray:
    """The process on the other side of each message record (-1 for completions)."""
    other = np.frombuffer(rec.other, dtype=np.int64)
    comm = np.frombuffer(rec.comm, dtype=np.int64)
    out = np.full(other.size, -1, dtype=np.int64)
    for c in defs.comms:
        mine = (comm == c._ref) & (other >= 0)
        if not mine.any():
            continue
        if c.group.group_type == otf2.GroupType.COMM_SELF:
            out[mine] = sender[mine]
            continue
        lookup = np.array([process[m._ref] for m in c.group.members], dtype=np.int64)
        ranks = other[mine]
        if ranks.max() >= lookup.size:
            raise ReaderError(
                anchor,
                f"a message names rank {int(ranks.max())} of communicator {c.name!r}, "
                f"which has {lookup.size} members",
            )
        out[mine] = lookup[ranks]
    orphan = np.flatnonzero((other >= 0) & (out < 0))
    if orphan.size:
        raise ReaderError(anchor, f"a message uses communicator {int(comm[orphan[0]])}, "
                          "which is not defined")
    return out


def _metric_columns(anchor, defs, rec, rows: np.ndarray, metric_ids: np.ndarray) -> dict:
    """The values of the metric records at ``rows`` (of metrics ``metric_ids``), one
    float array per metric member name, indexed like ``rows``."""
    counts = np.frombuffer(rec.metric_count, dtype=np.uint8).astype(np.int64)
    raw = np.frombuffer(bytes(rec.metric_values), dtype=np.uint64)
    first = np.cumsum(counts) - counts
    columns: dict[str, np.ndarray] = {}
    for metric_id in np.unique(metric_ids):
        metric = defs.metrics[int(metric_id)]
        members = getattr(metric, "members", None) or metric.metric_class.members
        mine = np.flatnonzero(metric_ids == metric_id)
        if np.any(counts[mine] != len(members)):
            raise ReaderError(
                anchor, f"metric records of metric {int(metric_id)} do not have "
                f"{len(members)} values, as its definition says"
            )
        for j, member in enumerate(members):
            bits = raw[first[mine] + j]
            kind = str(member.value_type).rsplit(".", 1)[-1]
            if kind == "DOUBLE":
                values = bits.view(np.float64)
            elif kind == "INT64":
                values = bits.view(np.int64).astype(np.float64)
            else:
                values = bits.astype(np.float64)
            column = columns.setdefault(member.name, np.full(rows.size, np.nan))
            column[mine] = values
    return columns


def read_otf2(path: str | os.PathLike) -> Trace:
    """The trace in the OTF2 archive ``path`` (its ``.otf2`` anchor file or the
    directory holding it); see the module docstring for what becomes what."""
    otf2, _otf2_mod = _otf2()
    anchor = _anchor(path)
    try:
        with otf2.reader.open(str(anchor)) as reader:
            defs = reader.definitions
            locations = sorted(defs.locations, key=lambda loc: loc._ref)
            rec, names, ends = _read_records(_otf2_mod, reader.handle, locations, anchor)
            metadata = _metadata(_otf2_mod, reader.handle, defs, rec, locations)
            return _assemble(otf2, anchor, defs, locations, rec, names, ends, metadata)
    except (_otf2_mod.Error, otf2.error.TraceReaderError) as exc:
        raise ReaderError(anchor, f"not a readable OTF2 archive ({exc})") from exc
    except (KeyError, IndexError) as exc:
        raise ReaderError(anchor, f"events refer to a missing definition ({exc})") from exc


def _metadata(_otf2_mod, handle, defs, rec, locations) -> dict[str, Any]:
    """What the archive tells about the run and its clock."""
    clock = defs.clock_properties
    programs = {str(defs.strings[int(ref)]) for ref in rec.program}
    return {
        "format": "otf2",
        "creator": _otf2_mod.Reader_GetCreator(handle),
        "description": _otf2_mod.Reader_GetDescription(handle),
        "machine": _otf2_mod.Reader_GetMachineName(handle),
        "program": next(iter(programs)) if len(programs) == 1 else sorted(programs) or None,
        "timer_resolution": int(clock.timer_resolution),
        "global_offset": int(clock.global_offset),
        "trace_length": int(clock.trace_length),
        "num_locations": len(locations),
    }


def _assemble(otf2, anchor, defs, locations, rec, names, ends, metadata) -> Trace:
    """The Trace of the flat record arrays (see the module docstring)."""
    process, thread = _process_numbers(otf2, defs)
    ticks = np.frombuffer(rec.time, dtype=np.uint64)
    packed = np.frombuffer(rec.code, dtype=np.int64)
    kind, code = (packed & 3).astype(np.int8), packed >> 2
    counts = np.diff(np.concatenate([[0], ends])).astype(np.int64)
    where = np.repeat(np.arange(len(locations)), counts)
    same_location = where[1:] == where[:-1]
    back = np.flatnonzero((ticks[1:] < ticks[:-1]) & same_location)
    if back.size:
        loc = locations[where[back[0]]]
        raise ReaderError(anchor, f"timestamps go backwards on location {loc.name!r}")
    clock = defs.clock_properties
    stamps = ticks_to_ns(ticks, int(clock.global_offset), int(clock.timer_resolution))
    procs = np.array([process[loc._ref] for loc in locations], np.int64)[where]
    threads = np.array([thread[loc._ref] for loc in locations], np.int64)[where]

    regions = sorted(defs.regions, key=lambda r: r._ref)
    region_slot = np.full(max((r._ref for r in regions), default=-1) + 2, -1, dtype=np.int64)
    region_slot[[r._ref for r in regions]] = np.arange(len(regions))
    labels = [r.name for r in regions] + names + [METRIC_EVENT]
    name_code = np.where(kind == INSTANT, len(regions) + code, -1)
    is_region = (kind == ENTER) | (kind == LEAVE)
    region_code = region_slot[np.clip(code[is_region], -1, region_slot.size - 1)]
    if np.any(region_code < 0):
        raise ReaderError(anchor, "an Enter or Leave names an undefined region")
    name_code[is_region] = region_code

    columns: dict[str, Any] = {}
    is_message = (kind == INSTANT) & np.isin(code, [names.index(n) for n in _MESSAGES])
    rows = np.flatnonzero(is_message)
    for column, values in (
        (PARTNER, _partners(otf2, anchor, defs, rec, procs[rows], process)),
        (TAG, np.frombuffer(rec.tag, dtype=np.int64)),
        (COMMUNICATOR, np.frombuffer(rec.comm, dtype=np.int64)),
        (MESSAGE_SIZE, np.frombuffer(rec.size, dtype=np.int64)),
        (REQUEST, np.frombuffer(rec.request, dtype=np.int64)),
    ):
        full = np.full(kind.size, -1, dtype=np.int64)
        full[rows] = values
        columns[column] = full

    keep = np.ones(kind.size, dtype=bool)
    metric_rows = np.flatnonzero(kind == _METRIC)
    if metric_rows.size:
        values = _metric_columns(anchor, defs, rec, metric_rows, code[metric_rows])
        others = np.flatnonzero(kind != _METRIC)
        after = np.searchsorted(others, metric_rows)
        target = others[np.minimum(after, max(others.size - 1, 0))] if others.size else after
        attached = (
            (after < others.size)
            & (where[target] == where[metric_rows])
            & (ticks[target] == ticks[metric_rows])
        )
        for column, vals in values.items():
            full = np.full(kind.size, np.nan)
            full[metric_rows[~attached]] = vals[~attached]
            full[target[attached]] = vals[attached]
            columns[column] = full
        keep[metric_rows[attached]] = False
        kind[metric_rows[~attached]] = INSTANT
        name_code[metric_rows[~attached]] = len(labels) - 1

    order = np.flatnonzero(keep)
    order = order[np.argsort(stamps[order], kind="stable")]
    names_col = categorical(name_code[order], labels)
    check_nesting(anchor, stamps[order], kind[order], names_col, procs[order], threads[order])
    table = {
        TIMESTAMP: stamps[order],
        EVENT_TYPE: event_types(kind[order]),
        NAME: names_col,
        PROCESS: procs[order],
        THREAD: threads[order],
    }
    table.update({column: values[order] for column, values in columns.items()})
    return build_trace(anchor, table, _definitions(defs, process, thread), metadata)


def _definitions(defs: Any, process: dict, thread: dict) -> pd.DataFrame:
    """One row per region, location, communicator and metric member definition."""
    rows = [("Region", r._ref, r.name, -1, -1) for r in defs.regions]
    rows += [
        ("Location", loc._ref, loc.name, process[loc._ref], thread[loc._ref])
        for loc in defs.locations
    ]
    rows += [("Communicator", c._ref, c.name, -1, -1) for c in defs.comms]
    rows += [("Metric", m._ref, m.name, -1, -1) for m in defs.metric_members]
    table = pd.DataFrame(rows, columns=["Definition Type", "ID", "Name", PROCESS, THREAD])
    table["Definition Type"] = table["Definition Type"].astype("category")
    return table


# ================================================================== writing
_WRITABLE_INSTANTS = (*_MESSAGES, "ProgramBegin", "ProgramEnd")
_OTF2_TYPE_DOUBLE = 10


def _writer_calls() -> dict[str, Any]:
    """ctypes functions of the OTF2 event writer, each with its exact signature."""
    conf = importlib.import_module("_otf2.Config").conf
    u8, u32, u64, vp = ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
    head = (ctypes.c_int, vp, vp, u64)  # result; writer, attribute list, time
    signatures = {
        "Enter": (u32,),
        "Leave": (u32,),
        "MpiSend": (u32, u32, u32, u64),
        "MpiRecv": (u32, u32, u32, u64),
        "MpiIsend": (u32, u32, u32, u64, u64),
        "MpiIrecv": (u32, u32, u32, u64, u64),
        "MpiIsendComplete": (u64,),
        "MpiIrecvRequest": (u64,),
        "ProgramBegin": (u32, u32, vp),
        "ProgramEnd": (ctypes.c_int64,),
        "Metric": (u32, u8, vp, vp),
    }
    return {
        name: ctypes.CFUNCTYPE(*head, *args)((f"OTF2_EvtWriter_{name}", conf.lib))
        for name, args in signatures.items()
    }


def _metric_names(events: pd.DataFrame) -> list[str]:
    """The recorded (not derived) float columns of ``events``."""
    return [
        c
        for c in events.columns
        if pd.api.types.is_float_dtype(events[c]) and not is_derived(str(c))
    ]


class _Plan:
    """The events of a trace as the plain arrays the OTF2 writer loop needs, checked."""

    def __init__(self, trace: Trace, metrics: list[str] | None):
        events = trace.events
        self.kind = trace.event_kinds()
        names = events[NAME].astype("category")
        self.labels = [str(c) for c in names.cat.categories]
        self.name = names.cat.codes.to_numpy().astype(np.int64)
        instants = {self.labels[c] for c in np.unique(self.name[self.kind == INSTANT])}
        unsupported = sorted(instants - set(_WRITABLE_INSTANTS))
        if unsupported:
            raise GladeError(
                f"OTF2 has no record for Instant events named {unsupported[:5]}; "
                f"it can write {list(_WRITABLE_INSTANTS)}"
            )
        self.metrics = _metric_names(events) if metrics is None else list(metrics)
        missing = [c for c in self.metrics if c not in events.columns]
        if missing:
            raise GladeError(f"no column named {missing[0]!r} to write as a metric")
        self.metric_values = events[self.metrics].to_numpy(np.float64).reshape(len(events), -1)
        stamps = events[TIMESTAMP].to_numpy(np.int64)
        self.stamps = stamps - (min(int(stamps.min()), 0) if stamps.size else 0)
        self.process = events[PROCESS].to_numpy(np.int64)
        self.thread = events[THREAD].to_numpy(np.int64)
        self.ranks = np.unique(self.process)
        self.program = str(trace.metadata.get("program") or "glade trace")
        self._message_arguments(events)

    def _message_arguments(self, events: pd.DataFrame) -> None:
        """Partner rank, tag, size and request of every event (0 where unused)."""
        codes = [c for c, label in enumerate(self.labels) if label in _MESSAGES]
        is_message = np.isin(self.name, codes) & (self.kind == INSTANT)
        with_partner = np.isin(
            self.name, [c for c in codes if _MESSAGES[self.labels[c]][0]]
        ) & is_message
        for column in (PARTNER, TAG, MESSAGE_SIZE, REQUEST):
            if column in events.columns:
                values = events[column].to_numpy(np.int64)
            elif is_message.any() and column != REQUEST:
                raise GladeError(f"message events need a {column!r} column to be written")
            else:
                values = np.zeros(len(events), dtype=np.int64)
            setattr(self, column.replace(" ", "_").lower(), np.where(is_message, values, 0))
        rank = np.searchsorted(self.ranks, self.partner)
        known = (rank < self.ranks.size) & (
            self.ranks[np.minimum(rank, self.ranks.size - 1)] == self.partner
        )
        if np.any(with_partner & ~known):
            bad = int(self.partner[np.argmax(with_partner & ~known)])
            raise GladeError(f"a message names partner process {bad}, which has no events")
        self.partner = np.where(with_partner, rank, 0)

    def locations(self) -> list[np.ndarray]:
        """The event rows of each (process, thread), in order, each in event order."""
        order = np.lexsort((np.arange(self.kind.size), self.thread, self.process))
        p, t = self.process[order], self.thread[order]
        cut = np.flatnonzero((p[1:] != p[:-1]) | (t[1:] != t[:-1])) + 1
        return [rows for rows in np.split(order, cut) if rows.size]


def write_otf2(
    trace: Trace,
    path: str | os.PathLike,
    archive_name: str = "traces",
    metrics: list[str] | None = None,
) -> Path:
    """Write ``trace`` as an OTF2 archive in the new or empty directory ``path``; return
    its anchor file ``<path>/<archive_name>.otf2``.

    Each process becomes a location group (MPI rank = position of the process in
    sorted order), each (process, thread) a location, each Enter/Leave name a region.
    Instant events must be MPI point-to-point records (needing ``Partner``, ``Tag`` and
    ``Message Size``; ``Request``, for the non-blocking ones, is 0 where absent),
    ``ProgramBegin`` or ``ProgramEnd``; messages are written on one ``MPI_COMM_WORLD``. ``metrics``
    (default: every recorded float column) form one metric class whose record
    precedes each event that has a value. The clock counts nanoseconds from 0; a
    trace with negative timestamps is shifted to start at 0.
    """
    otf2, _ = _otf2()
    target = Path(path)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise GladeError(f"{target}: exists and is not an empty directory")
    plan = _Plan(trace, metrics)
    calls = _writer_calls()
    blocks = plan.locations()
    with otf2.writer.open(str(target), archive_name=archive_name, timer_resolution=10**9) as out:
        defs = out.definitions
        node = defs.system_tree_node("glade")
        groups = {
            int(p): defs.location_group(f"Process {p}", system_tree_parent=node)
            for p in plan.ranks
        }
        locations = [
            defs.location(f"Thread {plan.thread[rows[0]]}", group=groups[plan.process[rows[0]]])
            for rows in blocks
        ]
        world = [locations[[plan.process[b[0]] for b in blocks].index(p)] for p in plan.ranks]
        for kind, name in ((otf2.GroupType.COMM_LOCATIONS, "locations"),
                           (otf2.GroupType.COMM_GROUP, "MPI_COMM_WORLD")):
            group = defs.group(name, group_type=kind, paradigm=otf2.Paradigm.MPI, members=world)
        refs = {
            "comm": defs.comm("MPI_COMM_WORLD", group=group)._ref,
            "program": defs.strings.get(plan.program)._ref,
            "region": np.full(len(plan.labels), -1, dtype=np.int64),
        }
        for c in np.unique(plan.name[plan.kind != INSTANT]):
            refs["region"][c] = defs.region(plan.labels[c])._ref
        if plan.metrics:
            members = [defs.metric_member(str(c)) for c in plan.metrics]
            refs["metric"] = defs.metric_class(members=members)._ref
        with progress(plan.kind.size, f"writing {archive_name}.otf2") as bar:
            for rows, location in zip(blocks, locations, strict=True):
                writer = out.event_writer_from_location(location)
                handle = ctypes.cast(writer.handle, ctypes.c_void_p).value
                written = _write_location(calls, handle, plan, refs, rows)
                location._number_of_events_written = written
                bar.update(rows.size)
        if plan.stamps.size:
            out._update_timestamps(0)
            out._update_timestamps(int(plan.stamps.max()))
    return target / f"{archive_name}.otf2"


def _write_location(calls: dict, handle: int, plan: _Plan, refs: dict, rows: np.ndarray) -> int:
    """Write the events ``rows`` of one location; the number of records written."""
    enter, leave, metric = calls["Enter"], calls["Leave"], calls["Metric"]
    by_name = [calls.get(label) for label in plan.labels]
    region, comm, program = refs["region"].tolist(), refs["comm"], refs["program"]
    width = len(plan.metrics)
    types = (ctypes.c_uint8 * max(width, 1))(*[_OTF2_TYPE_DOUBLE] * max(width, 1))
    values = (ctypes.c_double * max(width, 1))()
    measured = ~np.isnan(plan.metric_values[rows]).all(axis=1)
    columns = [
        col[rows].tolist()
        for col in (plan.stamps, plan.kind, plan.name, plan.partner, plan.tag,
                    plan.message_size, plan.request)
    ]
    failed = 0
    for row, t, k, c, partner, tag, size, request, has_metric in zip(
        rows.tolist(), *columns, measured.tolist(), strict=True
    ):
        if has_metric:
            values[:] = plan.metric_values[row].tolist()
            failed |= metric(handle, None, t, refs["metric"], width, types, values)
        if k == ENTER:
            failed |= enter(handle, None, t, region[c])
        elif k == LEAVE:
            failed |= leave(handle, None, t, region[c])
        else:
            label = plan.labels[c]
            if label in ("MpiSend", "MpiRecv"):
                failed |= by_name[c](handle, None, t, partner, comm, tag, size)
            elif label in ("MpiIsend", "MpiIrecv"):
                failed |= by_name[c](handle, None, t, partner, comm, tag, size, request)
            elif label in ("MpiIsendComplete", "MpiIrecvRequest"):
                failed |= by_name[c](handle, None, t, request)
            elif label == "ProgramBegin":
                failed |= by_name[c](handle, None, t, program, 0, None)
            else:
                failed |= by_name[c](handle, None, t, 0)
    if failed:
        raise GladeError("the OTF2 library failed to write an event")
    return rows.size + int(np.count_nonzero(measured))
