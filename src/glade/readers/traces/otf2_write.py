"""Writing a Trace as an OTF2 archive through the ``otf2`` package (the optional extra
``glade[otf2]``): the records :mod:`glade.readers.traces.otf2` reads back."""

from __future__ import annotations

import ctypes
import importlib
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError
from glade.progress import progress
from glade.readers.traces.otf2 import (
    MESSAGE_RECORDS,
    PROCESS_PROPERTY,
    REQUEST,
    THREAD_PROPERTY,
    otf2_modules,
)
from glade.trace.events import (
    ENTER,
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
from glade.units import unit_of

_WRITABLE_INSTANTS = (*MESSAGE_RECORDS, "ProgramBegin", "ProgramEnd")
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

    # the message arguments of every event, set by _message_arguments
    partner: np.ndarray
    tag: np.ndarray
    message_size: np.ndarray
    request: np.ndarray

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
        self.metric_units = [unit_of(trace.metadata, c) or "" for c in self.metrics]
        self.metric_values = (
            events[self.metrics].to_numpy(np.float64).reshape(len(events), len(self.metrics))
        )
        stamps = events[TIMESTAMP].to_numpy(np.int64)
        self.stamps = stamps - (min(int(stamps.min()), 0) if stamps.size else 0)
        self.process = events[PROCESS].to_numpy(np.int64)
        self.thread = events[THREAD].to_numpy(np.int64)
        self.ranks = np.unique(self.process)
        self.program = str(trace.metadata.get("program") or "glade trace")
        self._message_arguments(events)

    def _message_arguments(self, events: pd.DataFrame) -> None:
        """Partner rank, tag, size and request of every event (0 where unused)."""
        codes = [c for c, label in enumerate(self.labels) if label in MESSAGE_RECORDS]
        is_message = np.isin(self.name, codes) & (self.kind == INSTANT)
        with_partner = (
            np.isin(self.name, [c for c in codes if MESSAGE_RECORDS[self.labels[c]][0]])
            & is_message
        )
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
    The process and thread ids are kept as properties of the location groups and
    locations, so that reading the archive gives the same ids (a saved query that
    names a process applies to the OTF2 copy of a run).
    Instant events must be MPI point-to-point records (needing ``Partner``, ``Tag`` and
    ``Message Size``; ``Request``, for the non-blocking ones, is 0 where absent),
    ``ProgramBegin`` or ``ProgramEnd``; messages are written on one ``MPI_COMM_WORLD``. ``metrics``
    (default: every recorded float column) form one metric class whose record
    precedes each event that has a value. The clock counts nanoseconds from 0; a
    trace with negative timestamps is shifted to start at 0.
    """
    otf2, _ = otf2_modules()
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
            int(p): defs.location_group(f"Process {p}", system_tree_parent=node) for p in plan.ranks
        }
        locations = [
            defs.location(f"Thread {plan.thread[rows[0]]}", group=groups[plan.process[rows[0]]])
            for rows in blocks
        ]
        for p, group in groups.items():
            defs.location_group_property(group, PROCESS_PROPERTY, value=p)
        for rows, location in zip(blocks, locations, strict=True):
            defs.location_property(location, THREAD_PROPERTY, value=int(plan.thread[rows[0]]))
        world = [locations[[plan.process[b[0]] for b in blocks].index(p)] for p in plan.ranks]
        for kind, name in (
            (otf2.GroupType.COMM_LOCATIONS, "locations"),
            (otf2.GroupType.COMM_GROUP, "MPI_COMM_WORLD"),
        ):
            group = defs.group(name, group_type=kind, paradigm=otf2.Paradigm.MPI, members=world)
        refs = {
            "comm": defs.comm("MPI_COMM_WORLD", group=group)._ref,
            "program": defs.strings.get(plan.program)._ref,
            "region": np.full(len(plan.labels), -1, dtype=np.int64),
        }
        for c in np.unique(plan.name[plan.kind != INSTANT]):
            refs["region"][c] = defs.region(plan.labels[c])._ref
        if plan.metrics:
            members = [
                defs.metric_member(str(c), unit=u)
                for c, u in zip(plan.metrics, plan.metric_units, strict=True)
            ]
            refs["metric"] = defs.metric_class(members=members)._ref
        with progress(plan.kind.size, f"writing {archive_name}.otf2") as bar:
            for rows, location in zip(blocks, locations, strict=True):
                writer = out.event_writer_from_location(location)
                handle = ctypes.cast(writer.handle, ctypes.c_void_p).value
                assert handle is not None  # the otf2 module made a writer
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
        for col in (
            plan.stamps,
            plan.kind,
            plan.name,
            plan.partner,
            plan.tag,
            plan.message_size,
            plan.request,
        )
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
