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

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from glade.ensemble.shapiro import shapiro_wilk
from glade.errors import GladeError, MetricError

#: Label of a column: a name, or a tuple (header, name) in a columnar ensemble.
Label = Hashable


def flat_label(label: Label) -> Label:
    """A column label as one name: a tuple's parts joined by "/" (empty parts dropped),
    any other label as it is."""
    if isinstance(label, tuple):
        return "/".join(str(p) for p in label if p != "")
    return label


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
    row, and metric values as float arrays (sorted copies cached per metric)."""

    def __init__(self, dataframe: pd.DataFrame, n_nodes: int, profiles: pd.Index,
                 metrics: Sequence[Label]):
        self.dataframe = dataframe
        self.n = n_nodes
        self.profiles = profiles
        self.metrics = list(metrics)
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
                numeric = [m for m in self.metrics
                           if pd.api.types.is_numeric_dtype(self.dataframe[m].dtype)]
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
def _moments(table: SampleTable, metric: Label, rows: np.ndarray | None = None
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


def _variance(count: np.ndarray, squares: np.ndarray, ddof: int) -> np.ndarray:
    """``squares / (count - ddof)``, NaN where count <= ddof."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > ddof, squares / (count - ddof), np.nan)


def _check_ddof(ddof: Any) -> int:
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
                value = [list(group) for group in value]
            shown.append(f"{name}={value!r}")
        return f"{self.kind}({', '.join(shown)})"

    def renamed(self, rename: Callable[[Label], Label],
                relabel: Callable[[Hashable], Hashable]) -> Recipe:
        """The same statistic with every metric passed through ``rename`` and every
        profile id of its groups through ``relabel`` (for a columnar join)."""
        params = tuple(
            (k, tuple(tuple(relabel(p) for p in g) for g in v) if k == "groups" else v)
            for k, v in self.params)
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
    return _moments(table, metric)[0]


def _mean(table: SampleTable, metric: Label) -> np.ndarray:
    return _moments(table, metric)[1]


def _spread(stat: str) -> Callable[[SampleTable, Recipe], Result]:
    def kernel(table: SampleTable, recipe: Recipe) -> Result:
        ddof = _check_ddof(recipe.param("ddof"))
        out = {}
        for metric in recipe.metrics:
            count, _, squares = _moments(table, metric)
            variance = _variance(count, squares, ddof)
            out[stat_label(metric, stat)] = variance if stat == "var" else np.sqrt(variance)
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
        for stat, values in (("q1", q1), ("q2", q2), ("q3", q3), ("iqr", iqr),
                             ("lower_fence", lower), ("upper_fence", upper)):
            out[stat_label(metric, stat)] = values
        out[stat_label(metric, "outliers")] = np.bincount(
            node[outside], minlength=table.n).astype(np.float64)
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
    return Result({correlation_label(first, second, method): r}, {})


def correlation_label(first: Label, second: Label, method: str) -> Label:
    """The stats column of the correlation of two metrics:
    ``"<first>_vs_<second>_<method>"``."""
    same_header = (isinstance(first, tuple) and isinstance(second, tuple)
                   and first[:-1] == second[:-1])
    other = _plain(second) if same_header or not isinstance(second, tuple) else "/".join(
        str(part) for part in second)
    return stat_label(first, f"vs_{other}_{method}")


def _two_groups(table: SampleTable, recipe: Recipe, ddof: int):
    """Per node: (count, mean, variance) of each of the recipe's two profile groups."""
    out = []
    for group in recipe.param("groups"):
        count, mean, squares = _moments(table, recipe.metrics[0], table.group_rows(group))
        out.append((count, mean, _variance(count, squares, ddof)))
    return out


def _distance(kind: str) -> Callable[[SampleTable, Recipe], Result]:
    def kernel(table: SampleTable, recipe: Recipe) -> Result:
        ddof = _check_ddof(recipe.param("ddof"))
        (_, m1, v1), (_, m2, v2) = _two_groups(table, recipe, ddof)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            total = v1 + v2
            gap = (m1 - m2) ** 2 / total
            if kind == "bhattacharyya":
                value = 0.25 * np.log(0.25 * (v1 / v2 + v2 / v1 + 2.0)) + 0.25 * gap
            else:
                overlap = np.sqrt(2.0 * np.sqrt(v1 * v2) / total) * np.exp(-0.25 * gap)
                value = np.sqrt(np.maximum(1.0 - overlap, 0.0))
        value[~np.isfinite(value)] = np.nan
        name = recipe.param("name") or kind
        return Result({stat_label(recipe.metrics[0], name): value}, {})
    return kernel


def _welch(table: SampleTable, recipe: Recipe) -> Result:
    (n1, m1, v1), (n2, m2, v2) = _two_groups(table, recipe, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        from scipy import stats as scipy_stats  # slow to import: only when asked

        t, p = scipy_stats.ttest_ind_from_stats(m1, np.sqrt(v1), n1, m2, np.sqrt(v2), n2,
                                                equal_var=False)
    t, p = np.asarray(t, dtype=np.float64), np.asarray(p, dtype=np.float64)
    undefined = (n1 < 2) | (n2 < 2) | ~np.isfinite(t)
    t[undefined] = np.nan
    p[undefined] = np.nan
    name = recipe.param("name") or "welch"
    metric = recipe.metrics[0]
    return Result({stat_label(metric, f"{name}_t"): t, stat_label(metric, f"{name}_p"): p}, {})


def _median(table: SampleTable, metric: Label) -> np.ndarray:
    return table.sorted(metric).quantile(0.5)


def _minimum(table: SampleTable, metric: Label) -> np.ndarray:
    return table.sorted(metric).quantile(0.0)


def _maximum(table: SampleTable, metric: Label) -> np.ndarray:
    return table.sorted(metric).quantile(1.0)


KERNELS: dict[str, Callable[[SampleTable, Recipe], Result]] = {
    "count": _each_metric("count", _count),
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
    "bhattacharyya": _distance("bhattacharyya"),
    "hellinger": _distance("hellinger"),
    "welch": _welch,
}
