"""The supergraph view's offline page opens in chromium without a network, shows the
Sankey of the exported state, and answers hover (nodes, and links found on their canvas)
and click (tooltip with units, the histogram, box plot and outlier profiles, and the
linked views it holds); its edit controls say they need a kernel."""

from __future__ import annotations

import pytest

import glade
from glade.datasets import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.views import SupergraphView
from glade.views.supergraph import widget as supergraph_widget
from tests.browser.offline import refuse_network

pytestmark = pytest.mark.browser


def test_exported_page_works_offline(page, tmp_path):
    ens = Ensemble.from_graphframes(synthetic_ensemble(24, 150))
    view = SupergraphView(ens, by="module").split("libmpi.so.12")
    target = ens.profiles[6]
    view.set_target(target)
    shown = view.supergraph()
    path = view.to_html(tmp_path / "supergraph.html")
    requested = refuse_network(page)
    page.goto(path.as_uri())
    nodes = page.locator(".glade-sg .gs-node")
    nodes.first.wait_for(timeout=30_000)
    assert nodes.count() == len(shown)
    assert page.locator(".gs-query-text").text_content() == view.query
    assert "edits need Jupyter" in page.locator(".gs-notice").inner_text()
    assert page.locator(".gs-undo").is_disabled()
    assert page.locator(".gs-target").count() == len(shown)

    app = shown.supernodes.index("app")
    page.locator(f".gs-node[data-node='{app}']").hover()
    tooltip = page.locator(".gs-tooltip")
    assert tooltip.is_visible()
    text = tooltip.inner_text()
    assert text.startswith("app group")
    assert " ms" in text or " s" in text
    # the unit is the one the synthetic runs record (seconds): every value label has one
    assert view.unit == "s"
    values = page.locator(".gs-label-value").all_text_contents()
    assert values and all(v.strip().endswith((" s", " ms", " us", " ns")) for v in values)
    top = shown.entries[shown.entries["top"] & (shown.entries["supernode"] == "app")]
    assert f"top entries {top['name'].iloc[0]}" in text

    # links are painted on a canvas: the pointer finds the ribbon just right of app's top
    box = page.locator(f".gs-node[data-node='{app}']").bounding_box()
    page.mouse.move(box["x"] + box["width"] + 2, box["y"] + 1.5)
    title = tooltip.locator(".gs-tip-title").inner_text()
    source, _, rest = title.partition(" → ")
    callees = set(shown.edges.loc[shown.edges["source"] == "app", "target"])
    assert source == "app" and any(rest.startswith(f"{c} ") for c in callees)
    assert page.locator(".gs-link-hover").get_attribute("d").startswith("M")
    page.mouse.move(5, 5)
    assert not tooltip.is_visible()

    page.locator(f".gs-node[data-node='{app}']").click()
    panel = page.locator(".gs-panel")
    assert panel.locator(".gs-panel-title").inner_text() == "app"
    assert panel.locator(".gs-histogram .gs-bar").count() == shown.bins
    # and its linked views, from the page
    panel.locator(".gs-icicle").wait_for()
    outliers = shown.outliers[
        (shown.outliers["which"] == "inclusive") & (shown.outliers["supernode"] == "app")
    ]
    assert panel.locator(".gs-histogram .gs-outlier").count() == len(outliers)
    heading = panel.locator(".gs-panel-heading").first.inner_text()
    assert heading == (
        f"{len(outliers)} outlier profile{'s' if len(outliers) > 1 else ''} (beyond 1.5 IQR)"
        if len(outliers)
        else "no outlier profile"
    )
    assert panel.locator("[data-action=hide]").is_disabled()
    assert page.locator(".gs-stats").inner_text().count("target") == 1
    page.locator(".gs-sankey").click(position={"x": 5, "y": 5})
    assert not panel.is_visible()
    assert requested == []


