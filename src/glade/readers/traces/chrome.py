"""Chrome / Perfetto trace-event JSON: a JSON array of events, or an object whose
``traceEvents`` member is that array.

Reading maps each event by its phase ``ph``:

- ``B`` / ``E`` become Enter / Leave; a Leave without a name gets the name of the
  Enter it closes (Chrome pairs ``E`` with the latest open ``B`` of its thread); a
  named ``E`` keeps its name, and the analyses raise TraceError if it closes a
  ``B`` of another name;
- ``X`` (complete event) becomes an Enter at ``ts`` and a Leave at ``ts + dur``;
  events ending and starting at the same time are ordered Leave first, nested
  complete events outer first;
- ``i`` / ``I`` (instant), ``R`` (mark), ``n`` (async instant) and ``C`` (counter)
  become Instant events;
- flow events ``s`` / ``f`` become messages: a ``s`` is a send instant (named
  ``MpiSend`` unless its name is already one of glade's send names), the ``f`` of
  the same ``cat`` and ``id`` its receive, each with the other's process as
  ``Partner``;
- ``M`` (metadata: process and thread names) goes to ``trace.definitions``; other
  phases (async slices, samples, objects, memory dumps) are counted in
  ``metadata["ignored_events"]``.

``ts`` and ``dur`` are microseconds; timestamps become int64 ns. ``pid`` and ``tid``
are the process and thread (0 when absent). Scalar ``args`` become attribute
columns (nested values are left out, listed in ``metadata["dropped_args"]``).
The file is parsed in chunks of whole events, so memory stays proportional to the
events, not to Python objects for all of them; large files show a progress bar.

Writing produces ``B`` / ``E`` / ``i`` events with attributes in ``args``, and
matched messages as ``s`` / ``f`` flow pairs bound to their enclosing call, which
Perfetto draws as arrows. ``otherData.glade`` keeps the time offset and column
types, so reading a written file gives back the same events.
"""

from __future__ import annotations

import json
import os
import re
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from glade.errors import ReaderError, TraceError
from glade.pandas_compat import TEXT_DTYPE
from glade.readers.traces.csv import INTEGER_ATTRIBUTES
from glade.readers.traces.events import event_types
from glade.readers.traces.text import (
    category_text,
    check_file,
    decimal,
    float_text,
    head,
    int_text,
    json_string,
    open_output,
    read_content,
    write_chunks,
)
from glade.trace.events import (
    ENTER,
    EVENT_TYPE,
    INSTANT,
    LEAVE,
    NAME,
    PARTNER,
    PROCESS,
    RECEIVE_NAMES,
    SEND_NAMES,
    THREAD,
    TIMESTAMP,
)
from glade.trace.model import Trace

CHUNK_BYTES = 8 * 1024 * 1024
_BOUNDARY = re.compile(rb"\}\s*,\s*\{")
_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_INSTANT_PHASES = ("i", "I", "R", "n", "C")
_KEPT_PHASES = ("B", "E", "X", "s", "f", "M", *_INSTANT_PHASES)
_UNNAMED = "<unnamed>"


