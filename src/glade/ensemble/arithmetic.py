"""Arithmetic between ensembles: ``a - b``, ``a / b``, ``a.sub(b, on="problem_size")``.

Profiles are matched by id, or by a metadata column ``on`` whose values then become
the profile ids; nodes are matched by call path on the union of both graphs. The
result holds the profiles present on both sides and the additive (exclusive and
inclusive) metrics both sides have, computed row by row (rank by rank when the
ensembles keep ranks); a value missing on either side is missing in the result,
never the other side's value. Nodes then follow the missing-data rule. The
metadata are the left side's, with the units the operation derives
(:func:`glade.units.combine_unit`: ``s - s`` is ``s``, ``s / s`` has none); its
statistics recipes are computed again on the result.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import numpy as np

from glade.ensemble.build import sorted_rows
from glade.ensemble.output import measured_units
from glade.errors import GladeError
from glade.units import combine_unit

_SYMBOLS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/"}

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble


def _bare(ens: Ensemble, metrics: list) -> Ensemble:
    """``ens`` with only ``metrics``, without derived columns or statistics."""
    from glade.ensemble.model import Ensemble

    return Ensemble._make(
        ens.graph,
        ens.dataframe[metrics],
        ens.metadata,
        [m for m in ens.exc_metrics if m in metrics],
        [m for m in ens.inc_metrics if m in metrics],
        None,
    )


def combine(left: Ensemble, right: Ensemble, op: Callable, on: str | None = None) -> Ensemble:
    """``op(left, right)`` on the profiles both have (see the module docstring)."""
    from glade.ensemble.concat import concat_columns, profile_relabelling
    from glade.ensemble.model import Ensemble

    if not isinstance(right, Ensemble):
        raise GladeError(f"ensemble arithmetic needs two Ensembles, not {type(right).__name__}")
    if left.is_columnar or right.is_columnar:
        raise GladeError("ensemble arithmetic works on plain ensembles, not columnar ones")
    additive = set(right.exc_metrics) | set(right.inc_metrics)
    metrics = [
        m
        for m in left._measured
        if m in additive and (m in left.exc_metrics or m in left.inc_metrics)
    ]
    if not metrics:
        raise GladeError("the ensembles have no exclusive or inclusive metric in common")
    relabels = [profile_relabelling(ens, on, i) for i, ens in enumerate((left, right))]
    joined = concat_columns([_bare(left, metrics), _bare(right, metrics)], ["left", "right"], on)
    both = set(relabels[0].values()) & set(relabels[1].values())
    common = [p for p in joined.profiles if p in both]
    if not common:
        raise GladeError(
            "no profile is in both ensembles"
            + (f" (matched by metadata column {on!r})" if on else " (matched by id)")
        )
    position = np.full(joined.num_profiles, -1, dtype=np.int64)
    position[joined.metadata.index.get_indexer(common)] = np.arange(len(common))
    index = joined.dataframe.index
    target = position[np.asarray(index.codes[1], dtype=np.int64)]
    rows = target >= 0
    columns = {}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for metric in metrics:
            a = joined.dataframe[("left", metric)].to_numpy(dtype=np.float64, na_value=np.nan)
            b = joined.dataframe[("right", metric)].to_numpy(dtype=np.float64, na_value=np.nan)
            columns[metric] = op(a[rows], b[rows])
    metadata = left.metadata.copy()
    metadata.index = metadata.index.map(relabels[0]).rename("profile")
    metadata = metadata.loc[common]
    left_units, right_units = measured_units(left), measured_units(right)
    symbol = _SYMBOLS.get(op)
    units = {
        str(m): unit
        for m in metrics
        if symbol is not None
        and (unit := combine_unit(symbol, left_units.get(m), right_units.get(m))) is not None
    }
    metadata["units"] = json.dumps(units)
    rest = list(index.names[2:])
    table = sorted_rows(
        np.asarray(index.codes[0], dtype=np.int64)[rows],
        target[rows],
        [np.asarray(index.get_level_values(n))[rows] for n in rest],
        rest,
        columns,
        metadata.index,
        len(joined.graph),
        additive=metrics,
    )
    recipes = [
        r.renamed(lambda m: m, lambda p: relabels[0].get(p, p))
        for r in left._recipes
        if set(r.metrics) <= set(metrics)
    ]
    return Ensemble._make(
        joined.graph,
        table,
        metadata,
        [m for m in left.exc_metrics if m in metrics],
        [m for m in left.inc_metrics if m in metrics],
        left.default_metric,
        (),
        recipes,
        prune=True,
    )


class Arithmetic:
    """``+ - * /`` between ensembles (matched by profile id) and ``add``, ``sub``,
    ``mul``, ``div`` with ``on=`` (matched by a metadata column), mixed into
    :class:`glade.Ensemble`; see :mod:`glade.ensemble.arithmetic`."""

    def add(self, other: Ensemble, on: str | None = None) -> Ensemble:
        """``self + other`` per profile, node and rank.

        Parameters
        ----------
        other : Ensemble
            The other ensemble.
        on : str, optional
            Match profiles by this metadata column instead of by id.

        Returns
        -------
        Ensemble
            The profiles both ensembles have, with their common additive metrics added.

        Raises
        ------
        GladeError
            When ``other`` is not an Ensemble, an ensemble is columnar, they share no additive
            metric or no profile.
        """
        return combine(cast("Ensemble", self), other, operator.add, on)

    def sub(self, other: Ensemble, on: str | None = None) -> Ensemble:
        """``self - other`` per profile, node and rank.

        Parameters
        ----------
        other : Ensemble
            The ensemble subtracted.
        on : str, optional
            Match profiles by this metadata column instead of by id.

        Returns
        -------
        Ensemble
            The profiles both ensembles have, with their common additive metrics subtracted.

        Raises
        ------
        GladeError
            As for :meth:`add`.
        """
        return combine(cast("Ensemble", self), other, operator.sub, on)

    def mul(self, other: Ensemble, on: str | None = None) -> Ensemble:
        """``self * other`` per profile, node and rank.

        Parameters
        ----------
        other : Ensemble
            The other ensemble.
        on : str, optional
            Match profiles by this metadata column instead of by id.

        Returns
        -------
        Ensemble
            The profiles both ensembles have, with their common additive metrics multiplied.

        Raises
        ------
        GladeError
            As for :meth:`add`.
        """
        return combine(cast("Ensemble", self), other, operator.mul, on)

    def div(self, other: Ensemble, on: str | None = None) -> Ensemble:
        """``self / other`` per profile, node and rank.

        A zero divisor gives inf or NaN, as numpy does.

        Parameters
        ----------
        other : Ensemble
            The divisor ensemble.
        on : str, optional
            Match profiles by this metadata column instead of by id.

        Returns
        -------
        Ensemble
            The profiles both ensembles have, with their common additive metrics divided.

        Raises
        ------
        GladeError
            As for :meth:`add`.
        """
        return combine(cast("Ensemble", self), other, operator.truediv, on)

    def __add__(self, other: Ensemble) -> Ensemble:
        return self.add(other) if isinstance(other, type(self)) else NotImplemented

    def __sub__(self, other: Ensemble) -> Ensemble:
        return self.sub(other) if isinstance(other, type(self)) else NotImplemented

    def __mul__(self, other: Ensemble) -> Ensemble:
        return self.mul(other) if isinstance(other, type(self)) else NotImplemented

    def __truediv__(self, other: Ensemble) -> Ensemble:
        return self.div(other) if isinstance(other, type(self)) else NotImplemented
