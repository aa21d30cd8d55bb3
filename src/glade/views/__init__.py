"""Interactive views (anywidget) whose edits come back to the kernel as queries."""

from glade.views.cct import CCT, CCTSource

__all__ = ["CCT", "CCTSource"]
