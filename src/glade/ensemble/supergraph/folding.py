"""The values of a folded query, derived from the values of the whole ensemble.

``ens.query(q, fold=True)`` keeps the nodes ``q`` matches: removed nodes are bypassed,
siblings with equal frames merged (rows of one profile summed, missing values skipped),
the inclusive values of kept nodes kept and exclusive values recomputed from them
(``inclusive - sum of the children's inclusive``, where a cell's inclusive value was
measured). With one row per node and profile and both metrics measured, the
supergraph's ``nodes x profiles`` matrices of that result follow from those of ``ens``
and the kept nodes alone:

- the graph is ``ens.graph.squash(keep)`` (the graph the query builds);
- the inclusive matrix is the sum of the kept nodes' rows per new node (one sparse
  product, summing in node order as the row merge does, so the values are the same
  bit for bit), and so is which cells were measured;
- the exclusive matrix is the inclusive one minus its children's sums on the new graph,
  in measured cells (0 elsewhere, as a missing value is everywhere in a supergraph).

So the supergraph view answers a hide or focus in the time of a graph squash, not of
rebuilding the ensemble's tables. Rank rows (reduced by ``rank_agg`` after the merge:
a mean over ranks does not commute with the merge), a metric derived from its partner,
and sparse matrices are not derived this way: :func:`folded_values` returns None and
the caller queries the ensemble.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from glade.ensemble.supergraph.values import CallTreeValues
from glade.graph import children_sums


def folded_values(values: CallTreeValues, keep: np.ndarray) -> CallTreeValues | None:
    """The values of ``ens.query(q, fold=True)`` for ``values`` of ``ens`` and ``keep``,
    the nodes ``q`` matches (a boolean mask over ``ens.graph``); None where they cannot
    be derived (see the module)."""
    if values.inclusive_present is None:
        return None
    graph, new_id = values.graph.squash(keep)
    old = np.flatnonzero(new_id >= 0)
    merge = sp.csr_matrix(
        (np.ones(old.size), (new_id[old], old)), shape=(len(graph), len(values.graph))
    )
    merge.sort_indices()
    inclusive = np.asarray(merge @ values.inclusive)
    present = np.asarray(merge @ values.inclusive_present.astype(np.float64)) > 0
    exclusive = np.where(present, inclusive - children_sums(graph.tree_parent, inclusive), 0.0)
    return replace(
        values, graph=graph, inclusive=inclusive, exclusive=exclusive, inclusive_present=present
    )
