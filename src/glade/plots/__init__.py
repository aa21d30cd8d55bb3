"""Static plots (Bokeh figures, returned and never shown) of glade's models."""
