"""Charm++ Projections traces: a ``<program>.sts`` file of definitions and one text
log per PE, ``<program>.<pe>.log.gz`` (or ``.log``), as ``+traceprojections``
writes them (format version 11 and the versions before it that share its records).

Each PE is a ``Process`` (``Thread`` 0). Entry method executions (BEGIN/END
PROCESSING) become Enter/Leave events named ``"<Chare>::<entry>"``; idle time,
message packing and unpacking, interrupts and the whole computation become
Enter/Leave events ``Idle``, ``Pack``, ``Unpack``, ``Interrupt``, ``Computation``;
user bracket events become Enter/Leave events named after the user event.
Messages become Instant events with ``Partner`` and ``Message Size``: ``Create``
on the sending PE (``Create Broadcast``/``Create Multicast`` for group sends,
whose Partner is -1) and ``Receive`` on the receiving PE, right after the Enter
of the entry method the message triggered. A ``Create`` gets as Partner the PE
that processed its message, found by the (source PE, event id) the receiver
logged. Other records become Instant events (user events, ``Enqueue``,
``Dequeue``, ``Memory Usage``, user stats, notes, ...); their number is in a
``Value`` column where they carry one, note text in a ``Note`` column.

Repair (documented, counted in ``metadata["closed_at_end"]``): an entry method
(or idle period, ...) still open when the PE logs END_COMPUTATION, or when its log
ends, is left at that moment; Charm++ stops logging inside the entry method that
called ``CkExit``. Any other Enter/Leave mismatch is a ReaderError, and so are record
types this reader does not know (e.g. AMPI function records), delta-encoded
(``+logDelta``) and binary logs.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.progress import progress
from glade.readers.files import read_bytes, read_head, read_text
from glade.readers.traces.events import (
    build_trace,
    categorical,
    event_types,
)
from glade.trace.events import (
    ENTER,
    EVENT_TYPE,
    INSTANT,
    LEAVE,
    MESSAGE_SIZE,
    NAME,
    PARTNER,
    PROCESS,
    THREAD,
    TIMESTAMP,
)
from glade.trace.model import Trace
from glade.trace.nesting import check_nesting

VALUE = "Value"
NOTE = "Note"

# Record types of a Projections log (Charm++ trace-common.h).
CREATION, BEGIN_PROCESSING, END_PROCESSING, ENQUEUE, DEQUEUE = 1, 2, 3, 4, 5
BEGIN_COMPUTATION, END_COMPUTATION, BEGIN_INTERRUPT, END_INTERRUPT = 6, 7, 8, 9
MESSAGE_RECV, BEGIN_TRACE, END_TRACE, USER_EVENT, BEGIN_IDLE, END_IDLE = 10, 11, 12, 13, 14, 15
BEGIN_PACK, END_PACK, BEGIN_UNPACK, END_UNPACK = 16, 17, 18, 19
CREATION_BCAST, CREATION_MULTICAST = 20, 21
USER_SUPPLIED, MEMORY_USAGE, USER_SUPPLIED_NOTE, USER_SUPPLIED_BRACKETED_NOTE = 26, 27, 28, 29
END_PHASE, USER_STAT = 30, 32
BEGIN_USER_EVENT_PAIR, END_USER_EVENT_PAIR, USER_EVENT_PAIR = 98, 99, 100

# Records with a fixed layout: type -> (number of fields after the type, time field,
# event kind, name). Fields are counted from 1 (the field after the type).
_FIXED: dict[int, tuple[int, int, int, str]] = {
    ENQUEUE: (4, 2, INSTANT, "Enqueue"),
    DEQUEUE: (4, 2, INSTANT, "Dequeue"),
    BEGIN_COMPUTATION: (1, 1, ENTER, "Computation"),
    END_COMPUTATION: (1, 1, LEAVE, "Computation"),
    BEGIN_INTERRUPT: (3, 1, ENTER, "Interrupt"),
    END_INTERRUPT: (3, 1, LEAVE, "Interrupt"),
    MESSAGE_RECV: (6, 3, INSTANT, "Message Recv"),
    BEGIN_TRACE: (1, 1, INSTANT, "Begin Trace"),
    END_TRACE: (1, 1, INSTANT, "End Trace"),
    BEGIN_IDLE: (2, 1, ENTER, "Idle"),
    END_IDLE: (2, 1, LEAVE, "Idle"),
    BEGIN_PACK: (2, 1, ENTER, "Pack"),
    END_PACK: (2, 1, LEAVE, "Pack"),
    BEGIN_UNPACK: (2, 1, ENTER, "Unpack"),
    END_UNPACK: (2, 1, LEAVE, "Unpack"),
    USER_SUPPLIED: (2, 2, INSTANT, "User Supplied"),
    MEMORY_USAGE: (2, 2, INSTANT, "Memory Usage"),
    END_PHASE: (2, 2, INSTANT, "End Phase"),
}
_TEXT = {USER_SUPPLIED_NOTE, USER_SUPPLIED_BRACKETED_NOTE}


# ------------------------------------------------------------------ .sts
class _Sts:
    """The definitions of a ``.sts`` file: chares, entry methods, user events and stats."""

    _ENTRY = re.compile(r'^ENTRY CHARE (\d+) "(.*)" (-?\d+) (-?\d+)\s*$')
    _CHARE = re.compile(r'^CHARE (\d+) "(.*)" (-?\d+)\s*$')

    def __init__(self, path: Path):
        self.path = path
        text = read_text(path)
        self.info: dict[str, str] = {}
        self.chares: dict[int, tuple[str, int]] = {}
        self.entries: dict[int, tuple[str, int]] = {}
        self.events: dict[int, str] = {}
        self.stats: dict[int, str] = {}
        self.papi = 0
        for number, line in enumerate(text.splitlines(), 1):
            self._line(number, line)
        if "PROCESSORS" not in self.info:
            raise ReaderError(path, "no PROCESSORS line: not a Projections .sts file")
        try:
            self.pes = int(self.info["PROCESSORS"])
        except ValueError as exc:
            raise ReaderError(path, f"PROCESSORS {self.info['PROCESSORS']!r} is no number") from exc
        missing = {c for _, c in self.entries.values()} - set(self.chares)
        if missing:
            raise ReaderError(path, f"entry methods of undefined chare {min(missing)}")

    def _line(self, number: int, line: str) -> None:
        word, _, rest = line.partition(" ")
        try:
            if word == "ENTRY":
                match = self._ENTRY.match(line)
                if match is None:
                    raise ValueError(line)
                self.entries[int(match[1])] = (match[2], int(match[3]))
            elif word == "CHARE":
                match = self._CHARE.match(line)
                if match is None:
                    raise ValueError(line)
                self.chares[int(match[1])] = (match[2], int(match[3]))
            elif word in ("EVENT", "STAT"):
                ident, _, name = rest.partition(" ")
                (self.events if word == "EVENT" else self.stats)[int(ident)] = name.strip()
            elif word == "TOTAL_PAPI_EVENTS":
                self.papi = int(rest)
            elif word and word.isupper():
                self.info.setdefault(word, rest.strip().strip('"'))
        except ValueError as exc:
            raise ReaderError(self.path, f"line {number} is malformed: {line[:80]!r}") from exc

    def entry_name(self, entry: int) -> str:
        """``"<Chare>::<entry>"`` of an entry method id."""
        name, chare = self.entries[entry]
        return f"{self.chares[chare][0]}::{name}"

    def id_fields(self, entry: int) -> int:
        """How many object-id fields a BEGIN_PROCESSING of ``entry`` has (array chares
        log one per index dimension, others 4)."""
        dims = self.chares[self.entries[entry][1]][1]
        return dims if dims >= 1 else 4


# ------------------------------------------------------------------ tokens
def _numbers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, path: Path) -> np.ndarray:
    """The numbers spelled by the byte ranges [starts, ends) of ``buf``: integer tokens
    (digits after an optional ``-``) vectorized, the others (floats) one by one."""
    values = np.zeros(starts.size, dtype=np.float64)
    negative = buf[starts] == ord("-")
    first = starts + negative
    length = ends - first
    clean = (length > 0) & (length <= 18)
    for size in np.unique(length[clean]).tolist():
        mine = np.flatnonzero(clean & (length == size))
        acc = np.zeros(mine.size, dtype=np.int64)
        digits = np.ones(mine.size, dtype=bool)
        for j in range(size):
            digit = buf[first[mine] + j] - np.uint8(ord("0"))  # wraps above 9 if no digit
            digits &= digit <= 9
            acc = acc * 10 + digit
        values[mine] = np.where(negative[mine], -acc, acc)
        clean[mine[~digits]] = False
    odd = np.flatnonzero(~clean)
    if odd.size:
        text = [bytes(buf[s:e]) for s, e in zip(starts[odd], ends[odd], strict=True)]
        try:
            values[odd] = np.array(text, dtype="S").astype(np.float64)
        except ValueError as exc:
            raise ReaderError(path, f"a record holds a token that is no number ({exc})") from exc
    wrong = ~(np.abs(values) < 2**53)  # NaN, infinities and what a double cannot hold exactly
    if wrong.any():
        at = int(np.argmax(wrong))
        token = bytes(buf[starts[at] : ends[at]]).decode("ascii", "replace")
        raise ReaderError(path, f"a record holds {token!r}, not a number in range")
    return values


class _Log:
    """The records of one PE log as token arrays: every line's type, first token and
    token count, the numeric value of every token, and the note texts."""

    def __init__(self, path: Path):
        self.path = path
        raw = read_bytes(path)
        try:
            data = gzip.decompress(raw) if path.suffix == ".gz" else raw
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise ReaderError(path, f"cannot read or decompress ({exc})") from exc
        head, _, body = data.partition(b"\n")
        words = head.split()
        if len(words) < 2 or words[0] != b"PROJECTIONS-RECORD" or not words[1].isdigit():
            raise ReaderError(path, "does not start with a PROJECTIONS-RECORD header")
        if b"DELTA" in words[2:]:
            raise ReaderError(path, "delta-encoded logs (+logDelta) are not supported")
        self.declared = int(words[1])
        buf = np.frombuffer(body, dtype=np.uint8)
        if buf.size and buf[-1] != ord("\n"):
            buf = np.append(buf, np.uint8(ord("\n")))
        if np.any(buf > 126) or np.any((buf < 32) & (buf != 10) & (buf != 9) & (buf != 13)):
            raise ReaderError(path, "holds bytes that are not text: not a text Projections log")
        newlines = np.flatnonzero(buf == ord("\n"))
        solid = buf > 32
        begin = solid & ~np.concatenate([[False], solid[:-1]])
        finish = solid & ~np.concatenate([solid[1:], [False]])
        starts, ends = np.flatnonzero(begin), np.flatnonzero(finish) + 1
        line = np.searchsorted(newlines, starts)
        counts = np.bincount(line, minlength=newlines.size)
        used = counts > 0
        self.first = (np.cumsum(counts) - counts)[used]
        self.count = counts[used]
        self.line_number = np.flatnonzero(used) + 2  # file lines, after the header
        if self.first.size < self.declared:
            raise ReaderError(
                path, f"truncated: {self.first.size} records, the header announces {self.declared}"
            )
        heads = _numbers(buf, starts[self.first], ends[self.first], path)
        if np.any(heads != np.floor(heads)):
            raise ReaderError(path, "a record does not start with its integer type")
        self.type = heads.astype(np.int64)
        text = np.isin(self.type, list(_TEXT))
        numeric = np.repeat(~text, self.count)
        self.values = np.zeros(starts.size, dtype=np.float64)
        self.values[numeric] = _numbers(buf, starts[numeric], ends[numeric], path)
        self.notes = self._notes(buf, starts, ends, np.flatnonzero(text))

    def _notes(self, buf, starts, ends, lines: np.ndarray) -> dict[int, tuple[list, str]]:
        """Record index -> (numeric fields, text) of the note records (rare)."""
        notes = {}
        for record in lines.tolist():
            first, count = int(self.first[record]), int(self.count[record])
            fields = 3 if self.type[record] == USER_SUPPLIED_NOTE else 4
            if count < fields:
                raise ReaderError(self.path, f"line {self.line_number[record]}: short note")
            tokens = [bytes(buf[starts[first + k] : ends[first + k]]) for k in range(1, fields)]
            text_start = ends[first + fields - 1] + 1
            stop = ends[first + count - 1] if count > fields else text_start
            notes[record] = (
                [int(t) for t in tokens],
                bytes(buf[text_start:stop]).decode("ascii").strip(),
            )
        return notes

    def field(self, records: np.ndarray, k: int) -> np.ndarray:
        """Field ``k`` (1 = the one after the type) of each of ``records``."""
        return self.values[self.first[records] + k]

    def check_counts(self, records: np.ndarray, expected: np.ndarray | int, what: str) -> None:
        """ReaderError unless each of ``records`` has ``expected`` fields after its type."""
        bad = np.flatnonzero(self.count[records] - 1 != expected)
        if bad.size:
            number = int(self.line_number[records[bad[0]]])
            raise ReaderError(
                self.path,
                f"line {number}: a {what} record has {int(self.count[records[bad[0]]]) - 1} fields",
            )


# ------------------------------------------------------------------ records -> events
# Attribute columns and their value where an event has none.
_DEFAULTS: dict[str, Any] = {PARTNER: -1, MESSAGE_SIZE: -1, "_event": -1, VALUE: np.nan, NOTE: ""}


def _concatenate(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The columns of ``parts`` (each with a ``kind`` column) joined in order; where a part
    lacks an attribute column, that attribute's ``_DEFAULTS`` value fills its rows."""
    keys = {key for part in parts for key in part}
    return {
        key: np.concatenate(
            [
                part[key] if key in part else np.full(part["kind"].size, _DEFAULTS[key])
                for part in parts
            ]
        )
        for key in keys
    }


