"""A trace's call forest as its views query it, built once and shared by every view of
that trace (timeline, CCT view, comm matrix), with the node masks of the last call-level
queries: a window brushed in a linked timeline is evaluated once, not once per view.

The masks are read-only arrays: a view that needs to change one works on a copy.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict

import numpy as np

from glade.profile.graphframe import GraphFrame
from glade.query import parse, query_mask
from glade.query.engine import RowTable
from glade.trace.calls import calls_mask
from glade.trace.filter import subset
from glade.trace.model import Trace
from glade.views.base import EVERYTHING

#: How many query masks a trace's call level keeps.
MASKS = 8

_LEVELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class CallLevel:
    """The call forest of one trace (``forest``, a GraphFrame, and ``table``, what the
    query engine runs on) and the node masks of the last :data:`MASKS` queries."""

    def __init__(self, trace: Trace):
        self.trace = weakref.ref(trace)
        self.forest: GraphFrame = trace.calls()
        self.table = RowTable(self.forest.graph, self.forest.dataframe)
        self._masks: OrderedDict[str, np.ndarray | None] = OrderedDict()

    def mask(self, text: str) -> np.ndarray | None:
        """The read-only node mask of the call forest that query ``text`` keeps (None
        when it keeps everything)."""
        if text in self._masks:
            self._masks.move_to_end(text)
            return self._masks[text]
        parsed = parse(text)
        keep = None
        if str(parsed) != EVERYTHING:
            keep = query_mask(self.table, parsed)
            keep.flags.writeable = False
        self._masks[text] = keep
        if len(self._masks) > MASKS:
            self._masks.popitem(last=False)
        return keep

    def query(self, text: str) -> Trace:
        """``trace.query(text, level="calls")``, from the shared forest and mask."""
        trace = self.trace()
        keep = self.mask(text)
        if keep is None:
            keep = np.ones(len(self.forest), dtype=bool)
        return subset(trace, calls_mask(trace, self.forest, keep))


def call_level(trace: Trace) -> CallLevel:
    """The shared call level of ``trace`` (built on first use, dropped with the trace)."""
    level = _LEVELS.get(trace)
    if level is None:
        level = CallLevel(trace)
        _LEVELS[trace] = level
    return level
