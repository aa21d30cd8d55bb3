"""Analyses of glade's models: trace operations (``trace_*`` modules) and others."""
