"""Interactive views (anywidget) whose edits come back to the kernel as queries."""

import warnings
from typing import Any

from glade.views.cct import CCT, CCTSource
from glade.views.matrix import CommMatrix
from glade.views.supergraph import SupergraphView
from glade.views.timeline import Timeline


def __getattr__(name: str) -> Any:
    """``glade.views.Supergraph``, the old name of :class:`SupergraphView` (the supergraph
    itself, the model, is :class:`glade.ensemble.supergraph.Supergraph`)."""
    if name == "Supergraph":
        warnings.warn(
            "glade.views.Supergraph is now glade.views.SupergraphView (the model "
            "is glade.ensemble.supergraph.Supergraph)",
            DeprecationWarning,
            stacklevel=2,
        )
        return SupergraphView
    raise AttributeError(f"module 'glade.views' has no attribute {name!r}")


__all__ = ["CCT", "CCTSource", "CommMatrix", "SupergraphView", "Timeline"]
