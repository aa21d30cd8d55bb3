"""Shared by the CCT browser tests: synthetic profiles (a plain clone runs the tests) and
how to find a node's row in the page."""

from __future__ import annotations

import re

import pandas as pd

from glade.datasets import synthetic_profile
from glade.profile import GraphFrame


def profile(n: int = 60, ranks: int | None = None, seed: int = 3) -> GraphFrame:
    """The synthetic profile the browser tests show."""
    return synthetic_profile(n, ranks=ranks, seed=seed)


def subtree_size(gf: GraphFrame, node) -> int:
    return int(gf.graph.subtree_end[node.nid] - node.nid)


def distinct_children(gf: GraphFrame, node) -> list:
    """Children of ``node`` whose name no other node has (one row, found by its text),
    largest subtree first."""
    names = pd.Series(gf.graph.names)
    counts = names.value_counts()
    unique = [c for c in node.children if counts[names[c.nid]] == 1]
    return sorted(unique, key=lambda c: (-subtree_size(gf, c), c.nid))


def row(scope, name: str, rows: str = ".gc-body"):
    """The visible row of the node called ``name`` (exactly) in a view (in the bottom-up
    and flat tabs, ``rows=".gc-function-rows"``)."""
    page = getattr(scope, "page", scope)
    text = page.locator(".gc-text", has_text=re.compile(f"^{re.escape(name)}$"))
    return scope.locator(f"{rows} .gc-row:visible").filter(has=text)
