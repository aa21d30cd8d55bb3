// Row bands, boxes and instant marks written straight into pixels: one pass over bytes
// instead of a canvas call per box or mark (a wide range holds tens of thousands of
// each, and a software-rendered canvas spends most of a redraw in fillRect). Boxes keep
// the picture's order, so a deeper call still lies over its caller.

const BAND_ALPHA = 9; // rgba(0, 0, 0, 0.035): every other row
const SEPARATOR_ALPHA = 64; // rgba(0, 0, 0, 0.25): the first row of a location
const DIMMED = 0.2; // the opacity of a box a search does not keep
const MARK = [34, 34, 34]; // #222

/**
 * An image of the plot in device pixels: `pixels` are the RGBA bytes of `columns` x
 * `lines` pixels (transparent when made), `ratio` device pixels per CSS pixel.
 * `rect(x0, x1, y0, y1, word)` fills the pixels whose centres lie in the CSS
 * rectangle [x0, x1) x [y0, y1), at least one pixel each way (as far as it is in the
 * image), with the pixel `word`.
 */
export class PlotPixels {
  constructor(pixels, columns, lines, ratio) {
    this.pixels = pixels;
    this.words = new Uint32Array(pixels.buffer, pixels.byteOffset, columns * lines);
    this.columns = columns;
    this.lines = lines;
    this.ratio = ratio;
  }

  rect(x0, x1, y0, y1, word) {
    const { columns, ratio, words } = this;
    const first = Math.round(x0 * ratio);
    const left = first > 0 ? first : 0;
    const right = Math.min(columns, Math.max(first + 1, Math.round(x1 * ratio)));
    const top = Math.round(y0 * ratio);
    const bottom = Math.min(this.lines, Math.max(top + 1, Math.round(y1 * ratio)));
    for (let y = top > 0 ? top : 0; y < bottom; y++) {
      const row = y * columns;
      for (let k = row + left; k < row + right; k++) words[k] = word;
    }
  }

  /** `rgb` at opacity `alpha` over the pixels of the rectangle (source-over, as a
   * canvas draws with globalAlpha). */
  blend(x0, x1, y0, y1, rgb, alpha) {
    const { columns, ratio, pixels: p } = this;
    const first = Math.round(x0 * ratio);
    const left = Math.max(0, first);
    const right = Math.min(columns, Math.max(first + 1, Math.round(x1 * ratio)));
    const top = Math.round(y0 * ratio);
    const bottom = Math.min(this.lines, Math.max(top + 1, Math.round(y1 * ratio)));
    for (let y = Math.max(0, top); y < bottom; y++) {
      for (let o = 4 * (y * columns + left); o < 4 * (y * columns + right); o += 4) {
        const below = (p[o + 3] / 255) * (1 - alpha);
        const out = alpha + below;
        for (let c = 0; c < 3; c++) p[o + c] = (rgb[c] * alpha + p[o + c] * below) / out;
        p[o + 3] = out * 255;
      }
    }
  }
}

/** The 32-bit word of an RGBA pixel in the platform's byte order. */
export function packed(r, g, b, a) {
  return new Uint32Array(new Uint8Array([r, g, b, a]).buffer)[0];
}

/** The pixels [x0, x1] box `i` spans on the plot, clipped to just outside it; null when
 * the box is out of sight. */
export function boxExtent(frame, picture, i) {
  const x0 = frame.scale.x(picture.box_start[i]);
  const x1 = frame.scale.x(picture.box_end[i]);
  if (x1 < 0 || x0 > frame.width) return null;
  return [Math.max(x0, -1), Math.min(x1, frame.width + 1)];
}

/**
 * Paint the row bands of `frame` and the boxes of `picture` (may be null) into `image`
 * (a PlotPixels). `frame` is paint.js's, with `rgb` (three bytes per function). A box
 * is at least a CSS pixel wide, as far as it shows.
 */
export function paintBoxPixels(image, frame, picture) {
  const { row0, row1, rowHeight, width } = frame;
  if (rowHeight >= 4) {
    const band = packed(0, 0, 0, BAND_ALPHA);
    for (let row = row0 + ((row0 + 1) % 2); row < row1; row += 2) {
      image.rect(0, width, frame.rowTop(row), frame.rowTop(row) + rowHeight, band);
    }
  }
  if (frame.depthRows) {
    const separator = packed(0, 0, 0, SEPARATOR_ALPHA);
    for (const first of frame.locationRows) {
      if (first <= row0 || first >= row1) continue;
      const top = Math.round(frame.rowTop(first));
      image.rect(0, width, top, top + 1, separator);
    }
  }
  if (!picture) return;
  const { rgb, matches } = frame;
  const colour = new Uint32Array(rgb.length / 3);
  for (let code = 0; code < colour.length; code++) {
    colour[code] = packed(rgb[3 * code], rgb[3 * code + 1], rgb[3 * code + 2], 255);
  }
  const tall = rowHeight - (rowHeight >= 6 ? 1 : 0);
  for (let i = 0; i < picture.boxCount; i++) {
    const row = picture.box_row[i];
    if (row < row0 || row >= row1) continue;
    const extent = boxExtent(frame, picture, i);
    if (!extent) continue;
    const a = extent[0];
    const b = a + Math.max(extent[1] - a, 1); // a pixel at least
    const y = frame.rowTop(row);
    const code = picture.box_code[i];
    if (matches && !matches.has(code)) {
      image.blend(a, b, y, y + tall, rgb.subarray(3 * code, 3 * code + 3), DIMMED);
    } else {
      image.rect(a, b, y, y + tall, colour[code]);
    }
  }
}

/**
 * Paint the instants of `picture` into `image` (a PlotPixels, transparent): exact
 * instants as a mark at their time at the foot of their row, pooled ones (their count
 * per raster pixel) as one mark per pixel holding any, at the foot of its row band.
 */
export function paintMarkPixels(image, frame, picture) {
  const { rowHeight, scale } = frame;
  const mark = Math.max(2, Math.min(6, rowHeight / 3));
  const ink = packed(...MARK, 255);
  if (picture.instant_time) {
    for (let i = 0; i < picture.instant_time.length; i++) {
      const x = Math.round(scale.x(picture.instant_time[i]));
      const y = frame.rowTop(picture.instant_row[i]) + rowHeight - mark;
      image.rect(x - 0.5, x + 1, y, y + mark, ink);
    }
  } else if (picture.mark_count) {
    const columnWidth = (scale.x(picture.t1) - scale.x(picture.t0)) / picture.width;
    const left = scale.x(picture.t0);
    for (const k of markedPixels(picture)) {
      const bin = Math.floor(k / picture.width);
      const x = Math.round(left + ((k % picture.width) + 0.5) * columnWidth);
      const y = frame.rowTop(picture.row0 + (bin + 1) * picture.pool) - mark;
      image.rect(x - 0.5, x + 0.5, y, y + mark, ink);
    }
  }
}

const marked = new WeakMap();

/** The raster pixels of `picture` holding instants, found once per picture. */
function markedPixels(picture) {
  let found = marked.get(picture);
  if (!found) {
    const counts = picture.mark_count;
    let n = 0;
    for (let k = 0; k < counts.length; k++) if (counts[k]) n++;
    found = new Int32Array(n);
    n = 0;
    for (let k = 0; k < counts.length; k++) if (counts[k]) found[n++] = k;
    marked.set(picture, found);
  }
  return found;
}
