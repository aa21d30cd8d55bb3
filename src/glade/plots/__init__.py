"""Static plots (Bokeh figures, returned and never shown) of glade's models."""

from glade.plots.projection import plot_projection

__all__ = ["plot_projection"]
