"""Moving values between an ensemble's data and its stats table, and building an
ensemble from stats tables (Thicket's ``move_metrics_to_statsframe`` and
``from_statsframes``).

Both directions stay fresh: a profile's values in the stats table are a statistics
recipe, and a stats column repeated on the data rows is a derived column whose
function computes the statistic again, so every operation recomputes them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Self, cast

import numpy as np

from glade.ensemble.samples import Label, Recipe, compute, label_list, make_recipe
from glade.errors import GladeError, MetricError

if TYPE_CHECKING:
    from glade.ensemble.derived import DerivedData as _Host
    from glade.ensemble.model import Ensemble
else:
    _Host = object


class StatsColumn:
    """The derived-column function of a stats column on the data rows: computes the
    column's statistic on the ensemble it is given, then repeats each node's value on
    the node's rows."""

    def __init__(self, recipe: Recipe, column: Label):
        self.recipe = recipe
        self.column = column

    def __call__(self, ens: Ensemble) -> np.ndarray:
        """The column on ``ens``'s data rows."""
        values = np.asarray(compute(ens.samples(), self.recipe).columns[self.column])
        return values[ens._row_node]

    def __repr__(self) -> str:
        return f"<stats column {self.column!r} of {self.recipe.describe()}>"


def _common_metadata(ens: Ensemble) -> dict:
    """The metadata columns with one value throughout ``ens``, and how many profiles."""
    record = {}
    for column in ens.metadata.columns:
        values = ens.metadata[column].dropna().unique()
        if len(values) == 1:
            record[column] = values[0].item() if hasattr(values[0], "item") else values[0]
    record["profiles"] = ens.num_profiles
    return record


class StatsTables(_Host):
    """Between data and stats tables, mixed into :class:`glade.Ensemble`; see
    :mod:`glade.ensemble.stats_tables`."""

    def metrics_to_stats(
        self, metrics: Label | Sequence[Label], profile: Hashable | None = None
    ) -> Self:
        """Put one profile's values of ``metrics`` in the stats table.

        Thicket's ``move_metrics_to_statsframe``: columns ``"<metric>_<profile>"``, the mean
        of the profile's rows where the ensemble keeps ranks. A statistics recipe: after a
        filter that removes the profile, the column is missing.

        Parameters
        ----------
        metrics : str or sequence of str
            The metric columns.
        profile : optional
            The profile id (may be left out when the ensemble holds one profile).

        Returns
        -------
        Ensemble
            This ensemble (changed in place).

        Raises
        ------
        GladeError
            When ``profile`` is missing or not a profile of the ensemble.
        MetricError
            When a metric is not a column.
        """
        if profile is None:
            if self.num_profiles != 1:
                raise GladeError(
                    f"the ensemble holds {self.num_profiles} profiles: "
                    "name the one whose values to move with profile="
                )
            profile = self.profiles[0]
        elif profile not in self.metadata.index:
            raise GladeError(f"no profile {profile!r} in the ensemble")
        chosen = label_list(metrics)
        for metric in chosen:
            if metric not in self.metric_columns:
                raise MetricError(metric, self.metric_columns)
        self._add_recipe(make_recipe("profile", chosen, profile=profile, name=str(profile)))
        return self

    def stats_to_data(self, columns: Label | Sequence[Label]) -> Self:
        """Repeat stats ``columns`` on every data row of their node, as derived columns.

        E.g. to compute ``time / time_mean`` per profile, or to move a statistic into a plot of
        the data. Each is computed again, from its statistic, after every operation.

        Parameters
        ----------
        columns : str or sequence of str
            Stats columns.

        Returns
        -------
        Ensemble
            This ensemble (changed in place).

        Raises
        ------
        MetricError
            When a column is not a stats column.
        """
        chosen = label_list(columns)
        made = {}
        for column in chosen:
            recipe = next((r for r in self._recipes if column in self._recipe_columns[r]), None)
            if recipe is None:
                raise MetricError(column, list(self._stat_columns), what="stats column")
            made[column] = StatsColumn(recipe, column)
        for column, function in made.items():
            self.derive(column, function)
        return self

    @classmethod
    def from_stats(
        cls,
        ensembles: Sequence[Ensemble],
        key: str | None = None,
        labels: Sequence[Hashable] | None = None,
    ) -> Ensemble:
        """One profile per ensemble, holding that ensemble's stats table.

        Thicket's ``from_statsframes``: nodes matched by call path, the stats columns as
        metrics (non-additive). The metadata of a profile are the metadata columns with one
        value throughout its ensemble, and ``profiles``, how many profiles it summarizes.

        Parameters
        ----------
        ensembles : sequence of Ensemble
            Ensembles with statistics.
        key : str, optional
            A metadata column whose single value in each ensemble is its profile id.
        labels : sequence, optional
            The profile ids (default: 0, 1, ...).

        Returns
        -------
        Ensemble
            One profile per ensemble.

        Raises
        ------
        GladeError
            When an ensemble has no statistics, or both ``key`` and ``labels`` are given.
        """
        from glade.ensemble.concat import checked_ensembles, headers_of

        ensembles = checked_ensembles(ensembles, "from_stats")
        for i, ens in enumerate(ensembles):
            if not ens._stat_columns:
                raise GladeError(
                    f"ensemble {i} has no statistics: compute some with glade.stats first"
                )
        if labels is not None and key is not None:
            raise GladeError("give profile ids either as labels= or as key=")
        ids = list(labels) if labels is not None else headers_of(ensembles, key)
        return cast("type[Ensemble]", cls).from_graphframes(
            [ens.to_graphframe() for ens in ensembles],
            metadata=[_common_metadata(ens) for ens in ensembles],
            labels=ids,
        )
