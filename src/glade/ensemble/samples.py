"""Per-node statistics of an ensemble, and the recipes that remember how they were made.

A node's samples are the values of a metric in the node's rows: one per profile
(one per profile and rank when the ensemble keeps ranks). Missing values (NaN,
or no row at all) are not samples. Every statistic is computed for all nodes at
once from arrays (``bincount`` over node ids, or one sort by node then value),
never with a loop over nodes.

A :class:`Recipe` is what the ensemble stores for each statistic a user asked for
(its kind, metrics and parameters), so that any operation that changes nodes or
profiles can compute it again: the stats table is never stale.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from glade.ensemble.shapiro import shapiro_wilk
from glade.errors import GladeError, MetricError
from glade.profile.table import inclusive_name

#: Label of a column: a name, or a tuple (header, name) in a columnar ensemble.
Label = Hashable


def label_list(labels: Label | Iterable[Label]) -> list[Label]:
    """Column labels as a list: one label (a name, or a tuple of a columnar ensemble)
    as a list of one, an iterable of labels as a list of them."""
    if isinstance(labels, str | tuple):
        return [labels]
    return list(cast(Iterable[Label], labels))


def flat_label(label: Label) -> Label:
    """A column label as one name: a tuple's parts joined by "/" (empty parts dropped),
    any other label as it is."""
    if isinstance(label, tuple):
        return "/".join(str(p) for p in label if p != "")
    return label


def inclusive_label(metric: Label) -> Label:
    """The inclusive column that pairs with exclusive column ``metric``
    (:func:`glade.profile.table.inclusive_name`), under the same header when the metric
    is a ``(header, name)`` column."""
    if isinstance(metric, tuple):
        return (*metric[:-1], inclusive_name(metric[-1]))
    return inclusive_name(cast(str, metric))


def stat_label(metric: Label, stat: str) -> Label:
    """The stats column of ``stat`` over ``metric``: ``"<metric>_<stat>"``, under the
    same header when the metric is a ``(header, name)`` column."""
    if isinstance(metric, tuple):
        return (*metric[:-1], f"{metric[-1]}_{stat}")
    return f"{metric}_{stat}"


def _plain(metric: Label) -> str:
    return str(metric[-1]) if isinstance(metric, tuple) else str(metric)


class SampleTable:
    """The rows of an ensemble seen as samples: node and profile position of every
    row, and metric values as float arrays (sorted copies cached per metric); the
    profiles' ``metadata`` when statistics need them (scaling models)."""

    def __init__(
        self,
        dataframe: pd.DataFrame,
        n_nodes: int,
        profiles: pd.Index,
        metrics: Sequence[Label],
        metadata: pd.DataFrame | None = None,
    ):
        self.dataframe = dataframe
        self.n = n_nodes
        self.profiles = profiles
        self.metrics = list(metrics)
        self.metadata = metadata
        index = dataframe.index
        if index.levels[0].equals(pd.RangeIndex(n_nodes)):
            self.row_node = np.asarray(index.codes[0], dtype=np.int64)
        else:
            self.row_node = np.asarray(index.get_level_values("node"), dtype=np.int64)
        if index.levels[1] is profiles or index.levels[1].equals(profiles):
            self.row_profile = np.asarray(index.codes[1], dtype=np.int64)
        else:
            self.row_profile = profiles.get_indexer(index.get_level_values("profile"))
        self._values: dict[Label, np.ndarray] = {}
        self._sorted: dict[Label, Sorted] = {}

    def values(self, metric: Label) -> np.ndarray:
        """The float values of ``metric`` in every row (NaN where missing; read-only)."""
        if metric not in self._values:
            if metric not in self.metrics:
                raise MetricError(metric, self.metrics)
            column = self.dataframe[metric]
            if not pd.api.types.is_numeric_dtype(column.dtype) and column.notna().any():
                numeric = [
                    m
                    for m in self.metrics
                    if pd.api.types.is_numeric_dtype(self.dataframe[m].dtype)
                ]
                raise MetricError(metric, numeric, what="numeric metric")
            values = column.to_numpy(dtype=np.float64, na_value=np.nan).view()
            values.flags.writeable = False  # may be the ensemble's own column
            self._values[metric] = values
        return self._values[metric]

    def sorted(self, metric: Label) -> Sorted:
        """The samples of ``metric`` grouped by node, ascending within each node."""
        if metric not in self._sorted:
            values = self.values(metric)
            valid = np.flatnonzero(~np.isnan(values))
            by_value = valid[np.argsort(values[valid])]
            # a stable sort on small integer keys is a radix sort in numpy
            key = self.row_node[by_value].astype(np.uint16 if self.n <= 1 << 16 else np.int64)
            order = by_value[np.argsort(key, kind="stable")]
            sizes = np.bincount(self.row_node[order], minlength=self.n)
            starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
            self._sorted[metric] = Sorted(values[order], order, starts, sizes)
        return self._sorted[metric]

    def profile_means(self, metric: Label) -> np.ndarray:
        """(nodes x profiles): the mean of each profile's rows of ``metric`` at each
        node (its one value without ranks); NaN where it has none."""
        values = self.values(metric)
        valid = ~np.isnan(values)
        count = len(self.profiles)
        cell = self.row_node[valid] * count + self.row_profile[valid]
        sums = np.bincount(cell, weights=values[valid], minlength=self.n * count)
        rows = np.bincount(cell, minlength=self.n * count)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (sums / rows).reshape(self.n, count)

    def group_rows(self, profiles: Sequence[Hashable]) -> np.ndarray:
        """Boolean mask of the rows of the given profiles (ids not in the ensemble are
        ignored: a profile removed since the recipe was made no longer counts)."""
        wanted = self.profiles.get_indexer(pd.Index(list(profiles), dtype=object))
        member = np.zeros(len(self.profiles) + 1, dtype=bool)
        member[wanted[wanted >= 0]] = True
        return member[self.row_profile]