def detect(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a file that starts like trace-event JSON."""
    target = Path(path)
    if not target.is_file():
        return False
    start = head(target).lstrip(b"\xef\xbb\xbf \t\r\n")
    if start.startswith(b"["):
        return b'"ph"' in start
    return start.startswith(b"{") and b'"traceEvents"' in start


# ------------------------------------------------------------------ reading
def _json_error(path: Path, data: bytes, offset: int, exc: json.JSONDecodeError) -> ReaderError:
    """A ReaderError locating a JSON syntax error near byte ``offset`` of ``data``."""
    line = data.count(b"\n", 0, offset) + 1
    return ReaderError(path, f"invalid JSON near line {line}: {exc.msg}")


def _locate(path: Path, data: bytes) -> tuple[int, bool]:
    """The offset just after the ``[`` that opens the event array, and whether the
    document is an object (``{"traceEvents": [...]}``) rather than a bare array."""
    start = len(data) - len(data.lstrip(b"\xef\xbb\xbf \t\r\n"))
    if data[start : start + 1] == b"[":
        return start + 1, False
    if data[start : start + 1] == b"{":
        found = _EVENTS_KEY.search(data, start)
        if found is None:
            raise ReaderError(path, "a JSON object without a 'traceEvents' array")
        return found.end(), True
    raise ReaderError(path, "not trace-event JSON (expected '[' or '{' first)")


def _parse_events(path: Path, data: bytes, start: int, is_object: bool):
    """Yield the events of the array opening at ``start`` as lists of dicts, chunk by
    chunk; the last value yielded is the text after the array (str)."""
    pos = start
    while True:
        found = _BOUNDARY.search(data, pos + CHUNK_BYTES) if pos + CHUNK_BYTES < len(data) else None
        while found is not None:
            chunk = data[pos : found.start() + 1]
            try:
                events = json.loads(b"[" + chunk + b"]")
            except json.JSONDecodeError as exc:
                if exc.msg.startswith("Unterminated string"):
                    found = _BOUNDARY.search(data, found.end())
                    continue
                raise _json_error(path, data, pos + exc.pos, exc) from None
            except UnicodeDecodeError as exc:
                raise ReaderError(path, f"not UTF-8 text: {exc}") from None
            yield events
            pos = found.end() - 1
            break
        else:
            try:
                rest = data[pos:].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ReaderError(path, f"not UTF-8 text: {exc}") from None
            if not is_object and not rest.rstrip().endswith("]"):
                rest = rest.rstrip().rstrip(",") + "]"
            try:
                events, end = json.JSONDecoder().raw_decode("[" + rest)
            except json.JSONDecodeError as exc:
                raise _json_error(path, data, pos + exc.pos, exc) from None
            yield events
            yield rest[end - 1 :]
            return


def _text(values: Any) -> pd.Categorical:
    """Values (None where missing) as a categorical of their text, categories sorted."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    text, recode = np.unique(np.array([str(u) for u in uniques], dtype=object),
                             return_inverse=True)
    codes = np.where(codes >= 0, recode[np.maximum(codes, 0)], -1) if len(uniques) else codes
    return pd.Categorical.from_codes(codes, categories=pd.Index(text, dtype="str"))


def _field(events: Any, key: str, count: int, default: Any = None,
           dtype: Any = object) -> np.ndarray:
    """``event.get(key, default)`` of every event (dicts), as an array."""
    return np.fromiter(map(dict.get, events, repeat(key), repeat(default)), dtype=dtype,
                       count=count)


def _number_field(path: Path, events: list, key: str, first: int) -> np.ndarray:
    """A numeric field of every event as float64 (NaN where absent); ReaderError naming
    the first event whose value is not a number."""
    count = len(events)
    try:
        return _field(events, key, count, np.nan, np.float64)
    except (TypeError, ValueError):
        raw = _field(events, key, count)
        numbers = pd.to_numeric(pd.Series(raw), errors="coerce")
        row = int(np.flatnonzero(numbers.isna().to_numpy() & pd.notna(raw))[0])
        raise ReaderError(path, f"event {first + row}: {key!r} is {raw[row]!r}, not a number"
                          ) from None


def _subset(events: list, rows: np.ndarray) -> tuple:
    """The events at ``rows``, as a tuple."""
    if rows.size == 0:
        return ()
    picked = itemgetter(*rows.tolist())(events)
    return picked if rows.size > 1 else (picked,)


def _typed(values: np.ndarray) -> Any:
    """An object array of JSON scalars (None where absent) as a compact typed array:
    nullable Int64, float64, booleans, or a categorical of text; None when the values
    are not scalars (nested objects or lists)."""
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind == "integer":
        return pd.array(values, dtype="Int64")
    if kind in ("floating", "mixed-integer-float"):
        return pd.to_numeric(pd.Series(values)).to_numpy(dtype=np.float64)
    if kind == "boolean":
        return pd.array(values, dtype="boolean")
    if kind == "string":
        return _text(values)
    return None


def _chunk_columns(path: Path, events: list, first: int) -> dict[str, Any]:
    """The columns of one chunk of events (``first`` is the index of its first event):
    each field is read with one C-level pass over the parsed events, and typed at once
    (None for an argument that is not a scalar), so the chunk's Python objects can go."""
    count = len(events)
    if count == 0:
        return {"size": 0, "args": {}}
    try:
        ph = _field(events, "ph", count)
    except TypeError:
        raise ReaderError(path, f"events {first}..{first + count - 1}: every event must be a "
                                "JSON object") from None
    missing = pd.isna(ph)
    if missing.any():
        raise ReaderError(path, f"event {first + int(np.flatnonzero(missing)[0])} has no 'ph' "
                                "(phase)")
    out: dict[str, Any] = {"size": count, "ph": _text(ph),
                           "name": _text(_field(events, "name", count))}
    for key in ("ts", "dur", "pid", "tid"):
        out[key] = _number_field(path, events, key, first)
    flows = np.flatnonzero(np.isin(ph, ["s", "f"]))
    out["flows"] = flows
    picked = _subset(events, flows)
    out["cat"] = _text(_field(picked, "cat", flows.size))
    out["id"] = _text(_field(picked, "id", flows.size))
    args = _field(events, "args", count)
    rows = np.flatnonzero(~pd.isna(args))
    present = args[rows]
    if not all(map(isinstance, present, repeat(dict))):
        raise ReaderError(path, f"events {first}..{first + count - 1}: 'args' must be JSON "
                                "objects")
    out["args"] = {key: (rows, _typed(_field(present, key, rows.size)))
                   for key in set().union(*present)}
    return out


def _unify(parts: list[Any]) -> Any:
    """Typed pieces of one attribute column joined: integers stay exact, numbers mix to
    float64, text with anything else becomes text."""
    kinds = {("text" if isinstance(p, pd.Categorical) else str(getattr(p, "dtype", "")))
             for p in parts}
    if kinds == {"text"}:
        return union_categoricals(parts)
    if "text" in kinds:
        return _text(np.concatenate([np.asarray(p, dtype=object) for p in parts]))
    if kinds == {"Int64"}:
        return pd.array(np.concatenate([p.to_numpy(dtype=object) for p in parts]),
                        dtype="Int64")
    if kinds == {"boolean"}:
        return pd.array(np.concatenate([p.to_numpy(dtype=object) for p in parts]),
                        dtype="boolean")
    return np.concatenate([np.asarray(p, dtype=np.float64, na_value=np.nan)
                           if hasattr(p, "to_numpy") else p for p in parts])


def _gather(chunks: list[dict[str, Any]]) -> tuple[dict[str, Any], int, list[str]]:
    """The columns of all chunks joined; the number of events; dropped arg names."""
    total = sum(c["size"] for c in chunks)
    offsets = np.cumsum([0] + [c["size"] for c in chunks])
    columns: dict[str, Any] = {}
    sized = [(c, o) for c, o in zip(chunks, offsets, strict=False) if c["size"]]
    for key in ("ph", "name", "cat", "id"):
        parts = [c.pop(key) for c, _ in sized]
        columns[key] = union_categoricals(parts) if parts else _text([])
    for key in ("ts", "dur", "pid", "tid"):
        parts = [c.pop(key) for c, _ in sized]
        columns[key] = np.concatenate(parts) if parts else np.zeros(0)
        del parts
    columns["flows"] = (np.concatenate([c["flows"] + o for c, o in sized]) if sized
                        else np.zeros(0, dtype=np.int64))
    dropped: list[str] = []
    args: dict[str, tuple[np.ndarray, Any]] = {}
    names = sorted(set().union(*(c["args"] for c in chunks)), key=str)
    for name in names:
        rows, parts = [], []
        for chunk, offset in sized:
            if name in chunk["args"]:
                where, typed = chunk["args"][name]
                if typed is None:
                    break
                rows.append(where + offset)
                parts.append(typed)
        else:
            args[name] = (np.concatenate(rows), _unify(parts))
            continue
        dropped.append(str(name))
    columns["args"] = args
    return columns, total, dropped


def _glade_info(rest: str, prefix: str) -> dict[str, Any]:
    """``otherData.glade`` of an object document (the text before and after the array)."""
    try:
        document = json.loads(prefix + "null" + rest)
    except json.JSONDecodeError:
        return {}
    other = document.get("otherData") if isinstance(document, dict) else None
    info = other.get("glade") if isinstance(other, dict) else None
    return info if isinstance(info, dict) else {}


def _default_kind(column: str, values: Any, full: bool) -> str:
    """The type of an attribute column whose writer did not record one: text stays
    text, booleans booleans, integers int64 (for glade's integer attributes, or when
    every event has a value) and other numbers float64."""
    if isinstance(values, pd.Categorical):
        return "category"
    dtype = str(getattr(values, "dtype", ""))
    if dtype == "boolean":
        return "bool"
    if dtype == "Int64" and (full or column in INTEGER_ATTRIBUTES):
        return "int64"
    return "float64"


def _spread_column(values: Any, keep: np.ndarray, dest: np.ndarray, n: int, kind: str) -> Any:
    """``values[keep]`` placed at rows ``dest`` of a column of ``n`` events of type
    ``kind``, missing elsewhere (-1 for integers, NaN for floats, False for booleans)."""
    if kind in ("category", "str"):
        text = values if isinstance(values, pd.Categorical) else \
            _text(np.asarray(values, dtype=object))
        codes = np.full(n, -1, dtype=np.int64)
        codes[dest] = text.codes[keep]
        full = pd.Categorical.from_codes(codes, dtype=text.dtype)
        if kind != "str":
            return full
        return pd.array(np.asarray(full, dtype=object), dtype=TEXT_DTYPE)
    if kind == "bool":
        flags = np.zeros(n, dtype=bool)
        flags[dest] = pd.array(values, dtype="boolean").to_numpy(dtype=bool, na_value=False)[keep]
        return flags
    if str(getattr(values, "dtype", "")) == "Int64":
        exact = values.to_numpy(dtype=np.int64, na_value=-1)[keep]
        numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)[keep]
    else:
        numbers = np.asarray(values, dtype=np.float64)[keep]
        exact = np.where(np.isnan(numbers), -1, numbers).astype(np.int64)
    if kind == "int64":
        column = np.full(n, -1, dtype=np.int64)
        column[dest] = exact
        return column
    column = np.full(n, np.nan)
    column[dest] = numbers
    return column


