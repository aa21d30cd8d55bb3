"""The query engine: vectorized predicate masks and a dynamic program over
(node, query position) states.

Each predicate becomes one boolean mask over all rows (or over nodes, when its
columns are constant per node), reduced per node with ``rank_mode``. Matching
then propagates two state sets over the graph: F (a valid match prefix ends
here, at this query position) forward along edges, and B (a valid match suffix
starts here) backward; a node lies on a match exactly when some position is in
both. Each state is visited once, so the cost is O((nodes + edges) x query
nodes) on trees, DAGs and graphs with cycles alike; no path is ever enumerated.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from glade.compiled import kernel
from glade.errors import GladeError, QueryError
from glade.graph import Graph
from glade.query import exact
from glade.query.model import BaseQuery, CompoundQuery, Query
from glade.query.parse import parse
from glade.query.predicates import (
    Always,
    And,
    CallablePredicate,
    Compare,
    IsIn,
    IsSpecial,
    Not,
    Or,
    Predicate,
    StringTest,
    Structure,
    TimeValue,
)
from glade.query.regex import compile_regex

RANK_MODES = ("any", "all")
#: A pattern without any character special to RE2: it matches only itself.
_LITERAL = re.compile(r"[A-Za-z0-9_]*")
_MAX_STATES = 400_000_000


def reduce_rows(passed: np.ndarray, row_node: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Per node: true when any (``mode="any"``) or all of its rows passed; nodes without
    rows are false either way."""
    if mode not in RANK_MODES:
        raise QueryError(f"rank_mode must be 'any' or 'all', not {mode!r}")
    if mode == "any":
        out = np.zeros(n, dtype=bool)
        out[row_node[passed]] = True
        return out
    has_rows = np.zeros(n, dtype=bool)
    has_rows[row_node] = True
    failed = np.zeros(n, dtype=bool)
    failed[row_node[~passed]] = True
    return has_rows & ~failed


class _Mask:
    """A boolean mask over nodes (``per_node``) or over rows."""

    __slots__ = ("per_node", "values")

    def __init__(self, values: np.ndarray, per_node: bool):
        self.values = values
        self.per_node = per_node


#: The property that is a node's depth (roots are 0) where the data has no such column.
DEPTH = "depth"
#: The column whose smallest value is the origin of times written from ``START``.
START_COLUMN = "start"


