// What the view says about one supernode or edge: the lines of its tooltip (pure, so they
// are tested without a browser) and the details panel a click opens (histogram, box plot,
// statistics, outlier profiles, edit buttons), updated in place.

import { element, set } from "../../lib/dom.js";
import { formatMetric, formatPercent, formatValue } from "../../lib/format.js";
import { boxPlot, histogramBars, linear } from "./details.js";
import { histogramOf, outlierProfiles, topEntries } from "./model.js";

const SVG = "http://www.w3.org/2000/svg";
export const KINDS = ["group", "split", "other"];
const OUTLIERS_SHOWN = 12;
const ACTIONS = [["hide", "hide", "remove its nodes; their cost goes to their callers"],
  ["focus", "focus", "keep only the call paths through it"],
  ["entry", "split by entry", "one supernode per entry function"],
  ["callee", "split callees", "make the supernodes it calls visible per entry"]];

export function svgElement(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.append(node);
  return node;
}

/** The sum of the supernodes' root flows: the total, mean over profiles. */
export function totalOf(sg) {
  let total = 0;
  for (const v of sg.nodes.column("root_mean")) total += v;
  return total;
}

/** Supernode i's statistics as one object. */
export function statsOf(sg, i) {
  const c = (name) => sg.nodes.column(name)[i];
  return {
    name: sg.labels.get(i), kind: KINDS[c("kind")] ?? "group", mean: c("inclusive_mean"),
    min: c("inclusive_min"), q1: c("inclusive_q1"), median: c("inclusive_median"),
    q3: c("inclusive_q3"), max: c("inclusive_max"), std: c("inclusive_std"),
    low: c("whisker_lo"), high: c("whisker_hi"), target: c("inclusive_target"),
    imbalance: c("inclusive_imbalance"), exclusive: c("exclusive_mean"),
    nodes: c("nodes"), entries: c("entries"), lo: c("hist_lo"), hi: c("hist_hi"),
    difference: c("difference"), ratio: c("ratio"), p: c("welch_p"), meanA: c("mean_a"),
  };
}

/** [[label, text]] lines about supernode i, its name first. */
export function describeNode(sg, i, unit) {
  const m = (v) => formatMetric(v, unit);
  const s = statsOf(sg, i);
  const lines = [
    [s.name, `${s.kind} · ${s.nodes} CCT nodes, ${s.entries} entries`],
    ["inclusive", `${m(s.mean)} mean, ${m(s.median)} median`],
    ["quartiles", `${m(s.q1)} – ${m(s.q3)}`],
    ["range", `${m(s.min)} – ${m(s.max)} (std ${m(s.std)})`],
    ["exclusive", `${m(s.exclusive)} mean`],
  ];
  if (Number.isFinite(s.target)) lines.push(["target", m(s.target)]);
  if (Number.isFinite(s.imbalance)) lines.push(["rank imbalance", formatValue(s.imbalance)]);
  if (Number.isFinite(s.meanA)) {
    lines.push(["diff b − a", `${s.difference > 0 ? "+" : ""}${m(s.difference)}`
      + `${Number.isFinite(s.ratio) ? ` (×${formatValue(s.ratio)})` : ""}`
      + `${Number.isFinite(s.p) ? `, p = ${formatValue(s.p)}` : ""}`]);
  }
  const entries = topEntries(sg, i);
  if (entries.length) {
    lines.push(["top entries", entries.map((e) => `${e.name} ${m(e.value)}`).join(", ")]);
  }
  return lines;
}

/** [[label, text]] lines about edge e, its ends first. */
export function describeEdge(sg, e, unit) {
  const m = (v) => formatMetric(v, unit);
  const col = (name) => sg.edges.column(name)[e];
  const to = sg.labels.get(col("target"));
  let kind = "calls";
  if (col("reentry")) kind = `re-entry (not counted again in ${to}'s inclusive value)`;
  else if (col("loop")) kind = "back edge (a cycle)";
  const lines = [[`${sg.labels.get(col("source"))} → ${to}`, kind],
    ["mean", m(col("value_mean"))], ["median", m(col("value_median"))],
    ["range", `${m(col("value_min"))} – ${m(col("value_max"))}`]];
  if (Number.isFinite(col("value_target"))) lines.push(["target", m(col("value_target"))]);
  return lines;
}

/** The drawing's width once its CSS width goes from `before` to `after` (each "100%"
 * or that less the panel's `panel` px), given its `width` under `before`: the panel
 * taken away or given back (the resize observer confirms it after the layout). */
export function widthAfter(width, before, after, panel) {
  const whole = before === "100%" ? width : width + panel;
  return Math.max(after === "100%" ? whole : whole - panel, 0);
}

