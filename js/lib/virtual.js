// @ts-check
// Row virtualization: only the rows inside the scrolled viewport (plus a margin) exist
// in the DOM, so a list of 10^5 rows costs as much to draw as a list of 50.

/**
 * The rows to draw for a scroll position: [start, end) clamped to [0, count), with
 * `overscan` extra rows on each side, and `offset`, the pixel top of row `start`.
 * @param {number} scrollTop
 * @param {number} viewportHeight
 * @param {number} rowHeight
 * @param {number} count
 * @param {number} [overscan]
 * @returns {{ start: number, end: number, offset: number }}
 */
export function visibleWindow(scrollTop, viewportHeight, rowHeight, count, overscan = 8) {
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, offset: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const last = Math.ceil((Math.max(0, scrollTop) + Math.max(0, viewportHeight)) / rowHeight);
  const start = Math.max(0, Math.min(first - overscan, count - 1));
  const end = Math.min(count, Math.max(last + overscan, start + 1));
  return { start, end, offset: start * rowHeight };
}

/** The row under a point `offset` px below the top of the scrolling container, or -1 when
 * no row is there: what a pointer is over, also after a wheel scroll moved the rows.
 * @param {number} offset @param {number} scrollTop @param {number} rowHeight
 * @param {number} count @returns {number} */
export function rowAt(offset, scrollTop, rowHeight, count) {
  if (offset < 0 || rowHeight <= 0) return -1;
  const row = Math.floor((offset + Math.max(0, scrollTop)) / rowHeight);
  return row < count ? row : -1;
}

/** The scrollTop that brings `row` into view (unchanged when it already is).
 * @param {number} row @param {number} scrollTop @param {number} viewportHeight
 * @param {number} rowHeight @returns {number} */
export function scrollToRow(row, scrollTop, viewportHeight, rowHeight) {
  const top = row * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewportHeight) return top + rowHeight - viewportHeight;
  return scrollTop;
}

/** @typedef {HTMLElement & { listRow: number }} RowElement A pooled row: the row it shows
 * (-1: none). */

/**
 * A virtual list in `container` (a scrolling element): `makeRow()` creates a row element,
 * `draw(element, row)` fills it; `update(count)` sets the number of rows and redraws.
 * Row r lives in pool element r % capacity at its own offset, so scrolling redraws only the
 * rows that come into view and the others keep their content (and their layout).
 */
export class VirtualList {
  /**
   * @param {HTMLElement} container
   * @param {{ rowHeight: number, draw: (element: RowElement, row: number) => void,
   *   makeRow: () => HTMLElement, overscan?: number, signal?: AbortSignal }} options
   */
  constructor(container, { rowHeight, draw, makeRow, overscan = 8, signal }) {
    this.container = container;
    this.rowHeight = rowHeight;
    this.draw = draw;
    this.makeRow = makeRow;
    this.overscan = overscan;
    this.count = 0;
    /** @type {RowElement[]} */
    this.pool = [];
    this.spacer = document.createElement("div");
    this.spacer.className = "gc-spacer";
    this.layer = document.createElement("div");
    this.layer.className = "gc-layer";
    container.append(this.spacer, this.layer);
    this.pending = false;
    // Geometry is read only in scroll and resize callbacks, never while drawing, so an
    // update never forces a layout of the page.
    this.scrollTop = 0;
    this.viewportHeight = container.clientHeight || 400;
    container.addEventListener(
      "scroll",
      () => {
        this.scrollTop = container.scrollTop;
        this.schedule();
      },
      { signal, passive: true },
    );
    const resize = new ResizeObserver(([entry]) => {
      this.viewportHeight = entry.contentRect.height || this.viewportHeight;
      this.schedule();
    });
    resize.observe(container);
    signal?.addEventListener("abort", () => resize.disconnect());
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render(false);
    });
  }

  /** Show `count` rows. @param {number} count */
  update(count) {
    this.count = count;
    this.spacer.style.height = `${count * this.rowHeight}px`;
    this.render();
  }

  /** Draw the rows in view: all of them (their content may have changed), or with
   * `all = false` only those whose element showed another row. */
  render(all = true) {
    const capacity = Math.ceil(this.viewportHeight / this.rowHeight) + 1 + 2 * this.overscan;
    if (capacity !== this.pool.length) {
      for (const element of this.pool) element.remove();
      this.pool = Array.from({ length: capacity }, () => {
        const element = /** @type {RowElement} */ (this.makeRow());
        element.listRow = -1;
        element.style.display = "none";
        this.layer.append(element);
        return element;
      });
    }
    const { start, end } = visibleWindow(
      this.scrollTop,
      this.viewportHeight,
      this.rowHeight,
      this.count,
      this.overscan,
    );
    for (const element of this.pool) {
      if (element.listRow >= 0 && (element.listRow < start || element.listRow >= end)) {
        element.listRow = -1;
        element.style.display = "none";
      }
    }
    for (let row = start; row < end; row++) {
      const element = this.pool[row % capacity];
      if (!all && element.listRow === row) continue;
      if (element.listRow !== row) {
        element.listRow = row;
        element.style.transform = `translateY(${row * this.rowHeight}px)`;
        element.style.display = "";
      }
      this.draw(element, row);
    }
  }

  /** Drop the pooled row elements (what makeRow builds has changed): the next render
   * makes new ones. */
  reset() {
    for (const element of this.pool) element.remove();
    this.pool = [];
  }

  /** The element that draws `row`, or null when the row is not drawn.
   * @param {number} row @returns {RowElement | null} */
  elementAt(row) {
    const element = this.pool.length ? this.pool[row % this.pool.length] : null;
    return element && element.listRow === row ? element : null;
  }

  /** Scroll `row` into view. @param {number} row */
  scrollTo(row) {
    const top = scrollToRow(row, this.scrollTop, this.viewportHeight, this.rowHeight);
    if (top !== this.scrollTop) {
      this.scrollTop = top;
      this.container.scrollTop = top;
    }
  }
}
