"""Chrome / Perfetto trace-event JSON: a JSON array of events, or an object whose
``traceEvents`` member is that array.

Reading maps each event by its phase ``ph``:

- ``B`` / ``E`` become Enter / Leave; a Leave without a name gets the name of the
  Enter it closes (Chrome pairs ``E`` with the latest open ``B`` of its thread); a
  named ``E`` that closes a ``B`` of another name is refused (ReaderError);
- ``X`` (complete event) becomes an Enter at ``ts`` and a Leave at ``ts + dur``;
  events ending and starting at the same time are ordered Leave first, nested
  complete events outer first;
- ``i`` / ``I`` (instant), ``R`` (mark), ``n`` (async instant) and ``C`` (counter)
  become Instant events;
- a ``C`` event's ``args`` members are counter samples: each key gets a column (whatever
  its share) and each event name and key a counter series ``"<name> <key>"`` (as
  Perfetto names them) in ``metadata["counters"]``, so that ``trace.counters`` lists
  them (:mod:`glade.trace.counters`); a member that is not a finite number, or a key
  that other events give text, is a ReaderError; a ``C`` event's ``id`` is not kept;
- flow events ``s`` / ``f`` become messages: a ``s`` is a send instant (named
  ``MpiSend`` unless its name is already one of glade's send names), the ``f`` of
  the same ``cat`` and ``id`` its receive, each with the other's process as
  ``Partner``;
- ``M`` (metadata: process and thread names) goes to ``trace.definitions``; other
  phases (async slices, samples, objects, memory dumps) are counted in
  ``metadata["ignored_events"]``.

``ts`` and ``dur`` are microseconds; timestamps become int64 ns. ``pid`` and ``tid``
are the process and thread (0 when absent).

``args`` members become attribute columns, one per key, only for keys that are not
rare, so that a file of many distinct keys does not cost a dense column each (memory
stays linear in the file). With ``n`` trace events (a complete event makes two; its
Enter carries the args) and ``m`` args members on them, a key gets its own column when

- the file's ``otherData.glade.columns`` declares it (files glade writes: their columns
  come back, even empty ones), or at least one event in :data:`ARGS_SHARE` (100)
  carries it (unless ``otherData.glade.args_column`` says the file was written from a
  trace with the text column below: then only declared keys, so that it comes back
  as it was);
- and, taking the declared keys first, then the others most frequent first (ties by
  name), the columns stay within :data:`COLUMN_CELLS` (16) cells per event and per
  member: at most ``16 * (n + m) / n`` columns.

Every other member is kept, as the bytes the file has for it, in one text column
``args`` (:data:`ARGS_COLUMN`): per event, the JSON object of its remaining members
(missing where none), so its memory is that of those members; ``metadata
["args_column"]`` names it and the writer puts those members back into ``args``. A key
named ``args`` (or ``Name``, ``Process``...) becomes the column ``args.args``. A chosen
key whose values cannot be typed (nested values, or numbers mixed with text) goes to
that text too and is listed in ``metadata["dropped_args"]``.
The file is scanned by a compiled JSON scanner (:mod:`glade.readers.traces.json_scan`)
in chunks of events whose columns are typed in bulk
(:mod:`glade.readers.traces.chrome_events`): no Python object is made per event, and
large files show a progress bar. Invalid JSON, text that is not UTF-8, nesting deeper
than 256 levels, values of the wrong type and times that are not finite or do not fit
int64 nanoseconds are ReaderErrors naming the event (and the line and byte).

:mod:`glade.readers.traces.chrome_write` writes the files this module reads.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from glade.errors import ReaderError, TraceError
from glade.pandas_compat import TEXT_DTYPE
from glade.readers.traces import json_scan
from glade.readers.traces.chrome_events import (
    chunk_columns,
    flow_keys,
    gather,
    key_values,
    member_text,
    scan_chunks,
    text_categorical,
)
from glade.readers.traces.csv import INTEGER_ATTRIBUTES
from glade.readers.traces.events import event_types
from glade.readers.traces.text import (
    PROGRESS_BYTES,
    check_file,
    head,
    read_content,
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
    TIME_LIMIT_NS,
    TIMESTAMP,
)
from glade.trace.model import Trace

_LEADING = re.compile(rb"[\xef\xbb\xbf \t\r\n]*")
_EVENTS_KEY = re.compile(rb'"traceEvents"\s*:\s*\[')
_INSTANT_PHASES = ("i", "I", "R", "n", "C")
_KEPT_PHASES = ("B", "E", "X", "s", "f", "M", *_INSTANT_PHASES)
_UNNAMED = "<unnamed>"
#: The column of the ``args`` members that have no column of their own (JSON text).
ARGS_COLUMN = "args"
#: A key gets a column when at least one trace event in ARGS_SHARE carries it...
ARGS_SHARE = 100
#: ... and while the columns hold at most COLUMN_CELLS cells per event and per member.
COLUMN_CELLS = 16


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
def _locate(path: Path, data: bytes | bytearray) -> tuple[int, bool]:
    """The offset just after the ``[`` that opens the event array, and whether the
    document is an object (``{"traceEvents": [...]}``) rather than a bare array."""
    leading = _LEADING.match(data)
    assert leading is not None  # the pattern matches the empty string
    start = leading.end()
    if data[start : start + 1] == b"[":
        return start + 1, False
    if data[start : start + 1] == b"{":
        found = _EVENTS_KEY.search(data, start)
        if found is None:
            raise ReaderError(path, "a JSON object without a 'traceEvents' array")
        return found.end(), True
    raise ReaderError(path, "not trace-event JSON (expected '[' or '{' first)")


_COLUMN_KINDS = ("int64", "float64", "bool", "category", "str")


def _glade_info(path: Path, outside: bytes) -> dict[str, Any]:
    """``otherData.glade`` of an object document (its text with the event array taken
    out), keeping only entries of the types glade writes; a time offset that is not
    an integer of int64 range is a ReaderError."""
    try:
        document = json.loads(outside)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return {}
    other = document.get("otherData") if isinstance(document, dict) else None
    info = other.get("glade") if isinstance(other, dict) else None
    if not isinstance(info, dict):
        return {}
    offset = info.get("time_offset_ns", 0)
    if type(offset) is not int or abs(offset) >= TIME_LIMIT_NS:
        raise ReaderError(
            path,
            f"otherData.glade.time_offset_ns is {offset!r}, not an integer number of nanoseconds",
        )
    columns = info.get("columns")
    metrics = info.get("metric_columns")
    return {
        "time_offset_ns": offset,
        "columns": {str(k): v for k, v in columns.items() if v in _COLUMN_KINDS}
        if isinstance(columns, dict)
        else {},
        "metric_columns": [m for m in metrics if isinstance(m, str)]
        if isinstance(metrics, list)
        else [],
        "args_column": info.get("args_column") is True,
        "counters": [
            {"name": c["name"], "column": c["column"], "event": None}
            for c in info.get("counters") or []
            if isinstance(c, dict)
            and isinstance(c.get("name"), str)
            and isinstance(c.get("column"), str)
        ]
        if isinstance(info.get("counters"), list)
        else [],
        "units": {str(k): v for k, v in info["units"].items() if isinstance(v, str)}
        if isinstance(info.get("units"), dict)
        else {},
    }


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
        text = (
            values
            if isinstance(values, pd.Categorical)
            else text_categorical(np.asarray(values, dtype=object))
        )
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
    if kind == "int64":
        column = np.full(n, -1, dtype=np.int64)
        if str(getattr(values, "dtype", "")) == "Int64":
            column[dest] = values.to_numpy(dtype=np.int64, na_value=-1)[keep]
        else:
            numbers = np.asarray(values, dtype=np.float64)[keep]
            column[dest] = np.where(np.isnan(numbers), -1, numbers).astype(np.int64)
        return column
    column = np.full(n, np.nan)
    column[dest] = (
        values.to_numpy(dtype=np.float64, na_value=np.nan)
        if hasattr(values, "to_numpy")
        else np.asarray(values, np.float64)
    )[keep]
    return column


def _fits(kind: str | None, values: Any) -> bool:
    """Whether the parsed ``values`` of an attribute can be the type ``kind`` a writer
    recorded (any value can be text; numbers only numbers that type holds exactly)."""
    dtype = str(getattr(values, "dtype", ""))
    if kind in ("category", "str"):
        return True
    if kind == "bool":
        return dtype == "boolean"
    if kind == "float64":
        return dtype in ("Int64", "float64")
    if kind == "int64" and dtype == "float64":
        finite = values[~np.isnan(values)]
        return bool(np.all((np.abs(finite) < 2.0**63) & (finite == np.round(finite))))
    return kind == "int64" and dtype == "Int64"


#: Keys of ``args`` whose column takes another name (``args.<key>``).
_RESERVED = (TIMESTAMP, EVENT_TYPE, NAME, PROCESS, THREAD, ARGS_COLUMN)


def _column_name(key: str) -> str:
    return f"args.{key}" if key in _RESERVED else key


def column_keys(
    counts: np.ndarray, names: list[str], declared: list[str], n: int, only_declared: bool = False
) -> tuple[np.ndarray, list[str]]:
    """Which ``args`` keys become columns (see the module doc), most wanted first: the
    indices of the chosen keys, and the declared columns no event has (empty columns).
    ``counts`` says how many of the ``n`` trace events carry each key."""
    members = int(counts.sum())
    room = COLUMN_CELLS * (n + members) // max(n, 1)
    position = {name: i for i, name in enumerate(names)}
    wanted = [position[c] for c in declared if c in position]
    absent = [c for c in declared if c not in position and c not in _RESERVED]
    common = np.flatnonzero((counts * ARGS_SHARE >= n) & (not only_declared))
    common = common[np.lexsort((np.arange(common.size), -counts[common]))]
    chosen = list(dict.fromkeys(wanted + common.tolist()))[:room]
    return np.asarray(chosen, dtype=np.int64), absent[: room - len(chosen)]


def _empty_column(kind: str, n: int) -> Any:
    """A column of ``n`` missing values of type ``kind`` (a declared column no event has)."""
    if kind in ("category", "str"):
        full = pd.Categorical.from_codes(np.full(n, -1), categories=pd.Index([], dtype="str"))
        return (
            full
            if kind == "category"
            else pd.array(np.asarray(full, dtype=object), dtype=TEXT_DTYPE)
        )
    if kind == "bool":
        return np.zeros(n, dtype=bool)
    return np.full(n, -1, dtype=np.int64) if kind == "int64" else np.full(n, np.nan)


def _arg_columns(
    raw: np.ndarray,
    members: dict[str, Any],
    single: np.ndarray,
    complete: np.ndarray,
    n: int,
    types: dict[str, str],
    only_declared: bool = False,
) -> tuple[dict[str, Any], list[str]]:
    """Attribute columns over the ``n`` output events from the ``args`` members (their
    events mapped to output rows: the event itself, or the Enter of a complete event):
    one typed column per key :func:`column_keys` chooses, and the JSON text of every
    other member in :data:`ARGS_COLUMN`; and the chosen keys whose values cannot be
    typed (nested or of mixed kinds), which go to that text too."""
    keys = [str(k) for k in members["keys"]]
    code = members["code"]
    targets = _arg_targets(members["event"], single, complete)
    kept = targets >= 0
    counts = np.bincount(code[kept], minlength=len(keys))
    names = [_column_name(k) for k in keys]
    chosen, absent = column_keys(counts, names, list(types), n, only_declared)
    bounds = np.searchsorted(code, np.arange(len(keys) + 1))
    out, dropped = {}, []
    columnar = np.zeros(len(keys), dtype=bool)
    for k in chosen.tolist():
        if names[k] in out:  # "args.Name" and "Name": the second stays in the text
            continue
        picked = np.arange(bounds[k], bounds[k + 1])
        values = key_values(raw, members, picked)
        if values is None:
            dropped.append(keys[k])
            continue
        columnar[k] = True
        out[names[k]] = _spread(names[k], values, targets[picked], n, types.get(names[k]))
    for column in absent:
        out[column] = _empty_column(types[column], n)
    rest = np.flatnonzero(kept & ~columnar[code])
    if rest.size:
        out[ARGS_COLUMN] = member_text(raw, members, rest, targets[rest], n)
    return out, sorted(dropped)


def _spread(column: str, values: Any, target: np.ndarray, n: int, declared: str | None) -> Any:
    """One key's typed ``values`` (of members going to output rows ``target``, -1 for
    events not kept) as a column over the ``n`` output events."""
    keep = target >= 0
    dest = target[keep]
    full = dest.size == n and not np.asarray(pd.isna(values))[keep].any()
    fits = declared is not None and _fits(declared, values)
    kind = declared if fits and declared is not None else _default_kind(column, values, full)
    return _spread_column(values, keep, dest, n, kind)


def read_chrome(path: str | os.PathLike, progress: bool | None = None) -> Trace:
    """Read Chrome / Perfetto trace-event JSON (see the module doc); ``progress`` forces
    the progress bar on or off (default: on for files over 64 MiB)."""
    target = check_file(path)
    try:
        data = read_content(target, progress, "Chrome trace")
    except (OSError, EOFError) as exc:
        raise ReaderError(target, f"cannot read: {exc}") from None
    start, is_object = _locate(target, data)
    raw = np.frombuffer(data, dtype=np.uint8)
    chunks, first, end = [], 0, len(data)
    show = len(data) > PROGRESS_BYTES if progress is None else progress
    with tqdm(
        total=len(data) - start,
        desc="parsing Chrome trace",
        unit="B",
        unit_scale=True,
        leave=False,
        disable=not show,
    ) as bar:
        for part in scan_chunks(target, raw, start, is_object, bar):
            if isinstance(part, int):
                end = part
                break
            chunks.append(chunk_columns(target, raw, part, first))
            first += len(part[0])
    info = (
        _glade_info(target, bytes(data[: start - 1]) + b"null" + bytes(data[end:]))
        if is_object
        else {}
    )
    flow_key = flow_keys(raw, [c.pop("flow_spans") for c in chunks if c["size"]])
    columns, total = gather(raw, chunks)
    columns["flow_key"] = flow_key
    del chunks
    try:
        return _build(target, raw, columns, total, info)
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
        "counter": rows(("C",)),
        "send": rows(("s",)),
        "receive": rows(("f",)),
        "meta": rows(("M",)),
        "ignored": rows(_KEPT_PHASES, inside=False),
    }


def _flow_partners(
    columns: dict[str, Any], sends: np.ndarray, receives: np.ndarray, pid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The partner process of every flow start and finish (-1 when unpaired): the k-th
    ``s`` of a (cat, id) pairs with the k-th ``f`` of that (cat, id), compared as
    written."""
    flows, key = columns["flows"], columns["flow_key"]
    ends = pd.DataFrame({"key": key[np.searchsorted(flows, sends)], "row": sends})
    starts_of = pd.DataFrame({"key": key[np.searchsorted(flows, receives)], "row": receives})
    ends["k"] = ends.groupby("key", sort=False).cumcount()
    starts_of["k"] = starts_of.groupby("key", sort=False).cumcount()
    pairs = ends.merge(starts_of, on=["key", "k"], suffixes=("_s", "_f"))
    send_partner = np.full(sends.size, -1, dtype=np.int64)
    recv_partner = np.full(receives.size, -1, dtype=np.int64)
    send_partner[np.searchsorted(sends, pairs["row_s"].to_numpy())] = pid[pairs["row_f"].to_numpy()]
    recv_partner[np.searchsorted(receives, pairs["row_f"].to_numpy())] = pid[
        pairs["row_s"].to_numpy()
    ]
    return send_partner, recv_partner


