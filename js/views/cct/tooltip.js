// The CCT view's tooltip: a row's call path and every metric of it, placed by the pointer.
import { element } from "../../lib/dom.js";
import { formatMetric, formatPercent } from "../../lib/format.js";
import { breakable } from "./columns.js";

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
    tr.append(element("td", "", { text: breakable(metric.name) }),
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
const MAX_TIP_WIDTH = 420;

/**
 * Where the tooltip goes, in px from the view's top left: left of `valuesLeft` (where the
 * metric columns start), so it never covers the values being compared, and below the
 * pointer's row (above it when it would leave the view). When the name column is
 * narrower than the narrowest tooltip (columns resized by hand, a narrow panel), the
 * tooltip goes to the view's left edge in the half of the rows' `band` (top and bottom
 * of the rows, default the whole view) away from the pointer's row, as wide as its text
 * needs (up to 420 px), so it covers neither the toolbar nor the row being read.
 * @param {{width: number, height: number}} view
 * @param {{width: number, height: number}} tip
 * @param {{x: number, y: number}} pointer  relative to the view
 * @param {number} valuesLeft
 * @param {{top: number, bottom: number}} [band]
 * @returns {{left: number, top: number, maxWidth: number}}
 */
export function tooltipPlace(view, tip, pointer, valuesLeft, band = { top: 0, bottom: view.height }) {
  if (valuesLeft - 2 * GAP < MIN_TIP_WIDTH) {
    // away from the row being read, the tooltip may cover other rows' values: it takes
    // the width its metric names need rather than the narrow name column's
    const low = pointer.y < (band.top + band.bottom) / 2;
    const top = low ? Math.max(band.top + 4, band.bottom - tip.height - 4) : band.top + 4;
    return { left: 4, top, maxWidth: Math.max(MIN_TIP_WIDTH, Math.min(MAX_TIP_WIDTH, view.width - 8)) };
  }
  const maxWidth = Math.max(MIN_TIP_WIDTH, valuesLeft - 2 * GAP);
  const width = Math.min(tip.width, maxWidth);
  const left = valuesLeft - GAP - width;
  const below = pointer.y + GAP;
  const top = below + tip.height <= view.height ? below
    : Math.max(0, pointer.y - GAP - tip.height);
  return { left, top, maxWidth };
}

/**
 * Where a tooltip goes beside the pointer (the icicle's boxes have no value columns to
 * keep clear): right of it and below, flipped left or above where it would leave the view,
 * and never above the top of `band` (the drawing, below the toolbar).
 * @param {{width: number, height: number}} view
 * @param {{width: number, height: number}} tip
 * @param {{x: number, y: number}} pointer  relative to the view
 * @param {{top: number, bottom: number}} band
 * @returns {{left: number, top: number}}
 */
export function nearPlace(view, tip, pointer, band) {
  const right = pointer.x + GAP;
  const left = right + tip.width <= view.width ? right : Math.max(4, pointer.x - GAP - tip.width);
  const below = pointer.y + GAP;
  const top = below + tip.height <= view.height ? below : pointer.y - GAP - tip.height;
  return { left, top: Math.max(band.top, top) };
}

/** Show `tooltip` in the view `root` beside the pointer (see nearPlace). */
export function placeNear(tooltip, root, pointer, band) {
  const box = root.getBoundingClientRect();
  release(tooltip);
  tooltip.style.maxWidth = `${Math.min(MAX_TIP_WIDTH, box.width - 8)}px`;
  const place = nearPlace(box, tooltip.getBoundingClientRect(),
    { x: pointer.x - box.left, y: pointer.y - box.top }, band);
  tooltip.style.left = `${place.left}px`;
  tooltip.style.top = `${place.top}px`;
}

/** Show `tooltip` at the view's top left before measuring it: left where it was (near the
 * right edge of a view that has since narrowed), the browser would squeeze it into the
 * space left of that edge and the measure would be of a tall, narrow box. */
function release(tooltip) {
  tooltip.style.left = "0px";
  tooltip.style.top = "0px";
  tooltip.style.display = "block";
}

/** Show `tooltip` in the view `root` beside the pointer, left of the values (see
 * tooltipPlace); `valuesLeft` is the page x where the first metric column starts, `band`
 * the rows' top and bottom relative to the view. */
export function placeTooltip(tooltip, root, pointer, valuesLeft, band) {
  const box = root.getBoundingClientRect();
  release(tooltip);
  const at = { x: pointer.x - box.left, y: pointer.y - box.top };
  const start = tooltipPlace(box, tooltip.getBoundingClientRect(), at, valuesLeft - box.left,
    band);
  tooltip.style.maxWidth = `${start.maxWidth}px`;
  // measured again at its final width: the text may wrap
  const place = tooltipPlace(box, tooltip.getBoundingClientRect(), at, valuesLeft - box.left,
    band);
  tooltip.style.left = `${place.left}px`;
  tooltip.style.top = `${place.top}px`;
}
