"""The deterministic Sankey layout of a supergraph: the same input gives the same
coordinates, byte for byte.

- Back edges: a depth-first search over the call edges, from the supernodes that hold
  CCT roots in id order (then from any supernode not reached), children in id order
  (one compiled pass); an edge to a supernode on the search's current path is a back
  edge. Supernode ids are the order of first appearance in the CCT's
  pre-order, so nothing depends on hashing or on chance.
- Levels: the longest path from a root over the other call edges.
- Columns: one per level, supernodes ordered by inclusive value (largest first), then by
  name; heights proportional to the mean inclusive value, the same scale everywhere, with
  gaps, the tallest column filling [0, 1].
- Links: on the right of their source, in the order of their targets' positions (back
  edges last), squeezed when a source's outgoing flow exceeds its height (re-entries pass
  through a supernode more than once); on the left of their target below the root flow, in
  the order of their sources' positions, so call edges fill the target's height exactly.
  Re-entry edges do not count in the target's height; they end at its top, squeezed to it.
- Back edges (and re-entry edges that do not go forward) are drawn as loops below the
  columns, in bands of one thickness (their values are read on hover); loops over
  overlapping columns get different bands, so loops never overlap.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from glade.compiled import kernel

#: Share of the most crowded column's height that goes to the gaps between its nodes.
GAP_SHARE = 0.3
#: Thickness of a loop's band and gap between bands, relative to the columns' height.
LOOP_BAND = 0.01
LOOP_GAP = 0.012


@dataclass(frozen=True)
class Layout:
    """Coordinates of a supernode Sankey (see the module): per supernode its ``level``
    (the column), ``order`` in the column and vertical extent ``y0``..``y1``; per edge its
    extent on the source side (``source_y0``, ``source_y1``) and the target side
    (``target_y0``, ``target_y1``), whether it is drawn as a loop (``loop``) and the
    vertical position of the loop's lowest band (``loop_y``, NaN for other edges);
    ``height`` is the lowest point of the drawing (1 without loops)."""

    level: np.ndarray
    order: np.ndarray
    y0: np.ndarray
    y1: np.ndarray
    source_y0: np.ndarray
    source_y1: np.ndarray
    target_y0: np.ndarray
    target_y1: np.ndarray
    loop: np.ndarray
    loop_y: np.ndarray
    height: float

    @property
    def num_levels(self) -> int:
        """How many levels (columns of supernodes) the layout has."""
        return int(self.level.max()) + 1 if len(self.level) else 0

    def digest(self) -> str:
        """A SHA-256 of every coordinate's bytes (equal layouts, equal digests)."""
        digest = hashlib.sha256()
        for item in fields(self):
            digest.update(np.ascontiguousarray(getattr(self, item.name)).tobytes())
        return digest.hexdigest()


def back_edges(count: int, source: np.ndarray, target: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """Which call edges the depth-first search (see the module) finds going back to a
    supernode on its current path: an edge u -> v whose v is u or an ancestor of u in the
    search's tree. One compiled pass (:func:`_search`)."""
    if count == 0 or len(source) == 0:
        return np.zeros(len(source), dtype=bool)
    order = np.lexsort((target, source))
    ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(source, minlength=count), out=ptr[1:])
    # from the roots, then from any supernode not reached (there is none: a supernode's
    # top entries are CCT roots or hang under a call edge)
    starts = np.concatenate([np.sort(roots), np.arange(count)]).astype(np.int64)
    start, end = _search(count, ptr, target[order].astype(np.int64), starts)
    return (start[target] <= start[source]) & (start[source] < end[target])


