// The linked views of the selected supernode in the details panel (CallFlow's ensemble
// views): the hierarchy of its call sites (an icicle with each site's histogram across
// profiles as its gradient), inclusive against exclusive per call site and run, the
// runtime over runs, call sites and ranks with the target run marked, a box plot per
// call site with its outlier runs named, the runs along the gradient with their metadata
// (runs that scale out of order flagged), and the value against a numeric metadata
// column with the fitted scaling model. The data comes from the kernel for the selected
// supernode only (linked.js decodes it).

import { scaleLinear, scaleLog } from "d3-scale";
import { element } from "../../lib/dom.js";
import { formatMetric, formatPlain, formatValue } from "../../lib/format.js";
import { density } from "./legend.js";
import { icicleLayout, nearestPoint, readableFormula, runsAlong, wantsLog } from "./linked.js";
import { svgElement } from "./panel.js";

const ROW = 18;
const MAX_DEPTH_ROWS = 8;
const BOXES_SHOWN = 12;
const RUNS_LISTED = 10;
const OUTLIERS_NAMED = 8;
const MARGIN = { left: 52, right: 10, top: 8, bottom: 30 };
/** Icicle boxes narrower than this (px) are filled plainly, not with their histogram. */
const GRADIENT_WIDTH = 4;

let gradients = 0;

const text = (parent, x, y, content, attributes = {}) => {
  const node = svgElement("text", { x: String(x), y: String(y), class: "gs-tick",
    ...attributes }, parent);
  node.textContent = content;
  return node;
};

/** Axes of a plot: ticks and labels on x and y (the value formats carry the units), and their
 * titles. */
function axes(svg, x, y, { width, height, xTitle, yTitle, xFormat, yFormat }) {
  const bottom = height - MARGIN.bottom;
  svgElement("line", { class: "gs-axis", x1: String(MARGIN.left), x2: String(width - MARGIN.right),
    y1: String(bottom), y2: String(bottom) }, svg);
  svgElement("line", { class: "gs-axis", x1: String(MARGIN.left), x2: String(MARGIN.left),
    y1: String(MARGIN.top), y2: String(bottom) }, svg);
  const xTicks = x.ticks(4);
  xTicks.forEach((v, k) => {
    const anchor = k === 0 ? "start" : k === xTicks.length - 1 ? "end" : "middle";
    text(svg, x(v), bottom + 12, xFormat(v), { "text-anchor": anchor });
  });
  for (const v of y.ticks(4)) {
    text(svg, MARGIN.left - 3, y(v), yFormat(v), { "text-anchor": "end",
      "dominant-baseline": "middle" });
  }
  text(svg, (MARGIN.left + width - MARGIN.right) / 2, height - 3, xTitle,
    { "text-anchor": "middle", class: "gs-axis-title" });
  text(svg, 10, (MARGIN.top + bottom) / 2, yTitle, { "text-anchor": "middle",
    class: "gs-axis-title", transform: `rotate(-90 10 ${(MARGIN.top + bottom) / 2})` });
}

/** A plot's SVG of `width` x `height` with a title above it. */
function figure(container, title, width, height, className) {
  const section = element("div", `gs-linked ${className}`);
  section.append(element("div", "gs-panel-heading", { text: title }));
  const svg = svgElement("svg", { width: String(width), height: String(height) }, section);
  container.append(section);
  return { section, svg };
}

/** A tooltip line under a plot, for what the pointer is over (names a call site). */
function hoverLine(section) {
  const line = element("div", "gs-hover", { text: "\u00a0" });
  section.append(line);
  return line;
}

function extent(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (lo > hi) return [0, 1];
  return lo === hi ? [lo - 0.5 * Math.abs(lo || 1), hi + 0.5 * Math.abs(hi || 1)] : [lo, hi];
}

/** The supernode hierarchy: an icicle of its call sites by depth, each box filled with the
 * site's histogram across runs (smallest values on top, as the Sankey's nodes). */
