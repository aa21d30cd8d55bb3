"""The edits of a timeline view and the call-level query they make.

Edits (the dicts of the view's ``history``):

- ``{"op": "window", "t0": ns, "t1": ns, "processes": [[first, last], ...] | None}``:
  keep the calls and instants that overlap [t0, t1] on those processes (inclusive
  ranges; None for all); a new window replaces the previous one;
- ``{"op": "clear_window"}``;
- ``{"op": "hide", "name": f}`` / ``{"op": "unhide", "name": f}``: remove every call
  (and instant) named f, its time going to its caller, or bring it back;
- ``{"op": "focus", "path": [names from a root]}`` / ``{"op": "unfocus"}``: keep the
  calls on that call path and everything they call;
- ``{"op": "base", "query": text}``: a query assigned to ``view.query``: it replaces
  what the edits before it did, and the edits after it refine it;
- ``{"op": "reset"}``: drop everything before it.

The query is one call-level query of the call forest (:mod:`glade.trace.calls`):
``MATCH (".", n0) WHERE <window> AND NOT n0.name IN [hidden]`` for the window and the
hidden functions, where the window is ``n0.end >= START + 20 ms AND n0.start <= START +
70 ms`` (times from the trace's start, with a unit), ``MATCH ("main/solve")->("*")`` for
a focus, combined with ``AND`` (and with the base query), or ``MATCH ("*")`` when nothing
is edited. Windows name times from the start and processes, functions and call paths
name functions: never node ids or a clock's absolute times, so a saved query applies to
another run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from glade.errors import GladeError
from glade.query import EVERYTHING, Query, TimeValue, col, format, is_root, parse, simplify
from glade.query.model import BaseQuery, CompoundQuery

EDIT_OPS = ("reset", "window", "clear_window", "hide", "unhide", "focus", "unfocus", "base")


@dataclass
class TimelineState:
    """What the edits of a history add up to."""

    window: dict | None = None
    hidden: list[str] = field(default_factory=list)
    focus: list[str] | None = None
    base: str | None = None


def _integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise GladeError(f"{what} must be an integer, not {value!r}")
    return int(value)


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise GladeError(f"{what} must be a non-empty string, not {value!r}")
    return value


def process_ranges(processes: Sequence[int]) -> list[list[int]]:
    """Sorted distinct process ids as inclusive ranges of consecutive ids."""
    ids = sorted({_integer(p, "a process id") for p in processes})
    ranges: list[list[int]] = []
    for p in ids:
        if ranges and ranges[-1][1] == p - 1:
            ranges[-1][1] = p
        else:
            ranges.append([p, p])
    return ranges


def check_edit(edit: Any) -> dict:
    """``edit`` if it is a well-formed timeline edit (GladeError naming what is not)."""
    if not isinstance(edit, dict) or edit.get("op") not in EDIT_OPS:
        raise GladeError(
            f"a timeline edit is a dict whose 'op' is one of {list(EDIT_OPS)}, not {edit!r}"
        )
    op = edit["op"]
    if op == "window":
        t0, t1 = (
            _integer(edit.get("t0"), "a window's t0"),
            _integer(edit.get("t1"), "a window's t1"),
        )
        if t1 < t0:
            raise GladeError(f"a window ends before it starts: {t0} > {t1}")
        processes = edit.get("processes")
        if processes is not None:
            if not isinstance(processes, list) or not processes:
                raise GladeError(
                    f"a window's processes are a non-empty list of [first, last] "
                    f"ranges or None, not {processes!r}"
                )
            for pair in processes:
                if (
                    not isinstance(pair, list | tuple)
                    or len(pair) != 2
                    or _integer(pair[0], "a process id") > _integer(pair[1], "a process id")
                ):
                    raise GladeError(f"{pair!r} is not a [first, last] range of processes")
    elif op in ("hide", "unhide"):
        _name(edit.get("name"), f"the function a {op} edit names")
    elif op == "focus":
        path = edit.get("path")
        if not isinstance(path, list) or not path:
            raise GladeError(f"a focus names a call path: a non-empty list of names, not {path!r}")
        for name in path:
            _name(name, "a name of a call path")
    elif op == "base":
        parse(_name(edit.get("query"), "a base query"))
    return edit


def replay(history: Sequence[dict]) -> TimelineState:
    """The state the edits of ``history`` make, in order."""
    state = TimelineState()
    for edit in history:
        op = edit["op"]
        if op == "reset":
            state = TimelineState()
        elif op == "window":
            state.window = {
                "t0": int(edit["t0"]),
                "t1": int(edit["t1"]),
                "processes": edit.get("processes"),
            }
        elif op == "clear_window":
            state.window = None
        elif op == "hide" and edit["name"] not in state.hidden:
            state.hidden.append(edit["name"])
        elif op == "unhide" and edit["name"] in state.hidden:
            state.hidden.remove(edit["name"])
        elif op == "focus":
            state.focus = list(edit["path"])
        elif op == "unfocus":
            state.focus = None
        elif op == "base":
            state = TimelineState(base=edit["query"])
    return state


def ranges_predicate(column: str, ranges: Sequence[Sequence[int]]):
    """The condition that integer ``column`` lies in one of the inclusive ``[first,
    last]`` ranges (a non-empty list)."""
    parts = [
        col(column) == first if first == last else (col(column) >= first) & (col(column) <= last)
        for first, last in ranges
    ]
    which = parts[0]
    for part in parts[1:]:
        which = which | part
    return which


def time_unit(ns: float) -> str:
    """The unit that writes ``ns`` nanoseconds with one to three digits before the point
    (ns below a microsecond, s from a second)."""
    size = abs(ns)
    return "s" if size >= 1e9 else "ms" if size >= 1e6 else "us" if size >= 1e3 else "ns"


def from_start(ns: int, origin: float, unit: str) -> TimeValue:
    """The absolute time ``ns`` as a time from the trace's start ``origin``, in ``unit``."""
    return TimeValue.of_ns(ns - origin, unit, from_start=True)


