"""What the mixins of :class:`~glade.ensemble.model.Ensemble` (derived data, stats
tables) read and keep of the ensemble they are mixed into: :class:`EnsembleHost`.

The mixins take it as their base for the type checker only (at run time their base is
``object``). It is a plain class, not a ``typing.Protocol``: mypy takes the bare
annotations of a Protocol for abstract members, so a mixin that rebinds one
(``self._recipes = [...]``) would define a new attribute typed by its value, and from
its own value it cannot determine that type."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable

import numpy as np
import pandas as pd

from glade.ensemble.samples import Label, Recipe, SampleTable
from glade.graph import Graph


class EnsembleHost:
    """The tables of an ensemble that its mixins read and extend: ``graph``,
    ``dataframe`` (rows ``(node, profile[, rank])``) and ``metadata`` (one row per
    profile), the measured, frame and derived columns, the statistics recipes with the
    columns and outliers each made, and the samples table built from the rows (None
    until asked for, and again after every change)."""

    graph: Graph
    dataframe: pd.DataFrame
    metadata: pd.DataFrame
    _measured: list[Label]
    _frame_cols: list[Label]
    _derived: list[tuple[Label, Callable]]
    _recipes: list[Recipe]
    _stat_columns: dict[Label, np.ndarray]
    _recipe_columns: dict[Recipe, list[Label]]
    _outliers: dict[Label, pd.DataFrame]
    _sample_table: SampleTable | None

    @property
    @abstractmethod
    def profiles(self) -> list[Hashable]:
        """The profile ids, in ensemble order."""

    @property
    @abstractmethod
    def num_profiles(self) -> int:
        """How many profiles the ensemble holds."""

    @property
    @abstractmethod
    def metric_columns(self) -> list[Label]:
        """Measured metric columns, then derived ones."""
