"""What a Dask trace computes on one partition: each function takes the pandas Trace
of the partition (:func:`glade.trace.engines.parts.local_trace`) and returns its share
of an analysis, computed by the pandas engine's own functions, small enough to send
back (arrays per function and process, per bin, per message pair, per CCT node).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from glade.trace.cct import cct_tables
from glade.trace.comm import sent_sizes
from glade.trace.engines.combine import first_calls
from glade.trace.engines.parts import call_structure_of, in_time_order, local_trace
from glade.trace.events import ENTER, TIMESTAMP
from glade.trace.filter import events_of_nodes
from glade.trace.model import Trace


def repairs(trace: Trace, unmatched: str) -> dict[str, int]:
    """How many Leaves without an Enter and Enters never left matching repairs (a
    TraceError for the first with ``unmatched="error"``)."""
    structure = call_structure_of(trace, unmatched)
    return {"orphan_leaves": int(structure.orphan_leaves.size),
            "open_enters": int(structure.open_enters.size)}


def size_counts(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sizes of the partition's sent messages and how many have each."""
    return np.unique(sent_sizes(trace), return_counts=True)


def cct_share(part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None) -> dict:
    """The CCT of partition ``part``: node ``names`` and ``parents`` (local ids), the
    timestamp and event id of each node's first call (``first_time``, ``first_id``),
    its (node, rank) ``rows`` and the ``repairs`` of its matching."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    node, frames, parents, rows = cct_tables(trace)
    calls = np.flatnonzero(trace.event_kinds() == ENTER)
    first = first_calls(node[calls], calls, len(frames))
    return {"names": frames["name"].to_numpy(dtype=object), "parents": parents,
            "first_time": trace.events[TIMESTAMP].to_numpy()[first],
            "first_id": part.index.to_numpy()[first], "rows": rows,
            "repairs": repairs(trace, "repair")}


def cct_events(trace: Trace, keep: np.ndarray) -> np.ndarray:
    """Per event of the partition: whether its CCT node (local id) is kept by ``keep``."""
    from glade.trace.cct import cct_nodes

    return events_of_nodes(cct_nodes(trace)[0], keep)
