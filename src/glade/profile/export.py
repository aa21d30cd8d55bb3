"""Exports of a GraphFrame to other tools: Graphviz DOT and folded stacks (flame graphs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from glade.errors import MetricError
from glade.graph import group_by_depth
from glade.profile.table import inclusive_name

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame

# Low to high, green to red (as in Hatchet's DOT output).
_FILLS = np.array(["#1a9850", "#91cf60", "#d9ef8b", "#fee08b", "#fc8d59", "#d73027"], dtype=object)


def _quote(text: np.ndarray) -> np.ndarray:
    escaped = [s.replace("\\", "\\\\").replace('"', '\\"') for s in text.astype(str)]
    return np.array(escaped, dtype=object)


def to_dot(
    gf: GraphFrame,
    metric: str | None = None,
    threshold: float = 0.0,
    rank: Any = None,
    agg: str | Callable = "mean",
) -> str:
    """Graphviz DOT of ``gf``: a box per node labelled with its name and value, filled
    from green (low) to red (high); nodes under ``threshold`` x the largest value
    are left out with their edges."""
    metric = metric or gf.default_metric
    values = gf.node_values(metric, rank=rank, agg=agg)
    finite = values[np.isfinite(values)]
    hi = float(finite.max()) if finite.size else 0.0
    lo = float(finite.min()) if finite.size else 0.0
    shown = np.where(np.isnan(values), -np.inf, values) >= threshold * hi
    ids = np.flatnonzero(shown)
    span = hi - lo if hi > lo else 1.0
    finite_ids = np.where(np.isfinite(values[ids]), values[ids], lo)
    bins = np.clip(((finite_ids - lo) / span * 6).astype(int), 0, 5)
    names = _quote(gf.graph.names[ids])
    numbers = np.char.mod("%.4g", values[ids]).astype(object)
    idtext = ids.astype(str).astype(object)
    node_lines = (
        '  "'
        + idtext
        + '" [label="'
        + names
        + "\\n"
        + numbers
        + '", fillcolor="'
        + _FILLS[bins]
        + '"];'
    )
    src, dst = gf.graph.edges()
    keep = shown[src] & shown[dst]
    edge_lines = (
        '  "'
        + src[keep].astype(str).astype(object)
        + '" -> "'
        + dst[keep].astype(str).astype(object)
        + '";'
    )
    header = [
        "digraph glade {",
        f'  label="{metric}";',
        '  node [shape=box, style=filled, fontname="Helvetica"];',
    ]
    return "\n".join(header + node_lines.tolist() + edge_lines.tolist() + ["}"]) + "\n"


def to_flamegraph(
    gf: GraphFrame,
    metric: str | None = None,
    rank: Any = None,
    agg: str | Callable = "mean",
) -> str:
    """Folded stacks, one ``root;child;...;node value`` line per node with a non-zero
    exclusive value (the input of flamegraph.pl and speedscope). ``metric`` must
    be exclusive; by default the exclusive partner of the default metric."""
    if metric is None:
        metric = gf.default_metric
        if metric in gf.inc_metrics:
            partners = [m for m in gf.exc_metrics if inclusive_name(m) == metric]
            metric = partners[0] if partners else metric
    if metric not in gf.exc_metrics:
        raise MetricError(metric, gf.exc_metrics, what="exclusive metric")
    values = gf.node_values(metric, rank=rank, agg=agg)
    graph = gf.graph
    names = np.array([s.replace(";", ":") for s in graph.names.astype(str)], dtype=object)
    stack = np.empty(len(graph), dtype=object)
    for depth, level in enumerate(group_by_depth(graph.depth)):
        if depth == 0:
            stack[level] = names[level]
        else:
            stack[level] = stack[graph.tree_parent[level]] + ";" + names[level]
    keep = np.flatnonzero(np.isfinite(values) & (values != 0))
    numbers = values[keep]
    integral = np.all(numbers == np.round(numbers))
    text = (
        numbers.astype(np.int64).astype(str) if integral else np.char.mod("%.6g", numbers)
    ).astype(object)
    lines = stack[keep] + " " + text
    return "\n".join(lines.tolist()) + ("\n" if keep.size else "")