def _typed_args(args: dict[str, tuple[np.ndarray, Any]], targets: dict[str, np.ndarray],
                n: int, types: dict[str, str]) -> dict[str, Any]:
    """Attribute columns over the ``n`` output events, from the args of the input events
    (``targets`` maps every arg's input rows to output rows, -1 for events not kept)."""
    out = {}
    for name, (_, values) in args.items():
        column = f"args.{name}" if name in (TIMESTAMP, EVENT_TYPE, NAME, PROCESS, THREAD) \
            else name
        keep = targets[name] >= 0
        dest = targets[name][keep]
        full = dest.size == n and not np.asarray(pd.isna(values))[keep].any()
        kind = types.get(column) or _default_kind(column, values, full)
        out[column] = _spread_column(values, keep, dest, n, kind)
    return out


def read_chrome(path: str | os.PathLike, progress: bool | None = None) -> Trace:
    """Read Chrome / Perfetto trace-event JSON (see the module doc); ``progress`` forces
    the progress bar on or off (default: on for files over 64 MiB)."""
    target = check_file(path)
    try:
        data = read_content(target, progress, "Chrome trace")
    except (OSError, EOFError) as exc:
        raise ReaderError(target, f"cannot read: {exc}") from None
    start, is_object = _locate(target, data)
    chunks, rest, first = [], "", 0
    for part in _parse_events(target, data, start, is_object):
        if isinstance(part, str):
            rest = part
            break
        chunks.append(_chunk_columns(target, part, first))
        first += len(part)
    prefix = data[: start - 1].decode("utf-8", errors="replace")
    info = _glade_info(rest, prefix) if is_object else {}
    del data
    columns, total, dropped = _gather(chunks)
    del chunks
    try:
        return _build(target, columns, total, dropped, info)
    except TraceError as exc:
        raise ReaderError(target, str(exc)) from None


