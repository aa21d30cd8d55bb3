"""Readers of profile formats, one module per format (``glade.read`` picks one)."""
