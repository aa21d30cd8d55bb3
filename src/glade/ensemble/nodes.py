"""Finding an ensemble's nodes by name (Thicket's ``get_node``)."""

from __future__ import annotations

import numpy as np

from glade.errors import GladeError, MetricError
from glade.graph import Graph, Node

WHICH = ("first", "last", "all")


def get_node(graph: Graph, name: str, which: str = "first") -> Node | list[Node]:
    """The node named ``name``: the first (``which="first"``) or last (``"last"``) in
    pre-order when several are, or all of them (``"all"``, a list). A name no node
    has raises :class:`glade.errors.MetricError` (a ``KeyError``, as in Thicket)."""
    if which not in WHICH:
        raise GladeError(f"which must be 'first', 'last' or 'all', not {which!r}")
    ids = np.flatnonzero(graph.names == name)
    if not len(ids):
        raise MetricError(name, what="node")
    if which == "all":
        return [Node(graph, int(i)) for i in ids]
    return Node(graph, int(ids[0] if which == "first" else ids[-1]))
