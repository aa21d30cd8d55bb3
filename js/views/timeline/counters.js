// Counter tracks under the timeline's process rows: one line track per counter, process
// and thread (glade/views/timeline/counters.py), in a lane under the last row of its
// process (layout.js). The kernel reduces the samples of the range shown to pixel
// columns (min, max and mean of the samples in each) for the tracks in view; a track
// draws the min-max envelope and a step line through the means (a counter holds its
// value until its next sample), showing the recorded value or its rate (a toggle). The
// tooltip gives the column's time and its mean, min, max and samples with the unit.
// A menu picks the counters shown; a process's tracks fold away from its gutter.
import { element, labelled, option } from "../../lib/dom.js";
import { formatMetric, formatTimeAt } from "../../lib/format.js";
import { unpackArrays } from "../../lib/transport.js";
import { GUTTER } from "./margins.js";
import { fitText } from "./paint.js";
import { LANE_HEIGHT, lastRows, tracksUnder } from "./layout.js";

const PAD = 4;
/** Beyond this many tracks a process's tracks start folded. */
export const UNFOLDED_TRACKS = 16;
/** The width of the fold toggle at the gutter's left edge. */
export const FOLD_WIDTH = 14;
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

/** The time line of a counter tooltip: the pixel column's span, from the trace's start
 * `origin`, to the precision of a column. */
