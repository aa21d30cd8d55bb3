"""The query of a CCT view's state, in its readable form.

With P(X) the call path of node X, a call-path literal such as ``("main/solve")`` (see
:mod:`glade.views.cct.calltree`), an edit removes:

- collapse X: desc(X) = ``MATCH ("main/X")->("+", d) RETURN d``, the descendants of X
- hide X: sub(X) = ``MATCH ("main/X", x)->("*", d) RETURN x, d``, X and its descendants
- elide X: elem(X) = ``MATCH ("main/X", x) RETURN x``, X alone

(on a graph that is not a tree, where a node can lie at several depths, each of them
also subtracts the nodes of P(parent X): ``{...} AND NOT {MATCH ("main")}``), and a focus
on F keeps ``P(F)->("*")`` (F's subtree and its callers). Edits of a function, by name
(the bottom-up and flat tabs), are conditions on the name, wherever the function is
called: hiding functions removes ``MATCH (".", f)->("*") WHERE f.name IN [...]`` and a
focus on function F keeps ``MATCH ("*")->(".", f)->("*") WHERE f.name = "F"``.

When every node at depth d is collapsed (or hidden, or out of the focus), their collapses
(two or more) are one condition on the tree: ``MATCH (n) WHERE n.depth <= d``. The query
is the AND of the base query's operands, the focus (an OR over focused nodes or a focused
function), the depth and ``NOT`` of the OR of the removed sets, simplified by
:func:`glade.query.simplify` (``IN`` lists for siblings) and rendered by glade.query's
renderer; ``MATCH ("*")`` when nothing is edited. Parts that other parts make redundant
are dropped first, so one state always gives one text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from glade.errors import GladeError
from glade.query import CompoundQuery, Query, col, format, parse, simplify
from glade.query.engine import DEPTH
from glade.query.model import BaseQuery
from glade.query.paths import equals
from glade.query.predicates import And, IsIn, is_root
from glade.units import format_value
from glade.views.cct.calltree import ViewTree
from glade.views.cct.edits import (
    COLLAPSED,
    ELIDED,
    FOCUS,
    HIDDEN,
    NODE_OPS,
    EditState,
    apply_edit,
    empty_state,
    key_masks,
)

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


def depth_cut(tree: ViewTree, state: EditState, parts: list[tuple[int, str]]) -> int | None:
    """The depth d when the collapses of ``parts`` at depth d (the shallowest, two or
    more of them) remove exactly the nodes deeper than d that the rest of the state
    keeps: on a tree whose data has no ``depth`` column, every call path at depth d with
    children is collapsed, hidden, covered or out of the focus. None otherwise."""
    desc = [key for key, kind in parts if kind == "desc"]
    if not desc or not tree.graph.is_tree() or not tree.depth_is_structural:
        return None
    depths = tree.depth[tree.key_rep[desc]]
    d = int(depths.min())
    if int((depths == d).sum()) < 2:  # one collapse reads better as itself
        return None
    keys = tree.key_levels[d]
    keys = keys[tree.key_has_children[keys]]
    flags = state.flags[keys]
    masks = key_masks(tree, state.flags)
    blocked = ((flags & (COLLAPSED | HIDDEN)) > 0) | masks.covered[keys]
    if masks.focused:
        blocked |= ~(masks.in_focus[keys] | masks.focus_below[keys])
    return d if bool(blocked.all()) else None


def part_query(tree: ViewTree, key: int, kind: str) -> BaseQuery:
    """The set of nodes one part removes (``kind`` is "desc", "elem" or "sub")."""
    node = int(tree.key_rep[key])
    parent = int(tree.parent[node])
    own = tree.path_query(node)
    last = len(own) - 1
    if kind == "desc":
        below = own.rel("+").returning(last + 1)
        return below if tree.graph.is_tree() else CompoundQuery.of("and", below, ~own)
    if kind == "sub":
        return tree.subtree_query(node)
    if parent < 0 or tree.graph.is_tree():
        return own.returning(last)
    return CompoundQuery.of("and", own.returning(last), ~tree.path_query(parent))


def function_query(names: Sequence[str], callers: bool = False) -> Query:
    """Every call of the named functions and what they call (with ``callers``, their
    callers too): ``MATCH (".", f)->("*") WHERE f.name = "MPI_Wait"``.

    Parameters
    ----------
    names : sequence of str
        Function names (at least one).
    callers : bool, default False
        Also match the callers of each call (a focus keeps them).

    Returns
    -------
    Query
        The query, with an ``IN`` list for several names.

    Examples
    --------
    >>> print(function_query(["MPI_Wait"]))
    MATCH (".", n0)->("*") WHERE n0.name = "MPI_Wait"
    >>> print(function_query(["solve"], callers=True))
    MATCH ("*")->(".", n1)->("*") WHERE n1.name = "solve"
    """
    condition = equals("name", names[0]) if len(names) == 1 else IsIn("name", tuple(names))
    query = Query().match("*").rel(".", condition) if callers else Query().match(".", condition)
    return query.rel("*")


def base_parts(query: BaseQuery) -> list[str]:
    """The texts of the top-level AND operands of a canonical query (itself when it is
    not an AND)."""
    if isinstance(query, CompoundQuery) and query.op == "and":
        return [str(q) for q in query.queries]
    return [str(query)]


def _union(queries: list[BaseQuery]) -> BaseQuery:
    return queries[0] if len(queries) == 1 else CompoundQuery.of("or", *queries)


def state_query(tree: ViewTree, state: EditState) -> BaseQuery:
    """The query that keeps exactly the nodes the state keeps, in its readable form."""
    parts, focus = normalize(tree, state)
    operands: list[BaseQuery] = []
    if state.base is not None:
        operands += [parse(text) for text in state.base.parts]  # parse caches texts
    if focus:
        operands.append(_union([tree.path_query(int(tree.key_rep[k]), "*") for k in focus]))
    if state.focus_names:
        operands.append(function_query(state.focus_names, callers=True))
    cut = depth_cut(tree, state, parts)
    if cut is not None:
        operands.append(Query().match(".", col(DEPTH) <= cut))
        parts = [
            (key, kind)
            for key, kind in parts
            if not (kind == "desc" and tree.depth[tree.key_rep[key]] == cut)
        ]
    removed = [part_query(tree, key, kind) for key, kind in parts]
    if state.hidden_names:
        removed.append(function_query(state.hidden_names))
    if removed:
        operands.append(~_union(removed))
    if not operands:
        return Query().match("*")
    query = operands[0] if len(operands) == 1 else CompoundQuery("and", tuple(operands))
    return simplify(query)


def query_text(tree: ViewTree, state: EditState) -> str:
    """The state's query as a view shows it: readable, pretty-printed when long."""
    return format(state_query(tree, state))


