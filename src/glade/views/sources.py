"""What views show of models that are not one profile: their GraphFrame form, and the
model they apply queries to."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from glade.profile.combine import remap
from glade.profile.graphframe import GraphFrame

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble


class EnsembleSource:
    """An Ensemble as a CCT view sees it: its stats table (one row per node, the stats
    columns as metrics) or one profile's values, on the ensemble's whole graph; queries
    the view emits apply to the whole ensemble (``apply()`` returns an Ensemble)."""

    def __init__(self, ensemble: Ensemble, profile: Hashable | None = None):
        self.ensemble = ensemble
        self.profile = profile

    def to_graphframe(self) -> GraphFrame:
        """The stats table, or the profile's rows (nodes it lacks show 0 for additive
        metrics and NaN for others), as a GraphFrame on the ensemble's graph."""
        ens = self.ensemble
        if self.profile is None:
            if not len(ens.stats.columns.drop("name", errors="ignore")):
                ens = ens.copy()
                from glade import stats

                stats.mean(ens)
            return ens.to_graphframe()
        gf = ens.to_graphframe(self.profile)
        node = np.asarray(gf.dataframe.index.get_level_values("node"), dtype=np.int64)
        if np.unique(node).size == len(gf.graph):
            return gf
        dense = remap(gf, gf.graph, np.arange(len(gf.graph)))
        additive = dense.exc_metrics + dense.inc_metrics
        dense.dataframe[additive] = dense.dataframe[additive].fillna(0.0)
        return dense

    def query(self, query: str, fold: bool = True) -> Any:
        """The ensemble's nodes the query keeps (see :meth:`Ensemble.query`)."""
        return self.ensemble.query(query, fold=fold)
