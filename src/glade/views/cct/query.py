"""The canonical query of a CCT view's state (mirrors ``js/views/cct/query.js``).

With P(X) the call path of node X (see :mod:`glade.views.cct.calltree`), an edit removes:

- collapse X: desc(X) = ``{P(X)->("+")} AND {NOT {P(X)}}``, the descendants of X
- hide X: sub(X) = ``{P(X)->("*")} AND {NOT {P(parent X)}}`` (``P(X)->("*")`` for a root)
- elide X: elem(X) = ``{P(X)} AND {NOT {P(parent X)}}`` (``P(X)`` for a root)

and a focus on F keeps ``P(F)->("*")`` (F's subtree and its callers). The query is the
AND of the base query's operands, the focus (an OR over focused nodes) and ``NOT`` of
the OR of the removed sets, rendered by glade.query's renderer; ``MATCH ("*")`` when
nothing is edited. Parts that other parts make redundant are dropped first, so one state
always gives one text.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from glade.errors import GladeError
from glade.query import CompoundQuery, Query, parse
from glade.query.model import BaseQuery
from glade.query.paths import equals
from glade.query.predicates import And, is_root
from glade.views.cct.calltree import ViewTree
from glade.views.cct.edits import COLLAPSED, ELIDED, FOCUS, HIDDEN, EditState, key_masks

# Order of the removed sets of one node (collapse and elide can both apply to it).
PART_KINDS = ("desc", "elem", "sub")


def normalize(tree: ViewTree, state: EditState) -> tuple[list[tuple[int, str]], list[int]]:
    """The (key, kind) parts that change what is kept, in pre-order of call paths, and
    the focused keys. A part is dropped when other parts already remove everything it
    removes: inside a collapsed or hidden subtree, outside the focus, collapsing a leaf,
    collapsing or eliding a hidden node, a focus inside another focus."""
    flags = state.flags
    masks = key_masks(tree, flags)
    parent = tree.key_parent
    focused = (flags & FOCUS) > 0
    inner = (parent >= 0) & masks.in_focus[np.maximum(parent, 0)]
    focus = np.flatnonzero(focused & ~inner).tolist()
    active = (flags != 0) & ~masks.covered
    if masks.focused:
        active &= masks.in_focus | masks.focus_below
    hidden = active & ((flags & HIDDEN) > 0)
    shown = active & ~hidden
    kinds = {
        "desc": np.flatnonzero(shown & ((flags & COLLAPSED) > 0) & tree.key_has_children),
        "elem": np.flatnonzero(shown & ((flags & ELIDED) > 0)),
        "sub": np.flatnonzero(hidden),
    }
    parts = [(int(k), kind) for kind, keys in kinds.items() for k in keys]
    parts.sort(key=lambda part: (part[0], PART_KINDS.index(part[1])))
    return parts, focus


def part_query(tree: ViewTree, key: int, kind: str) -> BaseQuery:
    """The set of nodes one part removes (``kind`` is "desc", "elem" or "sub")."""
    node = int(tree.key_rep[key])
    parent = int(tree.parent[node])
    if kind == "desc":
        own = tree.path_query(node)
        return CompoundQuery.of("and", own.rel("+"), ~own)
    if kind == "sub":
        return tree.subtree_query(node)
    own = tree.path_query(node)
    return own if parent < 0 else CompoundQuery.of("and", own, ~tree.path_query(parent))


def base_parts(query: BaseQuery) -> list[str]:
    """The texts of the top-level AND operands of a canonical query (itself when it is
    not an AND)."""
    if isinstance(query, CompoundQuery) and query.op == "and":
        return [str(q) for q in query.queries]
    return [str(query)]


def _union(queries: list[BaseQuery]) -> BaseQuery:
    return queries[0] if len(queries) == 1 else CompoundQuery.of("or", *queries)


def state_query(tree: ViewTree, state: EditState) -> BaseQuery:
    """The query that keeps exactly the nodes the state keeps."""
    parts, focus = normalize(tree, state)
    operands: list[BaseQuery] = []
    if state.base is not None:
        operands += [parse(text) for text in state.base.parts]  # parse caches texts
    if focus:
        operands.append(_union([tree.path_query(int(tree.key_rep[k]), "*") for k in focus]))
    if parts:
        operands.append(~_union([part_query(tree, key, kind) for key, kind in parts]))
    if not operands:
        return Query().match("*")
    return operands[0] if len(operands) == 1 else CompoundQuery("and", tuple(operands))


def query_text(tree: ViewTree, state: EditState) -> str:
    """The canonical string-dialect text of the state's query."""
    return str(state_query(tree, state))


def selection_query(paths: Sequence[Sequence[str]]) -> BaseQuery:
    """The nodes at the given call paths (names from a root), e.g. a CCT view's
    ``selected_paths``: the last node of each path, not its callers. On a trace's call
    forest it selects the calls on those call paths."""
    parts = []
    for path in paths:
        steps = Query().match(".", And.of(is_root(), equals("name", path[0])))
        for name in path[1:]:
            steps = steps.rel(".", equals("name", name))
        if len(path) == 1:
            parts.append(steps)
        else:
            parent = Query(steps.nodes[:-1])
            parts.append(CompoundQuery.of("and", steps, ~parent))
    if not parts:
        raise GladeError("an empty selection selects no node")
    return parts[0] if len(parts) == 1 else CompoundQuery.of("or", *parts)