@dataclass(frozen=True)
class Sorted:
    """Samples grouped by node: node k owns ``values[starts[k] : starts[k] + sizes[k]]``
    (ascending), which came from dataframe rows ``rows[...]`` (same slice)."""

    values: np.ndarray
    rows: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    def quantile(self, q: float) -> np.ndarray:
        """The q-quantile (0 <= q <= 1) of every node's samples, interpolated linearly
        between order statistics (numpy's default ``"linear"`` method); NaN for a node
        without samples."""
        out = np.full(self.sizes.size, np.nan)
        has = self.sizes > 0
        position = q * (self.sizes[has] - 1)
        low = np.floor(position).astype(np.int64)
        high = np.minimum(low + 1, self.sizes[has] - 1)
        base = self.starts[has]
        lo_value = self.values[base + low]
        hi_value = self.values[base + high]
        out[has] = lo_value + (position - low) * (hi_value - lo_value)
        return out


# ------------------------------------------------------------------- moments
def moments(
    table: SampleTable, metric: Label, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count, mean and sum of squared deviations of every node's samples (of the
    selected ``rows`` when given)."""
    values = table.values(metric)
    valid = ~np.isnan(values)
    if rows is not None:
        valid &= rows
    node = table.row_node[valid]
    x = values[valid]
    count = np.bincount(node, minlength=table.n).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(node, weights=x, minlength=table.n) / count
    deviation = x - mean[node]
    squares = np.bincount(node, weights=deviation * deviation, minlength=table.n)
    return count, mean, squares


def variance(count: np.ndarray, squares: np.ndarray, ddof: int) -> np.ndarray:
    """``squares / (count - ddof)``, NaN where count <= ddof."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > ddof, squares / (count - ddof), np.nan)


def check_ddof(ddof: Any) -> int:
    """``ddof`` as an int, or a GladeError when it is not a non-negative integer."""
    if isinstance(ddof, bool) or not isinstance(ddof, int | np.integer) or ddof < 0:
        raise GladeError(f"ddof must be a non-negative integer, not {ddof!r}")
    return int(ddof)


