"""OTF2 traces (Score-P and other tracers), read through the ``otf2``
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
just before the Enter/Leave they belong to), else on an Instant event ``Metric``; each
member is a counter of ``trace.counters`` (``metadata["counters"]``, its unit in
``metadata["units"]``; see :mod:`glade.trace.counters`).
A location group (an MPI rank), or the group that created it, is a ``Process``,
numbered in definition order; its locations are its ``Thread`` 0, 1, ... An archive
written by glade keeps each process's and thread's id in the properties
``glade::Process`` and ``glade::Thread``, and those ids are read back instead.

Events are read location by location through the OTF2 library's event reader
with callbacks compiled by numba that write numbers into one flat buffer
(:mod:`glade.readers.traces.otf2_records`): no Python object is made per event.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.progress import progress
from glade.readers.traces.events import (
    build_trace,
    categorical,
    event_types,
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
)
from glade.trace.nesting import check_nesting
from glade.units import normalize_unit

REQUEST = "Request"
METRIC_EVENT = "Metric"

# MPI point-to-point records: (name, whether it names a partner, whether it has a request)
MESSAGE_RECORDS = {
    "MpiSend": (True, False),
    "MpiRecv": (True, False),
    "MpiIsend": (True, True),
    "MpiIrecv": (True, True),
    "MpiIsendComplete": (False, True),
    "MpiIrecvRequest": (False, True),
}
_MPI_COLUMNS = (PARTNER, TAG, COMMUNICATOR, MESSAGE_SIZE)


def otf2_modules() -> tuple[Any, Any]:
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


def archive_anchor(path: str | os.PathLike) -> Path:
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
class Records:
    """The records read, as flat arrays (see :mod:`glade.readers.traces.otf2_records`):
    ``ticks`` (uint64), ``kind`` (ENTER, LEAVE, INSTANT or METRIC), ``code`` (region,
    record type or metric id) and, for records with extra values, where they start in
    ``aux``."""

    def __init__(self, buffer: Any, records: Any):
        self.ticks, packed, self.extra, self.aux = buffer.parts()
        self.kind, self.code = (packed & 3).astype(np.int8), packed >> 2
        self.metric_kind = records.METRIC
        self.program_code = records.COMPILED.index("ProgramBegin")
        self.message_codes = len(records.MESSAGES)

    def program_names(self) -> np.ndarray:
        """The string ids of the program names of the ``ProgramBegin`` records."""
        rows = (self.kind == INSTANT) & (self.code == self.program_code)
        return self.aux[self.extra[rows]]

    def message_rows(self) -> np.ndarray:
        """The rows of point-to-point message records."""
        return np.flatnonzero((self.kind == INSTANT) & (self.code < self.message_codes))

    def message_values(self, rows: np.ndarray, field: int) -> np.ndarray:
        """Field ``field`` (partner, communicator, tag, size, request) of message rows."""
        return self.aux[self.extra[rows] + field]


#: The properties in which glade's OTF2 writer keeps each location group's process id and
#: each location's thread id, which the reader gives back.
PROCESS_PROPERTY, THREAD_PROPERTY = "glade::Process", "glade::Thread"


def _numbers_kept(properties: Any, owner: str, name: str, refs: set[int]) -> dict[int, int]:
    """The ids that properties ``name`` give to the definitions ``refs`` (attribute
    ``owner`` of each property), when every one of them has one; else {}."""
    kept = {
        getattr(p, owner)._ref: p.value
        for p in properties
        if p.name == name and isinstance(p.value, int)
    }
    return kept if refs and set(kept) >= refs else {}


def process_numbers(otf2: Any, defs: Any, anchor: Path) -> tuple[dict[int, int], dict[int, int]]:
    """Process and thread number of every location ref (see the module docstring)."""
    owner = {}
    for group in defs.location_groups:
        creator = group.creating_location_group
        owner[group._ref] = creator._ref if creator is not None else group._ref
    numbers: dict[int, int] = {}
    for group in sorted(defs.location_groups, key=lambda g: g._ref):
        numbers.setdefault(owner[group._ref], len(numbers))
    kept = _numbers_kept(
        defs.location_group_properties, "location_group", PROCESS_PROPERTY, set(numbers)
    )
    if len(set(kept.values())) < len(kept):
        raise ReaderError(anchor, f"two location groups have the same {PROCESS_PROPERTY}")
    numbers = {ref: kept.get(ref, n) for ref, n in numbers.items()}
    threads = _numbers_kept(
        defs.location_properties, "location", THREAD_PROPERTY, {loc._ref for loc in defs.locations}
    )
    process: dict[int, int] = {}
    thread: dict[int, int] = {}
    used: dict[int, int] = {}
    for loc in sorted(defs.locations, key=lambda loc: loc._ref):
        p = numbers[owner[loc.group._ref]]
        process[loc._ref], thread[loc._ref] = p, threads.get(loc._ref, used.get(p, 0))
        used[p] = used.get(p, 0) + 1
    if threads and len(set(zip(process.values(), thread.values(), strict=True))) < len(process):
        raise ReaderError(anchor, f"two locations of a process have the same {THREAD_PROPERTY}")
    return process, thread


def _partners(
    otf2, anchor, defs, rec: Records, rows: np.ndarray, sender: np.ndarray, process: dict
) -> np.ndarray:
    """The process on the other side of each message record (-1 for completions)."""
    other = rec.message_values(rows, 0)
    comm = rec.message_values(rows, 1)
    out = np.full(other.size, -1, dtype=np.int64)
    resolved = other < 0
    for c in defs.comms:
        mine = (comm == c._ref) & (other >= 0)
        if not mine.any():
            continue
        if c.group.group_type == otf2.GroupType.COMM_SELF:
            out[mine], resolved[mine] = sender[mine], True
            continue
        lookup = np.array([process[m._ref] for m in c.group.members], dtype=np.int64)
        ranks = other[mine]
        if ranks.max() >= lookup.size:
            raise ReaderError(
                anchor,
                f"a message names rank {int(ranks.max())} of communicator {c.name!r}, "
                f"which has {lookup.size} members",
            )
        out[mine], resolved[mine] = lookup[ranks], True
    orphan = np.flatnonzero(~resolved)
    if orphan.size:
        raise ReaderError(
            anchor, f"a message uses communicator {int(comm[orphan[0]])}, which is not defined"
        )
    return out


def _members(metric: Any) -> list:
    """The member definitions of a metric (instance or class) definition."""
    return getattr(metric, "members", None) or metric.metric_class.members


def declare_counters(metadata: dict[str, Any], defs: Any, columns: Any) -> None:
    """Declare every metric member that became one of the events ``columns`` a counter
    (``metadata["counters"]``, on any event; the ``Metric`` instants carry only samples:
    ``metadata["counter_events"]``) with its unit in ``metadata["units"]``
    (PAPI's ``#`` is ``count``; other spellings as :func:`glade.units.normalize_unit`
    reads them)."""
    present = set(columns)
    members = {m.name: m for m in defs.metric_members if m.name in present}
    if not members:
        return
    metadata["counters"] = [{"name": n, "column": n, "event": None} for n in members]
    # a metric record with no Enter or Leave to sit on is an Instant that only carries it
    metadata["counter_events"] = [METRIC_EVENT]
    units = {
        n: "count" if str(m.unit).strip() == "#" else normalize_unit(str(m.unit))
        for n, m in members.items()
    }
    known = {n: u for n, u in units.items() if u}
    if known:
        metadata["units"] = {**metadata.get("units", {}), **known}


def metric_column_names(defs: Any, metric_ids: np.ndarray) -> list[str]:
    """The columns that the records of the metrics ``metric_ids`` become, in the order
    the reader adds them (by metric id, then member)."""
    names: dict[str, None] = {}
    for metric_id in np.unique(metric_ids):
        for member in _members(defs.metrics[int(metric_id)]):
            names.setdefault(member.name, None)
    return list(names)


def _metric_columns(anchor, defs, rec: Records, rows: np.ndarray, metric_ids: np.ndarray) -> dict:
    """The values of the metric records at ``rows`` (of metrics ``metric_ids``), one
    float array per metric member name, indexed like ``rows``."""
    counts = rec.aux[rec.extra[rows]]
    raw = rec.aux.view(np.uint64)
    first = rec.extra[rows] + 1
    columns: dict[str, np.ndarray] = {}
    for metric_id in np.unique(metric_ids):
        metric = defs.metrics[int(metric_id)]
        members = _members(metric)
        mine = np.flatnonzero(metric_ids == metric_id)
        if np.any(counts[mine] != len(members)):
            raise ReaderError(
                anchor,
                f"metric records of metric {int(metric_id)} do not have "
                f"{len(members)} values, as its definition says",
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


@contextlib.contextmanager
def open_archive(anchor: Path) -> Iterator[tuple[Any, Any, Any]]:
    """The ``otf2`` package, its ctypes layer and an open reader of the archive at
    ``anchor`` (its definitions read); the OTF2 library's errors, and events naming
    missing definitions, become ReaderErrors naming ``anchor``."""
    otf2, _otf2_mod = otf2_modules()
    try:
        with otf2.reader.open(str(anchor)) as reader:
            yield otf2, _otf2_mod, reader
    except (_otf2_mod.Error, otf2.error.TraceReaderError) as exc:
        raise ReaderError(anchor, f"not a readable OTF2 archive ({exc})") from exc
    except (KeyError, IndexError) as exc:
        raise ReaderError(anchor, f"events refer to a missing definition ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise ReaderError(anchor, f"a definition's text is not UTF-8 ({exc})") from exc


def sorted_locations(defs: Any) -> list:
    """The locations of the archive's definitions ``defs``, in reference order: the
    order the reader reads them and numbers their threads."""
    return sorted(defs.locations, key=lambda loc: loc._ref)


def read_otf2(
    path: str | os.PathLike, engine: str = "pandas", npartitions: int | None = None
) -> Any:
    """The trace in the OTF2 archive ``path`` (its ``.otf2`` anchor file or the
    directory holding it); see the module docstring for what becomes what.
    ``engine="dask"`` (needs ``glade[dask]``) reads the locations on the cluster's
    workers into a :class:`~glade.trace.engines.dask_trace.DaskTrace` of
    ``npartitions`` partitions of whole processes (see
    :mod:`glade.readers.traces.otf2_dask`)."""
    from glade.trace.engines import check_engine, dask_trace_class

    otf2_modules()
    if check_engine(engine) == "dask":
        dask_trace_class()
        from glade.readers.traces.otf2_dask import read_otf2_dask

        return read_otf2_dask(path, npartitions)
    if npartitions is not None:
        raise GladeError("npartitions is an option of engine='dask'")
    from glade.readers.traces import otf2_records

    anchor = archive_anchor(path)
    with open_archive(anchor) as (otf2, _otf2_mod, reader):
        defs = reader.definitions
        locations = sorted_locations(defs)
        total = sum(int(loc.number_of_events) for loc in locations)
        with progress(total, f"reading {anchor.name}") as bar:
            buffer, names, ends = otf2_records.read_records(
                _otf2_mod, reader.handle, locations, bar, anchor
            )
        rec = Records(buffer, otf2_records)
        metadata = archive_metadata(
            _otf2_mod, reader.handle, defs, program_names(defs, rec), len(locations)
        )
        table, _ = event_table(otf2, anchor, defs, locations, rec, names, ends)
        declare_counters(metadata, defs, table)
        process, thread = process_numbers(otf2, defs, anchor)
        return build_trace(anchor, table, definitions_table(defs, process, thread), metadata)


def program_names(defs: Any, rec: Records) -> set[str]:
    """The program names of the ``ProgramBegin`` records read."""
    return {str(defs.strings[int(ref)]) for ref in np.unique(rec.program_names())}


def archive_metadata(
    _otf2_mod, handle, defs, programs: set[str], num_locations: int
) -> dict[str, Any]:
    """What the archive tells about the run and its clock (``programs``: the program
    names its ``ProgramBegin`` records name)."""
    clock = defs.clock_properties
    return {
        "format": "otf2",
        "creator": _otf2_mod.Reader_GetCreator(handle),
        "description": _otf2_mod.Reader_GetDescription(handle),
        "machine": _otf2_mod.Reader_GetMachineName(handle),
        "program": next(iter(programs)) if len(programs) == 1 else sorted(programs) or None,
        "timer_resolution": int(clock.timer_resolution),
        "global_offset": int(clock.global_offset),
        "trace_length": int(clock.trace_length),
        "num_locations": num_locations,
    }


def event_table(
    otf2, anchor, defs, locations, rec, names, ends
) -> tuple[dict[str, Any], np.ndarray]:
    """The events columns of the flat record arrays of ``locations`` (see the module
    docstring), in time order, checked; and each event's record (its position in the
    records of ``locations`` read one after the other)."""
    process, thread = process_numbers(otf2, defs, anchor)
    ticks, kind, code = rec.ticks, rec.kind.copy(), rec.code
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
    rows = rec.message_rows()
    for column, values in (
        (PARTNER, _partners(otf2, anchor, defs, rec, rows, procs[rows], process)),
        (TAG, rec.message_values(rows, 2)),
        (COMMUNICATOR, rec.message_values(rows, 1)),
        (MESSAGE_SIZE, rec.message_values(rows, 3)),
        (REQUEST, rec.message_values(rows, 4)),
    ):
        full = np.full(kind.size, -1, dtype=np.int64)
        full[rows] = values
        columns[column] = full

    keep = np.ones(kind.size, dtype=bool)
    metric_rows = np.flatnonzero(kind == rec.metric_kind)
    if metric_rows.size:
        values = _metric_columns(anchor, defs, rec, metric_rows, code[metric_rows])
        others = np.flatnonzero(kind != rec.metric_kind)
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
    return table, order


def definitions_table(defs: Any, process: dict, thread: dict) -> pd.DataFrame:
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
