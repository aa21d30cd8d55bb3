"""The CCT view's static HTML export opens offline in chromium, and a click collapses a
node there (the JS query builder runs without a kernel)."""

from __future__ import annotations

import pytest

import glade
from glade.views import CCT

pytestmark = pytest.mark.browser


def test_exported_page_works_offline(page, offline_requests, hatchet_data, tmp_path):
    gf = glade.read(hatchet_data / "hpctoolkit-cpi-database")
    view = CCT(gf)
    view.hide(("<program root>", "main", "27:MPI_Init"))
    path = view.to_html(tmp_path / "cct.html")

    page.goto(path.as_uri())
    rows = page.locator(".glade-cct .gc-body .gc-row:visible")
    rows.first.wait_for(timeout=30_000)
    # 34 nodes minus the hidden MPI_Init subtree (11 nodes) is 23; rows with equal call
    # paths merge: the three '<unknown procedure>' siblings (-2), their three
    # '<unknown file>:0' children (-2), two '<unknown procedure>' grandchildren (-1) and
    # the '<unknown file>:0' below those (-1): 17 rows
    status = page.locator(".gc-status")
    assert status.inner_text() == "17 of 34 nodes shown (edited)"
    assert page.locator(".gc-query-text").text_content() == view.query

    main = page.locator(".gc-body .gc-row:visible", has_text="62:MPI_Finalize")
    main.locator(".gc-toggle").click()
    assert status.inner_text() == "3 of 34 nodes shown (edited)"
    assert rows.count() == 3
    view.collapse(("<program root>", "main", "62:MPI_Finalize"))
    assert page.locator(".gc-query-text").text_content() == view.query

    page.locator(".gc-undo").click()
    assert status.inner_text() == "17 of 34 nodes shown (edited)"
    page.locator(".gc-redo").click()
    assert status.inner_text() == "3 of 34 nodes shown (edited)"
    # keyboard: the cursor row (62:MPI_Finalize) expands with ArrowRight, 'z' undoes it
    page.keyboard.press("ArrowRight")
    assert status.inner_text() == "17 of 34 nodes shown (edited)"
    page.keyboard.press("z")
    assert status.inner_text() == "3 of 34 nodes shown (edited)"
    assert offline_requests == []
