"""The calling-context tree view."""

from glade.views.cct.widget import CCT, CCTSource

__all__ = ["CCT", "CCTSource"]