export function columnTime(env, column, origin) {
  const span = (env.t1 - env.t0) / env.width;
  const start = env.t0 + column * span - origin;
  return ["time", `${formatTimeAt(start, span)} – ${formatTimeAt(start + span, span)}`];
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

/** The counter tracks of a timeline: what the kernel said there is (`tracks`), which
 * counters are shown and which processes folded, the envelope of the last answer, and
 * the menu in the toolbar. `ask(fields)` sends a request (null offline, where the
 * page's `saved` answers per mode stand in); `changed()` tells the view that the lanes
 * changed (a new layout). */
export class CounterLanes {
  constructor(ask, bar, changed, signal, saved = null) {
    this.ask = ask;
    this.changed = changed;
    this.saved = saved;
    this.mode = "value";
    this.tracks = null; // unknown until the first answer
    this.env = null;
    this.shown = new Set();
    this.folded = new Set();
    this.version = 0;
    this.menu = element("details", "gt-counter-menu");
    this.menu.style.display = "none";
    this.summary = element("summary", "", { text: "counters" });
    this.modeSelect = element("select", "gt-counter-mode", {
      title: "show each counter's recorded value or its rate of change per second",
    });
    option(this.modeSelect, "value", "value");
    option(this.modeSelect, "rate", "rate per second");
    this.names = element("div", "gt-counter-names");
    const all = element("button", "gt-counter-unfold", { text: "unfold all" });
    const none = element("button", "gt-counter-fold", { text: "fold all" });
    const buttons = element("div", "gt-counter-buttons");
    buttons.append(all, none);
    const panel = element("div", "gt-counter-panel");
    panel.append(labelled("show", this.modeSelect), this.names, buttons);
    this.menu.append(this.summary, panel);
    bar.append(this.menu);
    const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
    on(this.modeSelect, "change", () => {
      this.mode = this.modeSelect.value;
      this.env = null;
      if (this.saved) this.load(this.saved[this.mode]);
      else this.relayout();
    });
    on(this.names, "change", (event) => {
      const name = event.target.dataset.counter;
      if (name === undefined) return;
      if (event.target.checked) this.shown.add(name);
      else this.shown.delete(name);
      this.relayout();
    });
    on(all, "click", () => {
      this.folded.clear();
      this.relayout();
    });
    on(none, "click", () => {
      for (const track of this.tracks ?? []) this.folded.add(track.process);
      this.relayout();
    });
  }

  /** Offline: show the page's saved answer. */
  start() {
    if (this.saved) this.load(this.saved[this.mode]);
  }

  relayout() {
    this.version++;
    this.changed(true);
  }

  /** Whether `process` has counter tracks. */
  has(process) {
    return this.processes?.has(process) ?? false;
  }

  /** Fold or unfold the tracks of `process`. */
  toggle(process) {
    if (this.folded.has(process)) this.folded.delete(process);
    else this.folded.add(process);
    this.relayout();
  }

  /** The tracks under each row (a Map row -> [track]) for the rows shown: `processes`
   * per location, `locationRows` their first rows, `rows` in all. */
  under(processes, locationRows, rows) {
    if (!this.tracks?.length) return new Map();
    return tracksUnder(this.tracks, this.shown, this.folded,
      lastRows(processes, locationRows, rows));
  }

  /** Ask for the envelope of `tracks` (indices) over the range of `scale`; the first
   * request asks only what tracks there are. */
  request(scale, tracks) {
    if (!this.ask || this.tracks?.length === 0 || (this.tracks && !tracks.length)) return;
    this.ask({
      t0: scale.t0, t1: scale.t1, width: Math.round(scale.width), mode: this.mode,
      tracks: this.tracks ? tracks : [],
    });
  }

  /** The first answer: the tracks there are, the menu's counters, what starts folded. */
  learn(tracks) {
    this.tracks = tracks;
    this.processes = new Set(tracks.map((t) => t.process));
    const names = [...new Set(tracks.map((t) => t.counter))];
    this.shown = new Set(names);
    if (tracks.length > UNFOLDED_TRACKS) this.folded = new Set(this.processes);
    this.names.replaceChildren(...names.map((name) => {
      const box = element("input", "", { type: "checkbox", "data-counter": name });
      box.checked = true;
      return labelled(name, box, true);
    }));
    this.menu.style.display = tracks.length ? "" : "none";
    this.summary.textContent = `counters (${tracks.length})`;
    this.summary.title = `${tracks.length} counter track${tracks.length > 1 ? "s" : ""}: `
      + "pick the counters shown under each process; fold a process's tracks from its "
      + "gutter (▾)";
  }

  /** An answer of the kernel (or of the offline page): its envelope, and on the first
   * one the tracks there are. */
  async setAnswer(answer, buffers) {
    if (answer.mode !== this.mode) return;
    this.load({ answer, arrays: await unpackArrays(answer.arrays, buffers[0]) });
  }

  load(saved) {
    if (!saved) return;
    const { answer, arrays } = saved;
    const first = this.tracks === null;
    if (first) this.learn(answer.tracks);
    this.env = envelopeOf(answer, arrays);
    if (first && answer.tracks.length) this.relayout();
    else this.changed(false);
  }

  /** Paint `lanes` ([{ row, track, top }], top in content pixels) onto the plot (`ctx`)
   * and their names into the gutter (`gutter`), with `frame` (paint.js) and `layout`'s
   * scroll offset `scrollTop`; `style` gives the theme's colours. */
  paint(ctx, gutter, frame, lanes, scrollTop, style) {
    const env = this.env;
    const { width, scale } = frame;
    const { ink, muted, rule, paper } = style;
    ctx.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
    gutter.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
    for (const lane of lanes) {
      const top = lane.top - scrollTop;
      const k = lane.track;
      const track = this.tracks[k];
      ctx.fillStyle = paper;
      ctx.fillRect(0, top, width, LANE_HEIGHT);
      ctx.fillStyle = rule;
      ctx.fillRect(0, top + LANE_HEIGHT - 1, width, 1);
      gutter.fillStyle = paper;
      gutter.fillRect(0, top, GUTTER, LANE_HEIGHT);
      gutter.fillStyle = muted;
      gutter.textAlign = "right";
      gutter.textBaseline = "middle";
      const name = track.thread ? `${track.counter} · ${track.thread}` : track.counter;
      gutter.fillText(fitText(gutter, name, GUTTER - 10), GUTTER - 6, top + LANE_HEIGHT / 2);
      const unit = unitOf(track, this.mode);
      const range = env && env.before.length > k ? trackRange(env, k) : null;
      if (range) {
        const [lo, hi] = range;
        const span = (env.t1 - env.t0) / env.width;
        const x = (column) => scale.x(env.t0 + column * span);
        const inner = LANE_HEIGHT - 2 * PAD - 1;
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
        ctx.lineWidth = 1;
        // the lane's scale as one label, bottom to top: two would crowd a 28 px lane
        const scaleText = `${formatMetric(lo, unit)} – ${formatMetric(hi, unit)}`;
        plate(ctx, scaleText, width - 4 - ctx.measureText(scaleText).width, top + 1, muted,
          paper);
      }
      const title = this.mode === "rate" ? `${track.counter} (rate)` : track.counter;
      plate(ctx, fitText(ctx, unit ? `${title} [${unit}]` : title, width / 2), 4, top + 1,
        ink, paper);
    }
    gutter.textAlign = "left";
    if (env) {
      // what a test reads: the range and width of the envelope drawn, and its mode
      this.drawn = { range: [env.t0, env.t1, env.width], mode: this.mode };
    }
  }

  /** The tooltip's lines for track `k` at CSS pixel column `px` of the plot (`scale`
   * the view's time scale, `origin` the trace's start), or null. */
  linesAt(k, px, scale, origin) {
    const env = this.env;
    if (!env || k >= env.before.length) return null;
    const t = scale.time(px);
    const column = Math.floor(((t - env.t0) / (env.t1 - env.t0)) * env.width);
    if (column < 0 || column >= env.width) return null;
    const at = columnAt(env, k, column);
    if (!at) return null;
    const lines = counterLines(this.tracks[k], env, k, at, this.mode);
    lines.splice(2, 0, columnTime(env, column, origin));
    return lines;
  }
}
