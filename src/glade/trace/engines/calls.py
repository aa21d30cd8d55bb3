"""The call forest of a Dask trace, kept on the workers: :class:`DaskCalls`.

Every call and instant lives on one process, so each partition of the events makes
the forest of its processes (:func:`forest_part`): the pandas engine's
:func:`glade.trace.calls.call_forest` on the partition's Trace, whose receives take
the time of their send from the partition's own message pairs (the pairs are
partitioned by receiver, see :mod:`glade.trace.engines.messages`) and whose calls take
their ``waiting time`` and ``critical path`` from the wait states and the critical path
of the whole trace (computed on a worker). The forest tables stay partitioned as the
events are, with each node's parent named by its event id (:data:`PARENT_EVENT`), until
:meth:`DaskCalls.compute` puts them in the pandas engine's node order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from glade.trace.calls import EVENT
from glade.trace.critical_path import add_forest_columns
from glade.trace.engines.combine import merge_forests
from glade.trace.engines.parts import compute_all, in_time_order, local_trace
from glade.trace.engines.tasks import forest_with_sends, send_times_of

#: The column of a partition's forest naming each node's parent by its event id (the
#: Enter of the enclosing call; -1 for a root).
PARENT_EVENT = "parent event"


def forest_part(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    received: pd.DataFrame | None,
    waits: tuple[pd.DataFrame, pd.DataFrame],
) -> pd.DataFrame:
    """The call forest table of partition ``part`` (``event``: event ids), ``sent`` of
    its receives from its received pairs ``received`` (see
    :func:`glade.trace.engines.tasks.forest_with_sends`), ``waiting time`` and
    ``critical path`` from ``waits`` (the whole trace's wait states and critical path),
    and :data:`PARENT_EVENT`."""
    part = in_time_order(part)
    ids = part.index.to_numpy()
    forest = forest_with_sends(local_trace(part, metadata, t_end), ids, send_times_of(received))
    table = forest.dataframe
    table[EVENT] = ids[table[EVENT].to_numpy()]
    add_forest_columns(table, *waits)
    parent = forest.graph.tree_parent
    table[PARENT_EVENT] = np.where(parent >= 0, table[EVENT].to_numpy()[np.maximum(parent, 0)], -1)
    return table


class DaskCalls:
    """The call forest of a DaskTrace (see :meth:`glade.trace.engines.DaskTrace.calls`),
    computed on the workers: ``dataframe`` is a Dask DataFrame partitioned as the
    trace's events, each partition the forest of its processes (the columns of
    :meth:`glade.Trace.calls`, ``event`` holding event ids, and :data:`PARENT_EVENT`;
    indexed by the node's number within its partition). Only :meth:`compute` gathers.

    Examples
    --------
    >>> from glade.datasets import synthetic_trace
    >>> run = synthetic_trace(4, 3).to_dask(2)
    >>> calls = run.calls()                       # nothing computed yet
    >>> waiting = calls.dataframe["waiting time"].sum()   # a lazy reduction
    >>> int(waiting.compute()) == int(run.compute().calls().dataframe["waiting time"].sum())
    True
    >>> calls.compute().dataframe.equals(run.compute().calls().dataframe)
    True
    """

    def __init__(
        self, dataframe: dd.DataFrame, categories: pd.Index | None, metadata: Mapping[str, Any]
    ):
        """The forest whose partitions are ``dataframe``'s, for a trace whose ``Name``
        categories are ``categories`` (None: not categorical) and metadata ``metadata``."""
        self.dataframe = dataframe
        self._categories = categories
        self._metadata = dict(metadata)

    def __repr__(self) -> str:
        return f"<glade.DaskCalls: {self.dataframe.npartitions} partitions>"

    @property
    def npartitions(self) -> int:
        """The number of partitions of the forest."""
        return self.dataframe.npartitions

    def compute(self):
        """The forest as the pandas engine's GraphFrame (see :meth:`glade.Trace.calls`),
        nodes in its order (location, then pre-order); ``event`` holds event ids.

        Returns
        -------
        GraphFrame
            The call forest, gathered on the client.
        """
        pieces = []
        for table in compute_all(self.dataframe.to_delayed(), "call forests"):
            parent = pd.Index(table[EVENT].to_numpy()).get_indexer(table[PARENT_EVENT].to_numpy())
            pieces.append((table.drop(columns=PARENT_EVENT), parent, {}))
        return merge_forests(pieces, self._categories, self._metadata)
