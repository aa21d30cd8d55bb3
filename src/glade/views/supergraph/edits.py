"""The edit state of a supergraph view and how edits change it.

An edit is a small JSON-able dict naming a supernode by its name:

- ``{"op": "hide", "supernode": g}``: remove g's CCT nodes (their cost folds into their
  callers); ``{"op": "focus", "supernode": g}``: keep the call paths through g (its
  callers and everything it calls); ``{"op": "unfocus"}``;
- ``{"op": "split", "supernode": g, "by": "entry" | "callee"}``;
- ``{"op": "threshold", "fraction": f}``: supernodes under f of the total go to "other";
- ``{"op": "by", "by": "name" | "module" | "initial"}``, ``{"op": "metric", "metric": m}``;
- ``{"op": "target", "profile": id or None}``;
- ``{"op": "diff", "a": group, "b": group}`` (a group is ``{"profiles": [ids]}`` or
  ``{"column": c, "value": v}``), ``{"op": "diff", "a": None, "b": None}`` to stop;
- ``{"op": "query", "query": text}``: a query assigned from Python; ``{"op": "reset"}``.

Hide and focus change the view's query: the state keeps the query text of each (from
``sg.query_of`` on the supergraph shown when the edit was made), and the view's query is
their conjunction. The other edits change how the result is grouped and shown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from glade.ensemble.supergraph import Supergraph as SupergraphModel
from glade.errors import GladeError
from glade.query import EVERYTHING, CompoundQuery, format, parse, simplify
from glade.query.model import BaseQuery

EDIT_OPS = (
    "hide",
    "focus",
    "unfocus",
    "split",
    "threshold",
    "by",
    "metric",
    "target",
    "diff",
    "query",
    "reset",
)
BY_CHOICES = ("name", "module", "initial")


@dataclass(frozen=True)
class ViewState:
    """What the edits made of the view: ``base`` (texts of assigned queries), ``focus``
    (query text of the call paths kept), ``hidden`` (query texts of hidden supernodes),
    ``by``, ``metric``, ``splits`` ((supernode, by) pairs in order), ``threshold``,
    ``target`` (profile id or None) and ``diff`` ((a, b) groups or None)."""

    base: tuple[str, ...] = ()
    focus: str | None = None
    hidden: tuple[str, ...] = ()
    by: str = "initial"
    metric: Hashable | None = None
    splits: tuple[tuple[str, str], ...] = ()
    threshold: float = 0.0
    target: Hashable | None = None
    diff: tuple[dict, dict] | None = None

    @cached_property
    def query(self) -> str:
        """The readable text of the query that keeps what the view shows (simplified and
        pretty-printed once per state: every edit asks for it several times)."""
        operands: list[BaseQuery] = [parse(text) for text in self.base]
        if self.focus is not None:
            operands.append(parse(self.focus))
        if self.hidden:
            removed = [parse(text) for text in self.hidden]
            operands.append(
                ~(removed[0] if len(removed) == 1 else CompoundQuery.of("or", *removed))
            )
        if not operands:
            return EVERYTHING
        return format(
            simplify(operands[0] if len(operands) == 1 else CompoundQuery("and", tuple(operands)))
        )

    @property
    def grouping(self) -> tuple:
        """What decides the base supergraph (before splits and threshold)."""
        return (self.query, self.by, self.metric)


def _text(edit: dict, field: str) -> str:
    value = edit.get(field)
    if not isinstance(value, str) or not value:
        raise GladeError(f"edit {edit['op']!r} needs {field!r}, a non-empty string")
    return value


def check_group(group: Any, which: str) -> dict:
    """A diff group: ``{"profiles": [ids]}`` or ``{"column": c, "value": v}``."""
    if (
        isinstance(group, dict)
        and set(group) == {"profiles"}
        and isinstance(group["profiles"], list)
        and group["profiles"]
    ):
        return group
    if (
        isinstance(group, dict)
        and set(group) == {"column", "value"}
        and isinstance(group["column"], str)
    ):
        return group
    raise GladeError(
        f"diff group {which} is {{'profiles': [ids]}} or {{'column': c, 'value': v}}, not {group!r}"
    )


def as_group(group: dict) -> Any:
    """A diff group as ``Supergraph.diff`` takes it."""
    return list(group["profiles"]) if "profiles" in group else {group["column"]: group["value"]}


def check_edit(edit: Any) -> dict:
    """``edit`` if it is a well-formed edit, else a GladeError saying why."""
    if not isinstance(edit, dict) or edit.get("op") not in EDIT_OPS:
        raise GladeError(
            f"{edit!r} is not a supergraph view edit (op must be one of {', '.join(EDIT_OPS)})"
        )
    op = edit["op"]
    if op in ("hide", "focus", "split"):
        _text(edit, "supernode")
    if op == "split" and edit.get("by") not in ("entry", "callee"):
        raise GladeError(f"a split is by 'entry' or 'callee', not {edit.get('by')!r}")
    elif op == "threshold":
        fraction = edit.get("fraction")
        if (
            not isinstance(fraction, int | float)
            or isinstance(fraction, bool)
            or not (0 <= fraction <= 1)
            or math.isnan(fraction)
        ):
            raise GladeError(f"a threshold is a fraction in [0, 1], not {fraction!r}")
    elif op == "by" and edit.get("by") not in BY_CHOICES:
        raise GladeError(f"by is one of {', '.join(BY_CHOICES)}, not {edit.get('by')!r}")
    elif op == "metric":
        _text(edit, "metric")
    elif op == "query":
        _text(edit, "query")
    elif op == "target" and "profile" not in edit:
        raise GladeError("a target edit needs 'profile' (an id, or None for no target)")
    elif op == "diff" and not (edit.get("a") is None and edit.get("b") is None):
        check_group(edit.get("a"), "a")
        check_group(edit.get("b"), "b")
    return edit


def _unchanged(supernode: str, by: str) -> str:
    """Why a split of ``supernode`` that leaves as many supernodes changes nothing."""
    if by == "entry":
        return (
            f"splitting {supernode!r} by entry changes nothing: all its calls enter it "
            "through one function"
        )
    return (
        f"splitting the callees of {supernode!r} changes nothing: each supernode it calls "
        "is called from it alone, through one function"
    )


def step(
    state: ViewState, edit: dict, shown: Callable[[ViewState], SupergraphModel], initial: ViewState
) -> ViewState:
    """The state after ``edit``. ``shown(state)`` is the supergraph a state shows (hide
    and focus take the query of a supernode from it; a split must name one of its
    supernodes and change it: a split leaving as many supernodes is refused, saying so)."""
    op = edit["op"]
    if op == "reset":
        return initial
    if op in ("hide", "focus", "split"):
        supergraph = shown(state)
        supernode = edit["supernode"]
        if supernode not in supergraph.supernodes:
            raise GladeError(f"no supernode {supernode!r} in the view")
        if op == "split":
            split = replace(state, splits=(*state.splits, (supernode, edit["by"])))
            if len(shown(split)) == len(supergraph):
                raise GladeError(_unchanged(supernode, edit["by"]))
            return split
        text = str(supergraph.query_of(supernode, flow=op == "focus"))
        if op == "hide":
            return replace(state, hidden=(*state.hidden, text))
        return replace(state, focus=text)
    if op == "unfocus":
        return replace(state, focus=None)
    if op == "threshold":
        return replace(state, threshold=float(edit["fraction"]))
    if op == "by":
        return replace(state, by=edit["by"], splits=())
    if op == "metric":
        return replace(state, metric=edit["metric"])
    if op == "target":
        return replace(state, target=edit["profile"])
    if op == "diff":
        pair = None if edit.get("a") is None else (edit["a"], edit["b"])
        return replace(state, diff=pair)
    # op == "query": the assigned query replaces the others (it is the whole view's query)
    return replace(state, base=(str(parse(edit["query"])),), focus=None, hidden=())


def explain_edit(edit: dict, after: ViewState) -> tuple[str, str]:
    """The words of ``edit`` and the clause it contributes (``after``: the state it makes)."""
    op = edit["op"]
    if op == "hide":
        clause = format(simplify(~parse(after.hidden[-1])))
        return f"hid {edit['supernode']}: its cost folds into its callers", clause
    if op == "focus":
        return (
            f"focused on {edit['supernode']}: the call paths through it",
            format(simplify(parse(after.focus))),
        )
    if op == "query":
        return "assigned a query: it replaces the others", format(parse(edit["query"]))
    words = {
        "unfocus": "dropped the focus",
        "split": f"split {edit.get('supernode')} by {edit.get('by')}",
        "threshold": f"put supernodes under {edit.get('fraction')} of the total into other",
        "by": f"grouped by {edit.get('by')}",
        "metric": f"showed {edit.get('metric')}",
        "target": f"marked profile {edit.get('profile')}",
        "diff": "coloured by a difference of groups",
    }
    return words.get(op, "reset: dropped every edit before it"), ""