def _counter_series(
    path: Path, raw: np.ndarray, columns: dict[str, Any], counters: np.ndarray
) -> list[dict[str, str]]:
    """The counter series of the ``C`` events ``counters``: one per event name and
    ``args`` key, named ``"<name> <key>"`` as Perfetto names them, in order of name and
    key; a member of a ``C`` event that is not a finite number is a ReaderError naming
    the event."""
    members = columns["args"]
    if counters.size == 0 or not members or members["event"].size == 0:
        return []
    mine = np.flatnonzero(np.isin(members["event"], counters))
    bad = members["kind"][mine] != json_scan.NUMBER
    if not bad.any():
        values = key_values(raw, members, mine)
        bad = ~np.isfinite(np.asarray(values, dtype=np.float64))
    if bad.any():
        at = mine[np.flatnonzero(bad)[0]]
        event = int(members["event"][at])
        key = str(members["keys"][members["code"][at]])
        raise ReaderError(
            path,
            f"event {event} (ph 'C', name {columns['name'][event]!r}) has the args "
            f"member {key!r} = {_shown(raw, members, at)}, not a finite number",
        )
    names = columns["name"]
    pairs = pd.DataFrame(
        {
            "event": np.asarray(names.categories, dtype=object)[
                names.codes[members["event"][mine]]
            ],
            "key": np.asarray(members["keys"], dtype=object)[members["code"][mine]],
        }
    ).drop_duplicates()
    pairs = pairs.sort_values(["event", "key"], kind="stable")
    return [
        {"name": f"{e} {k}", "column": _column_name(k), "event": e}
        for e, k in zip(pairs["event"].tolist(), pairs["key"].tolist(), strict=True)
    ]