class RowTable:
    """What the engine reads of a model: its graph and its rows (one or more per node).

    ``origin`` is the time (ns) that ``START`` means in the query's times: by default
    the smallest value of the ``start`` column (a trace's call forest: its first call
    or event)."""

    def __init__(self, graph: Graph, dataframe: pd.DataFrame, origin: int | float | None = None):
        self.graph = graph
        self.dataframe = dataframe
        self._origin: int | float | None = origin
        self.n = len(graph)
        self.row_node = np.asarray(dataframe.index.get_level_values("node"), dtype=np.int64)
        self.has_rows = np.zeros(self.n, dtype=bool)
        self.has_rows[self.row_node] = True
        self.one_per_node = len(dataframe) == self.n and bool(
            np.array_equal(self.row_node, np.arange(self.n))
        )
        self._columns: dict[str, tuple[np.ndarray, bool]] = {}
        self._factorized: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def available(self) -> list[str]:
        """Every name a predicate may use."""
        names = list(self.dataframe.columns)
        names += [c for c in self.graph.frame_attributes if c not in names]
        names += [c for c in self.dataframe.index.names if c != "node"]
        names += [DEPTH] if DEPTH not in names else []
        return [str(n) for n in names]

    @property
    def origin(self) -> int | float:
        """What ``START`` means in times: see the class."""
        if self._origin is None:
            numbers = None
            if START_COLUMN in self.available():
                numbers = _numeric(np.asarray(self.column(START_COLUMN)[0]))
            if numbers is not None and not len(numbers):
                # no calls (a trace of instants, or of Leaves without their Enters): no
                # time selects anything, whatever START is
                self._origin = 0
                return self._origin
            if numbers is None or not np.isfinite(numbers).any():
                raise QueryError(
                    "a time from START needs a numeric 'start' column (a trace's calls)"
                )
            low = float(np.nanmin(numbers))
            self._origin = int(low) if low.is_integer() else low
        return self._origin

    def column(self, name: str) -> tuple[np.ndarray, bool]:
        """Values of column ``name`` and whether they are per node (else per row)."""
        if name in self._columns:
            return self._columns[name]
        if name in self.graph.frame_attributes:
            found = (self.graph.frame_values(name), True)
        elif name in self.dataframe.columns:
            values = self.dataframe[name]
            if isinstance(values, pd.DataFrame):
                raise QueryError(f"column {name!r} is ambiguous: the dataframe has it twice")
            found = (values.to_numpy(), self.one_per_node)
        elif name in self.dataframe.index.names and name != "node":
            found = (self.dataframe.index.get_level_values(name).to_numpy(), self.one_per_node)
        elif name == DEPTH:
            found = (np.asarray(self.graph.depth), True)
        else:
            raise QueryError(
                f"no column named {name!r}; available: "
                + ", ".join(repr(c) for c in self.available())
            )
        self._columns[name] = found
        return found

    def factorized(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Codes (-1 for missing) and distinct non-missing values of a column."""
        if name not in self._factorized:
            values, _ = self.column(name)
            codes, uniques = pd.factorize(np.asarray(values, dtype=object))
            self._factorized[name] = (codes, np.asarray(uniques, dtype=object))
        return self._factorized[name]

    def to_rows(self, mask: _Mask) -> np.ndarray:
        """``mask`` per dataframe row (a per-node mask repeated on each node's rows)."""
        return mask.values[self.row_node] if mask.per_node else mask.values

    def to_nodes(self, mask: _Mask, rank_mode: str) -> np.ndarray:
        """``mask`` per node: a per-row mask reduced over each node's rows by
        ``rank_mode``; nodes without rows never pass."""
        if mask.per_node:
            return mask.values & self.has_rows
        return reduce_rows(mask.values, self.row_node, self.n, rank_mode)


# ---------------------------------------------------------------- predicates
def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _on_uniques(table: RowTable, column: str, test) -> _Mask:
    """Apply ``test`` to each distinct value of a column, then spread to every row."""
    codes, uniques = table.factorized(column)
    _, per_node = table.column(column)
    hit = np.fromiter((bool(test(u)) for u in uniques), dtype=bool, count=len(uniques))
    hit = np.append(hit, False)
    return _Mask(hit[codes], per_node)


def _numeric(values: np.ndarray) -> np.ndarray | None:
    """The values as float64 when the column is numeric (bools included), else None."""
    if values.dtype.kind in "iufb":
        return values.astype(np.float64, copy=False)
    return None


_PY_OPS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _compare(table: RowTable, pred: Compare) -> _Mask:
    values, per_node = table.column(pred.column)
    value = pred.value
    if isinstance(value, TimeValue):
        value = value.ns + table.origin if value.from_start else value.ns
        if _numeric(values) is None:
            return _on_uniques(
                table,
                pred.column,
                lambda u: _is_number(u) and not math.isnan(u) and _PY_OPS[pred.op](u, value),
            )
    op = _PY_OPS[pred.op]
    numbers = _numeric(values)
    if isinstance(value, str):
        if numbers is not None:
            return _Mask(np.zeros(len(values), dtype=bool), per_node)
        return _on_uniques(table, pred.column, lambda u: isinstance(u, str) and op(u, value))
    if numbers is not None:
        out = exact.compare(values, pred.op, value)
        if values.dtype.kind == "f":
            out &= ~np.isnan(values)
        return _Mask(out, per_node)
    if isinstance(value, bool):
        return _on_uniques(
            table, pred.column, lambda u: isinstance(u, bool | np.bool_) and op(bool(u), value)
        )
    return _on_uniques(
        table, pred.column, lambda u: _is_number(u) and not math.isnan(u) and op(u, value)
    )


def _string_test(table: RowTable, pred: StringTest) -> _Mask:
    values, per_node = table.column(pred.column)
    if _numeric(values) is not None:
        return _Mask(np.zeros(len(values), dtype=bool), per_node)
    pattern = pred.pattern
    if pred.test == "regex":
        regex = compile_regex(pattern)
        if _LITERAL.fullmatch(pattern):  # matches exactly the equal strings
            codes, uniques = table.factorized(pred.column)
            hit = np.append(np.asarray(uniques == pattern, dtype=bool), False)
            return _Mask(hit[codes], per_node)
        return _on_uniques(table, pred.column, regex.fullmatch)
    method = {"startswith": str.startswith, "endswith": str.endswith, "contains": str.__contains__}[
        pred.test
    ]
    return _on_uniques(table, pred.column, lambda u: isinstance(u, str) and method(u, pattern))


def _isin(table: RowTable, pred: IsIn) -> _Mask:
    values, per_node = table.column(pred.column)
    numbers = _numeric(values)
    if numbers is not None:
        return _Mask(exact.isin(values, pred.values), per_node)
    strings = {v for v in pred.values if isinstance(v, str)}
    others = [v for v in pred.values if not isinstance(v, str)]

    def member(u: Any) -> bool:
        if isinstance(u, str):
            return u in strings
        return any(type(u) is type(v) and u == v for v in others) or (
            _is_number(u) and any(_is_number(v) and u == v for v in others)
        )

    return _on_uniques(table, pred.column, member)


def _special(table: RowTable, pred: IsSpecial) -> _Mask:
    values, per_node = table.column(pred.column)
    numbers = _numeric(values)
    if numbers is not None:
        if pred.kind == "inf":
            return _Mask(np.isinf(numbers), per_node)
        return _Mask(np.isnan(numbers), per_node)
    missing = pd.isna(values)
    if pred.kind == "none":
        return _Mask(np.asarray(missing, dtype=bool), per_node)
    if pred.kind == "nan":
        out = np.zeros(len(values), dtype=bool)
        where = np.flatnonzero(missing)
        out[where] = [isinstance(v, float | np.floating) for v in values[where]]
        return _Mask(out, per_node)
    return _on_uniques(table, pred.column, lambda u: _is_number(u) and math.isinf(u))


def _structure(table: RowTable, pred: Structure) -> _Mask:
    graph = table.graph
    if pred.kind == "leaf":
        return _Mask(graph.num_children == 0, True)
    out = np.zeros(table.n, dtype=bool)
    out[graph.root_ids] = True
    return _Mask(out, True)


def _callable(table: RowTable, pred: CallablePredicate, rank_mode: str) -> _Mask:
    """Call the function once per node: with its row, or its rows when it has several."""
    df = table.dataframe
    out = np.zeros(table.n, dtype=bool)
    function = pred.function
    try:
        if table.one_per_node:
            result = df.apply(function, axis=1) if len(df) else []
            out[:] = np.asarray(result, dtype=bool)
            return _Mask(out, True)
        for nid, rows in df.groupby(level="node", sort=True):
            result = function(rows)
            if np.ndim(result) == 0:
                out[nid] = bool(result)
            else:
                passed = np.asarray(result, dtype=bool)
                out[nid] = passed.all() if rank_mode == "all" else passed.any()
    except GladeError:
        raise
    except Exception as exc:
        raise QueryError(f"a predicate function raised {type(exc).__name__}: {exc}") from exc
    return _Mask(out, True)


def _combine(table: RowTable, masks: list[_Mask], reducer) -> _Mask:
    if all(m.per_node for m in masks):
        return _Mask(reducer([m.values for m in masks]), True)
    return _Mask(reducer([table.to_rows(m) for m in masks]), False)


def evaluate(table: RowTable, pred: Predicate, rank_mode: str, cache: dict) -> _Mask:
    """The mask of ``pred`` (per node where its columns allow, else per row)."""
    # repr tells 1 from True and 1.0, which compare equal as Python values
    key = ("callable", id(pred.function)) if isinstance(pred, CallablePredicate) else repr(pred)
    if key in cache:
        return cache[key]
    if isinstance(pred, Always):
        mask = _Mask(np.ones(table.n, dtype=bool), True)
    elif isinstance(pred, Compare):
        mask = _compare(table, pred)
    elif isinstance(pred, StringTest):
        mask = _string_test(table, pred)
    elif isinstance(pred, IsIn):
        mask = _isin(table, pred)
    elif isinstance(pred, IsSpecial):
        mask = _special(table, pred)
    elif isinstance(pred, Structure):
        mask = _structure(table, pred)
    elif isinstance(pred, And):
        parts = [evaluate(table, p, rank_mode, cache) for p in pred.items]
        mask = _combine(table, parts, lambda arrays: np.logical_and.reduce(arrays))
    elif isinstance(pred, Or):
        parts = [evaluate(table, p, rank_mode, cache) for p in pred.items]
        mask = _combine(table, parts, lambda arrays: np.logical_or.reduce(arrays))
    elif isinstance(pred, Not):
        inner = evaluate(table, pred.item, rank_mode, cache)
        mask = _Mask(~inner.values, inner.per_node)
    elif isinstance(pred, CallablePredicate):
        mask = _callable(table, pred, rank_mode)
    else:
        raise QueryError(f"{pred!r} is not a predicate")
    cache[key] = mask
    return mask


# ------------------------------------------------------------------ matching
def _pack(flags: np.ndarray) -> np.ndarray:
    """Boolean (k, m) rows as (k, ceil(m / 64)) uint64 bit sets: position j is bit j % 64
    of word j // 64."""
    k, m = flags.shape
    packed = np.packbits(flags, axis=1, bitorder="little")  # zero-padded to whole bytes
    words = np.zeros((k, -(-m // 64) * 8), dtype=np.uint8)
    words[:, : packed.shape[1]] = packed
    return words.view("<u8").astype(np.uint64)


def _pack_masks(masks: list[np.ndarray]) -> np.ndarray:
    """Node masks (one per query position) as (nodes, words) bit sets, as :func:`_pack`
    packs rows, one position at a time (no nodes x positions matrix is ever built)."""
    out = np.zeros((len(masks[0]), -(-len(masks) // 64)), dtype=np.uint64)
    for j, mask in enumerate(masks):
        out[:, j // 64] |= mask.astype(np.uint64) << np.uint64(j % 64)
    return out


def _longest_run(flags: np.ndarray) -> int:
    """Length of the longest run of consecutive true values."""
    edges = np.flatnonzero(np.diff(np.r_[0, flags.astype(np.int8), 0]))
    return int((edges[1::2] - edges[::2]).max()) if len(edges) else 0


def _shift(bits: np.ndarray, distance: int) -> np.ndarray:
    """Bit sets with every position moved up by ``distance`` (down when negative);
    positions moved past either end are dropped."""
    words = bits.shape[1]
    whole, part = divmod(abs(distance), 64)
    out = np.zeros_like(bits)
    if whole >= words:
        return out
    up, down = np.uint64(part), np.uint64(64 - part)
    if distance > 0:
        source = bits[:, : words - whole]
        out[:, whole:] = source << up
        if part:
            out[:, whole + 1 :] |= source[:, :-1] >> down
    else:
        source = bits[:, whole:]
        out[:, : words - whole] = source >> up
        if part:
            out[:, : words - whole - 1] |= source[:, 1:] << down
    return out


class _Move:
    """Moves sets of query positions along one edge of a path: from position j a child
    may be at j (when j is a ``*``), at j + 1, or further on past ``*`` positions that
    match zero nodes (``direction=-1``: the same, from a child back to its parent).

    Skipping zero-length ``*`` runs is a flood through runs of star positions, done in
    log2(longest run) doubling steps, so a move costs O(positions / 64 x log) per set
    and building it O(positions): a query of 10^5 steps is as cheap to set up as 10.
    """

    def __init__(self, stars: np.ndarray, direction: int):
        self.direction = direction
        self.stars = _pack(stars[None, :])
        self.runs: list[tuple[int, np.ndarray]] = []
        longest = _longest_run(stars)
        run, distance = self.stars, 1
        while distance <= longest:
            self.runs.append((distance, run))
            run = run & _shift(run, -direction * distance)
            distance *= 2

    def __call__(self, sets: np.ndarray) -> np.ndarray:
        reach = _shift(sets, self.direction)
        for distance, run in self.runs:
            reach |= _shift(reach & run, self.direction * distance)
        return reach | (sets & self.stars)


@kernel
def _shift_row(source: np.ndarray, distance: int, out: np.ndarray) -> None:
    """:func:`_shift` of one bit set (a row of words) into ``out``."""
    words = source.size
    whole, part = abs(distance) // 64, abs(distance) % 64
    up, down = np.uint64(part), np.uint64(64 - part)
    for k in range(words):
        out[k] = np.uint64(0)
    if whole >= words:
        return
    if distance > 0:
        for k in range(whole, words):
            value = source[k - whole] << up
            if part and k - whole - 1 >= 0:
                value |= source[k - whole - 1] >> down
            out[k] = value
    else:
        for k in range(words - whole):
            value = source[k + whole] >> up
            if part and k + whole + 1 < words:
                value |= source[k + whole + 1] << down
            out[k] = value


@kernel
def _move_out(
    u,
    state,
    pending,
    allowed,
    direction,
    stars,
    run_distance,
    run_bits,
    ptr,
    idx,
    position,
    sweep,
    queued,
    stack,
    top,
    delta,
    reach,
    masked,
    moved,
):
    """Move the positions ``u`` gained since it was last handled along its edges; a target
    that gains positions goes on the stack unless the sweep (at ``sweep``; -1 once it is
    over) has yet to reach it. Returns the new stack top."""
    words = delta.size
    empty = True
    for k in range(words):
        delta[k] = pending[u, k]
        pending[u, k] = np.uint64(0)
        if delta[k]:
            empty = False
    if empty:
        return top
    _shift_row(delta, direction, reach)
    for r in range(run_distance.size):
        for k in range(words):
            masked[k] = reach[k] & run_bits[r, k]
        _shift_row(masked, direction * run_distance[r], moved)
        for k in range(words):
            reach[k] |= moved[k]
    for k in range(words):
        reach[k] |= delta[k] & stars[k]
    for e in range(ptr[u], ptr[u + 1]):
        v = idx[e]
        gained = False
        for k in range(words):
            fresh = reach[k] & allowed[v, k] & ~state[v, k]
            if fresh:
                state[v, k] |= fresh
                pending[v, k] |= fresh
                gained = True
        if gained and not queued[v] and (sweep < 0 or position[v] <= sweep):
            queued[v] = True
            stack[top] = v
            top += 1
    return top


@kernel
def _propagate_kernel(init, allowed, direction, stars, run_distance, run_bits, ptr, idx, order):
    """:func:`_propagate` as one compiled pass. Each node keeps the positions it gained
    but has not yet moved on ("pending"); moving is distributive over unions of
    positions, so moving only those reaches the same least fixed point. Nodes are first
    swept in ``order`` (pre-order for moves to children, its reverse for moves to
    parents), so on a tree every node is handled once, after all its sources; a node
    that gains positions behind the sweep (an edge against ``order`` in a DAG or a
    cycle) goes on a stack, drained after the sweep."""
    n, words = init.shape
    state = init.copy()
    pending = init.copy()
    position = np.empty(n, dtype=np.int64)
    for i in range(n):
        position[order[i]] = i
    queued = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    top = 0
    delta = np.empty(words, dtype=np.uint64)
    reach = np.empty(words, dtype=np.uint64)
    masked = np.empty(words, dtype=np.uint64)
    moved = np.empty(words, dtype=np.uint64)
    for i in range(n):
        top = _move_out(
            order[i],
            state,
            pending,
            allowed,
            direction,
            stars,
            run_distance,
            run_bits,
            ptr,
            idx,
            position,
            i,
            queued,
            stack,
            top,
            delta,
            reach,
            masked,
            moved,
        )
    while top > 0:
        top -= 1
        u = stack[top]
        queued[u] = False
        top = _move_out(
            u,
            state,
            pending,
            allowed,
            direction,
            stars,
            run_distance,
            run_bits,
            ptr,
            idx,
            position,
            -1,
            queued,
            stack,
            top,
            delta,
            reach,
            masked,
            moved,
        )
    return state


def _propagate(
    init: np.ndarray, allowed: np.ndarray, move: _Move, ptr: np.ndarray, idx: np.ndarray
) -> np.ndarray:
    """Least set of states containing ``init`` and closed under moving along the CSR
    edges (ptr, idx) with ``move``, within ``allowed`` (all as packed bit sets).

    One compiled pass over the nodes (:func:`_propagate_kernel`): its cost grows with
    nodes and edges, never with depth, so a 10^5-deep chain costs what a bushy tree of
    the same size does."""
    n = init.shape[0]
    order = np.arange(n, dtype=np.int64)
    if move.direction < 0:
        order = order[::-1].copy()
    distances = np.array([d for d, _ in move.runs], dtype=np.int64)
    runs = (
        np.concatenate([r for _, r in move.runs])
        if move.runs
        else np.zeros((0, init.shape[1]), dtype=np.uint64)
    )
    return _propagate_kernel(
        np.ascontiguousarray(init),
        np.ascontiguousarray(allowed),
        move.direction,
        np.ascontiguousarray(move.stars[0]),
        distances,
        np.ascontiguousarray(runs),
        np.asarray(ptr, dtype=np.int64),
        np.asarray(idx, dtype=np.int64),
        order,
    )


def match_plain(
    graph: Graph, steps: list[tuple[bool, np.ndarray]], kept: np.ndarray | None = None
) -> np.ndarray:
    """Nodes on at least one match of the query positions ``steps`` ((is_star,
    node mask) pairs, '+' and integers already expanded); with ``kept`` (a flag per
    position), only the nodes a match puts at a kept position."""
    n, m = len(graph), len(steps)
    if n == 0:
        return np.zeros(0, dtype=bool)
    if m == 1:  # a path of one position: its nodes are exactly those its predicate keeps
        return steps[0][1].astype(bool, copy=True)
    singles = sum(not star for star, _ in steps)
    if graph.is_tree() and singles > int(graph.depth.max()) + 1:
        return np.zeros(n, dtype=bool)
    if n * m > _MAX_STATES:
        raise QueryError(f"the query has {m} steps: too many for a graph of {n} nodes")
    stars = np.array([star for star, _ in steps], dtype=bool)
    allowed = _pack_masks([mask for _, mask in steps])
    all_stars_before = np.r_[True, np.logical_and.accumulate(stars)[:-1]]
    all_stars_after = np.r_[np.logical_and.accumulate(stars[::-1])[::-1][1:], True]
    forward = _propagate(
        allowed & _pack(all_stars_before[None, :]),
        allowed,
        _Move(stars, 1),
        *graph.children_csr(),
    )
    backward = _propagate(
        allowed & _pack(all_stars_after[None, :]),
        allowed,
        _Move(stars, -1),
        *graph.parents_csr(),
    )
    both = forward & backward
    if kept is not None:
        both &= _pack(np.asarray(kept, dtype=bool)[None, :])
    return both.any(axis=1)


def _expand(query: Query, table: RowTable, rank_mode: str, cache: dict):
    """The query positions (is_star, node mask) and, for each, its query node."""
    steps = []
    owner: list[int] = []
    for i, node in enumerate(query.nodes):
        mask = table.to_nodes(evaluate(table, node.predicate, rank_mode, cache), rank_mode)
        q = node.quantifier
        if q == ".":
            added = [(False, mask)]
        elif q == "*":
            added = [(True, mask)]
        elif q == "+":
            added = [(False, mask), (True, mask)]
        else:
            added = [(False, mask)] * int(q)
        steps += added
        owner += [i] * len(added)
    return steps, np.asarray(owner, dtype=np.int64)


def query_mask(
    table: RowTable, query: BaseQuery, rank_mode: str = "any", cache: dict | None = None
) -> np.ndarray:
    """Boolean mask of the nodes a query selects in a table.

    Parameters
    ----------
    table : glade.query.engine.RowTable
        The graph and the rows the predicates read.
    query : BaseQuery
        A parsed query.
    rank_mode : {"any", "all"}, default "any"
        As for :func:`match_nodes`.
    cache : dict, optional
        Predicate results shared between the parts of a compound query.

    Returns
    -------
    numpy.ndarray
        One bool per node of the graph.

    Raises
    ------
    QueryError
        When the query is empty, names a missing column, or ``rank_mode`` is neither.
    """
    if rank_mode not in RANK_MODES:
        raise QueryError(f"rank_mode must be 'any' or 'all', not {rank_mode!r}")
    cache = {} if cache is None else cache
    if isinstance(query, Query):
        if not query.nodes:
            raise QueryError("the query is empty")
        steps, owner = _expand(query, table, rank_mode, cache)
        kept = None if query.returns is None else np.isin(owner, query.returns)
        return match_plain(table.graph, steps, kept)
    if not isinstance(query, CompoundQuery):
        raise QueryError(f"{query!r} is not a query")
    parts = [query_mask(table, q, rank_mode, cache) for q in query.queries]
    if query.op == "and":
        return np.logical_and.reduce(parts)
    if query.op == "or":
        return np.logical_or.reduce(parts)
    if query.op == "xor":
        return np.logical_xor.reduce(parts)
    return ~parts[0] & table.has_rows


def match_nodes(model: Any, query: Any, rank_mode: str = "any") -> np.ndarray:
    """The ids of the nodes of a model that a query selects.

    Parameters
    ----------
    model : GraphFrame or Ensemble
        Anything with ``graph`` and ``dataframe``.
    query : Query, CompoundQuery, str or list
        The query in any of its three forms.
    rank_mode : {"any", "all"}, default "any"
        With several rows per node, a node satisfies a predicate when any of its rows does,
        or all of them.

    Returns
    -------
    numpy.ndarray
        The node ids, ascending.

    Raises
    ------
    QuerySyntaxError
        When the text does not parse.
    QueryError
        When the query names a missing column, or is otherwise invalid.
    """
    table = RowTable(model.graph, model.dataframe)
    return np.flatnonzero(query_mask(table, parse(query), rank_mode))