function hierarchy(container, d, { width, m, profiles }) {
  const depths = Math.min(MAX_DEPTH_ROWS, 1 + Math.max(0, ...d.depth));
  const { section, svg } = figure(container,
    `Call sites by depth (${d.siteCount}${d.total_sites > d.siteCount
      ? ` largest of ${d.total_sites}` : ""}), shaded by runs per bin`,
    width, depths * ROW + 2, "gs-icicle");
  const means = Array.from({ length: d.siteCount }, (_, i) => d.stat(i, "mean"));
  const boxes = icicleLayout(d.parent, means, 1, width - 1);
  const defs = svgElement("defs", {}, svg);
  const hover = hoverLine(section);
  boxes.forEach((box, i) => {
    if (box.depth >= depths || box.x1 - box.x0 < 0.5) return;
    // boxes too narrow to show a gradient get the colour of its middle
    let fill = density(0.5);
    if (box.x1 - box.x0 >= GRADIENT_WIDTH) {
      const id = `gs-grad-${++gradients}`;
      const gradient = svgElement("linearGradient", { id, x1: "0", x2: "0", y1: "0", y2: "1" },
        defs);
      // stops at the bins' middles: a shading, not lines through the labels
      for (const [offset, colour] of gradientStops(d.counts(i), density)) {
        svgElement("stop", { offset: String(offset), "stop-color": colour }, gradient);
      }
      fill = `url(#${id})`;
    }
    const y = box.depth * ROW + 1;
    const rect = svgElement("rect", { class: "gs-site", x: String(box.x0), y: String(y),
      width: String(Math.max(box.x1 - box.x0 - 1, 0.5)), height: String(ROW - 2),
      fill, "data-site": String(i) }, svg);
    rect.append(svgElement("title"));
    rect.firstChild.textContent = d.names.get(i);
    if (box.x1 - box.x0 > 40) {
      const label = text(svg, box.x0 + 3, y + ROW / 2, d.names.get(i), {
        class: "gs-site-label", "dominant-baseline": "middle" });
      label.textContent = fitText(d.names.get(i), box.x1 - box.x0 - 6);
    }
  });
  svg.addEventListener("mousemove", (event) => {
    const site = event.target.closest?.("[data-site]");
    if (!site) return;
    const i = Number(site.dataset.site);
    hover.textContent = `${d.names.get(i)}: ${m(d.stat(i, "mean"))} mean inclusive`
      + ` over ${profiles} runs, ${m(d.stat(i, "median"))} median`;
  });
}

/** `label` cut with an ellipsis to about `width` pixels of 11 px text. */
export function fitText(label, width) {
  const chars = Math.max(1, Math.floor(width / 6.2));
  return label.length <= chars ? label : `${label.slice(0, Math.max(1, chars - 1))}…`;
}

/** SVG path data of a square of `size` px centred on each point (at whole pixels), each
 * pixel's square drawn once however many points fall on it. */
export function squares(xs, ys, size) {
  const half = size / 2;
  const seen = new Set();
  let path = "";
  for (let k = 0; k < xs.length; k++) {
    const x = Math.round(xs[k] - half);
    const y = Math.round(ys[k] - half);
    const key = x * 65536 + y;
    if (seen.has(key)) continue;
    seen.add(key);
    path += `M${x} ${y}h${size}v${size}h-${size}z`;
  }
  return path;
}

/** The stops of a vertical gradient of histogram `counts` (one per bin, at its middle,
 * coloured by its share of the fullest bin by `colour`), runs of equal bins as their
 * first and last stop only: [[offset, colour]]. */
export function gradientStops(counts, colour) {
  const most = Math.max(1, ...counts);
  const stops = [];
  counts.forEach((c, b) => {
    const last = b === counts.length - 1;
    if (b > 0 && !last && c === counts[b - 1] && c === counts[b + 1]) return;
    stops.push([(b + 0.5) / counts.length, colour(c / most)]);
  });
  return stops;
}

/** Inclusive against exclusive per call site and run (one SVG path of squares: thousands
 * of points in one element), the hovered point's call site and run named under it. */