def _check_counter_columns(path: Path, frame: pd.DataFrame, counters: list[dict]) -> None:
    """A ReaderError when a counter's column is not numeric (other events give its key
    values that are not numbers)."""
    for series in counters:
        column = frame.get(series["column"])
        if (
            column is None
            or not pd.api.types.is_numeric_dtype(column)
            or pd.api.types.is_bool_dtype(column)
        ):
            raise ReaderError(
                path,
                f"the args key {series['column']!r} of counter events ('C') holds values "
                "that are not numbers in other events",
            )


def _shown(raw: np.ndarray, members: dict[str, Any], at: int) -> str:
    """The JSON text of member ``at``'s value, shortened."""
    text = raw[members["value_start"][at] : members["value_stop"][at]].tobytes()
    shown = text[:40].decode("utf-8", "replace")
    return f'"{shown}"' if members["kind"][at] == json_scan.STRING else shown


def _arg_targets(arg_events: np.ndarray, single: np.ndarray, complete: np.ndarray) -> np.ndarray:
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


def _event_order(
    times: np.ndarray, source: np.ndarray, single: int, complete: int, length: np.ndarray
) -> np.ndarray:
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


def _definitions(
    raw: np.ndarray, columns: dict[str, Any], meta: np.ndarray, pid: np.ndarray, tid: np.ndarray
) -> pd.DataFrame | None:
    """The metadata events (process and thread names...) as a table, or None."""
    if meta.size == 0:
        return None
    value = np.full(meta.size, None, dtype=object)
    members = columns["args"]
    keys = members["keys"]
    if "name" in keys:
        code = keys.get_loc("name")
        lo, hi = np.searchsorted(members["code"], [code, code + 1])
        picked = np.arange(lo, hi)
        picked = picked[np.isin(members["event"][picked], meta)]
        if picked.size:
            values = key_values(raw, members, picked)
            if values is not None:
                value[np.searchsorted(meta, members["event"][picked])] = np.asarray(
                    values, dtype=object
                )
    return pd.DataFrame(
        {
            "Definition Type": np.asarray(columns["name"], dtype=object)[meta],
            PROCESS: pid[meta],
            THREAD: tid[meta],
            "Value": value,
        }
    )