class _Events:
    """Events gathered record type by record type, as numpy arrays: the log position
    (``record``; fractions order events made from one record), time in
    microseconds, kind, name code (into the shared ``names``) and attributes."""

    def __init__(self, names: dict[str, int]):
        self.names = names
        self.parts: list[dict[str, np.ndarray]] = []

    def code(self, labels: np.ndarray | str) -> np.ndarray | int:
        """Name codes of ``labels``, registering new names."""
        if isinstance(labels, str):
            return self.names.setdefault(labels, len(self.names))
        inverse, unique = pd.factorize(labels)
        codes = np.array([self.names.setdefault(str(u), len(self.names)) for u in unique])
        return codes[inverse]

    def add(self, record, time, kind: int, name, order: float = 0.0, /, **columns) -> None:
        """Events of the log ``record``s, ``order`` after their record's other events
        (positional: ``columns``, the attribute columns, may be any name)."""
        n = len(record)
        part: dict[str, np.ndarray] = {
            "record": np.asarray(record, np.float64) + order,
            "time": np.asarray(time, np.float64),
            "kind": np.full(n, kind, np.int8),
            "name": np.broadcast_to(np.asarray(self.code(name)), (n,)),
        }
        part.update({key: np.broadcast_to(np.asarray(v), (n,)) for key, v in columns.items()})
        self.parts.append(part)

    def table(self) -> dict[str, np.ndarray]:
        """All parts as one set of columns, missing attributes filled with their default."""
        return _concatenate(self.parts)


