"""What every view shares: its bundled front end, the edit history with undo and redo,
the query it emits, the ways to use that query (apply it, write the Python line that
reproduces it, save it, export an offline page), and the hooks through which views are
linked (:mod:`glade.views.link`).

A view keeps its edits as a list of small dicts in the ``history`` trait (undone ones in
``future``). The kernel is the only source of edit rules: the page sends each raw edit,
undo or redo as a message (:data:`EDIT_MESSAGE`), and the view checks it, merges it
(``merge_ops``) and sets the traits the page then shows. Each view turns its history
into ``query``, the canonical string-dialect query of what it shows, so that a click in
the browser and a call from Python change the same state, and ``view.apply()`` gives the
view's result as the data's own type.

A view sends what it draws as one packed payload (:meth:`QueryView._publish`): the
``payload`` bytes trait holds its arrays packed by :func:`glade.packing.pack_arrays`, and
``payload_meta`` their descriptors, the view's small JSON fields and a revision number,
both set in one message. ``js/lib/payload.js`` reads it back. The offline page
(:meth:`QueryView.to_html`) holds the same payload with what the page needs without a
kernel (:meth:`QueryView._page_parts`), the live view unchanged.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import numpy as np
import traitlets

from glade.errors import GladeError
from glade.packing import join_packed, pack_arrays, unpack_arrays
from glade.query import EVERYTHING, format, parse
from glade.query.model import BaseQuery
from glade.writing import write_text

if TYPE_CHECKING:
    from glade.views.link import Link

STATIC = Path(__file__).resolve().parents[1] / "static"
#: The ``type`` of the custom messages in which a view's page asks for an edit, an undo or
#: a redo (``js/lib/history.js`` sends them).
EDIT_MESSAGE = "edit_log"
#: The most items a list the front end sends may hold (edits, selected call paths or
#: names, a row order): a longer one is refused before ipywidgets walks it.
MAX_STATE_ITEMS = 100_000


def static_file(name: str) -> Path:
    """A file of the bundled front end (``static/<name>``); GladeError when the front end
    was not built."""
    path = STATIC / name
    if not path.is_file():
        raise GladeError(
            f"glade's front end is not built ({path} is missing): run "
            "`npm install && npm run build` in the source tree, or reinstall glade"
        )
    return path


#: A group of arrays packed already: the descriptors and blob of ``pack_arrays``.
Packed = tuple[list[dict], bytes]


@dataclass(frozen=True)
class PageParts:
    """What an offline page's payload holds beyond (or instead of) the live view's:
    ``fields``, ``arrays`` and ``packed`` groups that replace or join the view's, a
    None value leaving that name out of the page (see :meth:`QueryView._page_parts`)."""

    fields: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, np.ndarray | None] = field(default_factory=dict)
    packed: dict[str, Packed | None] = field(default_factory=dict)


def updated(state: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``state`` with ``changes``: a name given a value takes it, a name given
    None is dropped.

    Parameters
    ----------
    state, changes : mapping of str
        The names and values kept, and those that change.

    Returns
    -------
    dict
        The new state (``state`` is unchanged).

    Examples
    --------
    >>> updated({"a": 1, "b": 2}, {"b": None, "c": 3})
    {'a': 1, 'c': 3}
    """
    out = dict(state)
    for name, value in changes.items():
        if value is None:
            out.pop(name, None)
        else:
            out[name] = value
    return out


def python_string(text: str) -> str:
    """``text`` as a Python string literal, triple-quoted when that reads back exactly."""
    if "'''" in text or "\\" in text or text.endswith("'") or "\r" in text:
        return repr(text)
    return f"'''{text}'''"