def _name_leaves(path: Path, trace: Trace) -> None:
    """Give every nameless Leave the name of the Enter it closes; ReaderError naming the
    first named Leave that closes an Enter of another name (calls that do not nest)."""
    from glade.trace.matching import call_structure

    events = trace.events
    kinds = trace.event_kinds()
    matching = call_structure(
        events, check_names=False, kinds=kinds, locations=trace.location_codes()
    ).matching
    names = events[NAME]
    categories = list(names.cat.categories)
    codes = names.cat.codes.to_numpy().astype(np.int64)
    leaves = np.flatnonzero((kinds == LEAVE) & (matching >= 0))
    if _UNNAMED in categories:
        nameless = leaves[codes[leaves] == categories.index(_UNNAMED)]
        codes[nameless] = codes[matching[nameless]]
    wrong = leaves[codes[leaves] != codes[matching[leaves]]]
    if wrong.size:
        row = int(wrong[0])
        raise ReaderError(
            path,
            f"the Leave of {categories[codes[row]]!r} at "
            f"{int(events[TIMESTAMP].iat[row])} ns on process "
            f"{int(events[PROCESS].iat[row])}, thread "
            f"{int(events[THREAD].iat[row])} closes the Enter of "
            f"{categories[codes[matching[row]]]!r}: calls do not nest",
        )
    if _UNNAMED in categories:
        events[NAME] = _compact(codes, categories)


