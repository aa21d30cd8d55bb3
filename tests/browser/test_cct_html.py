"""The CCT view's static HTML export opens offline in chromium and works there: clicks
collapse and undo (the JS query builder runs without a kernel), headers tell inclusive
from exclusive and resize, the tooltip follows the pointer through a wheel scroll, the
row buttons leave the values visible, and times carry units. All on synthetic data."""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from glade.datasets import synthetic_trace
from glade.views import CCT
from tests.browser.cct_pages import distinct_children, profile, row, subtree_size
from tests.browser.offline import refuse_network
from tests.views.cct.cct_cases import profile_from_spec

pytestmark = pytest.mark.browser


def open_offline(page, view, path):
    """Open the view's exported page with every request off the file system refused."""
    requested = refuse_network(page)
    page.goto(view.to_html(path).as_uri())
    page.locator(".glade-cct .gc-body .gc-row:visible").first.wait_for(timeout=30_000)
    return requested


def test_exported_page_works_offline(page, tmp_path):
    gf = profile(60)
    root = gf.graph.roots[0]
    hidden, collapsed = distinct_children(gf, root)[:2]
    view = CCT(gf)
    view.hide(hidden.path())
    requested = open_offline(page, view, tmp_path / "cct.html")
    status = page.locator(".gc-status")
    after_hide = 60 - subtree_size(gf, hidden)
    assert status.inner_text() == f"{after_hide} of 60 nodes shown (edited)"
    assert page.locator(".gc-query-text").text_content() == view.query

    row(page, collapsed.name).locator(".gc-toggle").click()
    after_collapse = after_hide - (subtree_size(gf, collapsed) - 1)
    assert status.inner_text() == f"{after_collapse} of 60 nodes shown (edited)"
    # the kernel alone writes queries: an edit made without one says so, its undo brings
    # back the exported query
    query = page.locator(".gc-query-text")
    assert query.text_content().startswith("(edited on a page without a kernel")

    page.locator(".gc-undo").click()
    assert status.inner_text() == f"{after_hide} of 60 nodes shown (edited)"
    assert query.text_content() == view.query
    page.locator(".gc-redo").click()
    assert status.inner_text() == f"{after_collapse} of 60 nodes shown (edited)"
    # keyboard: the cursor row (the collapsed node) expands with ArrowRight, 'z' undoes it
    page.keyboard.press("ArrowRight")
    assert status.inner_text() == f"{after_hide} of 60 nodes shown (edited)"
    page.keyboard.press("z")
    assert status.inner_text() == f"{after_collapse} of 60 nodes shown (edited)"
    assert requested == []


def test_merged_rows_are_shown_nodes(page, tmp_path):
    # main -> {a, a -> b, a}: three siblings with one call path share a row
    gf = profile_from_spec(
        {"parent": [-1, 0, 0, 2, 0], "name": ["main", "a", "a", "b", "a"], "time": [1, 2, 3, 4, 5]}
    )
    open_offline(page, CCT(gf), tmp_path / "merged.html")
    assert page.locator(".gc-status").inner_text() == "5 of 5 nodes shown in 3 rows"
    assert row(page, "a (×3)").count() == 1


def test_headers_are_distinct_and_resize(page, tmp_path):
    gf = profile(60)
    view = CCT(gf)
    open_offline(page, view, tmp_path / "headers.html")
    headers = page.locator(".gc-header .gc-column")
    names = [m["name"] for m in view.metrics]
    assert names == ["time (inc)", "time", "PAPI_L2_TCM (inc)", "PAPI_L2_TCM"]
    texts = [headers.nth(j).inner_text().replace("\u200b", "").strip() for j in range(4)]
    # the kind is said once: not under a name that ends in "(inc)"
    assert texts == [
        "time (inc)",
        "time\nexclusive",
        "PAPI_L2_TCM (inc)",
        "PAPI_L2_TCM\nexclusive",
    ]
    title = headers.nth(2).get_attribute("title")
    assert title.startswith("PAPI_L2_TCM (inc) (inclusive metric, in count)")
    # drag the right edge of the third column 80 px to the right: the header and every
    # row's cell widen together
    cells = page.locator(".gc-body .gc-row:visible").first.locator(".gc-cell")
    for j in range(4):  # headers line up with the values under them
        assert headers.nth(j).bounding_box()["x"] == pytest.approx(
            cells.nth(j).bounding_box()["x"], abs=1
        )
    before = headers.nth(2).bounding_box()["width"], cells.nth(2).bounding_box()["width"]
    grip = headers.nth(2).locator(".gc-resize").bounding_box()
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
    page.mouse.down()
    page.mouse.move(grip["x"] + grip["width"] / 2 + 80, grip["y"] + grip["height"] / 2, steps=4)
    page.mouse.up()
    after = headers.nth(2).bounding_box()["width"], cells.nth(2).bounding_box()["width"]
    assert after[0] == pytest.approx(before[0] + 80, abs=1)
    assert after[1] == pytest.approx(before[1] + 80, abs=1)
    # the drag did not sort by that column
    assert "gc-sorted" in headers.nth(0).get_attribute("class")
    assert "gc-sorted" not in headers.nth(2).get_attribute("class")