/** Draw in `figure` (an SVG) the histogram of supernode i with its box plot, outliers and
 * target line under it. */
function drawHistogram(figure, sg, i, s, width, m) {
  figure.replaceChildren();
  figure.setAttribute("width", String(width - 16));
  const [x0, x1] = [8, width - 24];
  const x = linear(s.lo, s.hi, x0, x1);
  for (const bar of histogramBars(histogramOf(sg, i), x0, x1, 90, 80)) {
    svgElement("rect", { class: "gs-bar", x: String(bar.x + 0.5), y: String(bar.y),
      width: String(Math.max(bar.width - 1, 1)), height: String(bar.height) }, figure);
  }
  svgElement("line", { class: "gs-axis", x1: String(x0), x2: String(x1), y1: "90", y2: "90" },
    figure);
  const plot = boxPlot(s, x);
  svgElement("line", { class: "gs-whisker", x1: String(plot.whiskers[0]),
    x2: String(plot.whiskers[1]), y1: "112", y2: "112" }, figure);
  svgElement("rect", { class: "gs-box", x: String(plot.box[0]), y: "104",
    width: String(Math.max(plot.box[1] - plot.box[0], 1)), height: "16" }, figure);
  svgElement("line", { class: "gs-median", x1: String(plot.median), x2: String(plot.median),
    y1: "104", y2: "120" }, figure);
  for (const item of outlierProfiles(sg, i)) {
    svgElement("circle", { class: "gs-outlier", cx: String(x(item.value)), cy: "112", r: "2.5" },
      figure);
  }
  if (Number.isFinite(s.target)) {
    svgElement("line", { class: "gs-target", x1: String(x(s.target)), x2: String(x(s.target)),
      y1: "6", y2: "124" }, figure);
  }
  for (const [value, anchor] of [[s.lo, "start"], [(s.lo + s.hi) / 2, "middle"],
    [s.hi, "end"]]) {
    const tick = svgElement("text", { class: "gs-tick", x: String(x(value)), y: "142",
      "text-anchor": anchor }, figure);
    tick.textContent = m(value);
  }
}

/** The details panel of the selected supernode: its name, the edit buttons, its
 * histogram with the box plot and outliers under it, its statistics, its outlier profiles
 * and the linked views (`linked`, which the view fills). The elements are made once and
 * updated in place when the selection or the supergraph changes: a button is never
 * replaced, so a click (its mousedown and mouseup) always lands on the element it
 * started on. */
export class DetailsPanel {
  constructor(panel) {
    this.title = element("div", "gs-panel-title");
    this.actions = element("div", "gs-actions");
    this.buttons = ACTIONS.map(([action, text, title]) => {
      const button = element("button", "", { "data-action": action, text, title });
      this.actions.append(button);
      return button;
    });
    this.share = element("div", "gs-hint");
    this.histogram = svgElement("svg", { class: "gs-histogram", height: "150" });
    this.table = element("table", "gs-stats");
    this.heading = element("div", "gs-panel-heading");
    this.outliers = element("ul", "gs-outliers");
    this.linked = element("div", "gs-linked-views");
    panel.append(this.title, this.actions, this.share, this.histogram, this.table, this.heading,
      this.outliers, this.linked);
  }

  /** Show supernode i of `sg` (the linked views are left as they are). */
  fill(sg, i, { unit, offline, width }) {
    const m = (v) => formatMetric(v, unit);
    const s = statsOf(sg, i);
    set(this.title, "textContent", s.name);
    for (const button of this.buttons) set(button, "disabled", offline);
    set(this.share, "textContent", `${formatPercent(s.mean, totalOf(sg))} of the total · `
      + "view.cct() opens its call tree");
    drawHistogram(this.histogram, sg, i, s, width, m);
    const rows = describeNode(sg, i, unit).slice(1).map(([name, value]) => {
      const row = element("tr");
      row.append(element("th", "", { text: name }), element("td", "", { text: value }));
      return row;
    });
    this.table.replaceChildren(...rows);
    const outliers = outlierProfiles(sg, i);
    set(this.heading, "textContent", outliers.length
      ? `${outliers.length} outlier profile${outliers.length > 1 ? "s" : ""} (beyond 1.5 IQR)`
      : "no outlier profile");
    const items = outliers.slice(0, OUTLIERS_SHOWN).map(
      (item) => element("li", "", { text: `${item.profile}: ${m(item.value)}` }));
    if (outliers.length > OUTLIERS_SHOWN) {
      items.push(element("li", "", { text: `and ${outliers.length - OUTLIERS_SHOWN} more` }));
    }
    this.outliers.replaceChildren(...items);
  }
}