function correlation(container, d, { width, m, labels, target }) {
  const height = 170;
  const { section, svg } = figure(container, "Inclusive vs exclusive per call site and run",
    width, height, "gs-scatter");
  const n = d.siteCount * d.profiles;
  const inc = new Float64Array(n);
  const exc = new Float64Array(n);
  for (let i = 0; i < d.siteCount; i++) {
    for (let p = 0; p < d.profiles; p++) {
      inc[i * d.profiles + p] = d.inclusive(i, p);
      exc[i * d.profiles + p] = d.exclusive(i, p);
    }
  }
  const x = scaleLinear().domain(extent(inc)).nice().range([MARGIN.left, width - MARGIN.right]);
  const y = scaleLinear().domain(extent(exc)).nice().range([height - MARGIN.bottom, MARGIN.top]);
  axes(svg, x, y, { width, height, xTitle: "inclusive", yTitle: "exclusive", xFormat: m,
    yFormat: m });
  const px = inc.map((v) => x(v));
  const py = exc.map((v) => y(v));
  svgElement("path", { class: "gs-points", d: squares(px, py, 3) }, svg);
  if (target !== null) {
    const own = Array.from({ length: d.siteCount }, (_, i) => i * d.profiles + target);
    svgElement("path", { class: "gs-points gs-target-points",
      d: squares(own.map((k) => px[k]), own.map((k) => py[k]), 4) }, svg);
  }
  const hover = hoverLine(section);
  svg.addEventListener("mousemove", (event) => {
    const box = svg.getBoundingClientRect();
    const k = nearestPoint(px, py, event.clientX - box.left, event.clientY - box.top, 6);
    if (k < 0) return;
    const i = Math.floor(k / d.profiles);
    const p = k % d.profiles;
    hover.textContent = `${d.names.get(i)} · ${labels.get(p)}: ${m(inc[k])} inclusive, `
      + `${m(exc[k])} exclusive`;
    svg.dataset.hovered = d.names.get(i);
  });
}

/** The supernode's value over runs (sorted bars), over its call sites (mean bars) and,
 * with ranks, over the ranks of every run (a histogram, the target run's ranks marked). */
function distributions(container, d, { width, m, labels, target }) {
  const height = 110;
  const runs = runsAlong(d.value);
  const { section, svg } = figure(container, "Runtime over runs (sorted)", width, height,
    "gs-over-runs");
  const x = scaleLinear().domain([0, runs.length]).range([MARGIN.left, width - MARGIN.right]);
  const y = scaleLinear().domain([0, extent(d.value)[1]]).nice()
    .range([height - MARGIN.bottom, MARGIN.top]);
  axes(svg, x, y, { width, height, xTitle: "runs, by value",
    yTitle: "inclusive", xFormat: (v) => formatPlain(v), yFormat: m });
  const hover = hoverLine(section);
  runs.forEach((run, k) => {
    const bar = svgElement("rect", { class: run.profile === target ? "gs-bar gs-bar-target"
      : "gs-bar", x: String(x(k)), y: String(y(run.value)),
    width: String(Math.max(x(k + 1) - x(k) - 0.5, 0.5)),
    height: String(Math.max(y(0) - y(run.value), 0)), "data-run": String(run.profile) }, svg);
    bar.addEventListener("mouseenter", () => {
      hover.textContent = `${labels.get(run.profile)}: ${m(run.value)}`;
    });
  });
  // over call sites: the largest means, the target run's value as a tick
  const shown = Math.min(d.siteCount, BOXES_SHOWN);
  const siteHeight = shown * 14 + MARGIN.bottom + 4;
  const sites = figure(container, "Runtime over call sites (mean, target ▮)", width,
    siteHeight, "gs-over-sites");
  let largest = 0;
  for (let i = 0; i < shown; i++) {
    for (const name of ["mean", "target"]) {
      if (Number.isFinite(d.stat(i, name))) largest = Math.max(largest, d.stat(i, name));
    }
  }
  const left = Math.min(120, width / 2.5);
  const sx = scaleLinear().domain([0, largest || 1]).nice().range([left, width - MARGIN.right]);
  for (let i = 0; i < shown; i++) {
    const yy = 4 + i * 14;
    text(sites.svg, left - 4, yy + 6, fitText(d.names.get(i), left - 8),
      { "text-anchor": "end", "dominant-baseline": "middle", class: "gs-site-label" });
    svgElement("rect", { class: "gs-bar", x: String(left), y: String(yy),
      width: String(Math.max(sx(d.stat(i, "mean")) - left, 0.5)), height: "11" }, sites.svg);
    const t = d.stat(i, "target");
    if (Number.isFinite(t)) {
      svgElement("line", { class: "gs-target", x1: String(sx(t)), x2: String(sx(t)),
        y1: String(yy - 1), y2: String(yy + 12) }, sites.svg);
    }
  }
  const bottom = siteHeight - MARGIN.bottom + 2;
  svgElement("line", { class: "gs-axis", x1: String(left), x2: String(width - MARGIN.right),
    y1: String(bottom), y2: String(bottom) }, sites.svg);
  for (const v of sx.ticks(3)) text(sites.svg, sx(v), bottom + 12, m(v), { "text-anchor": "middle" });
  text(sites.svg, (left + width) / 2, siteHeight - 3, "mean inclusive",
    { "text-anchor": "middle", class: "gs-axis-title" });
  if (d.ranks > 1) ranks(container, d, { width, m, labels, target });
}

