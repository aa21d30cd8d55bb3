// Counter tracks under the timeline's process rows: one line track per counter, process
// and thread (glade/views/timeline/counters.py). The kernel reduces the samples of the
// range shown to pixel columns (min, max and mean of the samples in each); a track draws
// the min-max envelope and a step line through the means (a counter holds its value
// until its next sample), showing the recorded value or its rate (a toggle). The tooltip
// gives the column's mean, min, max and samples with the counter's unit.
import { element, labelled, option, showLines } from "../../lib/dom.js";
import { formatMetric } from "../../lib/format.js";
import { unpackArrays } from "../../lib/transport.js";
import { GUTTER } from "./margins.js";
import { fitText } from "./paint.js";

export const TRACK_HEIGHT = 40;
/** Tracks shown at once; more scroll (wheel over the tracks). */
export const VISIBLE_TRACKS = 6;
const PAD = 5;
const LINE = "#2f7ed8";
const BAND = "rgba(47, 126, 216, 0.28)";

/** The unit a track shows in `mode`. */
export function unitOf(track, mode) {
  return mode === "rate" ? track.rate_unit : track.unit;
}

/** The first and last entry (exclusive) of each of `tracks` tracks in an envelope whose
 * entries are ordered by track (`trackOf` per entry). */
export function trackSpans(trackOf, tracks) {
  const start = new Int32Array(tracks + 1);
  for (let i = 0; i < trackOf.length; i++) start[trackOf[i] + 1]++;
  for (let k = 0; k < tracks; k++) start[k + 1] += start[k];
  return start;
}

/** The [low, high] a track's axis spans: its columns' min and max and the value held at
 * the range's start; a flat track gets a unit of room around its value; null when the
 * track shows nothing. */
export function trackRange(env, k) {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = env.spans[k]; i < env.spans[k + 1]; i++) {
    lo = Math.min(lo, env.low[i]);
    hi = Math.max(hi, env.high[i]);
  }
  const before = env.before[k];
  if (Number.isFinite(before)) {
    lo = Math.min(lo, before);
    hi = Math.max(hi, before);
  }
  if (!(hi >= lo)) return null;
  if (hi === lo) {
    const room = Math.abs(lo) > 0 ? Math.abs(lo) / 2 : 1;
    return [lo - room, hi + room];
  }
  return [lo, hi];
}

/** The step line and the envelope of track `k` in CSS pixels: `x(column)` gives a
 * column's left edge, `y(value)` its height; the line starts at `left` with the value
 * held before the range, steps to each column's mean and runs on to `right` when the
 * track has samples after the range. Returns { line: [[x, y], ...], bands: [[x, w, yHigh,
 * yLow], ...] }. */
export function trackShapes(env, k, x, y, left, right) {
  const line = [];
  const bands = [];
  let held = env.before[k];
  if (Number.isFinite(held)) line.push([left, y(held)]);
  for (let i = env.spans[k]; i < env.spans[k + 1]; i++) {
    const x0 = x(env.column[i]);
    const x1 = x(env.column[i] + 1);
    if (line.length) line.push([x0, y(held)]);
    line.push([x0, y(env.mean[i])], [x1, y(env.mean[i])]);
    held = env.mean[i];
    if (env.high[i] > env.low[i]) bands.push([x0, x1 - x0, y(env.high[i]), y(env.low[i])]);
  }
  if (line.length && env.beyond[k]) line.push([right, y(held)]);
  return { line, bands };
}

/** What track `k` shows at pixel column `column`: the entry of that column, else the
 * last one before it (its mean is held), else the value held since before the range.
 * Returns { entry, held } (entry -1 with `held` the value from before), or null. */
export function columnAt(env, k, column) {
  let found = -1;
  for (let i = env.spans[k]; i < env.spans[k + 1] && env.column[i] <= column; i++) found = i;
  if (found >= 0) return { entry: found, held: env.column[found] !== column };
  if (Number.isFinite(env.before[k])) return { entry: -1, held: true };
  return null;
}

/** The tooltip's [key, value] lines for track `track` (its entry `at` from columnAt) in
 * `mode`. */
export function counterLines(track, env, k, at, mode) {
  const unit = unitOf(track, mode);
  const where = track.thread ? `process ${track.process}, thread ${track.thread}`
    : `process ${track.process}`;
  const title = mode === "rate" ? `${track.counter} (rate)` : track.counter;
  const lines = [["", title], ["where", where]];
  if (at.entry < 0 || at.held) {
    const value = at.entry < 0 ? env.before[k] : env.mean[at.entry];
    lines.push([mode === "rate" ? "rate" : "value", formatMetric(value, unit)],
      ["", mode === "rate" ? "between two samples" : "held since an earlier sample"]);
    return lines;
  }
  const i = at.entry;
  const name = mode === "rate" ? "rate" : "value";
  lines.push([env.count[i] > 1 ? `mean ${name}` : name, formatMetric(env.mean[i], unit)]);
  if (env.count[i] > 1) {
    lines.push(["min", formatMetric(env.low[i], unit)], ["max", formatMetric(env.high[i], unit)]);
  }
  lines.push(["samples", String(env.count[i])]);
  return lines;
}