def _pe_events(log: _Log, sts: _Sts, names: dict[str, int]) -> dict[str, np.ndarray]:
    """The events of one PE log, not yet in time order nor repaired."""
    ev = _Events(names)
    types = log.type
    known = (
        set(_FIXED)
        | _TEXT
        | {
            CREATION,
            CREATION_BCAST,
            CREATION_MULTICAST,
            BEGIN_PROCESSING,
            END_PROCESSING,
            USER_EVENT,
            USER_EVENT_PAIR,
            BEGIN_USER_EVENT_PAIR,
            END_USER_EVENT_PAIR,
            USER_STAT,
        }
    )
    unknown = np.flatnonzero(~np.isin(types, list(known)))
    if unknown.size:
        raise ReaderError(
            log.path,
            f"line {int(log.line_number[unknown[0]])}: record type "
            f"{int(types[unknown[0]])} is not one glade reads",
        )
    for code, (fields, time_field, kind, name) in _FIXED.items():
        rows = np.flatnonzero(types == code)
        if rows.size:
            log.check_counts(rows, fields, name)
            value = {VALUE: log.field(rows, 1)} if code in (USER_SUPPLIED, MEMORY_USAGE) else {}
            ev.add(rows, log.field(rows, time_field), kind, name, **value)
    _messages(ev, log)
    _entries(ev, log, sts)
    _user(ev, log, sts)
    return ev.table()