function ranks(container, d, { width, m, labels, target }) {
  const height = 120;
  const values = [];
  for (let p = 0; p < d.profiles; p++) {
    for (let r = 0; r < d.ranks; r++) if (Number.isFinite(d.rank(p, r))) values.push(d.rank(p, r));
  }
  const bins = 20;
  const [lo, hi] = extent(values);
  const counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo)) * bins))]++;
  // the target run's ranks are marked, else the slowest run's
  const who = target ?? runsAlong(d.value)[d.profiles - 1].profile;
  const { section, svg } = figure(container, `Runtime over MPI ranks (all runs; `
    + `${target === null ? "slowest run" : "target"} ${labels.get(who)} marked ▮)`, width,
  height, "gs-over-ranks");
  const x = scaleLinear().domain([lo, hi]).range([MARGIN.left, width - MARGIN.right]);
  const y = scaleLinear().domain([0, Math.max(...counts)]).nice()
    .range([height - MARGIN.bottom, MARGIN.top]);
  axes(svg, x, y, { width, height, xTitle: "per-rank inclusive",
    yTitle: "ranks", xFormat: m, yFormat: (v) => formatPlain(v) });
  counts.forEach((c, b) => {
    const x0 = x(lo + ((hi - lo) * b) / bins);
    const x1 = x(lo + ((hi - lo) * (b + 1)) / bins);
    svgElement("rect", { class: "gs-bar", x: String(x0), y: String(y(c)),
      width: String(Math.max(x1 - x0 - 0.5, 0.5)), height: String(y(0) - y(c)) }, svg);
  });
  const own = [];
  for (let r = 0; r < d.ranks; r++) {
    const v = d.rank(who, r);
    if (!Number.isFinite(v)) continue;
    own.push(v);
    svgElement("line", { class: "gs-target gs-rank-mark", x1: String(x(v)), x2: String(x(v)),
      y1: String(height - MARGIN.bottom - 8), y2: String(height - MARGIN.bottom) }, svg);
  }
  hoverLine(section).textContent = `${labels.get(who)}: ${own.length} ranks from `
    + `${m(Math.min(...own))} to ${m(Math.max(...own))}`;
}

/** A box plot per call site across runs (the largest sites), outlier runs as points and
 * named in a list under it. */
