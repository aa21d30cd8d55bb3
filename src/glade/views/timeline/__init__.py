"""The timeline view of a trace."""

from glade.views.timeline.widget import Timeline

__all__ = ["Timeline"]
