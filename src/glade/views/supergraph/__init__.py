"""The supergraph view: a Sankey of an ensemble's supergraph whose edits are queries."""

from glade.views.supergraph.widget import Supergraph, selection_query

__all__ = ["Supergraph", "selection_query"]
