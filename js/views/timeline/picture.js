// A picture of a range as the kernel sends it (glade/trace/timeline/payload.py): boxes,
// raster, instants and arrows as typed arrays, and what is under the pointer.
import { unpackArrays } from "../../lib/transport.js";
import { packed } from "./pixels.js";

/** The picture of an answer (or snapshot): its fields and its unpacked arrays, with each
 * box's start and end in ns (float64; the kernel sends float32 starts from `box_origin`
 * and durations). */
export async function decodePicture(fields, blob) {
  return pictureOf(fields, await unpackArrays(fields.arrays, blob));
}

/** The picture of `fields` and its arrays, unpacked already (a snapshot in a view's
 * payload: js/lib/payload.js). */
export function pictureOf(fields, arrays) {
  return { ...fields, ...arrays, ...boxTimes(fields.box_origin, arrays.box_start,
    arrays.box_duration), boxCount: arrays.box_start.length };
}

/** The absolute start and end (Float64Array, ns) of boxes starting `offset` ns after
 * `origin` and lasting `duration` ns. */
export function boxTimes(origin, offset, duration) {
  const start = new Float64Array(offset.length);
  const end = new Float64Array(offset.length);
  for (let i = 0; i < offset.length; i++) {
    start[i] = origin + offset[i];
    end[i] = start[i] + duration[i];
  }
  return { box_start: start, box_end: end };
}

/** The box drawn on `row` at time `t` (the last drawn, so the deepest, wins), with
 * `slack` ns of tolerance for thin boxes; -1 for none. */
export function boxAt(picture, row, t, slack = 0) {
  const { box_row: rows, box_start: start, box_end: end } = picture;
  for (let i = picture.boxCount - 1; i >= 0; i--) {
    if (rows[i] === row && start[i] - slack <= t && t < end[i] + slack) return i;
  }
  return -1;
}

/** The raster pixel holding `row` and time `t`: { code, alpha } (code -1 when empty). */
export function rasterAt(picture, row, t) {
  const bin = Math.floor((row - picture.row0) / picture.pool);
  const column = Math.floor(((t - picture.t0) / (picture.t1 - picture.t0)) * picture.width);
  if (bin < 0 || bin >= picture.bins || column < 0 || column >= picture.width) {
    return { code: -1, alpha: 0 };
  }
  const k = bin * picture.width + column;
  return { code: picture.raster_code[k] - 1, alpha: picture.raster_alpha[k] };
}

/** The exact instant on `row` nearest to `t` within `slack` ns; -1 for none. */
export function instantAt(picture, row, t, slack) {
  const times = picture.instant_time;
  if (!times) return -1;
  let best = -1;
  let distance = slack;
  for (let i = 0; i < times.length; i++) {
    const d = Math.abs(times[i] - t);
    if (picture.instant_row[i] === row && d <= distance) {
      best = i;
      distance = d;
    }
  }
  return best;
}

/**
 * The raster as RGBA pixels (width x bins, bin 0 on top): each pixel in the colour of
 * the function of its largest contribution (`rgb`, 3 bytes per function), as opaque as
 * the share of its time that is covered; functions in `dimmed` (a Set of codes, or null)
 * at a fifth of that. Written into `out` (a Uint8ClampedArray of 4 x width x bins bytes,
 * such as an ImageData's, reused from picture to picture) when given.
 */
export function rasterPixels(picture, rgb, dimmed = null, out = null) {
  const { width, bins, raster_code: codes, raster_alpha: alpha } = picture;
  const pixels = out ?? new Uint8ClampedArray(4 * width * bins);
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, width * bins);
  if (out) words.fill(0);
  // a function's colour, and each opacity, as a pixel word; the two are or-ed together
  const functions = rgb.length / 3;
  const colours = new Uint32Array(functions);
  const faint = new Uint8Array(functions);
  for (let code = 0; code < functions; code++) {
    colours[code] = packed(rgb[3 * code], rgb[3 * code + 1], rgb[3 * code + 2], 0);
    faint[code] = dimmed?.has(code) ? 1 : 0;
  }
  const opaque = new Uint32Array(256);
  const dim = new Uint32Array(256);
  const shown = new Uint8ClampedArray(1);
  for (let a = 1; a < 256; a++) {
    opaque[a] = packed(0, 0, 0, Math.max(a, 64));
    shown[0] = Math.max(a, 64) / 5; // rounded as a canvas's bytes round it
    dim[a] = packed(0, 0, 0, shown[0]);
  }
  for (let k = 0; k < width * bins; k++) {
    const code = codes[k] - 1;
    const a = alpha[k];
    if (code < 0 || a === 0) continue;
    words[k] = colours[code] | (faint[code] ? dim[a] : opaque[a]);
  }
  return pixels;
}

/**
 * Which boxes deeper boxes cover, in a picture whose rows hold several depths: the boxes
 * of one row and depth come in start order without overlapping, so each such run is
 * searched in log time. `covered(i, t0, t1)` says whether a box deeper than box i on
 * its row overlaps the times [t0, t1].
 */
export function coverIndex(picture) {
  const { box_row: rows, box_depth: depths, box_start: start, box_end: end } = picture;
  const runs = new Map();
  for (let i = 0; i < picture.boxCount; i++) {
    const key = `${rows[i]}/${depths[i]}`;
    const run = runs.get(key);
    if (run && run.last === i - 1) run.last = i;
    else if (!run) runs.set(key, { first: i, last: i, depth: depths[i], row: rows[i] });
  }
  const byRow = new Map();
  for (const run of runs.values()) {
    if (!byRow.has(run.row)) byRow.set(run.row, []);
    byRow.get(run.row).push(run);
  }
  const overlaps = (run, t0, t1) => {
    let lo = run.first;
    let hi = run.last + 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (end[mid] <= t0) lo = mid + 1;
      else hi = mid;
    }
    return lo <= run.last && start[lo] < t1;
  };
  return {
    covered(i, t0, t1) {
      for (const run of byRow.get(rows[i]) ?? []) {
        if (run.depth > depths[i] && overlaps(run, t0, t1)) return true;
      }
      return false;
    },
  };
}
