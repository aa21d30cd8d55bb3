// Row bands, boxes and instant marks written straight into pixels: one pass over bytes
// instead of a canvas call per box or mark (a wide range holds tens of thousands of
// each, and a software-rendered canvas spends most of a redraw in fillRect). Boxes keep
// the picture's order, so a deeper call still lies over its caller.

const BAND_ALPHA = 9; // rgba(0, 0, 0, 0.035): every other row
const SEPARATOR_ALPHA = 64; // rgba(0, 0, 0, 0.25): the first row of a location
const DIMMED = 0.2; // the opacity of a box a highlight leaves out
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
    const { columns, lines, ratio } = this;
    this.fill(spanStart(x0, ratio), spanEnd(x0, x1, ratio, columns), spanStart(y0, ratio),
      spanEnd(y0, y1, ratio, lines), word);
  }

  /** Fill the device pixels [left, right) x [top, bottom) (inside the image) with the
   * pixel `word`: a line of more than 16 pixels by TypedArray.fill, a shorter one (most
   * boxes and every mark) by a loop, which costs less than the call. */
  fill(left, right, top, bottom, word) {
    const { columns, words } = this;
    if (right - left > 16) {
      for (let y = top; y < bottom; y++) words.fill(word, y * columns + left, y * columns + right);
      return;
    }
    for (let y = top; y < bottom; y++) {
      const row = y * columns;
      for (let k = row + left; k < row + right; k++) words[k] = word;
    }
  }

  /** Make every pixel transparent. */
  clear() {
    this.words.fill(0);
  }

  /** `rgb` at opacity `alpha` over the pixels of the rectangle (source-over, as a
   * canvas draws with globalAlpha). */
  blend(x0, x1, y0, y1, rgb, alpha) {
    const { columns, lines, ratio, pixels: p } = this;
    const left = spanStart(x0, ratio);
    const right = spanEnd(x0, x1, ratio, columns);
    const bottom = spanEnd(y0, y1, ratio, lines);
    for (let y = spanStart(y0, ratio); y < bottom; y++) {
      for (let o = 4 * (y * columns + left); o < 4 * (y * columns + right); o += 4) {
        const below = (p[o + 3] / 255) * (1 - alpha);
        const out = alpha + below;
        for (let c = 0; c < 3; c++) p[o + c] = (rgb[c] * alpha + p[o + c] * below) / out;
        p[o + 3] = out * 255;
      }
    }
  }
}

/** The first device pixel of the CSS interval starting at `a`, at `ratio` device pixels
 * per CSS pixel (the pixel whose centre follows `a`), not before the image. */
function spanStart(a, ratio) {
  const first = Math.round(a * ratio);
  return Math.max(first, 0);
}

/** The device pixel after the CSS interval [a, b) (at least one pixel from its start),
 * in an image `size` pixels long. */
function spanEnd(a, b, ratio, size) {
  return Math.min(size, Math.max(Math.round(a * ratio) + 1, Math.round(b * ratio)));
}

/** The 32-bit word of an RGBA pixel in the platform's byte order. */
export function packed(r, g, b, a) {
  pixelBytes[0] = r;
  pixelBytes[1] = g;
  pixelBytes[2] = b;
  pixelBytes[3] = a;
  return pixelWord[0];
}

const pixelWord = new Uint32Array(1);
const pixelBytes = new Uint8Array(pixelWord.buffer);

/** Whether box `i` shows on the plot; if so the pixels [x0, x1] it spans, clipped to
 * just outside the plot, are written into `extent` (two numbers). */
export function boxExtent(frame, picture, i, extent) {
  const x0 = frame.scale.x(picture.box_start[i]);
  const x1 = frame.scale.x(picture.box_end[i]);
  if (x1 < 0 || x0 > frame.width) return false;
  extent[0] = Math.max(x0, -1);
  extent[1] = Math.min(x1, frame.width + 1);
  return true;
}

/**
 * Whether box `i` of `picture` is lit under `frame`'s highlights: with none (no search,
 * no highlighted node) every box is; else the boxes of a function the search keeps
 * (`matches`, a Set of codes) and the highlighted calls (`highlight`, a Set of nodes,
 * with the `selected` node) are, and the others are dimmed.
 */
export function boxLit(frame, picture, i) {
  const { matches, highlight, selected } = frame;
  const marked = highlight && (highlight.size > 0 || selected >= 0);
  if (!matches && !marked) return true;
  if (matches?.has(picture.box_code[i])) return true;
  if (!marked) return false;
  const node = picture.box_node[i];
  return node === selected || highlight.has(node);
}

/**
 * Whether `frame` highlights anything: then what is not highlighted is dimmed.
 */
export function highlighting(frame) {
  return Boolean(frame.matches) || frame.highlight?.size > 0 || frame.selected >= 0;
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
  const { rgb } = frame;
  const colour = new Uint32Array(rgb.length / 3);
  for (let code = 0; code < colour.length; code++) {
    colour[code] = packed(rgb[3 * code], rgb[3 * code + 1], rgb[3 * code + 2], 255);
  }
  const tall = rowHeight - (rowHeight >= 6 ? 1 : 0);
  const extent = new Float64Array(2);
  for (let i = 0; i < picture.boxCount; i++) {
    const row = picture.box_row[i];
    if (row < row0 || row >= row1 || !boxExtent(frame, picture, i, extent)) continue;
    const a = extent[0];
    const b = a + Math.max(extent[1] - a, 1); // a pixel at least
    const y = frame.rowTop(row);
    const code = picture.box_code[i];
    if (!boxLit(frame, picture, i)) {
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
    paintPooledMarks(image, frame, picture, mark, ink);
  }
}

/** The pooled instants' marks: one `mark` CSS pixels tall at the foot of each raster
 * pixel holding any, a CSS pixel wide at its column's centre. The device pixels of
 * every column and band are found once, then each mark is a fill. */
function paintPooledMarks(image, frame, picture, mark, ink) {
  const { width, pool, row0, mark_count: counts } = picture;
  const bins = counts.length / width;
  const { columns, lines, ratio } = image;
  const columnWidth = (frame.scale.x(picture.t1) - frame.scale.x(picture.t0)) / width;
  const left = frame.scale.x(picture.t0);
  const spans = new Int32Array(2 * width);
  for (let c = 0; c < width; c++) {
    const x = Math.round(left + (c + 0.5) * columnWidth);
    spans[2 * c] = spanStart(x - 0.5, ratio);
    spans[2 * c + 1] = spanEnd(x - 0.5, x + 0.5, ratio, columns);
  }
  for (let bin = 0; bin < bins; bin++) {
    const y = frame.rowTop(row0 + bin * pool) + pool * frame.rowHeight - mark;
    const top = spanStart(y, ratio);
    const bottom = spanEnd(y, y + mark, ratio, lines);
    if (top >= bottom) continue;
    for (let c = 0, k = bin * width; c < width; c++, k++) {
      if (counts[k]) image.fill(spans[2 * c], spans[2 * c + 1], top, bottom, ink);
    }
  }
}