# ------------------------------------------------------------------- recipes
@dataclass(frozen=True)
class Recipe:
    """One statistic a user asked for: its ``kind`` (``"mean"``, ``"std"``...), the
    metrics it reads and its other parameters (as sorted ``(name, value)`` pairs)."""

    kind: str
    metrics: tuple
    params: tuple = ()

    def param(self, name: str) -> Any:
        """The value of parameter ``name``."""
        return dict(self.params)[name]

    def describe(self) -> str:
        """The call that made it, e.g. ``std(metrics=['time'], ddof=1)``."""
        shown = [f"metrics={list(self.metrics)!r}"]
        for name, value in self.params:
            if name == "groups":
                value = [None if group is None else list(group) for group in value]
            shown.append(f"{name}={value!r}")
        return f"{self.kind}({', '.join(shown)})"

    def renamed(
        self, rename: Callable[[Label], Label], relabel: Callable[[Hashable], Hashable]
    ) -> Recipe:
        """The same statistic with every metric passed through ``rename`` and every
        profile id it names (its groups, its profile) through ``relabel`` (for a
        columnar join)."""
        params = tuple(
            (
                k,
                tuple(None if g is None else tuple(relabel(p) for p in g) for g in v)
                if k == "groups"
                else relabel(v)
                if k == "profile"
                else v,
            )
            for k, v in self.params
        )
        return Recipe(self.kind, tuple(rename(m) for m in self.metrics), params)

    def __repr__(self) -> str:
        return f"<Recipe {self.describe()}>"


@dataclass
class Result:
    """What a recipe produced: stats columns (one value per node) and, for box plots,
    the long table of outlying samples keyed by metric."""

    columns: dict
    outliers: dict


def make_recipe(kind: str, metrics: Sequence[Label], **params: Any) -> Recipe:
    """A recipe with its parameters in canonical (sorted) order."""
    if kind not in KERNELS:
        raise GladeError(f"unknown statistic {kind!r}; known: {', '.join(KERNELS)}")
    return Recipe(kind, tuple(metrics), tuple(sorted(params.items())))


def compute(table: SampleTable, recipe: Recipe) -> Result:
    """Run one recipe on ``table``."""
    return KERNELS[recipe.kind](table, recipe)


def _each_metric(stat: str, function: Callable[[SampleTable, Label], np.ndarray]):
    def kernel(table: SampleTable, recipe: Recipe) -> Result:
        return Result({stat_label(m, stat): function(table, m) for m in recipe.metrics}, {})

    return kernel


def _count(table: SampleTable, metric: Label) -> np.ndarray:
    return moments(table, metric)[0]


def _mean(table: SampleTable, metric: Label) -> np.ndarray:
    return moments(table, metric)[1]


def _spread(stat: str) -> Callable[[SampleTable, Recipe], Result]:
    def kernel(table: SampleTable, recipe: Recipe) -> Result:
        ddof = check_ddof(recipe.param("ddof"))
        out = {}
        for metric in recipe.metrics:
            count, _, squares = moments(table, metric)
            spread = variance(count, squares, ddof)
            out[stat_label(metric, stat)] = spread if stat == "var" else np.sqrt(spread)
        return Result(out, {})

    return kernel


def _percentiles(table: SampleTable, recipe: Recipe) -> Result:
    out = {}
    for metric in recipe.metrics:
        ordered = table.sorted(metric)
        for q in recipe.param("q"):
            out[stat_label(metric, f"p{q:g}")] = ordered.quantile(q / 100.0)
    return Result(out, {})


