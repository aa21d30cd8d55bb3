// Wait states, the critical path and the order of rows on the timeline (the kernel's
// side: glade/trace/timeline/waiting.py and glade/views/timeline/waiting.py). Under
// "colour by wait states" every waiting call's waiting part is painted in its pattern's
// colour over the dimmed boxes, with an arrow to the call that caused it; waits shorter
// than a pixel come as a raster. The critical path is a chain of segments across the
// rows. The controls set view state traits; the kernel answers every range with them.
import { element, group, labelled, option } from "../../lib/dom.js";
import { formatTime, formatTimeAt } from "../../lib/format.js";
import { packed } from "./pixels.js";
import { drawRaster } from "./paint.js";

/** A colour per wait-state pattern, in the kernel's order (glade.trace.waits.PATTERNS):
 * late sender, late receiver, barrier, N x N, N x 1, 1 x N. No blue: the function with
 * the most time is blue, and its boxes are under the waits. */
export const PATTERN_RGB = [
  [214, 39, 40], [255, 127, 14], [148, 103, 189], [106, 61, 154], [44, 160, 44],
  [227, 119, 194],
];
const WAIT_EDGE = "#111";
const PATH_INK = "#ffb000";
const PATH_EDGE = "#222";
const ROW_ORDERS = [
  ["process", "rows by process"], ["total time", "rows by total time"],
  ["time in MPI", "rows by time in MPI"], ["waiting time", "rows by waiting time"],
];

/** The CSS colour of pattern `code`. */
export function patternColour(code) {
  const [r, g, b] = PATTERN_RGB[code] ?? [128, 128, 128];
  return `rgb(${r}, ${g}, ${b})`;
}

/** The exact wait drawn on `row` at time `t` of `picture` (with `slack` ns of
 * tolerance), -1 for none (or when the picture has no waits). */
export function waitAt(picture, row, t, slack = 0) {
  const rows = picture.wait_row;
  if (!rows) return -1;
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i] === row && picture.wait_start[i] - slack <= t && t < picture.wait_end[i] + slack) {
      return i;
    }
  }
  return -1;
}

/** The tooltip lines of wait `i` of `picture` (`patterns`: their names; `where` names the
 * rows), times to `slack` ns. */
export function waitLines(picture, i, patterns, slack, where) {
  const waited = picture.wait_end[i] - picture.wait_start[i];
  const lines = [["", patterns[picture.wait_pattern[i]]], ["where", where(picture.wait_row[i])],
    ["waiting", formatTimeAt(waited, slack)]];
  const cause = picture.wait_cause_row[i];
  lines.push(["caused by", cause >= 0 ? where(cause) : "a call the view does not show"]);
  lines.push(["", "click: select the call and find its cause"]);
  return lines;
}

/** The raster of short waits as RGBA pixels (width x bins): each pixel in the colour of
 * the pattern with the most waiting time there, as opaque as its share of waiting
 * (at least a quarter, so that a short wait stays visible). */
export function waitPixels(picture, out = null) {
  const { width, bins, wait_alpha: alpha, wait_top: top } = picture;
  const pixels = out ?? new Uint8ClampedArray(4 * width * bins);
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, width * bins);
  words.fill(0);
  if (!alpha) return pixels;
  for (let k = 0; k < width * bins; k++) {
    const code = top[k] - 1;
    if (code < 0 || !alpha[k]) continue;
    const [r, g, b] = PATTERN_RGB[code];
    words[k] = packed(r, g, b, Math.max(alpha[k], 64));
  }
  return pixels;
}

/** The order of rows with process `process` pinned or unpinned (a new `row_order`). */
export function togglePin(order, process) {
  const pinned = order.pinned.includes(process) ? order.pinned.filter((p) => p !== process)
    : [...order.pinned, process];
  return { ...order, pinned };
}