def _lookup(log: _Log, ids: np.ndarray, table: dict[int, Any], what: str) -> np.ndarray:
    """``table[id]`` for each of ``ids``, one dictionary look-up per distinct id."""
    unique, inverse = np.unique(ids, return_inverse=True)
    missing = [int(i) for i in unique if int(i) not in table]
    if missing:
        raise ReaderError(
            log.path, f"records name {what} {missing[0]}, which the .sts file does not define"
        )
    return np.array([table[int(i)] for i in unique], dtype=object)[inverse]


def _messages(ev: _Events, log: _Log) -> None:
    """Message creation records as Instant events (their Partner is found later)."""
    for code, fields, name in (
        (CREATION, 7, "Create"),
        (CREATION_BCAST, 8, "Create Broadcast"),
        (CREATION_MULTICAST, None, "Create Multicast"),
    ):
        rows = np.flatnonzero(log.type == code)
        if not rows.size:
            continue
        expected = fields if fields is not None else 8 + log.field(rows, 8).astype(np.int64)
        log.check_counts(rows, expected, name)
        ev.add(
            rows,
            log.field(rows, 3),
            INSTANT,
            name,
            **{
                MESSAGE_SIZE: log.field(rows, 6).astype(np.int64),
                "_event": log.field(rows, 4).astype(np.int64),
            },
        )


