"""Exact supernode and edge values of one grouping, per profile, from the CCT.

With ``group[n]`` the supernode of CCT node n:

- the *entries* of supernode g are its nodes whose parent is outside g (or that are
  roots); its *top entries* are entries with no ancestor in g;
- ``inclusive(g)`` is the sum of the inclusive values of g's top entries, and
  ``exclusive(g)`` the sum of the exclusive values of all its nodes;
- edge g1 -> g2 is the sum of the inclusive values of g2's top entries whose parent is in
  g1, so a supernode's incoming edges plus its ``root`` flow (its top entries that are
  CCT roots) sum to its inclusive value;
- an entry that is not a top entry re-enters g through another supernode (A -> B -> A):
  its value goes to a *re-entry* edge B -> A and not into ``inclusive(A)``, which already
  holds it.

Every array is ``items x profiles``, a sparse-matrix product with the ``nodes x profiles``
values of :mod:`glade.ensemble.supergraph.values`, never a loop over nodes or profiles.
Rank imbalance, ``(max - mean) / mean`` over the ranks of a profile, is computed the same
way from the per-rank rows when the profiles have ranks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from glade.ensemble.supergraph.values import CallTreeValues, RankRows
from glade.profile.grouping import outermost_in_group


@dataclass(frozen=True)
class Flows:
    """The per-profile arrays of one grouping (see the module). ``node_edge`` is the edge
    each entry node feeds (-1 for other nodes and for roots)."""

    group: np.ndarray
    entry: np.ndarray
    top: np.ndarray
    inclusive: np.ndarray
    exclusive: np.ndarray
    root: np.ndarray
    edge_source: np.ndarray
    edge_target: np.ndarray
    edge_reentry: np.ndarray
    edge_values: np.ndarray
    node_edge: np.ndarray
    inclusive_imbalance: np.ndarray | None
    edge_imbalance: np.ndarray | None


def _imbalance(item: np.ndarray, rows: RankRows, count: int, num_profiles: int) -> np.ndarray:
    """``count x profiles`` rank imbalance of the per-rank sums by item."""
    out = np.full((count, num_profiles), np.nan)
    row_item = item[rows.node]
    keep = row_item >= 0
    if not keep.any():
        return out
    width = max(rows.num_ranks, 1)
    key = (row_item[keep] * num_profiles + rows.profile[keep]) * width + rows.rank[keep]
    distinct, inverse = np.unique(key, return_inverse=True)
    sums = np.bincount(inverse, weights=rows.inclusive[keep])
    cell = distinct // width
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    cells = cell[starts]
    largest = np.maximum(np.maximum.reduceat(sums, starts), 0.0)
    mean = np.add.reduceat(sums, starts) / np.maximum(rows.ranks[cells % num_profiles], 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out.reshape(-1)[cells] = np.where(mean != 0, (largest - mean) / mean, np.nan)
    return out


def compute_flows(values: CallTreeValues, group: np.ndarray, count: int) -> Flows:
    """The flows of the grouping ``group`` (supernode index of every CCT node, ``count``
    supernodes)."""
    graph = values.graph
    parent = graph.tree_parent
    group = np.asarray(group, dtype=np.int64)
    parent_group = np.where(parent >= 0, group[np.maximum(parent, 0)], -1)
    entry = (parent < 0) | (parent_group != group)
    top = entry & outermost_in_group(graph, group)
    inclusive = values.sums("inclusive", np.where(top, group, -1), count)
    exclusive = values.sums("exclusive", group, count)
    root = values.sums("inclusive", np.where(parent < 0, group, -1), count)
    linked = np.flatnonzero(entry & (parent >= 0))
    key = (parent_group[linked] * count + group[linked]) * 2 + (~top[linked])
    distinct, inverse = np.unique(key, return_inverse=True)
    node_edge = np.full(len(group), -1, dtype=np.int64)
    node_edge[linked] = inverse
    edge_values = values.sums("inclusive", node_edge, len(distinct))
    imbalance = edge_imbalance = None
    if values.ranks is not None:
        top_group = np.where(top, group, -1)
        imbalance = _imbalance(top_group, values.ranks, count, values.num_profiles)
        edge_imbalance = _imbalance(node_edge, values.ranks, len(distinct), values.num_profiles)
    return Flows(
        group,
        entry,
        top,
        inclusive,
        exclusive,
        root,
        distinct // 2 // count,
        distinct // 2 % count,
        (distinct % 2).astype(bool),
        edge_values,
        node_edge,
        imbalance,
        edge_imbalance,
    )