def window_predicate(window: dict, origin: float | None = None):
    """The condition of a window on one node of the call forest, its times written from
    the trace's start ``origin`` (ns) in one unit (absolute ns without it)."""
    t0, t1 = window["t0"], window["t1"]
    if origin is not None:
        unit = time_unit(max(abs(t0 - origin), abs(t1 - origin)))
        t0, t1 = from_start(t0, origin, unit), from_start(t1, origin, unit)
    pred = (col("end") >= t0) & (col("start") <= t1)
    ranges = window.get("processes")
    if ranges:
        pred = ranges_predicate("Process", ranges) & pred
    return pred


def path_query(path: Sequence[str]) -> Query:
    """The calls on call path ``path`` (names from a root) and everything they call
    (``MATCH ("main/solve")->("*")``)."""
    query = Query().match(".", is_root() & (col("name") == path[0]))
    for name in path[1:]:
        query = query.rel(".", col("name") == name)
    return query.rel("*")


def state_query(state: TimelineState, origin: float | None = None) -> BaseQuery | None:
    """The query of ``state`` (None when it keeps everything), its times written from the
    trace's start ``origin`` (ns; absolute ns without it)."""
    parts: list[BaseQuery] = []
    if state.base is not None and state.base != EVERYTHING:
        parts.append(parse(state.base))
    if state.focus:
        parts.append(path_query(state.focus))
    pred = None
    if state.window is not None:
        pred = window_predicate(state.window, origin)
    if state.hidden:
        hide = ~col("name").isin(list(state.hidden))
        pred = hide if pred is None else pred & hide
    if pred is not None:
        parts.append(Query().match(".", pred))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else CompoundQuery.of("and", *parts)


def query_text(state: TimelineState, origin: float) -> str:
    """The readable text of the query of ``state`` (simplified and pretty-printed), its
    times written from the trace's start ``origin`` (ns)."""
    query = state_query(state, origin)
    return EVERYTHING if query is None else format(simplify(query))


def explain_edits(history: Sequence[dict], origin: float) -> list[tuple[str, str]]:
    """Per edit of ``history``, its words and the clause it contributes, times written
    from the trace's start ``origin`` (ns)."""
    out: list[tuple[str, str]] = []
    for edit in history:
        op = edit["op"]
        if op == "window":
            clause = format(Query().match(".", window_predicate(edit, origin)))
            ranges = edit.get("processes")
            on = (
                " on processes " + ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)
                if ranges
                else ""
            )
            out.append((f"kept the calls that overlap a window{on}", clause))
        elif op == "hide":
            clause = format(Query().match(".", ~(col("name") == edit["name"])))
            out.append((f"hid {edit['name']}: its time goes to its caller", clause))
        elif op == "unhide":
            out.append((f"brought {edit['name']} back", ""))
        elif op == "focus":
            path = "/".join(edit["path"])
            out.append(
                (
                    f"focused on {path}: its calls and what they call",
                    format(path_query(edit["path"])),
                )
            )
        elif op == "base":
            out.append(("assigned a query: later edits refine it", format(parse(edit["query"]))))
        else:
            words = {"clear_window": "dropped the window", "unfocus": "dropped the focus"}
            out.append((words.get(op, "reset: dropped every edit before it"), ""))
    return out
