"""Finding CCT view rows in a page by the exact name they show (``has_text`` alone also
matches longer names: ``MPI_Init`` is inside ``PMPI_Init``)."""

from __future__ import annotations

import re


def cct_row(scope, name: str):
    """The visible CCT row of ``scope`` (a page or a locator) whose name is ``name``."""
    exact = scope.page if hasattr(scope, "page") else scope
    return scope.locator(".gc-body .gc-row:visible").filter(
        has=exact.locator(".gc-text", has_text=re.compile(f"^{re.escape(name)}$")))
