"""The comm matrix view of a trace (sender x receiver heatmap with margins)."""

from glade.views.matrix.widget import CommMatrix

__all__ = ["CommMatrix"]