def _entries(ev: _Events, log: _Log, sts: _Sts) -> None:
    """Entry method executions as Enter/Leave, and the message that started each."""
    entry_names = {e: sts.entry_name(e) for e in sts.entries}
    begin = np.flatnonzero(log.type == BEGIN_PROCESSING)
    if begin.size:
        entries = log.field(begin, 2).astype(np.int64)
        names = _lookup(log, entries, entry_names, "entry method")
        id_fields = _lookup(log, entries, {e: sts.id_fields(e) for e in sts.entries}, "entry")
        log.check_counts(begin, 8 + id_fields.astype(np.int64) + sts.papi, "BEGIN_PROCESSING")
        time = log.field(begin, 3)
        ev.add(begin, time, ENTER, names)
        size = log.field(begin, 6).astype(np.int64)
        got = size > 0
        ev.add(
            begin[got],
            time[got],
            INSTANT,
            "Receive",
            0.5,
            **{
                PARTNER: log.field(begin[got], 5).astype(np.int64),
                MESSAGE_SIZE: size[got],
                "_event": log.field(begin[got], 4).astype(np.int64),
            },
        )
    end = np.flatnonzero(log.type == END_PROCESSING)
    if end.size:
        log.check_counts(end, 7 + sts.papi, "END_PROCESSING")
        names = _lookup(log, log.field(end, 2).astype(np.int64), entry_names, "entry method")
        ev.add(end, log.field(end, 3), LEAVE, names)


def _user(ev: _Events, log: _Log, sts: _Sts) -> None:
    """User events, bracketed user events, user stats and notes."""

    def named(ids: np.ndarray, table: dict[int, str], what: str) -> np.ndarray:
        unique = {int(i) for i in np.unique(ids)}
        return _lookup(log, ids, {i: table.get(i, f"{what} {i}") for i in unique}, what)

    for code, kind in (
        (USER_EVENT, INSTANT),
        (BEGIN_USER_EVENT_PAIR, ENTER),
        (END_USER_EVENT_PAIR, LEAVE),
        (USER_EVENT_PAIR, None),
    ):
        rows = np.flatnonzero(log.type == code)
        if not rows.size:
            continue
        log.check_counts(rows, 5, "user event")
        ids = log.field(rows, 1).astype(np.int64)
        if kind is None:  # a begin and an end record share (user event, event number)
            key = ids << 32 | log.field(rows, 3).astype(np.int64)
            order = np.argsort(key, kind="stable")
            second = np.zeros(rows.size, dtype=bool)
            second[order[1:]] = key[order[1:]] == key[order[:-1]]
            for k, mine in ((ENTER, ~second), (LEAVE, second)):
                ev.add(
                    rows[mine],
                    log.field(rows[mine], 2),
                    k,
                    named(ids[mine], sts.events, "User Event"),
                )
        else:
            ev.add(rows, log.field(rows, 2), kind, named(ids, sts.events, "User Event"))
    rows = np.flatnonzero(log.type == USER_STAT)
    if rows.size:
        log.check_counts(rows, 5, "USER_STAT")
        ids = log.field(rows, 5).astype(np.int64)
        ev.add(
            rows,
            log.field(rows, 1),
            INSTANT,
            named(ids, sts.stats, "User Stat"),
            **{VALUE: log.field(rows, 3)},
        )
    for record, (fields, text) in log.notes.items():
        if log.type[record] == USER_SUPPLIED_NOTE:
            ev.add([record], [fields[0]], INSTANT, "User Note", **{NOTE: text})
        else:
            name = sts.events.get(fields[2], "User Note")
            ev.add([record], [fields[0]], ENTER, name, **{NOTE: text})
            ev.add([record], [fields[1]], LEAVE, name, 0.5, **{NOTE: text})