def selection_query(paths: Sequence[Sequence[str]]) -> BaseQuery:
    """The nodes at the given call paths (names from a root), e.g. a CCT view's
    ``selected_paths``: the last node of each path, not its callers. On a trace's call
    forest it selects the calls on those call paths."""
    parts: list[BaseQuery] = []
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


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def explain_edits(
    tree: ViewTree,
    history: Sequence[dict],
    selected: Callable[[BaseQuery], int],
    units: Mapping[str, str | None] | None = None,
) -> list[tuple[str, str]]:
    """Per edit of ``history``, its words and the clause it contributes; ``selected(q)``
    counts the nodes a query selects on the view's data; ``units`` gives the unit of a
    metric a threshold is written in."""
    out: list[tuple[str, str]] = []
    for edit in history:
        op = edit["op"]
        if op in NODE_OPS:
            for key in sorted(set(tree.path_key[np.asarray(edit["nodes"], dtype=np.int64)])):
                out.append(_explain_node(tree, op, int(key), selected))
        elif op == "depth":
            depth = edit["depth"]
            deeper = int((tree.depth > depth).sum())
            out.append(
                (
                    f"expanded to depth {depth}: hides the {deeper} nodes deeper than {depth}",
                    str(Query().match(".", col(DEPTH) <= depth)),
                )
            )
        elif op == "threshold":
            state = apply_edit(tree, empty_state(tree), edit)
            covered = int(key_masks(tree, state.flags).covered[tree.path_key].sum())
            out.append(
                (
                    f"collapsed every node whose {edit['metric']} is below "
                    f"{format_value(edit['value'], (units or {}).get(edit['metric']))}: "
                    f"hides {_plural(covered, 'node')}",
                    "",
                )
            )
        elif op == "base":
            out.append(("assigned a query: later edits refine it", format(parse(edit["query"]))))
        elif op == "hide_function":
            query = function_query([edit["name"]])
            count = _plural(selected(query), "node")
            words = f"hid every call of {edit['name']} and what it calls: {count}"
            out.append((words, format(~query)))
        elif op == "focus_function":
            query = function_query([edit["name"]], callers=True)
            kept = _plural(selected(query), "node")
            words = f"focused on {edit['name']}: keeps its calls, their callers and callees, {kept}"
            out.append((words, format(query)))
        elif op == "unfocus":
            out.append(("dropped the focus", ""))
        else:
            out.append(("reset: dropped every edit before it", ""))
    return out


def _explain_node(
    tree: ViewTree, op: str, key: int, selected: Callable[[BaseQuery], int]
) -> tuple[str, str]:
    node = int(tree.key_rep[key])
    path = "/".join(str(name) for name in tree.node_names[tree.path_ids(node)])
    if op == "expand":
        return f"expanded {path}: shows its children again", ""
    if op == "focus":
        query: BaseQuery = tree.path_query(node, "*")
        kept = _plural(selected(query), "node")
        words = f"focused on {path}: keeps its subtree and its callers, {kept}"
    elif op == "collapse":
        query = part_query(tree, key, "desc")
        words = f"collapsed {path}: hides its {_plural(selected(query), 'descendant')}"
    elif op == "hide":
        query = tree.subtree_query(node)
        below = selected(query) - 1
        words = f"hid {path}: hides it and its {_plural(below, 'descendant')}"
    else:
        query = part_query(tree, key, "elem")
        words = f"elided {path}: hides it, its children move up to its caller"
    return words, format(simplify(query if op == "focus" else ~query))
