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

const GAP = 12;
const MIN_TIP_WIDTH = 200;

/**
 * Where the tooltip goes, in px from the view's top left: left of `valuesLeft` (where the
 * metric columns start), so it never covers the values being compared, and below the
 * pointer's row (above it when it would leave the view). When the name column is
 * narrower than the narrowest tooltip (columns resized by hand), the tooltip goes to the
 * view's left edge in the half of the view away from the pointer's row.
 * @param {{width: number, height: number}} view
 * @param {{width: number, height: number}} tip
 * @param {{x: number, y: number}} pointer  relative to the view
 * @param {number} valuesLeft
 * @returns {{left: number, top: number, maxWidth: number}}
 */
export function tooltipPlace(view, tip, pointer, valuesLeft) {
  const maxWidth = Math.max(MIN_TIP_WIDTH, valuesLeft - 2 * GAP);
  const width = Math.min(tip.width, maxWidth);
  if (valuesLeft - 2 * GAP < MIN_TIP_WIDTH) {
    const top = pointer.y < view.height / 2 ? Math.max(0, view.height - tip.height - 4) : 4;
    return { left: 4, top, maxWidth };
  }
  const left = valuesLeft - GAP - width;
  const below = pointer.y + GAP;
  const top = below + tip.height <= view.height ? below
    : Math.max(0, pointer.y - GAP - tip.height);
  return { left, top, maxWidth };
}

/** Show `tooltip` in the view `root` beside the pointer, left of the values (see
 * tooltipPlace); `valuesLeft` is the page x where the first metric column starts. */
export function placeTooltip(tooltip, root, pointer, valuesLeft) {
  const box = root.getBoundingClientRect();
  tooltip.style.display = "block";
  const start = tooltipPlace(box, tooltip.getBoundingClientRect(),
    { x: pointer.x - box.left, y: pointer.y - box.top }, valuesLeft - box.left);
  tooltip.style.maxWidth = `${start.maxWidth}px`;
  // measured again at its final width: the text may wrap
  const place = tooltipPlace(box, tooltip.getBoundingClientRect(),
    { x: pointer.x - box.left, y: pointer.y - box.top }, valuesLeft - box.left);
  tooltip.style.left = `${place.left}px`;
  tooltip.style.top = `${place.top}px`;
}