function correspondence(container, d, { width, m, labels }) {
  const shown = Math.min(d.siteCount, BOXES_SHOWN);
  const height = shown * 16 + MARGIN.bottom + 4;
  const { section, svg } = figure(container, "Call sites across runs (box plots)", width, height,
    "gs-boxes");
  const left = Math.min(120, width / 2.5);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < shown; i++) {
    for (let p = 0; p < d.profiles; p++) {
      lo = Math.min(lo, d.inclusive(i, p));
      hi = Math.max(hi, d.inclusive(i, p));
    }
  }
  const x = scaleLinear().domain(lo < hi ? [lo, hi] : [lo - 1, hi + 1]).nice()
    .range([left, width - MARGIN.right]);
  const hover = hoverLine(section);
  for (let i = 0; i < shown; i++) {
    const yy = 4 + i * 16;
    const mid = yy + 6;
    const s = (name) => x(d.stat(i, name));
    text(svg, left - 4, mid, fitText(d.names.get(i), left - 8), { "text-anchor": "end",
      "dominant-baseline": "middle", class: "gs-site-label" });
    svgElement("line", { class: "gs-whisker", x1: String(s("whisker_lo")),
      x2: String(s("whisker_hi")), y1: String(mid), y2: String(mid) }, svg);
    const box = svgElement("rect", { class: "gs-box", x: String(s("q1")), y: String(yy),
      width: String(Math.max(s("q3") - s("q1"), 1)), height: "12", "data-site": String(i) },
    svg);
    box.addEventListener("mouseenter", () => {
      hover.textContent = `${d.names.get(i)}: median ${m(d.stat(i, "median"))}, quartiles `
        + `${m(d.stat(i, "q1"))} – ${m(d.stat(i, "q3"))}`;
    });
    svgElement("line", { class: "gs-median", x1: String(s("median")), x2: String(s("median")),
      y1: String(yy), y2: String(yy + 12) }, svg);
  }
  for (const o of d.outliers) {
    if (o.site >= shown) continue;
    const dot = svgElement("circle", { class: "gs-outlier", cx: String(x(o.value)),
      cy: String(4 + o.site * 16 + 6), r: "2.5" }, svg);
    dot.addEventListener("mouseenter", () => {
      hover.textContent = `${d.names.get(o.site)} · ${labels.get(o.profile)}: ${m(o.value)}`;
    });
  }
  const bottom = height - MARGIN.bottom + 2;
  svgElement("line", { class: "gs-axis", x1: String(left), x2: String(width - MARGIN.right),
    y1: String(bottom), y2: String(bottom) }, svg);
  for (const v of x.ticks(3)) text(svg, x(v), bottom + 12, m(v), { "text-anchor": "middle" });
  text(svg, (left + width) / 2, height - 3, "inclusive",
    { "text-anchor": "middle", class: "gs-axis-title" });
  const named = d.outliers.filter((o) => o.site < shown);
  const list = element("ul", "gs-outliers gs-site-outliers");
  for (const o of named.slice(0, OUTLIERS_NAMED)) {
    list.append(element("li", "", { text: `${d.names.get(o.site)} · ${labels.get(o.profile)}: `
      + `${m(o.value)}` }));
  }
  if (named.length > OUTLIERS_NAMED) {
    list.append(element("li", "", { text: `and ${named.length - OUTLIERS_NAMED} more` }));
  }
  section.append(element("div", "gs-hint", { text: named.length
    ? `${named.length} outlier run${named.length > 1 ? "s" : ""} (beyond 1.5 IQR):`
    : "no outlier run" }), list);
}

/** The runs placed along the gradient of the supernode's value, with their metadata
 * labels and parameter values; runs that scale out of order are flagged. */
function guides(container, d, { width, m, labels, target }) {
  const section = element("div", "gs-linked gs-guides");
  section.append(element("div", "gs-panel-heading", { text: "Runs along the gradient" }));
  const strip = svgElement("svg", { width: String(width), height: "34" }, section);
  const defs = svgElement("defs", {}, strip);
  const id = `gs-grad-${++gradients}`;
  const gradient = svgElement("linearGradient", { id }, defs);
  for (const t of [0, 0.5, 1]) {
    svgElement("stop", { offset: String(t), "stop-color": density(t) }, gradient);
  }
  const runs = runsAlong(d.value);
  const x = (t) => 4 + t * (width - 8);
  svgElement("rect", { x: "4", y: "2", width: String(width - 8), height: "10",
    fill: `url(#${id})`, class: "gs-guide-bar" }, strip);
  for (const run of runs) {
    const flagged = d.flag?.[run.profile] === 1;
    svgElement("line", { class: `gs-guide-tick${flagged ? " gs-flagged" : ""}${
      run.profile === target ? " gs-target" : ""}`, x1: String(x(run.t)), x2: String(x(run.t)),
    y1: "12", y2: "20" }, strip);
  }
  text(strip, 4, 30, m(runs[0]?.value), { "text-anchor": "start" });
  text(strip, width - 4, 30, m(runs[runs.length - 1]?.value), { "text-anchor": "end" });
  const parameter = d.parameter;
  const flagged = runs.filter((run) => d.flag?.[run.profile] === 1);
  const listed = new Set([...runs.slice(0, RUNS_LISTED / 2), ...runs.slice(-RUNS_LISTED / 2),
    ...flagged].map((run) => run.profile));
  const list = element("ol", "gs-guide-list");
  for (const run of runs) {
    if (!listed.has(run.profile)) continue;
    const item = element("li", d.flag?.[run.profile] === 1 ? "gs-flagged" : "",
      { text: `${m(run.value)} · ${labels.get(run.profile)}` });
    if (d.flag?.[run.profile] === 1) {
      const other = d.partner[run.profile];
      item.append(element("span", "gs-flag-note", { text: ` — out of order: ${
        d.trend > 0 ? "less" : "more"} than ${labels.get(other)} (${m(d.value[other])}) at a `
        + `smaller ${parameter}` }));
    }
    list.append(item);
  }
  const hidden = runs.length - listed.size;
  section.append(list, element("div", "gs-hint", { text: `${flagged.length
    ? `${flagged.length} run${flagged.length > 1 ? "s" : ""} out of order along ${parameter}`
    : parameter ? `no run out of order along ${parameter}` : "no numeric metadata"}${
    hidden > 0 ? `; ${hidden} runs in the middle not listed` : ""}` }));
  container.append(section);
}