/** The location shown by `row`: the row itself, or with depth rows the last location
 * whose first row (`locationRows`, ascending) is at or above it (-1 for none). */
export function locationOfRow(row, locationRows, depthRows) {
  if (!depthRows) return row;
  let lo = 0;
  let hi = locationRows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (locationRows[mid] <= row) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The gutter's labels: a pinned process marked "▲" after its name. */
export function pinnedLabels(labels, processes, locationRows, pinned, depthRows) {
  if (!pinned.length) return labels;
  const set = new Set(pinned);
  const marked = labels.slice();
  for (let location = 0; location < processes.length; location++) {
    const row = depthRows ? locationRows[location] : location;
    if (set.has(processes[location]) && marked[row] !== undefined) marked[row] = `${marked[row]} ▲`;
  }
  return marked;
}

/** The controls (colour by, critical path, row order) in the toolbar `bar`, bound to the
 * traits of `model`; `changed()` runs after the kernel took a new value. */
export class WaitControls {
  constructor(model, bar, changed, signal) {
    this.model = model;
    this.colour = element("select", "gt-colour-by", { title: "what the boxes show" });
    option(this.colour, "function", "colour: functions");
    option(this.colour, "wait states", "colour: wait states");
    this.path = element("input", "gt-critical-path", { type: "checkbox" });
    this.order = element("select", "gt-row-order", {
      title: "order of the rows (click a process's label to pin it to the top)",
    });
    for (const [value, label] of ROW_ORDERS) option(this.order, value, label);
    bar.append(group(this.colour, labelled("critical path", this.path, true), this.order));
    const set = (name, value) => {
      model.set(name, value);
      model.save_changes();
    };
    const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
    on(this.colour, "change", () => set("colour_by", this.colour.value));
    on(this.path, "change", () => set("critical_path", this.path.checked));
    on(this.order, "change", () => set("row_order", { ...this.rowOrder, by: this.order.value }));
    for (const name of ["colour_by", "critical_path", "row_order"]) {
      model.on(`change:${name}`, () => {
        this.refresh();
        changed(name);
      });
    }
    this.refresh();
  }

  get waits() {
    return this.model.get("colour_by") === "wait states";
  }

  get criticalPath() {
    return this.model.get("critical_path");
  }

  get rowOrder() {
    return this.model.get("row_order");
  }

  /** Pin (or unpin) `process` to the top. */
  togglePin(process) {
    this.model.set("row_order", togglePin(this.rowOrder, process));
    this.model.save_changes();
  }

  refresh() {
    this.colour.value = this.model.get("colour_by");
    this.path.checked = this.criticalPath;
    this.order.value = this.rowOrder.by;
  }

  /** The legend's items for the wait states: a swatch per pattern and a button that
   * selects every waiting call. */
  legendItems() {
    if (!this.waits) return [];
    const items = this.model.get("patterns").map((name, code) => {
      const item = element("span", "gt-legend-item gt-wait-pattern");
      const swatch = element("span", "gt-swatch");
      swatch.style.background = patternColour(code);
      item.append(swatch, name);
      return item;
    });
    items.push(element("button", "gt-select-waiting", {
      "data-action": "waiting", text: "select waiting calls",
    }));
    return items;
  }
}

/** Paint the waits of `picture` over the plot: the raster of short waits (`raster`, a
 * canvas of its pixels, stretched over its rows), each exact wait as a bar in its
 * pattern's colour across its row, and an arrow from its end to its cause. */
export function paintWaits(ctx, frame, picture, raster) {
  if (!picture.wait_start) return;
  const { scale, rowHeight } = frame;
  if (raster) drawRaster(ctx, frame, picture, raster);
  const inset = rowHeight >= 8 ? Math.round(rowHeight * 0.2) : 0;
  const count = picture.wait_start.length;
  for (let i = 0; i < count; i++) {
    const top = frame.rowTop(picture.wait_row[i]);
    const x0 = scale.x(picture.wait_start[i]);
    const x1 = Math.max(scale.x(picture.wait_end[i]), x0 + 1);
    const tall = Math.max(rowHeight - 2 * inset - 1, 1);
    ctx.fillStyle = patternColour(picture.wait_pattern[i]);
    ctx.fillRect(x0, top + inset, x1 - x0, tall);
    if (tall >= 4 && x1 - x0 >= 4) {
      // a dark edge tells a wait from a box of the same hue
      ctx.strokeStyle = WAIT_EDGE;
      ctx.strokeRect(x0 + 0.5, top + inset + 0.5, x1 - x0 - 1, tall - 1);
    }
  }
  ctx.lineWidth = 1.5;
  for (let i = 0; i < count; i++) {
    const cause = picture.wait_cause_row[i];
    if (cause < 0) continue;
    const xa = scale.x(picture.wait_end[i]);
    const ya = frame.rowTop(picture.wait_row[i]) + rowHeight / 2;
    const xb = scale.x(picture.wait_cause_time[i]);
    const yb = frame.rowTop(cause) + rowHeight / 2;
    if (Math.abs(xb - xa) + Math.abs(yb - ya) < 2) continue;
    ctx.strokeStyle = patternColour(picture.wait_pattern[i]);
    ctx.fillStyle = ctx.strokeStyle;
    arrow(ctx, xa, ya, xb, yb);
  }
  ctx.lineWidth = 1;
}

function arrow(ctx, xa, ya, xb, yb) {
  ctx.beginPath();
  ctx.moveTo(xa, ya);
  ctx.lineTo(xb, yb);
  ctx.stroke();
  const angle = Math.atan2(yb - ya, xb - xa);
  ctx.beginPath();
  ctx.moveTo(xb, yb);
  ctx.lineTo(xb - 7 * Math.cos(angle - 0.4), yb - 7 * Math.sin(angle - 0.4));
  ctx.lineTo(xb - 7 * Math.cos(angle + 0.4), yb - 7 * Math.sin(angle + 0.4));
  ctx.fill();
}

/** The points of the critical path's chain: each segment across its row's middle, joined
 * to the next; a segment on a row the view does not show (-1) breaks the chain. Returns
 * a list of polylines, each a list of [x, y]. */
export function pathLines(picture, x, rowMiddle) {
  const lines = [];
  let line = null;
  const count = picture.path_from?.length ?? 0;
  for (let i = 0; i < count; i++) {
    const row = picture.path_row[i];
    if (row < 0) {
      line = null;
      continue;
    }
    const y = rowMiddle(row);
    if (!line) {
      line = [];
      lines.push(line);
    }
    line.push([x(picture.path_from[i]), y], [x(picture.path_to[i]), y]);
  }
  return lines;
}

/** Paint the critical path of `picture` as a thick chain with a dark edge (visible on
 * light and dark boxes). */
export function paintPath(ctx, frame, picture) {
  const lines = pathLines(picture, (t) => frame.scale.x(t),
    (row) => frame.rowTop(row) + frame.rowHeight / 2);
  if (!lines.length) return;
  ctx.lineJoin = "round";
  for (const [width, ink] of [[5, PATH_EDGE], [3, PATH_INK]]) {
    ctx.lineWidth = width;
    ctx.strokeStyle = ink;
    for (const line of lines) {
      ctx.beginPath();
      ctx.moveTo(line[0][0], line[0][1]);
      for (const [x, y] of line.slice(1)) ctx.lineTo(x, y);
      ctx.stroke();
    }
  }
  ctx.lineWidth = 1;
}

/** The selection bar's text for the wait of a clicked call ({pattern, waiting, cause}). */
export function waitText(wait) {
  const cause = wait.cause ? ` for ${wait.cause.name}` : "";
  return `${wait.call.name}: ${wait.pattern}, waited ${formatTime(wait.waiting)}${cause}`;
}
