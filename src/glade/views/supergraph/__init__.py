"""The supergraph view: a Sankey of an ensemble's supergraph whose edits are queries."""

from glade.views.supergraph.widget import SupergraphView, selection_query

__all__ = ["SupergraphView", "selection_query"]
