"""A view's page and a cell at once: ipykernel 7 may run a widget's handler of a page message
on a subshell's thread while a cell runs. glade's views take them one after the other
(``glade.views.base.VIEWS_LOCK``): a cell never sees a view between two states.

The race is made certain: the page's brush pauses while its timeline is between two indexes
(the old one let go, the new one being built) until the cell has called the view."""

from __future__ import annotations

import threading
import time

import pytest

import glade.trace.timeline.source as source_module
from glade.datasets import synthetic_ensemble, synthetic_profile, synthetic_trace
from glade.ensemble import Ensemble
from glade.views import CCT, CommMatrix, SupergraphView, Timeline
from glade.views.base import EDIT_MESSAGE, VIEWS_LOCK


def page_message(view, content: dict) -> None:
    """What ipywidgets does with a custom message from the view's page."""
    view._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


def test_a_cell_waits_for_the_pages_brush_to_end(monkeypatch):
    trace = synthetic_trace(4, 3, seed=0)
    view = Timeline(trace)
    start, end = (int(v) for v in view.extent[:2])
    inside, cell_calls = threading.Event(), threading.Event()
    built = source_module.TimelineIndex

    class PausedIndex(built):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            if threading.current_thread().name == "page" and not inside.is_set():
                inside.set()
                assert cell_calls.wait(5)
                time.sleep(0.3)  # long enough for a cell that does not wait to run now
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(source_module, "TimelineIndex", PausedIndex)
    brush = {"op": "window", "t0": start, "t1": start + (end - start) // 2, "processes": None}
    page = threading.Thread(
        name="page",
        target=page_message,
        args=(view, {"type": EDIT_MESSAGE, "action": "edit", "edit": brush}),
    )
    page.start()
    assert inside.wait(30)
    cell_calls.set()
    view.clear_window()  # the cell: without the lock, AttributeError: ... no attribute 'index'
    page.join(30)
    assert [edit["op"] for edit in view.history] == ["window", "clear_window"]
    assert view.error == ""
    assert view.picture() is not None


@pytest.mark.parametrize("kind", [CCT, SupergraphView, Timeline, CommMatrix])
def test_every_views_page_messages_and_public_methods_take_turns(kind):
    if kind is CCT:
        view = CCT(synthetic_profile(30, seed=0))
    elif kind is SupergraphView:
        view = SupergraphView(Ensemble.from_graphframes(synthetic_ensemble(3, 30, seed=0)))
    else:
        view = kind(synthetic_trace(4, 3, seed=0))

    def taken_elsewhere() -> bool:
        """Whether another thread holds the lock now (it cannot take it)."""
        answer: list[bool] = []

        def probe() -> None:
            answer.append(VIEWS_LOCK.acquire(False))
            if answer[0]:
                VIEWS_LOCK.release()

        thread = threading.Thread(target=probe)
        thread.start()
        thread.join()
        return not answer[0]

    held: list[bool] = []
    view.on_msg(lambda widget, content, buffers: held.append(taken_elsewhere()))
    page_message(view, {"type": "nothing a view answers"})
    assert held == [True]
    assert not taken_elsewhere()

    # a public method called while another thread holds the lock waits for it
    released: list[float] = []
    taken = threading.Event()

    def hold() -> None:
        with VIEWS_LOCK:
            taken.set()
            time.sleep(0.2)
            released.append(time.perf_counter())

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(5)
    view.reset()
    returned = time.perf_counter()
    holder.join()
    assert released and released[0] <= returned