def visible_row_at(page, y: float):
    """The .gc-text of the drawn row whose box holds the height y."""
    for i in range(page.locator(".gc-body .gc-row:visible").count()):
        box = page.locator(".gc-body .gc-row:visible").nth(i).bounding_box()
        if box["y"] <= y < box["y"] + box["height"]:
            return page.locator(".gc-body .gc-row:visible").nth(i)
    raise AssertionError(f"no row at {y}")


def test_tooltip_and_buttons_follow_the_pointer(page, tmp_path):
    gf = profile(400, seed=4)
    gf.dataframe["nid"] = range(1, len(gf.dataframe) + 1)  # HPCToolkit's node ids
    view = CCT(gf, height=300)
    open_offline(page, view, tmp_path / "scroll.html")
    body = page.locator(".gc-body").bounding_box()
    x, y = body["x"] + 120, body["y"] + 100
    page.mouse.move(x, y)
    tooltip = page.locator(".gc-tooltip")
    path = tooltip.locator(".gc-tip-path")
    first = path.inner_text()
    assert first.endswith(visible_row_at(page, y).locator(".gc-text").inner_text())
    metrics = [t.replace("\u200b", "") for t in tooltip.locator("td:first-child").all_inner_texts()]
    assert metrics == ["time (inc)", "time", "PAPI_L2_TCM (inc)", "PAPI_L2_TCM"]  # no nid

    # the row buttons sit after the last column: they cover no value
    under = visible_row_at(page, y)
    buttons = under.locator(".gc-actions").bounding_box()
    last = under.locator(".gc-cell").last.bounding_box()
    assert buttons["x"] >= last["x"] + last["width"] - 0.5

    # a wheel scroll moves ten rows under the still pointer: the tooltip follows
    page.mouse.wheel(0, 220)
    page.wait_for_function(
        "(before) => document.querySelector('.gc-tip-path').textContent !== before", arg=first
    )
    under = visible_row_at(page, y)
    assert path.inner_text().endswith(under.locator(".gc-text").inner_text())
    assert "gc-hovered" in under.get_attribute("class")


def test_profile_values_legend_and_threshold_have_units(page, tmp_path):
    gf = profile(60)  # the synthetic profile: time in us, PAPI_L2_TCM a count
    view = CCT(gf)
    open_offline(page, view, tmp_path / "units.html")
    texts = page.locator(".gc-body .gc-row:visible").first.locator(".gc-num").all_inner_texts()
    assert all(re.fullmatch(r"\d+(\.\d+)? (ns|us|ms|s)", t) for t in texts[:2]), texts
    assert all(re.fullmatch(r"\d+(\.\d+)?[kMG]? count", t) for t in texts[2:]), texts
    legend = page.locator(".gc-legend-value").all_inner_texts()
    assert all(re.fullmatch(r"\d+(\.\d+)? (ns|us|ms|s)", t) for t in legend), legend
    page.locator(".gc-tooltip").wait_for(state="hidden")
    page.locator(".gc-metric").select_option("PAPI_L2_TCM (inc)")
    assert re.fullmatch(
        r"\d+(\.\d+)?[kMG]? count", page.locator(".gc-threshold-label").inner_text()
    )
    body = page.locator(".gc-body").bounding_box()
    page.mouse.move(body["x"] + 60, body["y"] + 10)
    tip = page.locator(".gc-tooltip td.gc-tip-num").all_inner_texts()
    assert re.fullmatch(r"\d+(\.\d+)? (ns|us|ms|s)", tip[0]), tip
    assert re.fullmatch(r"\d+(\.\d+)?[kMG]? count", tip[4]), tip