def _boxplot(table: SampleTable, recipe: Recipe) -> Result:
    whis = float(recipe.param("whis"))
    out, outliers = {}, {}
    for metric in recipe.metrics:
        ordered = table.sorted(metric)
        q1, q2, q3 = (ordered.quantile(q) for q in (0.25, 0.5, 0.75))
        iqr = q3 - q1
        lower, upper = q1 - whis * iqr, q3 + whis * iqr
        node = table.row_node[ordered.rows]
        low = ordered.values < lower[node]
        high = ordered.values > upper[node]
        outside = low | high
        for stat, values in (
            ("q1", q1),
            ("q2", q2),
            ("q3", q3),
            ("iqr", iqr),
            ("lower_fence", lower),
            ("upper_fence", upper),
        ):
            out[stat_label(metric, stat)] = values
        out[stat_label(metric, "outliers")] = np.bincount(node[outside], minlength=table.n).astype(
            np.float64
        )
        rows = ordered.rows[outside]
        found = table.dataframe.index[rows].to_frame(index=False)
        found["metric"] = pd.Series([metric] * len(rows), dtype=object)
        found["value"] = ordered.values[outside]
        found["side"] = np.where(high[outside], "high", "low")
        outliers[metric] = found
    return Result(out, outliers)


def _normality(table: SampleTable, recipe: Recipe) -> Result:
    alpha = float(recipe.param("alpha"))
    out = {}
    for metric in recipe.metrics:
        ordered = table.sorted(metric)
        w, p = shapiro_wilk(ordered.values, ordered.starts, ordered.sizes)
        normal = pd.array(p > alpha, dtype="boolean")
        normal[np.isnan(p)] = pd.NA
        out[stat_label(metric, "normal")] = normal
        out[stat_label(metric, "shapiro_w")] = w
        out[stat_label(metric, "shapiro_p")] = p
    return Result(out, {})


def _correlation(table: SampleTable, recipe: Recipe) -> Result:
    method = recipe.param("method")
    first, second = recipe.metrics
    x, y = table.values(first), table.values(second)
    valid = ~(np.isnan(x) | np.isnan(y))
    node = table.row_node[valid]
    x, y = x[valid], y[valid]
    if method == "spearman":
        x = pd.Series(x).groupby(node).rank(method="average").to_numpy()
        y = pd.Series(y).groupby(node).rank(method="average").to_numpy()
    count = np.bincount(node, minlength=table.n).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = x - (np.bincount(node, weights=x, minlength=table.n) / count)[node]
        dy = y - (np.bincount(node, weights=y, minlength=table.n) / count)[node]
        sxy = np.bincount(node, weights=dx * dy, minlength=table.n)
        sxx = np.bincount(node, weights=dx * dx, minlength=table.n)
        syy = np.bincount(node, weights=dy * dy, minlength=table.n)
        r = np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)
    r[count < 2] = np.nan
    return Result({pair_label(first, second, method): r}, {})


def pair_label(first: Label, second: Label, stat: str) -> Label:
    """The stats column of a statistic of two metrics (a correlation, a comparison):
    ``"<first>_vs_<second>_<stat>"``."""
    same_header = (
        isinstance(first, tuple) and isinstance(second, tuple) and first[:-1] == second[:-1]
    )
    other = (
        _plain(second)
        if same_header or not isinstance(second, tuple)
        else "/".join(str(part) for part in second)
    )
    return stat_label(first, f"vs_{other}_{stat}")


def _median(table: SampleTable, metric: Label) -> np.ndarray:
    return table.sorted(metric).quantile(0.5)


def _minimum(table: SampleTable, metric: Label) -> np.ndarray:
    return table.sorted(metric).quantile(0.0)


def _maximum(table: SampleTable, metric: Label) -> np.ndarray:
    return table.sorted(metric).quantile(1.0)


def _sum(table: SampleTable, metric: Label) -> np.ndarray:
    count, mean, _ = moments(table, metric)
    return np.where(count > 0, count * mean, np.nan)


