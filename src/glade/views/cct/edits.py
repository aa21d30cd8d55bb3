"""The edit state of a CCT view and how edits change it (mirrors ``js/views/cct/edits.js``).

Both sides keep the same list of edits and replay it to the same state. An edit is a
small JSON-able dict naming nodes by id (the ids of the view's data):

- ``{"op": "collapse" | "expand" | "hide" | "elide" | "focus", "nodes": [ids]}``
- ``{"op": "unfocus"}``, ``{"op": "reset"}``
- ``{"op": "depth", "depth": d}``: expand to depth d: collapse every node at depth d, and
  only those (it replaces earlier collapses)
- ``{"op": "threshold", "metric": m, "value": v}``: also collapse every node whose value is
  below v (earlier collapses, an expand-to-depth's included, stay; consecutive threshold
  edits merge into one, so moving the slider back expands what it collapsed)
- ``{"op": "base", "query": text, "parts": [texts], "keep": [[start, stop], ...]}``: a query
  assigned from Python, the nodes it keeps as pre-order ranges
- ``{"op": "hide_function", "name": name}``: hide every call of a function (by name) and
  what it calls, wherever it is called (the bottom-up and flat tabs' hide)
- ``{"op": "focus_function", "name": name}``: keep only the calls of a function, their
  callers and what they call (it replaces any focus; ``unfocus`` drops it)

State is a set of flags per call path (call-path key), so nodes with equal call paths share
it, exactly as a query naming them by call path does, and the names of the functions hidden
or focused on, as a query naming them does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from glade.errors import GladeError
from glade.views.cct.calltree import ViewTree

COLLAPSED = 1
HIDDEN = 2
ELIDED = 4
FOCUS = 8
NODE_FLAGS = {"collapse": COLLAPSED, "hide": HIDDEN, "elide": ELIDED}
EDIT_OPS = (
    "collapse",
    "expand",
    "hide",
    "elide",
    "focus",
    "unfocus",
    "depth",
    "threshold",
    "base",
    "reset",
    "hide_function",
    "focus_function",
)
FUNCTION_OPS = ("hide_function", "focus_function")
NODE_OPS = ("collapse", "expand", "hide", "elide", "focus")


@dataclass(frozen=True)
class Base:
    """A query assigned to the view, as the texts of its top-level AND operands (the
    nodes it keeps matter to the front end only, which draws them)."""

    parts: tuple[str, ...]


@dataclass(frozen=True)
class EditState:
    """Flags (COLLAPSED | HIDDEN | ELIDED | FOCUS) per call-path key, the base query, and
    the names of the functions hidden and focused on (sorted)."""

    flags: np.ndarray
    base: Base | None
    hidden_names: tuple[str, ...] = ()
    focus_names: tuple[str, ...] = ()

    @property
    def focused(self) -> bool:
        """Whether a focus (on call paths or on a function) applies."""
        return bool(self.focus_names) or bool((self.flags & FOCUS).any())


def empty_state(tree: ViewTree) -> EditState:
    """No edits: every node shown."""
    return EditState(np.zeros(tree.key_count, dtype=np.uint8), None)


def _node_ids(tree: ViewTree, edit: dict) -> np.ndarray:
    nodes = edit.get("nodes")
    if not isinstance(nodes, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in nodes
    ):
        raise GladeError(f"edit {edit.get('op')!r} needs 'nodes', a list of node ids")
    ids = np.asarray(nodes, dtype=np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= tree.n):
        raise GladeError(f"edit {edit['op']!r} names a node outside 0..{tree.n - 1}")
    return ids


def check_edit(tree: ViewTree, edit: Any) -> dict:
    """``edit`` if it is a well-formed edit for ``tree``, else a GladeError saying why."""
    if not isinstance(edit, dict) or edit.get("op") not in EDIT_OPS:
        raise GladeError(f"{edit!r} is not a view edit (op must be one of {', '.join(EDIT_OPS)})")
    op = edit["op"]
    if op in NODE_OPS:
        _node_ids(tree, edit)
    elif op == "depth":
        depth = edit.get("depth")
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
            raise GladeError(f"a depth edit needs a depth >= 0, not {depth!r}")
    elif op == "threshold":
        if edit.get("metric") not in tree.values:
            raise GladeError(
                f"a threshold edit names no metric of the view: {edit.get('metric')!r}"
            )
        value = edit.get("value")
        if not isinstance(value, int | float) or isinstance(value, bool) or math.isnan(value):
            raise GladeError(f"a threshold edit needs a numeric value, not {value!r}")
    elif op in FUNCTION_OPS:
        name = edit.get("name")
        if not isinstance(name, str) or name not in tree.name_set:
            raise GladeError(f"edit {op!r} names no function of the view: {name!r}")
    elif op == "base":
        ranges = np.asarray(edit.get("keep", []), dtype=np.int64).reshape(-1, 2)
        if ranges.size and (
            ranges.min() < 0 or ranges.max() > tree.n or (ranges[:, 0] > ranges[:, 1]).any()
        ):
            raise GladeError(f"a base edit keeps ranges outside 0..{tree.n}")
        if not isinstance(edit.get("query"), str) or not isinstance(edit.get("parts"), list):
            raise GladeError("a base edit needs its query text and parts")
    return edit


def _collapse_where(tree: ViewTree, flags: np.ndarray, nodes: np.ndarray, only: bool) -> None:
    """Collapse the call paths of ``nodes`` (those with children); with ``only`` they
    become the whole collapsed set."""
    if only:
        flags &= np.uint8(~COLLAPSED & 0xFF)
    flags[tree.path_key[nodes[tree.child_count[nodes] > 0]]] |= COLLAPSED


def apply_edit(tree: ViewTree, state: EditState, edit: dict) -> EditState:
    """The state after one edit (``state`` is not changed)."""
    flags = state.flags.copy()
    base = state.base
    hidden, focus = state.hidden_names, state.focus_names
    op = edit["op"]
    if op in NODE_OPS:
        keys = tree.path_key[_node_ids(tree, edit)]
        if op in NODE_FLAGS:
            flags[keys] |= NODE_FLAGS[op]
        elif op == "expand":
            flags[keys] &= np.uint8(~COLLAPSED & 0xFF)
        else:
            flags &= np.uint8(~FOCUS & 0xFF)
            flags[keys] |= FOCUS
            focus = ()
    elif op == "hide_function":
        hidden = tuple(sorted({*hidden, edit["name"]}))
    elif op == "focus_function":
        flags &= np.uint8(~FOCUS & 0xFF)
        focus = (edit["name"],)
    elif op == "unfocus":
        flags &= np.uint8(~FOCUS & 0xFF)
        focus = ()
    elif op == "depth":
        _collapse_where(tree, flags, np.flatnonzero(tree.depth == edit["depth"]), only=True)
    elif op == "threshold":
        values = tree.values[edit["metric"]]
        with np.errstate(invalid="ignore"):
            _collapse_where(tree, flags, np.flatnonzero(values < edit["value"]), only=False)
    elif op == "base":
        flags[:] = 0
        base = Base(tuple(edit["parts"]))
        hidden, focus = (), ()
    elif op == "reset":
        flags[:] = 0
        base = None
        hidden, focus = (), ()
    else:
        raise GladeError(f"unknown edit {op!r}")
    return EditState(flags, base, hidden, focus)


def replay(tree: ViewTree, edits: Sequence[dict]) -> EditState:
    """The state after a list of edits, from no edits."""
    state = empty_state(tree)
    for edit in edits:
        state = apply_edit(tree, state, edit)
    return state


@dataclass(frozen=True)
class KeyMasks:
    """Per call-path key: ``covered`` (a strict ancestor is collapsed or hidden),
    ``in_focus`` (in a focused subtree), ``focus_below`` (at or above a focused key),
    and whether anything is focused."""

    covered: np.ndarray
    in_focus: np.ndarray
    focus_below: np.ndarray
    focused: bool


def key_masks(tree: ViewTree, flags: np.ndarray) -> KeyMasks:
    """The coverage and focus masks of ``flags`` (level by level, no recursion)."""
    count = tree.key_count
    covered = np.zeros(count, dtype=bool)
    focus = (flags & FOCUS) > 0
    in_focus = focus.copy()
    blocks = (flags & (COLLAPSED | HIDDEN)) > 0
    for level in tree.key_levels[1:]:
        parent = tree.key_parent[level]
        covered[level] = covered[parent] | blocks[parent]
        in_focus[level] |= in_focus[parent]
    focus_below = focus.copy()
    for level in tree.key_levels[:0:-1]:
        below = level[focus_below[level]]
        focus_below[tree.key_parent[below]] = True
    return KeyMasks(covered, in_focus, focus_below, bool(focus.any()))