/** The envelope of a `counters` answer with its unpacked arrays. */
export function envelopeOf(answer, arrays) {
  return { ...answer, ...arrays, spans: trackSpans(arrays.track, answer.tracks.length) };
}

/** Write `text` at (x, y) (its top left) in `colour` on a plate of `paper`, so that a
 * track's line never runs through a label. */
function plate(ctx, text, x, y, colour, paper) {
  ctx.textAlign = "left";
  ctx.textBaseline = "top";
  ctx.globalAlpha = 0.85;
  ctx.fillStyle = paper;
  ctx.fillRect(x - 2, y, ctx.measureText(text).width + 4, 12);
  ctx.globalAlpha = 1;
  ctx.fillStyle = colour;
  ctx.fillText(text, x, y + 1);
}

/** The panel of counter tracks: asks the kernel through `ask(fields)`, paints on the
 * shared time scale, and shows its tooltip in the view's `tooltip`. */
export class CounterPanel {
  constructor(ask, tooltip, root, signal) {
    this.ask = ask;
    this.tooltip = tooltip;
    this.viewRoot = root;
    this.mode = "value";
    this.env = null;
    this.none = false;
    this.scrollTop = 0;
    this.scale = null;
    this.root = element("div", "gt-counters");
    this.root.style.display = "none";
    const head = element("div", "gt-counters-head");
    this.modeSelect = element("select", "gt-counter-mode", {
      title: "show each counter's recorded value or its rate of change per second",
    });
    option(this.modeSelect, "value", "value");
    option(this.modeSelect, "rate", "rate per second");
    this.title = element("span", "gt-counters-title", { text: "counters" });
    head.append(this.title, labelled("show", this.modeSelect));
    const body = element("div", "gt-counters-body");
    this.gutter = element("canvas", "gt-counters-gutter");
    this.plot = element("canvas", "gt-counters-plot");
    body.append(this.gutter, this.plot);
    this.root.append(head, body);
    const on = (target, type, handler, options = {}) =>
      target.addEventListener(type, handler, { signal, ...options });
    on(this.modeSelect, "change", () => {
      this.mode = this.modeSelect.value;
      if (this.scale) this.request(this.scale);
    });
    on(this.plot, "pointermove", (event) => this.showTooltip(event));
    on(this.plot, "pointerleave", () => {
      this.tooltip.style.display = "none";
    });
    on(this.plot, "wheel", (event) => this.onWheel(event), { passive: false });
  }

  get tracks() {
    return this.env ? this.env.tracks : [];
  }

  get height() {
    return Math.min(this.tracks.length, VISIBLE_TRACKS) * TRACK_HEIGHT;
  }

  /** The tracks scrolled into view: [first, last). */
  visibleTracks() {
    const first = Math.floor(this.scrollTop / TRACK_HEIGHT);
    return [first, first + VISIBLE_TRACKS + 1];
  }

  /** Ask for the tracks in view over the range of `scale` (none once the kernel said
   * there are none). */
  request(scale) {
    this.scale = scale;
    if (this.none) return;
    const [track0, track1] = this.visibleTracks();
    this.ask({
      t0: scale.t0, t1: scale.t1, width: Math.round(scale.width), mode: this.mode, track0,
      track1,
    });
  }

  async setAnswer(answer, buffers) {
    if (answer.mode !== this.mode) return;
    if (!answer.tracks.length) {
      this.none = true;
      this.root.style.display = "none";
      return;
    }
    const arrays = await unpackArrays(answer.arrays, buffers[0]);
    this.env = envelopeOf(answer, arrays);
    this.root.style.display = "";
    this.title.textContent = `counters (${answer.tracks.length} track${answer.tracks.length > 1 ? "s" : ""})`;
    // the range and width of the tracks shown (what a test asks the kernel about)
    this.root.dataset.range = JSON.stringify([answer.t0, answer.t1, answer.width]);
    this.root.dataset.tracks = `${answer.track0}-${answer.track1}`;
    this.resize(this.scale?.width ?? answer.width);
    this.paint(this.scale);
  }

  resize(width) {
    const dpr = window.devicePixelRatio || 1;
    const h = this.height;
    for (const [canvas, w] of [[this.gutter, GUTTER], [this.plot, width]]) {
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    }
  }

