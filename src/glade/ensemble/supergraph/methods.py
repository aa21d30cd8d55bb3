"""The supergraph methods of :class:`glade.Ensemble` (mixed in, so the model's module stays
about its tables)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from glade.ensemble.samples import Label

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble


class Supergraphs:
    """``supergraph`` and ``show_supergraph``, mixed into :class:`glade.Ensemble`."""

    def supergraph(
        self, by: Any = "module", metric: Label | None = None, rank_agg: str = "mean", **kwargs: Any
    ):
        """The ensemble's supergraph (CallFlow, exact): CCT nodes grouped into supernodes.

        Parameters
        ----------
        by : str, dict or callable, default "module"
            ``"name"``, ``"module"``, a ``{regex: supernode}`` mapping or a function of
            a frame (a dict of frame attributes) returning the supernode's name.
        metric : str, optional
            The metric (default: the ensemble's default metric).
        rank_agg : {"mean", "sum", "min", "max"}, default "mean"
            How a node's rows over ranks reduce to one value per profile.
        **kwargs
            ``target``, ``bins``, ``whis`` (see
            :func:`glade.ensemble.supergraph.build_supergraph`).

        Returns
        -------
        glade.ensemble.supergraph.Supergraph
            Its ``nodes`` and ``edges`` tables, per-profile values and statistics.

        Raises
        ------
        GladeError
            On a call graph with shared nodes (supergraphs need calling-context trees).

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(6, 40, seed=1))
        >>> sg = ens.supergraph(by="name", metric="time")
        >>> "inclusive_mean" in sg.nodes.columns
        True
        """
        from glade.ensemble.supergraph import build_supergraph

        return build_supergraph(cast("Ensemble", self), by, metric, rank_agg, **kwargs)

    def show_supergraph(
        self, by: Any = None, metric: Label | None = None, data_name: str = "ens", **kwargs: Any
    ):
        """The interactive Sankey of the supergraph, in Jupyter.

        Parameters
        ----------
        by, metric
            As for :meth:`supergraph`; ``by=None`` groups by module where the frames have
            modules, else by name (Caliper and Thicket profiles have none).
        data_name : str, default "ens"
            The ensemble's name in the code the view writes (``view.code()``).
        **kwargs
            Other options of :class:`glade.views.SupergraphView`.

        Returns
        -------
        glade.views.SupergraphView
            The view; its edits are queries on the ensemble (``view.apply()``).
        """
        from glade.views import SupergraphView

        return SupergraphView(
            cast("Ensemble", self), by=by, metric=metric, data_name=data_name, **kwargs
        )