def _close_open(table: dict[str, np.ndarray], outer: int) -> tuple[dict[str, np.ndarray], int]:
    """``table`` in time order (log order among equal times), with a Leave added for
    every frame still open at the Leave of the ``outer`` frame (END_COMPUTATION) or
    at the end of the log, innermost first, just before that point; and the number
    of Leaves added."""
    order = np.lexsort((table["record"], table["time"]))
    table = {key: values[order] for key, values in table.items()}
    kind, name = table["kind"], table["name"]
    is_outer = (name == outer) & (kind != INSTANT)
    step = np.where(kind == ENTER, 1, np.where(kind == LEAVE, -1, 0))
    depth = np.cumsum(np.where(is_outer, 0, step))
    finish = np.flatnonzero(is_outer & (kind == LEAVE))
    stop = int(finish[0]) if finish.size else kind.size
    open_depth = int(depth[stop - 1]) if stop else 0
    if open_depth <= 0:
        return table, 0
    enters = np.flatnonzero((kind[:stop] == ENTER) & ~is_outer[:stop])
    last = np.full(open_depth + 1, -1, dtype=np.int64)
    inside = depth[enters] <= open_depth
    np.maximum.at(last, depth[enters][inside], enters[inside])
    closing = last[1:][::-1]  # innermost first
    if stop < kind.size:
        at_time, at_record = table["time"][stop], table["record"][stop]
    else:
        at_time, at_record = table["time"][-1], table["record"][-1] + 1
    added = {key: values[closing] for key, values in table.items()}
    added["kind"] = np.full(open_depth, LEAVE, np.int8)
    added["time"] = np.full(open_depth, at_time)
    added["record"] = at_record - 1 + np.arange(1, open_depth + 1) / (open_depth + 1)
    merged = {key: np.concatenate([table[key], added[key]]) for key in table}
    order = np.lexsort((merged["record"], merged["time"]))
    return {key: values[order] for key, values in merged.items()}, open_depth


# ------------------------------------------------------------------ entry point
def _files(path: str | os.PathLike) -> tuple[Path, Path]:
    """The .sts file and the base path ``<program>`` of the logs ``<program>.<pe>.log*``."""
    target = Path(path)
    if target.is_dir():
        sts = sorted(target.glob("*.sts"))
        if len(sts) != 1:
            found = f"{len(sts)}" if sts else "no"
            raise ReaderError(target, f"{found} .sts files here; pass the one to read")
        target = sts[0]
    elif target.suffix != ".sts":
        target = target.with_name(target.name + ".sts")
    if not target.is_file():
        raise ReaderError(target, "no such .sts file")
    return target, target.with_suffix("")


def detect(path: Path) -> bool:
    """Whether ``path`` is a Projections .sts file or a directory with one and its logs."""
    try:
        sts, _ = _files(path)
        head = read_head(sts, 2048) or b""
        return b"PROJECTIONS_ID" in head or (b"VERSION" in head and b"PROCESSORS" in head)
    except (OSError, ReaderError):
        return False


