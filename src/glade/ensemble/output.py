"""An ensemble shown as one profile: its stats table or one profile's rows as a GraphFrame
on the ensemble's graph, and the call tree as text."""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from glade.ensemble.samples import Label, flat_label, label_list
from glade.errors import GladeError, MetricError
from glade.profile.graphframe import GraphFrame
from glade.units import merge_units, stat_unit

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble


def _as_mapping(value: Any) -> Mapping | None:
    """A profile's ``units`` metadata cell (JSON text in the ensemble's table) as a dict."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, Mapping) else None


def measured_units(ens: Ensemble) -> dict[Label, str]:
    """The unit of each measured metric the profiles agree on (their ``units``
    metadata; metrics with conflicting units have none)."""
    if "units" not in ens.metadata.columns:
        return {}
    units = merge_units(_as_mapping(cell) for cell in ens.metadata["units"].dropna())
    return {m: units[str(flat_label(m))] for m in ens._measured if str(flat_label(m)) in units}


def ensemble_units(ens: Ensemble) -> dict[Label, str]:
    """Units of the measured metrics and of the stats columns computed over them
    (``time_mean`` has the unit of ``time``, ``time_var`` its square, see
    :func:`glade.units.stat_unit`), keyed by column label."""
    units = measured_units(ens)
    by_name = sorted(((str(flat_label(m)), u) for m, u in units.items()), key=lambda p: -len(p[0]))
    for label in ens._stat_columns:
        flat = str(flat_label(label))
        for name, unit in by_name:
            if flat.startswith(name + "_"):
                derived = stat_unit(unit, flat[len(name) + 1 :])
                if derived is not None:
                    units[label] = derived
                break
    return units


def _flat_names(labels: Iterable[Label]) -> list[str]:
    """Ensemble column labels as the names of GraphFrame columns: a columnar ensemble's
    ``(header, name)`` joined, a flat ensemble's names (str) as they are."""
    return [cast(str, flat_label(label)) for label in labels]


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
        units = {flat_label(label): unit for label, unit in ensemble_units(ens).items()}
        return GraphFrame(
            ens.graph,
            data,
            default_metric=metrics[0] if metrics else None,
            metadata={"units": {m: units[m] for m in metrics if m in units}},
        )
    if profile not in ens.metadata.index:
        raise GladeError(f"no profile {profile!r} in the ensemble")
    position = ens.metadata.index.get_loc(profile)
    rows = ens.dataframe.take(np.flatnonzero(ens._row_profile == position)).droplevel("profile")
    rows.columns = [flat_label(c) for c in rows.columns]
    metadata = {str(k): v for k, v in ens.metadata.iloc[position].dropna().items()}
    recorded = _as_mapping(metadata.get("units"))
    if recorded is not None:
        metadata["units"] = dict(recorded)
    return GraphFrame(
        ens.graph,
        rows,
        _flat_names(ens.exc_metrics),
        _flat_names(ens.inc_metrics),
        cast(str, flat_label(ens.default_metric)) if ens.default_metric is not None else None,
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
    names = _flat_names(label_list(metrics))
    for name in names:
        if name not in gf.dataframe.columns:
            raise MetricError(name, gf.metric_columns)
    return render(gf, metric=names, **kwargs)
