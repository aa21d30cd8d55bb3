"""The supergraph methods of :class:`glade.Ensemble` (mixed in, so the model's module stays
about its tables)."""

from __future__ import annotations

from typing import Any

from glade.ensemble.samples import Label


class Supergraphs:
    """``supergraph`` and ``show_supergraph``, mixed into :class:`glade.Ensemble`."""

    def supergraph(
        self, by: Any = "module", metric: Label | None = None, rank_agg: str = "mean", **kwargs: Any
    ):
        """The ensemble's supergraph (CallFlow): its CCT nodes grouped ``by`` ``"name"``,
        ``"module"``, a ``{regex: module}`` mapping or a function of a frame, with exact
        per-profile values of ``metric`` and their statistics (see
        :func:`glade.ensemble.supergraph.build_supergraph` for ``target``, ``bins``,
        ``whis``)."""
        from glade.ensemble.supergraph import build_supergraph

        return build_supergraph(self, by, metric, rank_agg, **kwargs)

    def show_supergraph(
        self, by: Any = None, metric: Label | None = None, data_name: str = "ens", **kwargs: Any
    ):
        """The interactive Sankey of the supergraph (in Jupyter); its edits are queries
        on the ensemble (see :class:`glade.views.SupergraphView`). ``by=None`` groups by
        module where the frames have modules, else by name."""
        from glade.views import SupergraphView

        return SupergraphView(self, by=by, metric=metric, data_name=data_name, **kwargs)
