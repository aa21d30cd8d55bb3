// The CCT view's tooltip: a row's call path and every metric of it, placed by the pointer.
import { element } from "../../lib/dom.js";
import { formatMetric, formatPercent } from "../../lib/format.js";

/** Fill `tooltip` with what row `group` of `display` holds: its call path, each metric's
 * value (with its unit) and share of `full(j)`, and notes on merged or collapsed rows. */
export function fillTooltip(tooltip, tree, display, group, full) {
  const node = display.first[group];
  const lines = [element("div", "gc-tip-path", { text: tree.pathNames(node).join(" → ") })];
  const table = element("table");
  tree.metrics.forEach((metric, j) => {
    const tr = element("tr");
    const value = display.value(j, group);
    const share = metric.kind === "other" ? "" : formatPercent(value, full(j));
    tr.append(element("td", "", { text: metric.name }),
      element("td", "gc-tip-num", { text: formatMetric(value, metric.unit) }),
      element("td", "gc-tip-num", { text: share }));
    table.append(tr);
  });
  lines.push(table);
  const merged = display.memberCount(group);
  const note = (text) => lines.push(element("div", "gc-tip-note", { text }));
  if (merged > 1) note(`${merged} nodes with equal call paths merged`);
  if (display.collapsed[group]) note("collapsed: values include its callees");
  tooltip.replaceChildren(...lines);
}

/** Show `tooltip` below and right of the pointer, inside the view `root`. */
export function placeTooltip(tooltip, root, pointer) {
  const box = root.getBoundingClientRect();
  tooltip.style.display = "block";
  tooltip.style.left = `${Math.min(pointer.x - box.left + 14, box.width - 260)}px`;
  tooltip.style.top = `${pointer.y - box.top + 14}px`;
}
