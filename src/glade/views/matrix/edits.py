"""The edits of a comm matrix view and the call-level query they make.

Edits (the dicts of the view's ``history``):

- ``{"op": "select", "senders": [[first, last], ...], "receivers": [[first, last], ...]}``:
  the messages from those processes to those (inclusive ranges of process ids: a cell,
  or a brushed block); a new selection replaces the previous one;
- ``{"op": "clear_selection"}``;
- ``{"op": "filter", "tags": [...] | None, "communicators": [...] | None, "t0": ns | None,
  "t1": ns | None}``: count only the messages with those tags and communicators whose
  send lies in [t0, t1] (None: no condition: a message belongs to the window it was
  sent in, as in Vampir, even when it is received after t1); replaces the filter;
- ``{"op": "clear_filter"}``; ``{"op": "reset"}``: drop everything before it.

The query is a call-level query of the call forest (:mod:`glade.trace.calls`) that
matches the message instants: the sends (``MpiSend``, ``MpiIsend``, ...) on the senders
whose ``Partner`` is a receiver and the receives on the receivers whose ``Partner`` is a
sender, with the filter's tags, communicators and send times (the forest's ``sent``
column, which a receive takes from its matched send, so a message crossing the window's
edge keeps both events), so that ``trace.query(view.query, level="calls")`` holds the
events of those messages. It names processes, tags and times from the trace's start
(``n0.sent >= START + 2 ms``), never event rows or absolute times, so it applies to
another run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from glade.errors import GladeError
from glade.query import Query, col, format, simplify
from glade.trace.calls import SENT
from glade.trace.events import RECEIVE_NAMES, SEND_NAMES
from glade.trace.matrix.index import MessageFilter
from glade.views.timeline.edits import (
    EVERYTHING,
    from_start,
    process_ranges,
    ranges_predicate,
    time_unit,
)

EDIT_OPS = ("reset", "select", "clear_selection", "filter", "clear_filter")


@dataclass
class MatrixState:
    """What the edits of a history add up to: the selected senders and receivers (id
    ranges; None when nothing is selected) and the filter."""

    senders: list[list[int]] | None = None
    receivers: list[list[int]] | None = None
    filter: MessageFilter = field(default_factory=MessageFilter)


def _integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise GladeError(f"{what} must be an integer, not {value!r}")
    return int(value)


def _ranges(value: Any, what: str) -> list[list[int]]:
    if not isinstance(value, list) or not value:
        raise GladeError(
            f"the {what} of a selection are a non-empty list of [first, last] "
            f"ranges of process ids, not {value!r}"
        )
    for pair in value:
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or _integer(pair[0], "a process id") > _integer(pair[1], "a process id")
        ):
            raise GladeError(f"{pair!r} is not a [first, last] range of process ids")
    return [[int(a), int(b)] for a, b in value]


def _id_list(value: Any, what: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not value:
        raise GladeError(f"{what} are a non-empty list of integers or None, not {value!r}")
    return tuple(sorted({_integer(v, what) for v in value}))


def edit_filter(edit: dict) -> MessageFilter:
    """The filter a ``filter`` edit sets."""
    t0, t1 = edit.get("t0"), edit.get("t1")
    window = None
    if t0 is not None or t1 is not None:
        if t0 is None or t1 is None:
            raise GladeError("a time window needs both t0 and t1 (ns)")
        window = (_integer(t0, "a window's t0"), _integer(t1, "a window's t1"))
        if window[1] < window[0]:
            raise GladeError(f"a window ends before it starts: {window[0]} > {window[1]}")
    return MessageFilter(
        _id_list(edit.get("tags"), "tags"),
        _id_list(edit.get("communicators"), "communicators"),
        window,
    )


def check_edit(edit: Any) -> dict:
    """``edit`` if it is a well-formed comm matrix edit (GladeError naming what is not)."""
    if not isinstance(edit, dict) or edit.get("op") not in EDIT_OPS:
        raise GladeError(
            f"a comm matrix edit is a dict whose 'op' is one of {list(EDIT_OPS)}, not {edit!r}"
        )
    if edit["op"] == "select":
        _ranges(edit.get("senders"), "senders")
        _ranges(edit.get("receivers"), "receivers")
    elif edit["op"] == "filter":
        edit_filter(edit)
    return edit


def replay(history: Sequence[dict]) -> MatrixState:
    """The state the edits of ``history`` make, in order."""
    state = MatrixState()
    for edit in history:
        op = edit["op"]
        if op == "reset":
            state = MatrixState()
        elif op == "select":
            state.senders = _ranges(edit["senders"], "senders")
            state.receivers = _ranges(edit["receivers"], "receivers")
        elif op == "clear_selection":
            state.senders = state.receivers = None
        elif op == "filter":
            state.filter = edit_filter(edit)
        elif op == "clear_filter":
            state.filter = MessageFilter()
    return state


def select_edit(senders: Sequence[int], receivers: Sequence[int]) -> dict:
    """The edit selecting the messages from process ids ``senders`` to ``receivers``."""
    return {
        "op": "select",
        "senders": process_ranges(list(senders)),
        "receivers": process_ranges(list(receivers)),
    }


def _side(
    names: tuple[str, ...],
    owners: list[list[int]] | None,
    partners: list[list[int]] | None,
    flt: MessageFilter,
    origin: float,
):
    """The condition on the message instants of one side (sends or receives)."""
    pred = (col("type") == "instant") & col("name").isin(list(names))
    pred = pred & (ranges_predicate("Partner", partners) if partners else col("Partner") >= 0)
    if owners:
        pred = pred & ranges_predicate("Process", owners)
    if flt.tags is not None:
        pred = pred & col("Tag").isin(list(flt.tags))
    if flt.communicators is not None:
        pred = pred & col("Communicator").isin(list(flt.communicators))
    if flt.window is not None:
        t0, t1 = flt.window
        unit = time_unit(max(abs(t0 - origin), abs(t1 - origin)))
        pred = (
            pred
            & (col(SENT) >= from_start(t0, origin, unit))
            & (col(SENT) <= from_start(t1, origin, unit))
        )
    return pred


def query_text(state: MatrixState, origin: float) -> str:
    """The readable call-level query of the messages ``state`` selects (all messages
    that pass its filter when nothing is selected; everything when nothing is edited),
    its times written from the trace's start ``origin`` (ns)."""
    if state.senders is None and state.filter.empty:
        return EVERYTHING
    sends = _side(SEND_NAMES, state.senders, state.receivers, state.filter, origin)
    receives = _side(RECEIVE_NAMES, state.receivers, state.senders, state.filter, origin)
    return format(simplify(Query().match(".", sends | receives)))


def selection_text(state: MatrixState, origin: float) -> str:
    """The query of the selected messages ("" when nothing is selected)."""
    return "" if state.senders is None else query_text(state, origin)


def explain_edits(history: Sequence[dict], origin: float) -> list[tuple[str, str]]:
    """Per edit of ``history``, its words and the query of the messages the view selects
    after it, times written from the trace's start ``origin`` (ns)."""
    out: list[tuple[str, str]] = []
    for i, edit in enumerate(history):
        op = edit["op"]
        state = replay(history[: i + 1])
        if op == "select":
            words = (
                f"selected the messages from processes {_listed(edit['senders'])} "
                f"to processes {_listed(edit['receivers'])}"
            )
        elif op == "filter":
            words = "counted only the messages that pass a filter"
        else:
            others = {
                "clear_selection": "dropped the selection",
                "clear_filter": "dropped the filter",
            }
            words = others.get(op, "reset: dropped every edit before it")
        text = query_text(state, origin)
        out.append((words, "" if text == EVERYTHING else text))
    return out


def _listed(ranges: list[list[int]]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)
