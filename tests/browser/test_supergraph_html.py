"""The supergraph view's offline page opens in chromium without a network, shows the
Sankey of the exported state, and answers hover (nodes, and links found on their canvas)
and click (tooltip with units, the histogram, box plot and outlier profiles); its edit
controls say they need a kernel."""

from __future__ import annotations

import pytest

from glade.datasets import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.views import Supergraph
from tests.browser.offline import refuse_network

pytestmark = pytest.mark.browser


def test_exported_page_works_offline(page, tmp_path):
    ens = Ensemble.from_graphframes(synthetic_ensemble(24, 150))
    view = Supergraph(ens, by="module").split("libmpi.so.12")
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
    assert panel.locator(".gs-bar").count() == shown.bins
    outliers = shown.outliers[(shown.outliers["which"] == "inclusive")
                              & (shown.outliers["supernode"] == "app")]
    assert panel.locator(".gs-outlier").count() == len(outliers)
    heading = panel.locator(".gs-panel-heading").inner_text()
    assert heading == (f"{len(outliers)} outlier profile{'s' if len(outliers) > 1 else ''} "
                       "(beyond 1.5 IQR)" if len(outliers) else "no outlier profile")
    assert panel.locator("[data-action=hide]").is_disabled()
    assert page.locator(".gs-stats").inner_text().count("target") == 1
    page.locator(".gs-sankey").click(position={"x": 5, "y": 5})
    assert not panel.is_visible()
    assert requested == []