def _phase_rows(columns: dict[str, Any], total: int) -> dict[str, np.ndarray]:
    """Event indices per phase group."""
    phases = columns["ph"]
    categories = np.asarray(phases.categories, dtype=object)
    codes = phases.codes

    def rows(wanted: tuple[str, ...], inside: bool = True) -> np.ndarray:
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero((np.isin(categories, wanted) == inside)[codes])

    return {
        "enter": rows(("B",)),
        "leave": rows(("E",)),
        "complete": rows(("X",)),
        "instant": rows(_INSTANT_PHASES),
        "send": rows(("s",)),
        "receive": rows(("f",)),
        "meta": rows(("M",)),
        "ignored": rows(_KEPT_PHASES, inside=False),
    }


def _flow_partners(columns: dict[str, Any], sends: np.ndarray, receives: np.ndarray,
                   pid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The partner process of every flow start and finish (-1 when unpaired): the k-th
    ``s`` of a (cat, id) pairs with the k-th ``f`` of that (cat, id)."""
    flows = columns["flows"]
    width = len(columns["id"].categories) + 1
    key = (columns["cat"].codes.astype(np.int64) + 1) * width + columns["id"].codes + 1
    ends = pd.DataFrame({"key": key[np.searchsorted(flows, sends)], "row": sends})
    starts_of = pd.DataFrame({"key": key[np.searchsorted(flows, receives)], "row": receives})
    ends["k"] = ends.groupby("key", sort=False).cumcount()
    starts_of["k"] = starts_of.groupby("key", sort=False).cumcount()
    pairs = ends.merge(starts_of, on=["key", "k"], suffixes=("_s", "_f"))
    send_partner = np.full(sends.size, -1, dtype=np.int64)
    recv_partner = np.full(receives.size, -1, dtype=np.int64)
    send_partner[np.searchsorted(sends, pairs["row_s"].to_numpy())] = \
        pid[pairs["row_f"].to_numpy()]
    recv_partner[np.searchsorted(receives, pairs["row_f"].to_numpy())] = \
        pid[pairs["row_s"].to_numpy()]
    return send_partner, recv_partner


def _arg_targets(arg_events: np.ndarray, single: np.ndarray, complete: np.ndarray
                 ) -> np.ndarray:
    """For every event index with args, the output row that gets its attributes (the
    event itself, or the Enter of a complete event); -1 for events not kept."""
    target = np.full(arg_events.size, -1, dtype=np.int64)
    for base, rows in ((0, single), (single.size, complete)):
        if rows.size == 0:
            continue
        pos = np.minimum(np.searchsorted(rows, arg_events), rows.size - 1)
        hit = rows[pos] == arg_events
        target[hit] = base + pos[hit]
    return target


def _event_order(times: np.ndarray, source: np.ndarray, single: int, complete: int,
                 length: np.ndarray) -> np.ndarray:
    """The order of the output rows: by time; at equal times a complete event's Leave
    comes first (inner ones first), then B/E/instants in file order, then complete
    events' Enters (outer ones first), then the Leaves of zero-length complete events."""
    count = times.size
    if complete == 0:
        return np.argsort(times, kind="stable")
    klass = np.ones(count, dtype=np.int8)
    sub = np.zeros(count, dtype=np.int8)
    tie = np.zeros(count, dtype=np.int64)
    enters = slice(single, single + complete)
    leaves = slice(single + complete, count)
    sub[enters] = 1
    tie[enters] = -length
    klass[leaves] = np.where(length > 0, 0, 2)
    tie[leaves] = -times[enters]
    return np.lexsort((source, tie, sub, klass, times))


def _compact(codes: np.ndarray, categories: list[str]) -> pd.Categorical:
    """A categorical of ``codes`` over ``categories``, keeping only the used categories,
    sorted."""
    used = np.flatnonzero(np.bincount(codes, minlength=len(categories)))
    kept = np.asarray(categories, dtype=object)[used]
    order = np.argsort(kept.astype(str), kind="stable")
    remap = np.full(len(categories), -1, dtype=np.int64)
    remap[used[order]] = np.arange(used.size)
    return pd.Categorical.from_codes(remap[codes], categories=pd.Index(kept[order], dtype="str"))


def _definitions(columns: dict[str, Any], meta: np.ndarray, pid: np.ndarray,
                 tid: np.ndarray) -> pd.DataFrame | None:
    """The metadata events (process and thread names...) as a table, or None."""
    if meta.size == 0:
        return None
    value = np.full(meta.size, None, dtype=object)
    if "name" in columns["args"]:
        rows, values = columns["args"]["name"]
        pos = np.minimum(np.searchsorted(rows, meta), max(rows.size - 1, 0))
        hit = rows[pos] == meta if rows.size else np.zeros(meta.size, dtype=bool)
        value[hit] = np.asarray(values, dtype=object)[pos[hit]]
    return pd.DataFrame({
        "Definition Type": np.asarray(columns["name"], dtype=object)[meta],
        PROCESS: pid[meta],
        THREAD: tid[meta],
        "Value": value,
    })


def _name_leaves(trace: Trace) -> None:
    """Give every nameless Leave the name of the Enter it closes."""
    from glade.trace.matching import call_structure

    events = trace.events
    structure = call_structure(events, check_names=False, kinds=trace.event_kinds(),
                               locations=trace.location_codes())
    names = events[NAME]
    codes = names.cat.codes.to_numpy().astype(np.int64)
    unnamed = list(names.cat.categories).index(_UNNAMED)
    nameless = np.flatnonzero((codes == unnamed) & (structure.matching >= 0))
    codes[nameless] = codes[structure.matching[nameless]]
    events[NAME] = _compact(codes, list(names.cat.categories))


def _names(columns: dict[str, Any], rows: dict[str, np.ndarray], source: np.ndarray
           ) -> tuple[np.ndarray, list[str]]:
    """Name codes of the output events and their categories: flow events not already
    named as messages become ``MpiSend`` / ``MpiRecv``, nameless ones ``<unnamed>``."""
    names = columns["name"]
    categories = [str(c) for c in names.categories]
    for extra in ("MpiSend", "MpiRecv", _UNNAMED):
        if extra not in categories:
            categories.append(extra)
    table = np.asarray(categories, dtype=object)
    codes = names.codes.astype(np.int64)[source]
    total = names.codes.size
    for flow, known, fallback in ((rows["send"], SEND_NAMES, "MpiSend"),
                                  (rows["receive"], RECEIVE_NAMES, "MpiRecv")):
        marked = np.zeros(total, dtype=bool)
        marked[flow] = True
        is_flow = marked[source]
        message = np.isin(table, known)[np.maximum(codes, 0)] & (codes >= 0)
        codes[is_flow & ~message] = categories.index(fallback)
    codes[codes < 0] = categories.index(_UNNAMED)
    return codes, categories


def _build(path: Path, columns: dict[str, Any], total: int, dropped: list[str],
           info: dict[str, Any]) -> Trace:
    """The Trace of the parsed event columns (see the module doc for the mapping)."""
    rows = _phase_rows(columns, total)
    phases = columns["ph"]
    untimed = np.zeros(total, dtype=bool)
    untimed[rows["meta"]] = True
    untimed[rows["ignored"]] = True
    timed = np.flatnonzero(~untimed)
    del untimed
    ts, dur = columns.pop("ts"), columns.pop("dur")
    if np.isnan(ts[timed]).any():
        bad = timed[np.isnan(ts[timed])][0]
        raise ReaderError(path, f"event {bad} (ph {phases[bad]!r}) has no 'ts'")
    complete = rows["complete"]
    if np.isnan(dur[complete]).any() or (dur[complete] < 0).any():
        bad = complete[np.isnan(dur[complete]) | (dur[complete] < 0)][0]
        raise ReaderError(path, f"event {bad} (ph 'X') has no valid 'dur'")
    named = np.concatenate([rows["enter"], complete, rows["instant"]])
    missing = named[columns["name"].codes[named] < 0]
    if missing.size:
        bad = int(missing.min())
        raise ReaderError(path, f"event {bad} (ph {phases[bad]!r}) has no 'name'")
    pid = np.nan_to_num(columns["pid"], nan=0.0).astype(np.int64)
    tid = np.nan_to_num(columns["tid"], nan=0.0).astype(np.int64)
    offset = int(info.get("time_offset_ns", 0))
    stamp = offset + np.rint(np.nan_to_num(ts) * 1000.0).astype(np.int64)

    single = np.sort(np.concatenate([rows["enter"], rows["leave"], rows["instant"],
                                     rows["send"], rows["receive"]]))
    source = np.concatenate([single, complete, complete])
    count = source.size
    kind = np.full(count, INSTANT, dtype=np.int8)
    kind_of = np.full(total, INSTANT, dtype=np.int8)
    kind_of[rows["enter"]] = ENTER
    kind_of[rows["leave"]] = LEAVE
    kind[: single.size] = kind_of[single]
    kind[single.size : single.size + complete.size] = ENTER
    kind[single.size + complete.size :] = LEAVE
    length = np.rint(dur[complete] * 1000.0).astype(np.int64)
    times = stamp[source]
    times[single.size + complete.size :] += length
    del ts, dur, stamp, timed, kind_of
    name_codes, categories = _names(columns, rows, source)

    args = columns["args"]
    targets = {name: _arg_targets(where, single, complete) for name, (where, _) in args.items()}
    attributes = _typed_args(args, targets, count, info.get("columns", {}))
    if rows["send"].size or rows["receive"].size:
        send_partner, recv_partner = _flow_partners(columns, rows["send"], rows["receive"], pid)
        flow_partner = np.full(total, -1, dtype=np.int64)
        flow_partner[rows["send"]] = send_partner
        flow_partner[rows["receive"]] = recv_partner
        partner = attributes.get(PARTNER, np.full(count, -1, dtype=np.int64))
        paired = flow_partner[source] >= 0
        attributes[PARTNER] = np.where(paired, flow_partner[source], partner)

    written = [c for c in info.get("columns", {}) if c in attributes]
    attributes = {c: attributes[c] for c in written + [c for c in attributes if c not in written]}
    order = _event_order(times, source, single.size, complete.size, length)
    definitions = _definitions(columns, rows["meta"], pid, tid)
    source = source[order]
    table = {TIMESTAMP: times[order]}
    del times
    table[EVENT_TYPE] = event_types(kind[order])
    table[NAME] = _compact(name_codes[order], categories)
    del kind, name_codes
    table[PROCESS], table[THREAD] = pid[source], tid[source]
    del pid, tid, source
    for name in list(attributes):
        table[name] = attributes.pop(name)[order]
    frame = pd.DataFrame(table, copy=False)
    del table
    ignored = phases[rows["ignored"]].value_counts()
    metadata = {
        "format": "chrome",
        "source": str(path),
        "metric_columns": [c for c in info.get("metric_columns", []) if c in frame.columns],
        "ignored_events": {str(k): int(v) for k, v in ignored.items() if v},
        "dropped_args": dropped,
    }
    trace = Trace(frame, definitions=definitions, metadata=metadata, copy=False)
    if rows["leave"].size and (trace.events[NAME] == _UNNAMED).any():
        _name_leaves(trace)
    return trace


# ------------------------------------------------------------------ writing
def _column_type(values: pd.Series) -> str:
    """How a column is written and read back: int64, float64, bool, category or str."""
    if pd.api.types.is_bool_dtype(values):
        return "bool"
    if pd.api.types.is_integer_dtype(values):
        return "int64"
    if pd.api.types.is_float_dtype(values):
        return "float64"
    return "category" if isinstance(values.dtype, pd.CategoricalDtype) else "str"


def _arg_value(values: pd.Series, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Where an attribute applies, and its JSON value text (b"" elsewhere)."""
    data = values.to_numpy()
    if kind == "int64":
        present = data != -1
        return present, np.where(present, int_text(data), b"")
    if kind == "float64":
        present = ~np.isnan(data)
        return present, np.where(present, float_text(data, json_safe=True), b"")
    if kind == "bool":
        return np.ones(data.size, dtype=bool), np.where(data, b"true", b"false")
    column = values if isinstance(values.dtype, pd.CategoricalDtype) else values.astype("category")
    text = category_text(column, json_string, b"")
    return text != b"", text


def write_chrome(trace: Trace, path: str | os.PathLike) -> None:
    """Write ``trace`` as Chrome / Perfetto trace-event JSON (gzipped when ``path`` ends
    in ``.gz``; see the module doc). The trace is not changed."""
    from glade.trace.comm import message_pairs

    events = trace.events
    n = len(events)
    kind = trace.event_kinds()
    stamps = events[TIMESTAMP].to_numpy()
    offset = int(stamps.min()) if n else 0
    attributes = [c for c in trace.recorded_columns()
                  if c not in (TIMESTAMP, EVENT_TYPE, NAME, PROCESS, THREAD)]
    types = {c: _column_type(events[c]) for c in attributes}
    pairs, _, _ = message_pairs(trace)
    flow = np.full(n, -1, dtype=np.int64)
    flow[pairs["Send event"].to_numpy()] = np.arange(len(pairs))
    flow[pairs["Receive event"].to_numpy()] = np.arange(len(pairs))
    phase = np.array([b'"B"', b'"E"', b'"i"'])[kind]
    phase[pairs["Send event"].to_numpy()] = b'"s"'
    phase[pairs["Receive event"].to_numpy()] = b'"f"'
    plain_instant = (kind == INSTANT) & (flow < 0)
    info = {"version": 1, "time_offset_ns": offset, "columns": types,
            "metric_columns": trace.metric_columns}
    pid = events[PROCESS].to_numpy()
    tid = events[THREAD].to_numpy()

    def render(rows: slice) -> list[np.ndarray | bytes]:
        ids = flow[rows]
        pieces: list[np.ndarray | bytes] = [
            b'{"ph":', phase[rows],
            b',"name":', category_text(events[NAME].iloc[rows], json_string, b'""'),
            b',"pid":', int_text(pid[rows]),
            b',"tid":', int_text(tid[rows]),
            b',"ts":', decimal(stamps[rows] - offset, 3),
            np.where(ids >= 0, b',"cat":"message","id":', b""),
            np.where(ids >= 0, int_text(ids), b""),
            np.where(ids >= 0, b',"bp":"e"', b""),
            np.where(plain_instant[rows], b',"s":"t"', b""),
        ]
        fields = []
        before = np.zeros(ids.size, dtype=bool)
        for name in attributes:
            present, value = _arg_value(events[name].iloc[rows], types[name])
            fields += [np.where(present & before, b",", b""),
                       np.where(present, json_string(name) + b":", b""), value]
            before |= present
        pieces += [np.where(before, b',"args":{', b""), *fields, np.where(before, b"}", b""),
                   b"}"]
        return pieces

    with open_output(path) as out:
        out.write(b'{"displayTimeUnit":"ns","otherData":{"glade":' + json.dumps(info).encode()
                  + b'},"traceEvents":[\n')
        write_chunks(out, n, render, "Chrome trace", separator=b",\n", final=False)
        out.write(b"\n]}\n")
