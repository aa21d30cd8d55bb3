// The overview strip: the time profile of the whole trace (the share of each top
// function per time bin, stacked) with the shown range as a brush. Dragging inside the
// brush pans it; dragging outside it chooses a new range.
import { GUTTER } from "./margins.js";

export const OVERVIEW_HEIGHT = 46;

export class Overview {
  /** `canvas` to draw on; `setRange(t0, t1)` is called with the range the user chooses. */
  constructor(canvas, setRange, signal) {
    this.canvas = canvas;
    this.setRange = setRange;
    this.profile = null;
    this.drag = null;
    const on = (type, handler) => canvas.addEventListener(type, handler, { signal });
    on("pointerdown", (event) => this.onDown(event));
    on("pointermove", (event) => this.onMove(event));
    on("pointerup", () => (this.drag = null));
  }

  /** The time under pixel `x` of the strip (the profile's range spans the plot's width). */
  timeAt(x) {
    const { t0, t1 } = this.profile;
    return t0 + ((x - GUTTER) / this.width) * (t1 - t0);
  }

  onDown(event) {
    if (!this.profile) return;
    const t = this.timeAt(event.offsetX);
    const { t0, t1 } = this.shown;
    this.canvas.setPointerCapture(event.pointerId);
    this.drag = t >= t0 && t <= t1 ? { pan: true, anchor: t, t0, t1 } : { pan: false, anchor: t };
  }

  onMove(event) {
    const drag = this.drag;
    if (!drag) return;
    const t = this.timeAt(event.offsetX);
    if (drag.pan) this.setRange(drag.t0 + t - drag.anchor, drag.t1 + t - drag.anchor);
    else if (t !== drag.anchor) this.setRange(Math.min(t, drag.anchor), Math.max(t, drag.anchor));
  }

  /** Draw `profile` ({ t0, t1, bins, codes, share }, or null while it loads) with the
   * range of `scale` as the brush; `colours` by function code. */
  paint(profile, scale, colours) {
    this.profile = profile;
    this.shown = { t0: scale.t0, t1: scale.t1 };
    const width = scale.width;
    this.width = width;
    const ctx = this.canvas.getContext("2d");
    ctx.clearRect(0, 0, width + GUTTER, OVERVIEW_HEIGHT);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.strip(profile, width, colours, ctx.getTransform()), 0, 0);
    ctx.restore();
    if (!profile) return;
    const span = profile.t1 - profile.t0;
    const x0 = GUTTER + ((scale.t0 - profile.t0) / span) * width;
    const x1 = GUTTER + ((scale.t1 - profile.t0) / span) * width;
    ctx.fillStyle = "rgba(255, 255, 255, 0.55)";
    ctx.fillRect(GUTTER, 0, Math.max(0, x0 - GUTTER), OVERVIEW_HEIGHT);
    ctx.fillRect(x1, 0, Math.max(0, GUTTER + width - x1), OVERVIEW_HEIGHT);
    ctx.strokeStyle = "#1976d2";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0, 0.75, Math.max(x1 - x0, 2), OVERVIEW_HEIGHT - 1.5);
    ctx.lineWidth = 1;
  }

  /** The strip without the brush (its name and the stacked profile), on a canvas the
   * size of the strip's drawn with `transform`: drawn once per profile, width and
   * colours, then copied under every brush (a zoom moves only the brush). */
  strip(profile, width, colours, transform) {
    const { width: columns, height: lines } = this.canvas;
    const made = this.made;
    if (made && made.profile === profile && made.width === width && made.colours === colours
      && made.canvas.width === columns && made.canvas.height === lines) return made.canvas;
    const canvas = made?.canvas ?? document.createElement("canvas");
    canvas.width = columns;
    canvas.height = lines;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(transform);
    ctx.fillStyle = "#666";
    ctx.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
    ctx.textBaseline = "middle";
    ctx.fillText("overview", 4, OVERVIEW_HEIGHT / 2);
    this.made = { profile, width, colours, canvas };
    if (!profile) return canvas;
    const { bins, codes, share } = profile;
    const column = width / bins;
    const stack = new Float64Array(bins);
    codes.forEach((code, f) => {
      ctx.fillStyle = code >= 0 ? colours[code] : "#bbb";
      for (let b = 0; b < bins; b++) {
        const value = share[f * bins + b];
        if (value <= 0) continue;
        const y0 = OVERVIEW_HEIGHT * (1 - Math.min(1, stack[b]));
        stack[b] += value;
        const y1 = OVERVIEW_HEIGHT * (1 - Math.min(1, stack[b]));
        ctx.fillRect(GUTTER + b * column, y1, column + 0.5, y0 - y1);
      }
    });
    return canvas;
  }
}