  onWheel(event) {
    const max = Math.max(0, this.tracks.length * TRACK_HEIGHT - this.height);
    if (!max) return;
    event.preventDefault();
    this.scrollTop = Math.max(0, Math.min(max, this.scrollTop + event.deltaY));
    this.paint(this.scale);
    const [first, last] = this.visibleTracks();
    const env = this.env;
    if (first < env.track0 || Math.min(last, env.tracks.length) > env.track1) {
      this.request(this.scale);
    }
  }

  /** Paint the tracks in view on `scale` (an answer for another range is stretched to
   * it by time). */
  paint(scale) {
    const env = this.env;
    if (!env || !scale) return;
    this.scale = scale;
    const width = scale.width;
    const ctx = this.plot.getContext("2d");
    const gutter = this.gutter.getContext("2d");
    const style = getComputedStyle(this.viewRoot);
    const ink = style.getPropertyValue("--glade-fg") || "#222";
    const muted = style.getPropertyValue("--glade-muted") || "#666";
    const rule = style.getPropertyValue("--glade-border") || "#ccc";
    const paper = style.getPropertyValue("--glade-bg") || "#fff";
    ctx.clearRect(0, 0, width, this.height);
    gutter.clearRect(0, 0, GUTTER, this.height);
    const span = (env.t1 - env.t0) / env.width;
    const x = (column) => scale.x(env.t0 + column * span);
    const first = Math.floor(this.scrollTop / TRACK_HEIGHT);
    const last = Math.min(env.tracks.length, first + VISIBLE_TRACKS + 1);
    ctx.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
    gutter.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
    gutter.textBaseline = "middle";
    gutter.textAlign = "right";
    for (let k = first; k < last; k++) {
      const top = k * TRACK_HEIGHT - this.scrollTop;
      const track = env.tracks[k];
      ctx.fillStyle = rule;
      ctx.fillRect(0, top + TRACK_HEIGHT - 1, width, 1);
      gutter.fillStyle = rule;
      gutter.fillRect(0, top + TRACK_HEIGHT - 1, GUTTER, 1);
      gutter.fillStyle = ink;
      const where = track.thread ? `${track.process}.${track.thread}` : `process ${track.process}`;
      if (k === 0 || env.tracks[k - 1].process !== track.process
        || env.tracks[k - 1].thread !== track.thread) {
        gutter.fillText(fitText(gutter, where, GUTTER - 10), GUTTER - 6, top + TRACK_HEIGHT / 2);
      }
      const range = trackRange(env, k);
      const unit = unitOf(track, this.mode);
      if (range) {
        const [lo, hi] = range;
        const inner = TRACK_HEIGHT - 2 * PAD - 1;
        const y = (v) => top + PAD + inner * (1 - (v - lo) / (hi - lo));
        const { line, bands } = trackShapes(env, k, x, y, 0, width);
        ctx.fillStyle = BAND;
        for (const [bx, bw, y0, y1] of bands) ctx.fillRect(bx, y0, Math.max(bw, 1), y1 - y0);
        ctx.strokeStyle = LINE;
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        for (const [i, [px, py]] of line.entries()) {
          if (i) ctx.lineTo(px, py);
          else ctx.moveTo(px, py);
        }
        ctx.stroke();
        const high = formatMetric(hi, unit);
        const low = formatMetric(lo, unit);
        plate(ctx, high, width - 4 - ctx.measureText(high).width, top + 1, muted, paper);
        plate(ctx, low, width - 4 - ctx.measureText(low).width, top + TRACK_HEIGHT - 13,
          muted, paper);
      }
      const name = this.mode === "rate" ? `${track.counter} (rate)` : track.counter;
      plate(ctx, fitText(ctx, unit ? `${name} [${unit}]` : name, width / 2), 4, top + 1, ink,
        paper);
    }
    this.root.dataset.drawn = `${env.id}:${this.mode}`;
  }

  /** The track and pixel column under CSS pixel (x, y) of the tracks' canvas, or null. */
  placeAt(px, py) {
    const env = this.env;
    if (!env || !this.scale) return null;
    const k = Math.floor((py + this.scrollTop) / TRACK_HEIGHT);
    if (k < 0 || k >= env.tracks.length) return null;
    const t = this.scale.time(px);
    const column = Math.floor(((t - env.t0) / (env.t1 - env.t0)) * env.width);
    if (column < 0 || column >= env.width) return null;
    return { k, column };
  }

  showTooltip(event) {
    const place = this.placeAt(event.offsetX, event.offsetY);
    const at = place && columnAt(this.env, place.k, place.column);
    if (!at) {
      this.tooltip.style.display = "none";
      return;
    }
    const lines = counterLines(this.env.tracks[place.k], this.env, place.k, at, this.mode);
    showLines(this.tooltip, this.viewRoot, event, lines,
      { keyClass: "gt-tip-key", noteClass: "gt-tip-name", width: 240 });
  }
}