def check_identifier(name: str) -> str:
    """``name`` when it is a Python identifier (a variable name ``code()`` can write)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise GladeError(f"data_name must be a Python identifier, not {name!r}")
    return name


def link_query(query: Any) -> str:
    """The canonical text of a call-level query a link passes, pretty-printed as views
    write theirs ("" for none: an empty text, or a query that keeps everything)."""
    if not isinstance(query, str):
        raise GladeError(f"a link passes query text, not {type(query).__name__}")
    if not query.strip():
        return ""
    text = format(parse(query))
    return "" if text == EVERYTHING else text


def push_edit(history: Sequence[dict], edit: dict, merge_ops: Sequence[str] = ()) -> list[dict]:
    """The history after a new edit; an edit whose op is in ``merge_ops`` replaces a last
    edit of the same op (one slider drag, or one zoom gesture, is one undo step)."""
    if edit["op"] in merge_ops and history and history[-1]["op"] == edit["op"]:
        return [*history[:-1], edit]
    return [*history, edit]


def undo(history: Sequence[dict], future: Sequence[dict]) -> tuple[list[dict], list[dict]]:
    """(history, future) after an undo (unchanged when there is nothing to undo)."""
    if not history:
        return list(history), list(future)
    return list(history[:-1]), [history[-1], *future]


def redo(history: Sequence[dict], future: Sequence[dict]) -> tuple[list[dict], list[dict]]:
    """(history, future) after a redo (unchanged when there is nothing to redo)."""
    if not future:
        return list(history), list(future)
    return [*history, future[0]], list(future[1:])


class Refused(traitlets.TraitError):
    """A GladeError raised while traitlets validates the traits a front end changed at
    once: raised as a TraitError, traitlets puts every one of them back."""

    def __init__(self, error: GladeError):
        super().__init__(str(error))
        self.error = error


def _refusing(validator: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``validator`` (a trait's cross-validator) raising :class:`Refused` for a GladeError
    while changes are held (front-end state), so that none of them is kept."""

    def validate(owner: Any, proposal: Any) -> Any:
        try:
            return validator(owner, proposal)
        except GladeError as exc:
            if owner._cross_validation_lock:
                raise Refused(exc) from exc
            raise

    return validate


def _check_sizes(sync_data: dict) -> None:
    """Refuse a state from the front end with a list longer than :data:`MAX_STATE_ITEMS`,
    in constant time per trait (ipywidgets would walk every item of it, several times)."""
    for name, value in sync_data.items():
        if isinstance(value, list | dict) and len(value) > MAX_STATE_ITEMS:
            raise GladeError(
                f"the front end sent {len(value):,} items for {name!r}, more than the "
                f"{MAX_STATE_ITEMS:,} a view's state may hold"
            )


#: One lock for every glade view of the process. ipykernel 7 may run a view's handler of a
#: message from its page (on a subshell's thread) while a cell calls the same view or one
#: linked to it: each holds this lock (re-entrant: a handler's link reaches the other
#: views in its own thread), so that neither sees the other's half-done state (a timeline
#: between two indexes, say). One lock, not one per view, so that linked views, which call
#: each other from either side, can never wait for each other.
VIEWS_LOCK = threading.RLock()


