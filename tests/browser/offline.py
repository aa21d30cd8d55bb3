"""Offline pages in browser tests: a page kept off the network."""

from __future__ import annotations


def refuse_network(page) -> list[str]:
    """Let ``page`` load file:// URLs only; the list of the other URLs it tried (an
    offline page's test expects it to stay empty)."""
    requested: list[str] = []

    def offline(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            requested.append(route.request.url)
            route.abort()

    page.route("**/*", offline)
    return requested