def test_trace_times_have_units(page, tmp_path):
    trace = synthetic_trace(3, 4, seed=1)
    view = trace.show()
    open_offline(page, view, tmp_path / "trace.html")
    numbers = page.locator(".gc-body .gc-row:visible").first.locator(".gc-num")
    # time and time (inc) are times (ns in the data); count is a plain number
    texts = numbers.all_inner_texts()
    assert all(re.fullmatch(r"-?\d+(\.\d+)? (ns|us|ms|s)", t) for t in texts[:2]), texts
    assert re.fullmatch(r"\d+", texts[2]), texts
    legend = page.locator(".gc-legend-value").all_inner_texts()
    assert all(re.fullmatch(r"\d+(\.\d+)? (ns|us|ms|s)", t) for t in legend), legend
    assert re.fullmatch(
        r"\d+(\.\d+)? (ns|us|ms|s)", page.locator(".gc-threshold-label").inner_text()
    )


def test_columns_fit_an_800px_panel_and_the_tooltip_leaves_values_free(page, tmp_path):
    # a 40-level chain with six metric columns, in an 800 px wide page
    depth = 40
    gf = profile_from_spec(
        {
            "parent": [-1, *range(depth - 1)],
            "name": [f"level_{i}" for i in range(depth)],
            "time": [float(i + 1) for i in range(depth)],
        }
    )
    # Caliper-like names, long and without spaces, in the columns and the tooltip
    for extra in ("sum#scale#cupti.host.duration", "sum#sum#papi.PAPI_TOT_CYC"):
        gf.dataframe[extra] = gf.dataframe["time"] * 3
        gf.dataframe[f"{extra} (inc)"] = gf.dataframe["time (inc)"] * 3
        gf.exc_metrics.append(extra)
        gf.inc_metrics.append(f"{extra} (inc)")
    page.set_viewport_size({"width": 800, "height": 900})
    view = CCT(gf, height=900)
    open_offline(page, view, tmp_path / "narrow.html")
    body = page.locator(".gc-body").bounding_box()
    headers = page.locator(".gc-header .gc-column")
    assert headers.count() == 6
    rows = page.locator(".gc-body .gc-row:visible")
    assert rows.count() == depth  # every level shown
    lefts = set()
    for r in (0, depth // 2, depth - 1):
        cells = rows.nth(r).locator(".gc-cell")
        boxes = [cells.nth(j).bounding_box() for j in range(6)]
        lefts.add(round(boxes[0]["x"]))
        # every column inside the panel, lined up with its header
        assert boxes[-1]["x"] + boxes[-1]["width"] <= body["x"] + body["width"] + 0.5
        for j in range(6):
            assert boxes[j]["x"] == pytest.approx(headers.nth(j).bounding_box()["x"], abs=1)
    assert len(lefts) == 1  # the deepest row's columns sit where the root's do
    # the deepest name is indented less than 14 px a level, and not cut
    deep = rows.nth(depth - 1).locator(".gc-text")
    assert deep.evaluate("e => e.scrollWidth <= e.clientWidth"), deep.inner_text()
    assert deep.inner_text() == f"level_{depth - 1}"

    # the tooltip of a row ends left of the first metric column
    x, y = body["x"] + 40, body["y"] + 60
    page.mouse.move(x, y)
    tip = page.locator(".gc-tooltip")
    tip.wait_for(state="visible")
    box = tip.bounding_box()
    first = headers.nth(0).bounding_box()
    assert box["x"] + box["width"] <= first["x"]
    assert box["y"] > y  # below the pointer's row
    # long names wrap inside it: nothing sticks out of the tooltip
    assert tip.evaluate("e => e.scrollWidth <= e.clientWidth")
    for cell in tip.locator("td.gc-tip-num").all():
        cell_box = cell.bounding_box()
        assert cell_box["x"] + cell_box["width"] <= box["x"] + box["width"] + 0.5


def test_device_work_is_marked(page, tmp_path):
    # main -> {launch (GPU time 3), cpu_only}: the launch is device work
    gf = profile_from_spec(
        {"parent": [-1, 0, 0], "name": ["main", "launch", "cpu_only"], "time": [1.0, 2.0, 4.0]}
    )
    gf.dataframe["sum#cupti.activity.duration"] = [0.0, 3.0, 0.0]
    gf.exc_metrics.append("sum#cupti.activity.duration")
    open_offline(page, CCT(gf), tmp_path / "gpu.html")
    assert row(page, "launch").locator(".gc-device").is_visible()
    assert not row(page, "cpu_only").locator(".gc-device").is_visible()
    assert not row(page, "main").locator(".gc-device").is_visible()
    header = page.locator(".gc-header .gc-column").last.inner_text().replace("\u200b", "")
    assert header.endswith("exclusive · GPU")
    # the function tabs mark the function and its GPU column too
    page.locator(".gc-tab[data-tab=flat]").click()
    panel = page.locator(".gc-function-panel")
    rows = ".gc-function-rows"
    expect(row(panel, "launch", rows).locator(".gc-device")).to_be_visible()
    expect(row(panel, "cpu_only", rows).locator(".gc-device")).to_be_hidden()
    header = panel.locator(".gc-header .gc-column").last.inner_text().replace("\u200b", "")
    assert header.endswith("exclusive · GPU")


def test_the_hot_path_key_expands_the_cursor_rows_hot_path(page, tmp_path):
    gf = profile(40, ranks=4, seed=5)
    view = CCT(gf).expand_to_depth(1)
    open_offline(page, view, tmp_path / "hot.html")
    status = page.locator(".gc-status")
    at_depth = len(view.apply())
    assert status.inner_text() == f"{at_depth} of 40 nodes shown (edited)"
    row(page, gf.graph.roots[0].name).locator(".gc-text").click()
    page.keyboard.press("p")
    view.expand_hot_path()  # what the kernel would do with the same edit
    assert status.inner_text() == f"{len(view.apply())} of 40 nodes shown (edited)"
    # the readable query is the kernel's: a page without one says so
    assert (
        page.locator(".gc-query-text")
        .text_content()
        .startswith("(edited on a page without a kernel")
    )


def function_names_by(table, names: list[str], column: str) -> list[str]:
    """The top rows of a function table by descending ``column`` (ties by row id)."""
    top = np.flatnonzero(table.parent == -1)
    values = next(c.values for c in table.columns if c.name == column)[top]
    return [names[table.name[r]] for r in top[np.lexsort((top, -values))]]


def test_the_offline_page_offers_every_tab(page, tmp_path):
    gf = profile(60)
    view = CCT(gf)
    view.collapse(distinct_children(gf, gf.graph.roots[0])[0].path())
    requested = open_offline(page, view, tmp_path / "tabs.html")
    panel = page.locator(".gc-function-panel")
    shown = panel.locator(".gc-function-rows .gc-row:visible .gc-text")
    names = view.function_names
    for kind in ("bottom-up", "flat"):
        page.locator(f".gc-tab[data-tab={kind}]").click()
        table = view.function_table(kind)
        # the rows of the exported view (its edit included), sorted by the view's metric
        expected = function_names_by(table, names, view.metric)
        expect(shown).to_have_count(len(expected))
        assert shown.all_text_contents() == expected
        expect(panel.locator(".gc-tab-message")).to_be_hidden()
    # sorting is the page's own business
    panel.locator(".gc-header .gc-column").nth(1).click()
    by_exclusive = function_names_by(view.function_table("flat"), names, "time")
    expect(shown.first).to_have_text(by_exclusive[0])
    assert shown.all_text_contents() == by_exclusive
    # a bottom-up row opens into its callers without a kernel
    page.locator(".gc-tab[data-tab=bottom-up]").click()
    first = panel.locator(".gc-function-rows .gc-row:visible").first
    callers = view.function_table("bottom-up")
    top = names.index(first.locator(".gc-text").inner_text())
    own = int(np.flatnonzero((callers.parent == -1) & (callers.name == top))[0])
    first.locator(".gc-toggle").click()
    expect(shown).to_have_count(len(by_exclusive) + int((callers.parent == own).sum()))
    # an edit made on the page needs the kernel to recompute the rows: said, not faked
    first.hover()
    first.locator("[data-action=hide_function]").click()
    message = panel.locator(".gc-tab-message")
    expect(message).to_contain_text("edits made on this page change these rows")
    expect(shown).to_have_count(0)
    assert page.locator(".gc-query-text").text_content().startswith("(edited on a page")
    page.locator(".gc-undo").click()
    expect(shown).to_have_count(len(by_exclusive) + int((callers.parent == own).sum()))
    assert page.locator(".gc-query-text").text_content() == view.query
    page.locator(".gc-tab[data-tab=icicle]").click()
    expect(page.locator(".gc-icicle-canvas")).to_be_visible()
    assert requested == []


def test_an_offline_page_says_which_callers_it_left_out(page, tmp_path, monkeypatch):
    gf = profile(60)
    view = CCT(gf)
    functions = len(view.function_table("flat"))
    monkeypatch.setattr("glade.views.cct.widget.MAX_PAGE_TAB_ROWS", functions + 3)
    cut = view.function_table("bottom-up", max_rows=functions + 3)
    assert cut.more.any()
    open_offline(page, view, tmp_path / "cut.html")
    page.locator(".gc-tab[data-tab=bottom-up]").click()
    message = page.locator(".gc-function-panel .gc-tab-message")
    expect(message).to_contain_text(
        f"{functions + 3} rows at most in the page: the callers of {int(cut.more.sum())} rows"
    )
    expect(message).to_contain_text("they need the kernel")


def test_the_function_tabs_show_the_rank_spread_whole_at_800px(page, tmp_path):
    view = CCT(profile(60, ranks=4, seed=3))
    spread = [f"{view.metric} {stat}" for stat in ("min", "max", "imbalance")]
    page.set_viewport_size({"width": 800, "height": 700})
    open_offline(page, view, tmp_path / "ranks.html")
    panel = page.locator(".gc-function-panel")
    shown = panel.locator(".gc-function-rows .gc-row:visible .gc-text")
    for kind in ("flat", "bottom-up"):
        page.locator(f".gc-tab[data-tab={kind}]").click()
        headers = panel.locator(".gc-header .gc-column")
        expect(headers.last).to_have_attribute("data-metric", spread[2])
        cells = headers.all()
        assert [c.get_attribute("data-metric") for c in cells[-3:]] == spread
        kinds = [c.locator(".gc-column-kind").inner_text() for c in cells[-3:]]
        assert kinds[:2] == ["min", "max"] and kinds[2] in ("imbalance", "imbal.")
        assert "(max - mean) / mean over ranks" in cells[-1].get_attribute("title")
        # nothing of a header is cut: no clamped line, no word broken, all inside its cell
        for cell in cells:
            box = cell.bounding_box()
            for part in (".gc-column-name", ".gc-column-kind"):
                text = cell.locator(part)
                assert text.evaluate("e => e.scrollHeight <= e.clientHeight"), text.inner_text()
                inner = text.bounding_box()
                assert box["x"] - 0.5 <= inner["x"] and inner["x"] + inner["width"] <= (
                    box["x"] + box["width"] + 0.5
                ), text.inner_text()
        # sorted by the imbalance, the rows are the kernel's in that order
        headers.last.click()
        expected = function_names_by(view.function_table(kind), view.function_names, spread[2])
        expect(shown.first).to_have_text(expected[0])
        drawn = shown.all_text_contents()  # the rows in view (the list is virtual)
        assert len(drawn) >= 10 and drawn == expected[: len(drawn)]
        # the values fit their cells, and the tooltip gives no share of a min, max or imbalance
        numbers = panel.locator(".gc-function-rows .gc-row:visible .gc-cell")
        assert all(numbers.evaluate_all("es => es.map(e => e.scrollWidth <= e.clientWidth + 1)"))
        first = panel.locator(".gc-function-rows .gc-row:visible").first.bounding_box()
        page.mouse.move(first["x"] + 40, first["y"] + 10)
        tip = page.locator(".gc-tooltip tr")
        expect(tip.last).to_contain_text(spread[2])
        rows = [
            [t.replace("\u200b", "") for t in r.locator("td").all_inner_texts()] for r in tip.all()
        ]
        assert [r[2] for r in rows if r[0] in spread] == ["", "", ""]
        assert rows[0][2].endswith("%")
        page.mouse.move(0, 0)
