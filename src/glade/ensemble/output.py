"""An ensemble shown as one profile: its stats table or one profile's rows as a GraphFrame
on the ensemble's graph, and the call tree as text."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from glade.ensemble.samples import Label, flat_label
from glade.errors import GladeError, MetricError
from glade.profile.graphframe import GraphFrame

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble


def to_graphframe(ens: Ensemble, profile: Hashable | None = None) -> GraphFrame:
    """A GraphFrame on the ensemble's graph: of one ``profile`` (its rows and metrics),
    or, by default, of the stats table (one row per node, the stats columns as metrics;
    ``(header, name)`` labels joined as ``"header/name"``)."""
    if profile is None:
        stats = ens.stats
        stats.columns = [flat_label(c) for c in stats.columns]
        data = stats.drop(columns=["name"])
        metrics = list(data.columns)
        for col in ens.graph.frame_attributes:
            data[col] = ens.graph.frame_values(col)
        return GraphFrame(ens.graph, data, default_metric=metrics[0] if metrics else None)
    if profile not in ens.metadata.index:
        raise GladeError(f"no profile {profile!r} in the ensemble")
    position = ens.metadata.index.get_loc(profile)
    rows = ens.dataframe.take(np.flatnonzero(ens._row_profile == position)).droplevel("profile")
    rows.columns = [flat_label(c) for c in rows.columns]
    metadata = {str(k): v for k, v in ens.metadata.iloc[position].dropna().items()}
    return GraphFrame(
        ens.graph,
        rows,
        [flat_label(m) for m in ens.exc_metrics],
        [flat_label(m) for m in ens.inc_metrics],
        flat_label(ens.default_metric) if ens.default_metric is not None else None,
        metadata,
    )


def tree(
    ens: Ensemble,
    metrics: Label | Sequence[Label] | None = None,
    profile: Hashable | None = None,
    **kwargs: Any,
) -> str:
    """The call tree as text (see :meth:`glade.ensemble.model.Ensemble.tree`)."""
    from glade.profile.text_tree import render

    if profile is None:
        gf = to_graphframe(ens)
    else:
        gf = to_graphframe(ens.filter_profiles([profile]), profile)
    if metrics is None:
        if gf.default_metric is None:
            raise MetricError(
                "<stats column>",
                [],
                what=("stats column: compute one with glade.stats, or pass profile=; no"),
            )
        metrics = [gf.default_metric]
    elif isinstance(metrics, str | tuple):
        metrics = [metrics]
    names = [flat_label(m) for m in metrics]
    for name in names:
        if name not in gf.dataframe.columns:
            raise MetricError(name, gf.metric_columns)
    return render(gf, metric=names, **kwargs)
