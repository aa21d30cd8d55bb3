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
hidden functions, ``MATCH (".", n0)->...->(".", nk)->("*") WHERE n0 IS ROOT AND
n0.name = ...`` for a focus, combined with ``AND`` (and with the base query), or
``MATCH ("*")`` when nothing is edited. Windows name times and processes, functions
and call paths name functions: never node ids, so a saved query applies to another
run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from glade.errors import GladeError
from glade.query import EVERYTHING, Query, col, is_root, parse
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


def window_predicate(window: dict):
    """The condition of a window on one node of the call forest."""
    pred = (col("end") >= window["t0"]) & (col("start") <= window["t1"])
    ranges = window.get("processes")
    if ranges:
        pred = ranges_predicate("Process", ranges) & pred
    return pred


def path_query(path: Sequence[str]) -> Query:
    """The calls on call path ``path`` (names from a root) and everything they call."""
    query = Query().match(".", is_root() & (col("name") == path[0]))
    for name in path[1:]:
        query = query.rel(".", col("name") == name)
    return query.rel("*")


def state_query(state: TimelineState) -> BaseQuery | None:
    """The query of ``state`` (None when it keeps everything)."""
    parts: list[BaseQuery] = []
    if state.base is not None and state.base != EVERYTHING:
        parts.append(parse(state.base))
    if state.focus:
        parts.append(path_query(state.focus))
    pred = None
    if state.window is not None:
        pred = window_predicate(state.window)
    if state.hidden:
        hide = ~col("name").isin(list(state.hidden))
        pred = hide if pred is None else pred & hide
    if pred is not None:
        parts.append(Query().match(".", pred))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else CompoundQuery.of("and", *parts)


def query_text(state: TimelineState) -> str:
    """The canonical text of the query of ``state``."""
    query = state_query(state)
    return EVERYTHING if query is None else str(query)