/** The value against a numeric metadata column with the fitted scaling model. */
function scaling(container, d, { width, m, labels, onParameter }) {
  const height = 170;
  const section = element("div", "gs-linked gs-scaling");
  const heading = element("div", "gs-panel-heading", { text: "Scaling along " });
  const select = element("select", "gs-parameter", { title: "numeric metadata column" });
  for (const name of d.parameters) {
    const option = element("option", "", { text: name, value: name });
    select.append(option);
  }
  select.value = d.parameter;
  // an exported page holds the model along one column; the others need the kernel
  if (onParameter) select.addEventListener("change", () => onParameter(select.value));
  else {
    select.disabled = true;
    select.title = "other columns: open the notebook with a running kernel";
  }
  heading.append(select);
  section.append(heading);
  container.append(section);
  const svg = svgElement("svg", { width: String(width), height: String(height) }, section);
  const xs = Array.from(d.x).filter(Number.isFinite);
  const [xlo, xhi] = extent([...xs, ...d.modelX]);
  const x = (wantsLog(xlo, xhi) ? scaleLog().base(2) : scaleLinear()).domain([xlo, xhi])
    .range([MARGIN.left, width - MARGIN.right]);
  const y = scaleLinear().domain([0, extent([...d.value, ...d.modelY])[1]]).nice()
    .range([height - MARGIN.bottom, MARGIN.top]);
  axes(svg, x, y, { width, height, xTitle: d.parameter,
    yTitle: "inclusive", xFormat: (v) => formatValue(v), yFormat: m });
  if (d.modelX.length) {
    const points = Array.from(d.modelX, (v, k) => `${x(v)},${y(d.modelY[k])}`).join(" ");
    svgElement("polyline", { class: "gs-model", points }, svg);
  }
  const hover = hoverLine(section);
  for (let p = 0; p < d.profiles; p++) {
    if (!Number.isFinite(d.x[p])) continue;
    const dot = svgElement("circle", { class: d.flag[p] ? "gs-run gs-flagged" : "gs-run",
      cx: String(x(d.x[p])), cy: String(y(d.value[p])), r: "3" }, svg);
    dot.addEventListener("mouseenter", () => {
      hover.textContent = `${labels.get(p)}: ${m(d.value[p])} at ${d.parameter} = `
        + `${formatPlain(d.x[p])}`;
    });
  }
  section.append(element("div", "gs-model-text", { text: d.formula
    ? `model: ${readableFormula(d.formula)} (SMAPE ${formatPlain(d.smape)}%)` : d.reason }));
}

/** Empty `container` for the linked views of the details `d` (linked.js detailsOf), and
 * return the views as functions, in order, each appending its parts to `container` when
 * called (the view calls them at once when the panel's linked views are in sight, else
 * when they come into sight). */
export function linkedViews(container, d, options) {
  container.replaceChildren();
  // every part as wide as its plots (side by side where the panel is wide)
  container.style.setProperty("--gs-linked-width", `${options.width}px`);
  // a zero on an axis is "0", not "0 ns" in a plot of seconds
  const shared = { ...options, m: (v) => (v === 0 ? "0" : formatMetric(v, options.unit)) };
  const views = [hierarchy, correlation, distributions, correspondence, guides];
  if (d.parameter) views.push(scaling);
  return views.map((view) => () => view(container, d, shared));
}
