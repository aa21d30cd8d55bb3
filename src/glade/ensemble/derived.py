"""What an ensemble derives from its measured data and computes again after every change:
derived columns (:meth:`DerivedData.derive`) and statistics (the recipes of
:mod:`glade.stats`, kept in the stats table). :class:`~glade.ensemble.model.Ensemble`
inherits these methods."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.ensemble.rows import node_table
from glade.ensemble.samples import Label, Recipe, SampleTable, compute
from glade.errors import GladeError, call_user

if TYPE_CHECKING:
    from glade.ensemble.host import EnsembleHost as _Host
    from glade.ensemble.model import Ensemble
else:
    _Host = object


class DerivedData(_Host):
    """Derived columns and statistics of an ensemble (mixed into
    :class:`~glade.ensemble.model.Ensemble`, whose tables they read and extend, as
    :class:`~glade.ensemble.host.EnsembleHost` describes them)."""

    # ------------------------------------------------------- derived columns
    def derive(self, name: Label, function: Callable[[Ensemble], Any]) -> pd.Series:
        """Add (or replace) a derived column, computed by a function of the ensemble.

        The ensemble remembers ``function`` and computes the column again after every
        operation that changes nodes, profiles or values. If ``function`` fails, the ensemble
        is left as it was. This changes the ensemble in place.

        Parameters
        ----------
        name : str
            The column's name (not a measured or frame column).
        function : callable
            ``function(ensemble)`` returning a Series aligned with ``dataframe`` or one value
            per row (or one value for all).

        Returns
        -------
        pandas.Series
            The new column.

        Raises
        ------
        GladeError
            When ``function`` is not callable or raises, ``name`` is taken by a measured or
            frame column, or the values do not have one per row.

        Examples
        --------
        >>> import glade
        >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 20))
        >>> share = ens.derive("share", lambda e: e.dataframe["time"] / e.dataframe["time (inc)"])
        >>> "share" in ens.dataframe.columns
        True
        """
        if not callable(function):
            raise GladeError(f"derive needs a function of the ensemble, not {function!r}")
        if name in self._measured or name in self._frame_cols:
            raise GladeError(f"{name!r} is a measured or frame column: pick another name")
        values = self._derived_values(name, function)
        self._derived = [(n, f) for n, f in self._derived if n != name]
        self._insert_derived(name, function, values)
        for recipe in list(self._recipes):
            self._add_recipe(recipe)
        return self.dataframe[name]

    def _apply_derived(self, name: Label, function: Callable[[Ensemble], Any]) -> None:
        self._insert_derived(name, function, self._derived_values(name, function))

    def _derived_values(self, name: Label, function: Callable[[Ensemble], Any]) -> np.ndarray:
        """One value per row from ``function(self)``, checked."""
        values = call_user(function, self, name=f"the function of derived column {name!r}")
        if isinstance(values, pd.Series):
            if not values.index.equals(self.dataframe.index):
                values = values.reindex(self.dataframe.index)
            values = values.to_numpy()
        values = np.asarray(values)
        if values.ndim == 0:
            values = np.full(len(self.dataframe), values.item())
        if values.shape != (len(self.dataframe),):
            raise GladeError(
                f"derived column {name!r} has shape {values.shape}, expected "
                f"({len(self.dataframe)},) (one value per row)"
            )
        return values

    def _insert_derived(
        self, name: Label, function: Callable[[Ensemble], Any], values: np.ndarray
    ) -> None:
        """Put derived column ``name`` after the measured and other derived columns."""
        self._sample_table = None
        if name in self.dataframe.columns:
            self.dataframe = self.dataframe.drop(columns=[name])
        self.dataframe.insert(len(self._measured) + len(self._derived), name, values)
        self._derived.append((name, function))

    # ------------------------------------------------------------ statistics
    def samples(self) -> SampleTable:
        """The rows as samples of every metric column, for statistics and plots.

        Returns
        -------
        glade.ensemble.samples.SampleTable
            The samples (kept until the dataframe changes).
        """
        if self._sample_table is None:
            self._sample_table = SampleTable(
                self.dataframe,
                len(self.graph),
                self.metadata.index,
                self.metric_columns,
                self.metadata,
            )
        return self._sample_table

    def _add_recipe(self, recipe: Recipe) -> pd.DataFrame:
        """Compute ``recipe``, add its columns to the stats (replacing columns of the
        same name), remember it, and return its columns."""
        result = compute(self.samples(), recipe)
        labels = list(result.columns)
        self._recipes = [r for r in self._recipes if r != recipe]
        self._recipe_columns.pop(recipe, None)
        shadowed = set(labels)
        for old in list(self._recipes):
            remaining = [c for c in self._recipe_columns[old] if c not in shadowed]
            if remaining:
                self._recipe_columns[old] = remaining
            else:
                self._recipes.remove(old)
                del self._recipe_columns[old]
        for label in labels:
            self._stat_columns.pop(label, None)
        self._stat_columns.update(result.columns)
        self._outliers.update(result.outliers)
        self._recipes.append(recipe)
        self._recipe_columns[recipe] = labels
        return node_table({label: self._stat_columns[label] for label in labels}, len(self.graph))