@kernel
def _search(count, ptr, child, roots):
    """Depth-first search from ``roots`` in order (those already reached skipped),
    children in CSR order (``ptr``, ``child``): every supernode's pre-order number and the
    end (exclusive) of its subtree's numbers."""
    start = np.full(count, -1, np.int64)
    end = np.full(count, -1, np.int64)
    stack = np.empty(count, np.int64)
    cursor = np.empty(count, np.int64)
    number = 0
    for r in range(roots.size):
        root = roots[r]
        if start[root] >= 0:
            continue
        start[root] = number
        number += 1
        stack[0] = root
        cursor[0] = ptr[root]
        depth = 1
        while depth > 0:
            u = stack[depth - 1]
            k = cursor[depth - 1]
            if k == ptr[u + 1]:
                end[u] = number
                depth -= 1
                continue
            cursor[depth - 1] = k + 1
            v = child[k]
            if start[v] < 0:
                start[v] = number
                number += 1
                stack[depth] = v
                cursor[depth] = ptr[v]
                depth += 1
    return start, end


def loop_bands(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """The band of each loop spanning columns ``first``..``last``: taken in order of
    their first column (then last column, then position), each gets the lowest band whose
    loops all end before it starts (interval partitioning: no two loops of a band
    overlap, and no more bands than loops over one column). One compiled pass
    (:func:`_bands`)."""
    order = np.lexsort((np.arange(len(first)), last, first))
    return _bands(
        np.asarray(first, dtype=np.int64)[order], np.asarray(last, dtype=np.int64)[order], order
    )


@kernel
def _bands(first, last, order):
    """Bands of the loops ``order`` (spans ``first``..``last`` in that order): the lowest
    band whose last loop ends before the loop starts, else a new band."""
    band = np.zeros(first.size, np.int64)
    ends = np.empty(first.size, np.int64)
    count = 0
    for j in range(first.size):
        chosen = count
        for b in range(count):
            if ends[b] < first[j]:
                chosen = b
                break
        if chosen == count:
            count += 1
        ends[chosen] = last[j]
        band[order[j]] = chosen
    return band


def longest_path_levels(count: int, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Level of every supernode: the longest path to it over the (acyclic) edges."""
    order = np.argsort(source, kind="stable")
    ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(source, minlength=count), out=ptr[1:])
    return _longest_paths(
        count,
        ptr,
        target[order].astype(np.int64),
        np.bincount(target, minlength=count).astype(np.int64),
    )


@kernel
def _longest_paths(count, ptr, child, incoming):
    """Longest path to every node of a DAG (CSR ``ptr``, ``child``; ``incoming`` edges
    per node), in topological order (Kahn's algorithm)."""
    level = np.zeros(count, np.int64)
    waiting = incoming.copy()
    queue = np.empty(count, np.int64)
    tail = 0
    for u in range(count):
        if waiting[u] == 0:
            queue[tail] = u
            tail += 1
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(ptr[u], ptr[u + 1]):
            v = child[k]
            level[v] = max(level[v], level[u] + 1)
            waiting[v] -= 1
            if waiting[v] == 0:
                queue[tail] = v
                tail += 1
    return level


def _stack(
    owner: np.ndarray, rank_keys: tuple, start: np.ndarray, width: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Bands of ``width`` stacked on their ``owner``'s side from ``start[owner]``, in the
    order of ``rank_keys`` (lexsort keys, last is primary) within an owner."""
    order = np.lexsort((*rank_keys, owner))
    sorted_owner = owner[order]
    cumulative = np.cumsum(width[order])
    first = np.r_[True, sorted_owner[1:] != sorted_owner[:-1]] if len(order) else order
    base = np.repeat(
        cumulative[first] - width[order][first], np.diff(np.r_[np.flatnonzero(first), len(order)])
    )
    top = np.empty(len(owner))
    top[order] = start[sorted_owner] + cumulative - width[order] - base
    return top, top + width


def levels(
    count: int, has_root: np.ndarray, source: np.ndarray, target: np.ndarray, reentry: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The column of each of ``count`` supernodes and which edges are back call edges
    (see the module): what a threshold needs of the layout, without the coordinates."""
    call = ~reentry
    back_call = np.zeros(len(source), dtype=bool)
    back_call[call] = back_edges(count, source[call], target[call], np.flatnonzero(has_root))
    forward = call & ~back_call
    return longest_path_levels(count, source[forward], target[forward]), back_call


def layout(
    keys: list[str],
    inclusive: np.ndarray,
    root: np.ndarray,
    level: np.ndarray,
    back_call: np.ndarray,
    source: np.ndarray,
    target: np.ndarray,
    reentry: np.ndarray,
    value: np.ndarray,
) -> Layout:
    """The layout of supernodes ``keys`` (ids 0..count-1) with mean ``inclusive`` and
    ``root`` flows in columns ``level``, and edges ``source -> target`` with mean ``value``
    (``reentry`` marks re-entry edges, ``back_call`` back call edges: see :func:`levels`)."""
    count = len(keys)
    inclusive = np.maximum(np.nan_to_num(inclusive), 0.0)
    value = np.maximum(np.nan_to_num(value), 0.0)
    root = np.maximum(np.nan_to_num(root), 0.0)
    call = ~reentry
    key_rank = pd.Series(keys, dtype=object).rank(method="first").to_numpy(np.int64)
    order_all = np.lexsort((key_rank, -inclusive, level))
    sorted_level = level[order_all]
    column_start = np.r_[True, sorted_level[1:] != sorted_level[:-1]] if count else order_all
    position = (
        np.arange(count)
        - np.repeat(
            np.flatnonzero(column_start), np.diff(np.r_[np.flatnonzero(column_start), count])
        )
        if count
        else order_all
    )
    order = np.empty(count, dtype=np.int64)
    order[order_all] = position
    levels = int(level.max()) + 1 if count else 0
    per_column = np.bincount(level, minlength=levels)
    totals = np.bincount(level, weights=inclusive, minlength=levels)
    gap = GAP_SHARE / max(int(per_column.max()) - 1, 1) if count else 0.0
    room = 1.0 - (per_column - 1) * gap
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = float(np.min(np.where(totals > 0, room / totals, np.inf))) if count else 1.0
    if not np.isfinite(scale):
        scale = 0.0
    heights = inclusive * scale
    y0, _ = _stack(level, (order,), np.zeros(levels), heights + gap)
    y1 = y0 + heights

    drawn_back = back_call | (reentry & (level[target] <= level[source]))
    widths = value * scale
    out_total = np.bincount(source, weights=widths, minlength=count)
    with np.errstate(divide="ignore", invalid="ignore"):
        squeeze = np.where(out_total > heights, heights / out_total, 1.0)
    out_widths = widths * squeeze[source]
    source_y0, source_y1 = _stack(source, (target, y0[target], drawn_back), y0, out_widths)
    target_y0 = np.empty(len(source))
    target_y1 = np.empty(len(source))
    if call.any():
        start = y0 + root * scale
        top, bottom = _stack(
            target[call], (source[call], y0[source[call]], back_call[call]), start, widths[call]
        )
        target_y0[call], target_y1[call] = top, bottom
    if reentry.any():
        into = np.bincount(target[reentry], weights=widths[reentry], minlength=count)
        with np.errstate(divide="ignore", invalid="ignore"):
            fit = np.where(into > heights, heights / into, 1.0)
        squeezed = widths[reentry] * fit[target[reentry]]
        top, bottom = _stack(target[reentry], (source[reentry], y0[source[reentry]]), y0, squeezed)
        target_y0[reentry], target_y1[reentry] = top, bottom

    loop_y = np.full(len(source), np.nan)
    height = 1.0
    loops = np.flatnonzero(drawn_back)
    if loops.size:
        band = loop_bands(
            np.minimum(level[source[loops]], level[target[loops]]),
            np.maximum(level[source[loops]], level[target[loops]]),
        )
        loop_y[loops] = float(y1.max()) + LOOP_GAP + band * (LOOP_BAND + LOOP_GAP)
        height = max(height, float(loop_y[loops].max()) + LOOP_BAND + LOOP_GAP)
    return Layout(
        level, order, y0, y1, source_y0, source_y1, target_y0, target_y1, drawn_back, loop_y, height
    )