def _one_at_a_time(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` run holding :data:`VIEWS_LOCK`."""

    @functools.wraps(method)
    def locked(*args: Any, **kwargs: Any) -> Any:
        with VIEWS_LOCK:
            return method(*args, **kwargs)

    locked.one_at_a_time = True  # type: ignore[attr-defined]
    return locked


def _lock_public_methods(cls: type) -> None:
    """Make the public methods of ``cls`` that glade defines (in the class, its bases or
    the mixins it takes) run holding :data:`VIEWS_LOCK`."""
    for name in dir(cls):
        value = inspect.getattr_static(cls, name)
        if (
            not name.startswith("_")
            and inspect.isfunction(value)
            and value.__module__.startswith("glade.")
            and not getattr(value, "one_at_a_time", False)
        ):
            setattr(cls, name, _one_at_a_time(value))


class QueryView(anywidget.AnyWidget):
    """Base of glade's views: ``history``/``future`` of edits, ``query`` (the canonical
    string-dialect query of what the view shows), ``height``, and :meth:`undo`,
    :meth:`redo`, :meth:`reset`, :meth:`apply`, :meth:`code`, :meth:`save_query`,
    :meth:`to_html`, and the link protocol: :meth:`link_restrict`, :meth:`link_highlight`.

    A subclass sets ``_esm``/``_css`` (with :func:`static_file`), lists its ``edit_ops``
    and checks their fields in :meth:`_check_edit`, keeps ``query`` in step with
    ``history``, and says how its query applies to its data in :meth:`_apply_code` (the
    Python expression) and :meth:`_apply_query` (its evaluation, used by :meth:`apply`).

    A view that takes part in links says so in ``link_accepts`` ("restrict": it can show
    only what a call-level query keeps; "highlight": it can mark what one selects, by
    implementing :meth:`_show_restriction` / :meth:`_show_highlight`) and in
    ``link_emits`` ((trait name, "restrict" or "highlight") pairs: the traits holding a
    call-level query that restricts or highlights the views it is linked to).
    """

    history: traitlets.List[Any] = traitlets.List().tag(sync=True)
    future: traitlets.List[Any] = traitlets.List().tag(sync=True)
    #: Why the kernel refused the last state the front end sent ("" when it took it): the
    #: view is left as it was and shows this line.
    error = traitlets.Unicode("").tag(sync=True)
    query = traitlets.Unicode('MATCH ("*")').tag(sync=True)
    height = traitlets.Int(420, min=100).tag(sync=True)
    #: True in the page :meth:`to_html` writes, where no kernel answers edits.
    offline = traitlets.Bool(False).tag(sync=True)
    #: The call-level queries a link restricts the view to and highlights in it ("" when
    #: none); only :meth:`link_restrict` and :meth:`link_highlight` set them.
    restriction = traitlets.Unicode("").tag(sync=True)
    highlighted = traitlets.Unicode("").tag(sync=True)
    #: What the view draws, as one packed payload (see :meth:`_publish`): the blob of
    #: ``pack_arrays`` and ``{"revision": n, "arrays": descriptors, "fields": {...}}``.
    payload = traitlets.Bytes().tag(sync=True)
    payload_meta = traitlets.Dict().tag(sync=True)

    #: The ops a view's edits may have, and those of which consecutive ones merge into one
    #: undo step.
    edit_ops: tuple[str, ...] = ("reset",)
    merge_ops: tuple[str, ...] = ()
    link_emits: tuple[tuple[str, str], ...] = ()

    @property
    def link_accepts(self) -> frozenset[str]:
        """The roles a link may give this view: "restrict", "highlight" (none by default)."""
        return frozenset()

    def __init__(self, data: Any, data_name: str, **kwargs: Any):
        self._data = data
        self.data_name = check_identifier(data_name)
        # True while the view sets its own traits (``query`` after an edit), which are
        # then not edits from the user
        self._internal = False
        self._pending_edit: dict | None = None
        # the glade.views.link.Link the view belongs to, and whether a link hook is setting
        # restriction / highlighted
        self._link: Link | None = None
        self._linking = False
        # the state the payload holds: its small JSON fields, its arrays, and the names
        # of the arrays to deflate
        self._fields: dict[str, Any] = {}
        self._arrays: dict[str, np.ndarray] = {}
        self._deflate: frozenset[str] = frozenset()
        self._packed: dict[str, Packed] = {}
        super().__init__(**kwargs)
        for name, validator in self._trait_validators.items():
            self._trait_validators[name] = _refusing(validator)
        self.on_msg(self._on_edit_message)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _lock_public_methods(cls)

    def _handle_msg(self, msg: dict) -> None:
        """Handle a message from the page (a state update or a custom message) holding
        :data:`VIEWS_LOCK`."""
        with VIEWS_LOCK:
            super()._handle_msg(msg)

    def set_state(self, sync_data: dict) -> None:
        """Take the state the front end sent, whole or not at all.

        A change refused by a check (an edit with missing or wrong keys, an id out of range,
        a selection too large) puts every trait back, sends the kept state to the front end,
        sets ``error`` and raises the GladeError that says why.

        Parameters
        ----------
        sync_data : dict
            Trait names and values, as ipywidgets receives them from the page.

        Raises
        ------
        GladeError
            When a value is refused (the view is left as it was).
        """
        try:
            _check_sizes(sync_data)
            super().set_state(sync_data)
        except (GladeError, traitlets.TraitError) as exc:
            if isinstance(exc, Refused):
                error = exc.error
            elif isinstance(exc, GladeError):
                error = exc
            else:
                error = GladeError(f"the front end sent a state the view cannot take: {exc}")
            self.error = str(error)
            self.send_state([name for name in sync_data if name in self.keys])
            raise error from None
        if self.error:
            self.error = ""

    @property
    def data(self) -> Any:
        """The data the view shows (what ``apply()`` and ``code()`` query)."""
        return self._data

    # ------------------------------------------------------------ payload
    def _publish(
        self,
        fields: dict[str, Any] | None = None,
        arrays: dict[str, np.ndarray | bytes | None] | None = None,
        deflate: tuple[str, ...] | None = None,
        packed: dict[str, Packed | None] | None = None,
        **traits: Any,
    ) -> None:
        """Send a new state of what the view draws as one payload with the next revision.

        ``fields`` (JSON) and ``arrays`` (numpy arrays of a :data:`PACKED_DTYPES
        <glade.packing.PACKED_DTYPES>` dtype, or bytes, sent as uint8) update the state
        the last payload held: names not given keep their value, an array given as None
        is dropped. The whole state is packed again, so that the payload alone (a page
        rendered later, an offline export) always holds everything. ``deflate`` names the
        arrays to compress from now on. ``packed`` holds groups of arrays packed already
        (``(descriptors, blob)`` of :func:`~glade.packing.pack_arrays`, or None to drop
        one), which travel as they are, named ``"<group>/<name>"``. ``traits`` are other
        traits set in the same message."""
        self._fields.update(fields or {})
        changes: dict[str, np.ndarray | None] = {}
        for name, values in (arrays or {}).items():
            if isinstance(values, bytes | bytearray | memoryview):
                values = np.frombuffer(values, dtype=np.uint8)
            changes[name] = None if values is None else np.asarray(values)
        self._arrays = updated(self._arrays, changes)
        if deflate is not None:
            self._deflate = frozenset(deflate)
        self._packed = updated(self._packed, packed or {})
        blob, meta = self._packed_state(self._fields, self._arrays, self._packed)
        with self.hold_sync():
            for name, value in traits.items():
                setattr(self, name, value)
            self.payload = blob
            self.payload_meta = meta

    def _packed_state(
        self, fields: dict[str, Any], arrays: dict[str, np.ndarray], packed: dict[str, Packed]
    ) -> tuple[bytes, dict[str, Any]]:
        """The ``payload`` and ``payload_meta`` of a state of ``fields``, ``arrays`` and
        ``packed`` groups, as the next revision; the view is unchanged."""
        own = pack_arrays(arrays, deflate=self._deflate & set(arrays))
        descriptors, blob = join_packed(
            [
                ("", *own),
                *((f"{group}/", items, part) for group, (items, part) in packed.items()),
            ]
        )
        meta = {
            "revision": self.payload_revision + 1,
            "arrays": descriptors,
            "fields": dict(fields),
        }
        return blob, meta

    @property
    def payload_revision(self) -> int:
        """The revision of the last payload (0 before the first)."""
        return int(self.payload_meta.get("revision", 0))

    def payload_fields(self) -> dict[str, Any]:
        """The small JSON fields of the last payload.

        Returns
        -------
        dict
            Field name -> value (a copy).
        """
        return dict(self.payload_meta.get("fields", {}))

    def payload_arrays(self) -> dict[str, np.ndarray]:
        """The arrays of the last payload, unpacked (what the front end reads).

        Returns
        -------
        dict of str to numpy.ndarray
            Array name -> values.
        """
        return unpack_arrays(self.payload_meta.get("arrays", []), self.payload)

    # ------------------------------------------------------------ edits
    def _check_edit(self, edit: Any) -> dict:
        """``edit`` checked for this view (GladeError naming what is wrong); views extend
        this with the checks of their own ops."""
        if not isinstance(edit, dict) or edit.get("op") not in self.edit_ops:
            raise GladeError(
                f"an edit of a {type(self).__name__} view is a dict whose 'op' "
                f"is one of {list(self.edit_ops)}, not {edit!r}"
            )
        return edit

    @traitlets.validate("history", "future")
    def _valid_edits(self, proposal):
        return [self._check_edit(edit) for edit in proposal["value"]]

    def _edit(self, edit: Any) -> None:
        history = push_edit(self.history, self._check_edit(edit), self.merge_ops)
        with self.hold_sync():
            self.error = ""
            self.future = []
            self.history = history

    def _on_edit_message(self, widget: Any, content: Any, buffers: Any) -> None:
        """An edit, undo or redo asked for by the page (``{"type": "edit_log", "action":
        "edit" | "undo" | "redo", "edit": {...}}``), applied as the same call from Python
        would; an edit the view refuses goes to :meth:`_edit_refused`."""
        if not isinstance(content, dict) or content.get("type") != EDIT_MESSAGE:
            return
        action = content.get("action")
        try:
            if action == "edit":
                self._edit(content.get("edit"))
            elif action == "undo":
                self.undo()
            elif action == "redo":
                self.redo()
            else:
                raise GladeError(f"no edit action {action!r}")
        except GladeError as exc:
            self._edit_refused(exc)

    def _edit_refused(self, error: GladeError) -> None:
        """The page asked for an edit the view refuses: the view is left as it was, and
        ``error`` says why (the page shows it)."""
        self.error = f"edit not applied: {error}"

    def reset(self) -> QueryView:
        """Drop every edit (undoable).

        Returns
        -------
        QueryView
            The view itself, for chaining.
        """
        self._edit({"op": "reset"})
        return self

    def undo(self) -> QueryView:
        """Undo the last edit (nothing happens when there is none).

        Returns
        -------
        QueryView
            The view itself, for chaining.
        """
        history, future = undo(self.history, self.future)
        with self.hold_sync():
            self.future = future
            self.history = history
        return self

    def redo(self) -> QueryView:
        """Redo the last undone edit (nothing happens when there is none).

        Returns
        -------
        QueryView
            The view itself, for chaining.
        """
        history, future = redo(self.history, self.future)
        with self.hold_sync():
            self.future = future
            self.history = history
        return self

    @traitlets.validate("query")
    def _valid_query(self, proposal):
        """A query assigned from Python (``view.query = text``, or one read from a file):
        parsed (a QuerySyntaxError or QueryError leaves the view as it was), made
        canonical and pretty-printed (:func:`glade.query.format`), and recorded as the
        edit :meth:`_query_edit` makes of it."""
        text = proposal["value"]
        if self._internal:
            return text
        if not isinstance(text, str):
            raise GladeError(f"a query is text, not {type(text).__name__}")
        parsed = parse(text)
        canonical = format(parsed)
        if canonical != self.query:
            self._pending_edit = self._query_edit(parsed)
        return canonical

    @traitlets.observe("query")
    def _query_assigned(self, change) -> None:
        if self._pending_edit is not None:
            edit, self._pending_edit = self._pending_edit, None
            self._edit(edit)

    def _query_edit(self, query: BaseQuery) -> dict:
        """The edit that assigning ``query`` to the view records (views that take
        assigned queries say how)."""
        raise GladeError(f"a {type(self).__name__} view does not take an assigned query")

    # ------------------------------------------------------------ links
    @property
    def link_data(self) -> Any:
        """The data whose call-level queries this view shows: views linked together must
        show the same object."""
        return self._data

    @traitlets.validate("restriction", "highlighted")
    def _valid_link_query(self, proposal):
        if not self._linking:
            name = proposal["trait"].name
            hook = "link_restrict" if name == "restriction" else "link_highlight"
            raise GladeError(f"view.{name} is set by a link: call view.{hook}(query)")
        return proposal["value"]

    def _prepare_link(self) -> None:
        """Build what the view's part in a link reads once per trace (indexes, wait
        states, compiled kernels), so that the first window a link passes is as fast as
        the next ones; :class:`~glade.views.link.Link` calls it on every view it links."""

    def _link_hook(self, role: str) -> Callable[[str], None]:
        """The view's way of taking the link ``role``: ``_show_restriction(text)`` shows
        only what canonical query ``text`` keeps (everything for ""),
        ``_show_highlight(text)`` marks what it selects (nothing for ""); GladeError for
        a role the view does not take."""
        if role not in self.link_accepts:
            raise GladeError(
                f"a {type(self).__name__} view cannot be {role}ed by a link "
                f"(it takes: {', '.join(sorted(self.link_accepts)) or 'nothing'})"
            )
        return self._show_restriction if role == "restrict" else self._show_highlight

    def _set_link_query(self, trait: str, text: str, show) -> None:
        """Set ``trait`` (restriction or highlighted) to ``text`` and ``show`` it; the
        trait is put back when showing fails."""
        previous = getattr(self, trait)
        if text == previous:
            return
        self._linking = True
        try:
            setattr(self, trait, text)
            try:
                show(text)
            except BaseException:
                setattr(self, trait, previous)
                raise
        finally:
            self._linking = False

    def link_restrict(self, query: str) -> None:
        """Show only what a call-level query keeps.

        The view's own edits, history and ``query`` are left as they are; a
        :class:`~glade.views.link.Link` calls this when another view's window changes.

        Parameters
        ----------
        query : str
            A call-level query (as ``trace.query(query, level="calls")`` takes), or ``""`` to
            show everything again.

        Raises
        ------
        QueryError
            When the query does not parse or cannot apply to the view's data.
        """
        self._set_link_query("restriction", link_query(query), self._link_hook("restrict"))

    def link_highlight(self, query: str) -> None:
        """Mark what a call-level query selects.

        Parameters
        ----------
        query : str
            A call-level query, or ``""`` to clear the marks.

        Raises
        ------
        QueryError
            When the query does not parse or cannot apply to the view's data.
        """
        self._set_link_query("highlighted", link_query(query), self._link_hook("highlight"))

    # ------------------------------------------------------------ results
    def _apply_code(self, data_name: str, query: str) -> str:
        """The Python expression that applies ``query`` (a string literal) to the data."""
        return f"{data_name}.query({query}, fold=True)"

    def _apply_query(self, query: str) -> Any:
        """``query`` applied to the data, as :meth:`_apply_code` writes it."""
        return self._data.query(query, fold=True)

    def apply(self) -> Any:
        """What the view shows, as the data's own type (see :meth:`code`).

        Returns
        -------
        GraphFrame, Ensemble or Trace
            The view's query applied to its data (``data.query(view.query, fold=True)``, or the
            view's own form of it), a new object.
        """
        return self._apply_query(self.query)

    def code(self, data_name: str | None = None) -> str:
        """The Python line that reproduces the view from its data.

        Parameters
        ----------
        data_name : str, optional
            The variable that holds the data (default: the view's ``data_name``).

        Returns
        -------
        str
            E.g. ``gf.query('''MATCH ("*")''', fold=True)``.

        Raises
        ------
        GladeError
            When ``data_name`` is not a Python identifier.

        Examples
        --------
        >>> from glade.datasets import synthetic_profile
        >>> print(synthetic_profile(7, seed=1).show().code())
        gf.query('''MATCH ("*")''', fold=True)
        """
        name = check_identifier(data_name or self.data_name)
        return self._apply_code(name, python_string(self.query))

    def explain(self) -> str:
        """The view's edits in plain words, each followed by the clause of the query it
        contributes, then the query itself: what the clicks meant, for a notebook or a
        lesson.

        Returns
        -------
        str
            One paragraph per edit (``collapsed main/MPI_Init: hides its 1 descendant``
            and, indented, its clause), and the view's query.

        Examples
        --------
        >>> from glade.datasets import synthetic_profile
        >>> view = synthetic_profile(7, seed=1).show()
        >>> print(view.expand_to_depth(1).explain())  # doctest: +ELLIPSIS
        expanded to depth 1: hides the ... nodes deeper than 1
            MATCH (".", n0) WHERE n0.depth <= 1
        query:
            MATCH (".", n0) WHERE n0.depth <= 1
        """
        lines: list[str] = []
        for words, clause in self._explained():
            lines.append(words)
            lines += ["    " + line for line in clause.splitlines()]
        if not lines:
            lines.append("no edits: the view shows everything")
        return "\n".join([*lines, "query:", *("    " + line for line in self.query.splitlines())])

    def _explained(self) -> list[tuple[str, str]]:
        """Per edit of the history, its words and the clause it contributes ("" for an
        edit that adds none); views with edits say how."""
        return [(edit["op"], "") for edit in self.history]

    def save_query(self, path: str | os.PathLike) -> Path:
        """Write the view's query to a text file (load it with ``view.query = text``).

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        pathlib.Path
            The file written.

        Raises
        ------
        GladeError
            When the file cannot be written.
        """
        return write_text(path, self.query + "\n", "a query")

    def to_html(self, path: str | os.PathLike, title: str | None = None) -> Path:
        """Write a standalone HTML page of the view, with its state, that works offline.

        Parameters
        ----------
        path : str or os.PathLike
            The ``.html`` file.
        title : str, optional
            The page's title (default: ``glade <View>``).

        Returns
        -------
        pathlib.Path
            The file written.

        Raises
        ------
        GladeError
            When the file cannot be written.
        """
        from glade.views.html import write_html

        return write_html(
            self, path, title=title or f"glade {type(self).__name__}", overrides=self._page_state()
        )

    def _page_state(self) -> dict[str, Any]:
        """The traits the page :meth:`to_html` writes sets to other values than the view:
        ``offline``, and the payload of the view's state updated with its
        :meth:`_page_parts` (the view itself, its payload included, is unchanged)."""
        parts = self._page_parts()
        payload, meta = self._packed_state(
            updated(self._fields, parts.fields),
            updated(self._arrays, parts.arrays),
            updated(self._packed, parts.packed),
        )
        return {"offline": True, "payload": payload, "payload_meta": meta}

    def _page_parts(self) -> PageParts:
        """What the offline page needs beyond the live payload to show without a kernel
        (nothing by default): views add the answers a kernel would give and drop what
        the page has no use for."""
        return PageParts()


_lock_public_methods(QueryView)
