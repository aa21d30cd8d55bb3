"""Requests from a view's front end, answered by the kernel: custom messages with a
request id (``js/lib/requests.js`` sends them), for what is too large or too
dependent on the screen to live in traits (a timeline's picture of a time range, the
messages behind a matrix cell).

A request is ``{"type": kind, "id": n, ...}``; the answer is ``{"type": kind, "id": n,
...}`` with at most one binary buffer (arrays packed by
:func:`glade.packing.pack_arrays`), or ``{"type": "error", "id": n,
"request": kind, "message": ...}`` when the handler raised: the front end always
gets an answer, never a silent hang. Custom messages are lost when no front end
listens, so nothing a view needs to show itself may travel only this way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from glade.errors import GladeError

#: What a request handler returns: the answer's fields and an optional binary buffer.
Answer = tuple[dict[str, Any], bytes | None]


class Requests:
    """A mixin for widgets: ``self.answer(kind, handler)`` makes the widget answer
    requests of type ``kind`` with ``handler(request) -> (fields, buffer or None)``."""

    if TYPE_CHECKING:  # what it uses of the ipywidgets Widget it is mixed into
        log: logging.Logger

        def on_msg(self, callback: Callable[..., None], remove: bool = False) -> None:
            """Call ``callback`` on each custom message from the front end."""

        def send(self, content: dict[str, Any], buffers: list[Any] | None = None) -> None:
            """Send a custom message to the front end."""

    def answer(self, kind: str, handler: Callable[[dict[str, Any]], Answer]) -> None:
        """Answer requests of type ``kind`` from the front end with ``handler``.

        Parameters
        ----------
        kind : str
            The request type.
        handler : callable
            ``handler(message)`` returning the answer's fields and buffer; a GladeError it
            raises is sent to the page as the answer.
        """
        handlers = self.__dict__.setdefault("_request_handlers", {})
        if not handlers:
            self.on_msg(self._on_request)
        handlers[kind] = handler

    def _on_request(self, widget: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        handler = self.__dict__.get("_request_handlers", {}).get(kind)
        if handler is None:
            return
        request_id = content.get("id")
        try:
            fields, buffer = handler(content)
        except GladeError as exc:
            self.send({"type": "error", "id": request_id, "request": kind, "message": str(exc)})
            return
        except Exception as exc:  # the front end waits for an answer: never leave it hanging
            self.log.exception("a %s request failed", kind)
            self.send(
                {
                    "type": "error",
                    "id": request_id,
                    "request": kind,
                    "message": f"{type(exc).__name__}: {exc}",
                }
            )
            return
        self.send(
            {**fields, "type": kind, "id": request_id}, [buffer] if buffer is not None else None
        )
