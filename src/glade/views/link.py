"""Views linked by queries: a selection in one view restricts or highlights the others.

``glade.link(timeline, cct, matrix)`` watches, in the kernel, the traits in which each
view keeps a call-level query (:attr:`QueryView.link_emits`): a timeline's ``query`` (its
brushed window and edits) restricts every other view that can be restricted (a CCT view
re-renders with the values of ``trace.query(window, level="calls").to_graphframe()``
with every call clipped to the window, so that a caller spanning it is charged only its
time inside (see :mod:`glade.trace.windows`), a matrix on the messages sent in that
window, a supergraph view of the trace on its supergraph; the query is evaluated once for
all of them, see :mod:`glade.trace.call_level`); a CCT view's or a matrix's
``selection`` highlights its calls in every view that can highlight (the timeline marks
them, a matrix outlines the cells of their messages). Nothing but query text passes
between views, so what a link shows is what ``trace.query(text, level="calls")`` gives,
and the text can be saved and replayed like any query. A view's own edits, history and
``query`` are never changed by a link; :meth:`Link.unlink` (or :func:`unlink`) restores
every view.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from glade.errors import GladeError
from glade.views.base import QueryView


def _describe(view: QueryView) -> str:
    return f"{type(view).__name__} view of {type(view.link_data).__name__} {view.data_name!r}"


class Link:
    """The views of one link and the watchers that pass their queries (see the module doc).

    Make one with :func:`link`.

    Parameters
    ----------
    views : iterable of views
        At least two distinct glade views of the same data.

    Raises
    ------
    GladeError
        When an item is not a glade view, there are fewer than two, a view appears twice,
        or the views show different data.
    """

    def __init__(self, views: Iterable[QueryView]):
        views = list(views)
        for view in views:
            if not isinstance(view, QueryView):
                raise GladeError(f"glade.link links glade views, not {type(view).__name__}")
        if len(views) < 2:
            raise GladeError(f"a link needs at least two views, not {len(views)}")
        if len({id(v) for v in views}) < len(views):
            raise GladeError("a view appears twice in the link")
        first = views[0]
        for view in views[1:]:
            if view.link_data is not first.link_data:
                raise GladeError(
                    f"linked views must show the same data: the "
                    f"{_describe(first)} and the {_describe(view)} show "
                    f"different objects"
                )
        for view in views:
            if view._link is not None:
                raise GladeError(f"the {_describe(view)} is already linked: unlink it first")
        # (source view, trait, role) for every emitted query some other view takes
        self._routes = [
            (view, trait, role)
            for view in views
            for trait, role in view.link_emits
            if any(role in other.link_accepts for other in views if other is not view)
        ]
        if not self._routes:
            raise GladeError(
                "nothing links these views: none of them emits a query that "
                "another one takes ("
                + "; ".join(
                    f"{type(v).__name__} emits "
                    f"{[r for _, r in v.link_emits] or 'nothing'}, takes "
                    f"{sorted(v.link_accepts) or 'nothing'}"
                    for v in views
                )
                + ")"
            )
        self.views = tuple(views)
        self._watchers: list[tuple[QueryView, str, Any]] = []
        for view, trait, role in self._routes:
            watcher = self._watcher(view, trait, role)
            view.observe(watcher, names=trait)
            self._watchers.append((view, trait, watcher))
        for view in views:
            view._link = self
        for view in views:
            view._prepare_link()
        for view, trait, role in self._routes:
            self._pass(view, getattr(view, trait), role)

    def _watcher(self, source: QueryView, trait: str, role: str):
        def passed(change: dict) -> None:
            self._pass(source, change["new"], role)

        return passed

    def _targets(self, source: QueryView, role: str) -> list[QueryView]:
        return [v for v in self.views if v is not source and role in v.link_accepts]

    def _pass(self, source: QueryView, text: str, role: str) -> None:
        """Give the query ``text`` that ``source`` emitted to every other view taking
        ``role``."""
        for target in self._targets(source, role):
            if role == "restrict":
                target.link_restrict(text)
            else:
                target.link_highlight(text)

    @property
    def linked(self) -> bool:
        """Whether the link still passes queries (False after :meth:`unlink`)."""
        return bool(self._watchers)

    def unlink(self) -> None:
        """Stop passing queries and restore every view (no restriction, no highlight)."""
        for view, trait, watcher in self._watchers:
            view.unobserve(watcher, names=trait)
        self._watchers = []
        for view in self.views:
            if view._link is self:
                view._link = None
            if "restrict" in view.link_accepts:
                view.link_restrict("")
            if "highlight" in view.link_accepts:
                view.link_highlight("")

    def __repr__(self) -> str:
        state = "linked" if self.linked else "unlinked"
        return f"<glade.Link ({state}) of " + ", ".join(_describe(v) for v in self.views) + ">"


def link(*views: QueryView) -> Link:
    """Link views of one trace: a selection in one restricts or highlights the others.

    Only query text passes between them, through the kernel, so what a linked view
    shows is what ``trace.query(text, level="calls")`` gives.

    Parameters
    ----------
    *views : QueryView
        Two or more views of the same data (a trace's timeline, its CCT view, its
        supergraph view, its comm matrix).

    Returns
    -------
    Link
        The link; ``link.unlink()`` (or :func:`unlink`) restores every view.

    Raises
    ------
    GladeError
        When the views show different data, are fewer than two, repeat, are already
        linked, or none emits what another takes.

    Examples
    --------
    >>> import glade
    >>> from glade.datasets import synthetic_trace
    >>> run = synthetic_trace(4, 5, seed=2)
    >>> timeline, tree = run.show_timeline(), run.show()
    >>> link = glade.link(timeline, tree)
    >>> _ = timeline.window("0.1 ms", "0.2 ms")
    >>> tree.restriction == timeline.query
    True
    >>> link.unlink()
    """
    return Link(views)


def unlink(*items: Link | QueryView) -> None:
    """Undo links: each item is a :class:`Link` or a view (the link it belongs to).

    Parameters
    ----------
    *items : Link or view
        Links, or views (each stands for its link).

    Raises
    ------
    GladeError
        When a view is not linked, or an item is neither.
    """
    for item in items:
        if isinstance(item, Link):
            item.unlink()
        elif isinstance(item, QueryView):
            current = item._link
            if current is None:
                raise GladeError(f"the {_describe(item)} is not linked")
            current.unlink()
        else:
            raise GladeError(f"glade.unlink takes links or views, not {type(item).__name__}")