def _confidence_interval(table: SampleTable, recipe: Recipe) -> Result:
    """``mean -/+ q s / sqrt(n)`` with s the sample standard deviation (ddof 1) and q
    the ``(1 + level) / 2`` quantile of the normal or of Student's t (n - 1 degrees
    of freedom) distribution."""
    from scipy import stats as scipy_stats  # slow to import: only when asked

    level = float(recipe.param("level"))
    distribution = recipe.param("distribution")
    out = {}
    for metric in recipe.metrics:
        count, mean, squares = moments(table, metric)
        std = np.sqrt(variance(count, squares, 1))
        with np.errstate(invalid="ignore", divide="ignore"):
            if distribution == "t":
                q = scipy_stats.t.ppf((1.0 + level) / 2.0, np.maximum(count - 1, 1))
            else:
                q = scipy_stats.norm.ppf((1.0 + level) / 2.0)
            half = q * std / np.sqrt(count)
        name = f"ci{level * 100:g}"
        out[stat_label(metric, f"{name}_low")] = mean - half
        out[stat_label(metric, f"{name}_high")] = mean + half
    return Result(out, {})


#: Thicket's temporal patterns: the score's upper bounds and their names.
TEMPORAL_PATTERNS = ((0.2, "constant"), (0.4, "phased"), (0.6, "dynamic"), (np.inf, "sporadic"))


def _temporal_pattern(table: SampleTable, recipe: Recipe) -> Result:
    """Thicket's temporal score ``1 - sum(x) / (n max(x)) = 1 - mean / max`` of each
    node's samples (one per iteration in a time series) and its pattern."""
    out = {}
    bounds = np.array([b for b, _ in TEMPORAL_PATTERNS])
    names = np.array([name for _, name in TEMPORAL_PATTERNS] + ["none"], dtype=object)
    for metric in recipe.metrics:
        _, mean, _ = moments(table, metric)
        top = table.sorted(metric).quantile(1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            score = 1.0 - mean / top
        score[~np.isfinite(score)] = np.nan
        which = np.searchsorted(bounds, score, side="right")
        which[np.isnan(score)] = len(TEMPORAL_PATTERNS)
        out[stat_label(metric, "temporal_score")] = score
        out[stat_label(metric, "pattern")] = pd.array(names[which], dtype="string")
    return Result(out, {})


def _profile_values(table: SampleTable, recipe: Recipe) -> Result:
    """The values of one profile at every node (the mean of its rows when the ensemble
    keeps ranks; missing where the profile has no value or is no longer present)."""
    profile = recipe.param("profile")
    rows = table.group_rows([profile])
    out = {}
    for metric in recipe.metrics:
        count, mean, _ = moments(table, metric, rows)
        out[stat_label(metric, recipe.param("name"))] = np.where(count > 0, mean, np.nan)
    return Result(out, {})


def _elsewhere(target: str) -> Callable[[SampleTable, Recipe], Result]:
    """A kernel defined in another module (``"module:function"``), imported on first
    use: the comparisons build on this module, and Extra-P is optional."""

    def kernel(table: SampleTable, recipe: Recipe) -> Result:
        module, name = target.split(":")
        return getattr(importlib.import_module(module), name)(table, recipe)

    return kernel


KERNELS: dict[str, Callable[[SampleTable, Recipe], Result]] = {
    "count": _each_metric("count", _count),
    "sum": _each_metric("sum", _sum),
    "mean": _each_metric("mean", _mean),
    "median": _each_metric("median", _median),
    "std": _spread("std"),
    "var": _spread("var"),
    "min": _each_metric("min", _minimum),
    "max": _each_metric("max", _maximum),
    "percentiles": _percentiles,
    "boxplot": _boxplot,
    "normality": _normality,
    "correlation": _correlation,
    "confidence_interval": _confidence_interval,
    "temporal_pattern": _temporal_pattern,
    "profile": _profile_values,
    **{
        kind: _elsewhere(f"glade.ensemble.comparisons:{kind}_kernel")
        for kind in (
            "bhattacharyya",
            "hellinger",
            "welch",
            "delta_stdnorm",
            "delta_cv",
            "score_bhattacharyya",
            "score_hellinger",
            "preference",
        )
    },
    "model": _elsewhere("glade.ensemble.scaling:model_kernel"),
}