def read_projections(path: str | os.PathLike) -> Trace:
    """The trace of the Projections logs ``path`` (the ``.sts`` file, the directory
    holding it, or the program base name); see the module docstring."""
    sts_path, base = _files(path)
    sts = _Sts(sts_path)
    names: dict[str, int] = {"Computation": 0}
    tables, closed, records = [], 0, 0
    with progress(sts.pes, f"reading {base.name} logs", "PE") as bar:
        for pe in range(sts.pes):
            log_path = Path(f"{base}.{pe}.log.gz")
            if not log_path.is_file():
                log_path = Path(f"{base}.{pe}.log")
            if not log_path.is_file():
                raise ReaderError(log_path, f"missing: the .sts file announces {sts.pes} PEs")
            log = _Log(log_path)
            table = _pe_events(log, sts, names)
            if table:
                table, added = _close_open(table, names["Computation"])
                closed += added
                table[PROCESS] = np.full(table["kind"].size, pe, dtype=np.int64)
                tables.append(table)
            records += log.first.size
            bar.update(1)
    if not tables:
        raise ReaderError(sts_path, "the logs hold no events")
    labels = sorted(names, key=names.__getitem__)
    return _finish(
        sts_path, sts, _concatenate(tables), labels, {"closed_at_end": closed, "records": records}
    )


def _partners(events: dict[str, np.ndarray], labels: list[str]) -> np.ndarray:
    """``Partner`` with each single-destination ``Create`` given the PE whose Receive
    names it as (source PE, event number)."""
    name, process = events["name"], events[PROCESS]
    partner, serial = events.get(PARTNER), events.get("_event")
    if partner is None or serial is None:
        return np.full(name.size, -1, dtype=np.int64)
    partner = partner.astype(np.int64).copy()
    code = {label: k for k, label in enumerate(labels)}
    receive = name == code.get("Receive", -1)
    create = np.isin(
        name, [code[c] for c in ("Create", "Create Broadcast", "Create Multicast") if c in code]
    )
    key_recv = partner[receive] << 32 | serial[receive]
    key_create = process[create] << 32 | serial[create]
    keys, first, count = np.unique(key_recv, return_index=True, return_counts=True)
    if keys.size and create.any():
        at = np.minimum(np.searchsorted(keys, key_create), keys.size - 1)
        single = (keys[at] == key_create) & (count[at] == 1)
        partner[np.flatnonzero(create)[single]] = process[receive][first[at[single]]]
    return partner


def _finish(sts_path: Path, sts: _Sts, events: dict, labels: list[str], counts: dict) -> Trace:
    """Partners of message creations, final columns in time order, nesting check."""
    partner = _partners(events, labels)
    if np.any(events["time"] < 0):
        at = int(np.argmax(events["time"] < 0))
        raise ReaderError(
            sts_path,
            f"PE {int(events[PROCESS][at])} logs a record at "
            f"{events['time'][at]:g} us, before the trace starts",
        )
    order = np.argsort(events["time"], kind="stable")
    stamps = np.rint(events["time"][order] * 1000).astype(np.int64)
    names = categorical(events["name"][order], labels)
    kinds = events["kind"][order]
    process = events[PROCESS][order]
    threads = np.zeros(order.size, dtype=np.int64)
    check_nesting(sts_path, stamps, kinds, names, process, threads)
    columns: dict[str, Any] = {
        TIMESTAMP: stamps,
        EVENT_TYPE: event_types(kinds),
        NAME: names,
        PROCESS: process,
        THREAD: threads,
        PARTNER: partner[order],
        MESSAGE_SIZE: events.get(MESSAGE_SIZE, np.full(order.size, -1))[order].astype(np.int64),
    }
    for column in (VALUE, NOTE):
        if column in events:
            columns[column] = events[column][order]
    metadata = {
        "format": f"projections {sts.info.get('VERSION', '')}".strip(),
        "machine": sts.info.get("MACHINE"),
        "program": sts.info.get("COMMANDLINE"),
        "charm_version": sts.info.get("CHARMVERSION"),
        "start_time": sts.info.get("TIMESTAMP"),
        "num_pes": sts.pes,
        "num_records": counts["records"],
        "timer_resolution_ns": 1000,
        "closed_at_end": counts["closed_at_end"],
    }
    return build_trace(sts_path, columns, None, metadata)