def _names(
    columns: dict[str, Any], rows: dict[str, np.ndarray], source: np.ndarray
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
    for flow, known, fallback in (
        (rows["send"], SEND_NAMES, "MpiSend"),
        (rows["receive"], RECEIVE_NAMES, "MpiRecv"),
    ):
        marked = np.zeros(total, dtype=bool)
        marked[flow] = True
        is_flow = marked[source]
        message = np.isin(table, known)[np.maximum(codes, 0)] & (codes >= 0)
        codes[is_flow & ~message] = categories.index(fallback)
    codes[codes < 0] = categories.index(_UNNAMED)
    return codes, categories


def _times(
    path: Path,
    phases: pd.Categorical,
    ts: np.ndarray,
    dur: np.ndarray,
    timed: np.ndarray,
    complete: np.ndarray,
    offset: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Every event's time and every complete event's duration in int64 ns (``ts`` and
    ``dur`` are microseconds); ReaderError naming the first event whose time is
    missing, not finite, or whose nanoseconds (from ``offset``) leave the int64 range."""
    moment = ts[timed]
    if np.isnan(moment).any():
        bad = timed[np.isnan(moment)][0]
        raise ReaderError(path, f"event {bad} (ph {phases[bad]!r}) has no 'ts'")
    span = dur[complete]
    invalid = ~np.isfinite(span) | (span < 0)
    if invalid.any():
        bad = complete[invalid][0]
        raise ReaderError(path, f"event {bad} (ph 'X') has no valid 'dur' ({dur[bad]!r})")
    ends = np.zeros(ts.size)
    ends[complete] = span
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.abs(ts * 1000.0) + ends * 1000.0 + abs(offset)
    wild = np.flatnonzero(~(reach[timed] < TIME_LIMIT_NS))
    if wild.size:
        bad = timed[wild[0]]
        lasting = f" (with 'dur' {float(dur[bad])!r})" if ends[bad] else ""
        raise ReaderError(
            path,
            f"event {bad}: 'ts' {float(ts[bad])!r} us{lasting} is not a "
            f"time glade can hold (finite, under {TIME_LIMIT_NS / 1000:.3g} us)",
        )
    stamp = offset + np.rint(np.nan_to_num(ts) * 1000.0).astype(np.int64)
    return stamp, np.rint(span * 1000.0).astype(np.int64)


def _integers(path: Path, values: np.ndarray, key: str) -> np.ndarray:
    """A process or thread column as int64 (0 where absent); ReaderError naming the
    first event whose value is not an integer of int64 range."""
    present = ~np.isnan(values)
    bad = present & ~((np.abs(values) < 2.0**63) & (values == np.round(values)))
    if bad.any():
        row = int(np.argmax(bad))
        raise ReaderError(path, f"event {row}: {key!r} is {float(values[row])!r}, not an integer")
    return np.where(present, values, 0.0).astype(np.int64)


def _build(
    path: Path, raw: np.ndarray, columns: dict[str, Any], total: int, info: dict[str, Any]
) -> Trace:
    """The Trace of the parsed event columns (see the module doc for the mapping)."""
    rows = _phase_rows(columns, total)
    phases = columns["ph"]
    untimed = np.zeros(total, dtype=bool)
    untimed[rows["meta"]] = True
    untimed[rows["ignored"]] = True
    timed = np.flatnonzero(~untimed)
    del untimed
    ts, dur = columns.pop("ts"), columns.pop("dur")
    complete = rows["complete"]
    stamp, length = _times(
        path, phases, ts, dur, timed, complete, int(info.get("time_offset_ns", 0))
    )
    named = np.concatenate([rows["enter"], complete, rows["instant"]])
    missing = named[columns["name"].codes[named] < 0]
    if missing.size:
        bad = int(missing.min())
        raise ReaderError(path, f"event {bad} (ph {phases[bad]!r}) has no 'name'")
    pid, tid = (_integers(path, columns[key], key) for key in ("pid", "tid"))

    single = np.sort(
        np.concatenate(
            [rows["enter"], rows["leave"], rows["instant"], rows["send"], rows["receive"]]
        )
    )
    source = np.concatenate([single, complete, complete])
    count = source.size
    kind = np.full(count, INSTANT, dtype=np.int8)
    kind_of = np.full(total, INSTANT, dtype=np.int8)
    kind_of[rows["enter"]] = ENTER
    kind_of[rows["leave"]] = LEAVE
    kind[: single.size] = kind_of[single]
    kind[single.size : single.size + complete.size] = ENTER
    kind[single.size + complete.size :] = LEAVE
    times = stamp[source]
    times[single.size + complete.size :] += length
    del ts, dur, stamp, timed, kind_of
    name_codes, categories = _names(columns, rows, source)

    counters = _counter_series(path, raw, columns, rows["counter"])
    declared = {s["column"]: "float64" for s in counters} | info.get("columns", {})
    attributes, dropped = _arg_columns(
        raw,
        columns["args"],
        single,
        complete,
        count,
        declared,
        info.get("args_column", False),
    )
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
    definitions = _definitions(raw, columns, rows["meta"], pid, tid)
    del raw, columns["args"]
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
    if ARGS_COLUMN in frame.columns:
        metadata["args_column"] = ARGS_COLUMN
    counters += [c for c in info.get("counters", []) if c["column"] in frame.columns]
    if counters:
        _check_counter_columns(path, frame, counters)
        metadata["counters"] = counters
        units = {
            c["name"]: info["units"][c["name"]]
            for c in counters
            if c["name"] in info.get("units", {})
        }
        if units:
            metadata["units"] = units
    trace = Trace(frame, definitions=definitions, metadata=metadata, copy=False)
    if rows["leave"].size:
        _name_leaves(path, trace)
    return trace
