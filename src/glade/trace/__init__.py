"""Traces: the events table, matching, metrics, profiles, communication, filters."""

from glade.trace.filter import Filter
from glade.trace.model import Trace

__all__ = ["Filter", "Trace"]