def test_wide_drawing_paints_links_where_it_is_scrolled(page, tmp_path):
    # by name the synthetic program has two dozen levels: in a narrow page the drawing
    # (columns at least MIN_STEP apart) is much wider than the view, and the links'
    # canvas covers only the part scrolled into view
    ens = Ensemble.from_graphframes(synthetic_ensemble(6, 300))
    view = SupergraphView(ens, by="name")
    shown = view.supergraph()
    path = view.to_html(tmp_path / "wide.html")
    refuse_network(page)
    page.set_viewport_size({"width": 560, "height": 800})
    page.goto(path.as_uri())
    page.locator(".glade-sg .gs-node").first.wait_for(timeout=30_000)
    scroller = page.locator(".gs-canvas")
    width = float(page.locator(".gs-sankey").get_attribute("width"))
    visible = scroller.evaluate("(el) => el.clientWidth")
    assert width > 3 * visible
    canvas = page.locator(".gs-link-canvas")
    assert canvas.evaluate("(c) => c.style.left") == "0px"
    assert abs(canvas.evaluate("(c) => c.getBoundingClientRect().width") - visible) <= 1
    # scrolled to a whole pixel (the browser rounds scrollLeft)
    half = width // 2
    scroller.evaluate(f"(el) => {{ el.scrollLeft = {half}; }}")
    page.wait_for_function(
        f"() => document.querySelector('.gs-link-canvas').style.left === '{half:g}px'"
    )
    # the node marks are those of the columns in view and half a view around it, and of
    # nodes further left whose labels run into that span (a label runs on until a node
    # lies across its line)
    xs = page.locator(".gs-node").evaluate_all(
        "(rects) => rects.map((r) => Number(r.getAttribute('x')))"
    )
    assert 0 < len(xs) < len(shown)
    assert all(x <= half + 1.5 * visible for x in xs)
    assert any(half <= x <= half + visible for x in xs)
    # down a line through the visible part, the pointer finds links where the canvas
    # painted them, and the same link at the same place of the drawing after a scroll
    area = scroller.bounding_box()
    x = area["x"] + visible / 2
    tooltip = page.locator(".gs-tooltip")

    def link_under(y: float) -> str | None:
        """The title of the link under the pointer at (x, y), "" over a node, else None."""
        page.mouse.move(x, y)
        if not tooltip.is_visible():
            return None
        title = tooltip.locator(".gs-tip-title").inner_text()
        return title if " → " in title else ""

    def painted(px: float, py: float) -> int:
        return canvas.evaluate(
            "(c, [px, py]) => { const r = c.getBoundingClientRect(); const k = c.width / r.width;"
            " return c.getContext('2d').getImageData(Math.floor((px - r.left) * k),"
            " Math.floor((py - r.top) * k), 1, 1).data[3]; }",
            [px, py],
        )

    found = [(y + 0.5, link_under(y + 0.5)) for y in range(int(area["y"]), int(area["y"] + 420), 2)]
    runs: dict[str, list[float]] = {}
    for y, title in found:
        # ribbons (a call edge's title ends "calls"): a loop's hit band is wider than its
        # thin stroke, so the middle of its run need not be painted
        if title and title.endswith("calls"):
            runs.setdefault(title, []).append(y)
    assert runs
    title, ys = max(runs.items(), key=lambda item: len(item[1]))
    middle = ys[len(ys) // 2]
    assert any(
        title.startswith(f"{a} → {b} ")
        for a, b in zip(shown.edges["source"], shown.edges["target"], strict=True)
    )
    assert painted(x, middle) > 0
    scroller.evaluate("(el) => { el.scrollLeft += 120; }")
    page.wait_for_function(
        f"() => document.querySelector('.gs-link-canvas').style.left === '{half + 120:g}px'"
    )
    x -= 120
    assert link_under(middle) == title
    assert painted(x, middle) > 0
    # back at the start, the first column's marks are drawn again
    scroller.evaluate("(el) => { el.scrollLeft = 0; }")
    page.locator(".gs-node[data-node='0']").wait_for()
    assert page.locator(".gs-label-text[data-node='0']").count() == 1


def test_exported_page_holds_the_linked_views_of_the_largest_supernodes(
    page, tmp_path, monkeypatch
):
    # a page of at most 5 supernodes' details: the 5 largest have them, the others say
    # which have
    monkeypatch.setattr(supergraph_widget, "OFFLINE_DETAILS", 5)
    runs = glade.datasets.synthetic_scaling_study(repeats=1, n_nodes=60)
    view = SupergraphView(Ensemble.from_graphframes(runs), by="name")
    shown = view.supergraph()
    largest = shown.nodes["inclusive_mean"].sort_values(ascending=False, kind="stable")
    path = view.to_html(tmp_path / "linked.html")
    # the live view does not carry the details along
    assert "offline_details" not in view.payload_fields()
    assert not any("/" in a["name"] for a in view.payload_meta["arrays"])
    requested = refuse_network(page)
    page.goto(path.as_uri())
    page.locator(".glade-sg .gs-node").first.wait_for(timeout=30_000)

    def click(key: str) -> None:
        i = shown.supernodes.index(key)
        scroller = page.locator(".gs-canvas")
        x = float(page.locator(f".gs-node[data-node='{i}']").get_attribute("x"))
        scroller.evaluate(f"(el) => {{ el.scrollLeft = {max(x - 40, 0)}; }}")
        page.locator(f".gs-node[data-node='{i}']").click()

    key = str(largest.index[1])
    click(key)
    details = view.details(key)
    panel = page.locator(".gs-panel")
    panel.locator(".gs-icicle").wait_for()
    assert page.locator(".glade-sg").get_attribute("data-details").startswith(f"{key}@")
    heading = panel.locator(".gs-icicle .gs-panel-heading").inner_text()
    assert heading.startswith(f"Call sites by depth ({len(details.sites)}")
    names = panel.locator(".gs-icicle .gs-site title").all_text_contents()
    assert set(names) <= set(details.names) and details.names[0] in names
    # the scaling model along the column the kernel chose; other columns need a kernel
    assert panel.locator(".gs-parameter").is_disabled()
    assert panel.locator(".gs-parameter").input_value() == details.scaling.parameter

    small = str(largest.index[-1])
    click(small)
    hint = panel.locator(".gs-linked-views .gs-hint").inner_text()
    assert f"the 5 largest of {len(shown)} supernodes" in hint
    assert "running kernel" in hint
    assert page.locator(".gs-icicle").count() == 0
    assert requested == []


#: Records, when the view first says which details it shows, whether it left its linked
#: views for later and how many it built.
WATCH_DETAILS = """() => {
  const el = document.querySelector('.glade-sg');
  new MutationObserver((_, observer) => {
    const views = el.querySelector('.gs-linked-views');
    window.atDetails = [views.hasAttribute('data-deferred'),
      views.querySelectorAll('.gs-linked').length];
    observer.disconnect();
  }).observe(el, { attributes: true, attributeFilter: ['data-details'] });
}"""


#: Resolves after three frames.
FRAMES = """async () => {
  for (let k = 0; k < 3; k++) await new Promise((done) => requestAnimationFrame(done));
}"""


def test_linked_views_out_of_sight_are_built_when_they_come_into_it(page, tmp_path):
    # under a drawing as tall as the page (a narrow page stacks the panel under it) the
    # linked views are out of sight: once the view knows it, a click draws the panel
    # without them, and they are built when they come into sight
    runs = glade.datasets.synthetic_scaling_study(repeats=1, n_nodes=60)
    view = SupergraphView(Ensemble.from_graphframes(runs), by="name", height=560)
    shown = view.supergraph()
    # two supernodes of the first columns (drawn in a narrow page), the largest last
    near = shown.nodes[shown.nodes["level"] <= 1]["inclusive_mean"].sort_values()
    first, key = str(near.index[-2]), str(near.index[-1])
    details = view.details(key)
    path = view.to_html(tmp_path / "stacked.html")
    refuse_network(page)
    page.set_viewport_size({"width": 800, "height": 600})
    page.goto(path.as_uri())
    page.locator(".glade-sg .gs-node").first.wait_for(timeout=30_000)
    # the panel just opened: where its linked views are is not known yet, so they are
    # drawn at once
    page.evaluate(WATCH_DETAILS)
    page.locator(f".gs-node[data-node='{shown.supernodes.index(first)}']").click()
    page.locator(".gs-panel-title", has_text=first).wait_for()
    assert page.evaluate("() => window.atDetails") == [False, 8]
    page.evaluate(FRAMES)
    page.evaluate(WATCH_DETAILS)
    page.locator(f".gs-node[data-node='{shown.supernodes.index(key)}']").click()
    page.locator(".gs-panel-title", has_text=key).wait_for()
    assert page.evaluate("() => window.atDetails") == [True, 0]
    linked = page.locator(".gs-linked-views")
    page.evaluate(FRAMES)
    assert linked.locator(".gs-linked").count() == 0
    assert linked.get_attribute("data-deferred") is not None
    # scrolled into sight, they are built
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.locator(".gs-linked-views:not([data-deferred])").wait_for()
    parts = linked.locator(".gs-linked").evaluate_all("(parts) => parts.map((p) => p.classList[1])")
    assert parts == [
        "gs-icicle",
        "gs-scatter",
        "gs-over-runs",
        "gs-over-sites",
        "gs-over-ranks",
        "gs-boxes",
        "gs-guides",
        "gs-scaling",
    ]
    assert linked.locator(".gs-boxes .gs-box").count() == min(12, len(details.sites))
    names = linked.locator(".gs-icicle .gs-site title").all_text_contents()
    assert names[0] == details.names[0] and set(names) <= set(details.names)
