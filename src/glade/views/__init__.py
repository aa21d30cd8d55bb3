"""Interactive views (anywidget) whose edits come back to the kernel as queries."""

from glade.views.cct import CCT, CCTSource
from glade.views.matrix import CommMatrix
from glade.views.supergraph import Supergraph
from glade.views.timeline import Timeline

__all__ = ["CCT", "CCTSource", "CommMatrix", "Supergraph", "Timeline"]
