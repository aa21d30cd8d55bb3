// The CCT view's column headers: one per metric column, sortable by a click and resizable
// by dragging their right edge. Column j is var(--gc-w<j>) wide in the header and in
// every row, so resizing sets one property on the view's root and redraws no row.
import { element } from "../../lib/dom.js";
import {
  breakable, columnTitle, DEFAULT_WIDTH, fitWidths, headerLabel, headerName, headerNeed,
  kindLine, resizedWidth, textMeasure,
} from "./columns.js";

export class ColumnHeader {
  /** Headers of `columns` ({name, kind, unit}) in `root`; `onSort(name)` on a click,
   * `onResize()` after a column was resized by hand.
   * The header pads itself by the width of `body`'s scroll bar, so it lines up with rows. */
  constructor(root, columns, body, signal, onSort, onResize) {
    this.root = root;
    this.columns = columns;
    this.signal = signal;
    this.onResize = onResize;
    this.widths = columns.map(() => DEFAULT_WIDTH);
    this.resized = columns.map(() => false);
    this.element = element("div", "gc-row gc-header");
    this.element.append(element("span", "gc-name", { text: "name" }));
    this.kinds = [];
    this.labels = columns.map((c, j) => {
      const cell = element("span", "gc-cell gc-sortable gc-column", {
        "data-metric": c.name, title: columnTitle(c),
      });
      cell.style.width = `var(--gc-w${j})`;
      const text = element("span", "gc-column-name");
      this.kinds.push(element("span", "gc-column-kind"));
      cell.append(text, this.kinds[j], element("span", "gc-resize", { "data-column": String(j) }));
      root.style.setProperty(`--gc-w${j}`, `${DEFAULT_WIDTH}px`);
      this.element.append(cell);
      return text;
    });
    this.element.append(element("span", "gc-slot"));
    this.label();
    const on = (type, handler) => this.element.addEventListener(type, handler, { signal });
    on("click", (event) => {
      if (event.target.closest(".gc-resize")) return;
      const metric = event.target.closest("[data-metric]")?.getAttribute("data-metric");
      if (metric) onSort(metric);
    });
    on("pointerdown", (event) => {
      if (event.target.closest(".gc-resize")) this.resize(event);
    });
    const scrollbar = new ResizeObserver(() => {
      this.element.style.paddingRight = `${body.offsetWidth - body.clientWidth}px`;
    });
    scrollbar.observe(body);
    signal.addEventListener("abort", () => scrollbar.disconnect());
  }

  /** Fit the columns not resized by hand into rows `rowWidth` px wide, each given what
   * its values `needs` and what its header needs (px; see fitWidths, headerNeed);
   * returns the widths. */
  fit(rowWidth, needs) {
    // measured once the header is in the page, in its (bold) font
    if (!this.headerNeeds && this.element.isConnected) {
      const measure = textMeasure(this.labels[0] ?? this.element);
      this.headerNeeds = this.columns.map((c) => headerNeed(c, measure));
    }
    const need = this.columns.map((_, j) => Math.max(needs?.[j] ?? 0, this.headerNeeds?.[j] ?? 0));
    const widths = fitWidths(rowWidth, this.widths, this.resized, need);
    if (widths.some((w, j) => w !== this.widths[j])) {
      this.widths = widths;
      widths.forEach((w, j) => {
        this.root.style.setProperty(`--gc-w${j}`, `${w}px`);
      });
      this.label();
    }
    return this.widths;
  }

  /** Header texts that fit each column's width (long names cut in the middle, a
   * spread's statistic shortened). */
  label() {
    this.labels.forEach((text, j) => {
      const column = this.columns[j];
      const kind = kindLine(column, this.widths[j]);
      this.kinds[j].textContent = kind;
      // the name may take the kind line's room when it says its kind itself
      const lines = kind ? 2 : 3;
      text.textContent = breakable(headerLabel(headerName(column), this.widths[j], lines));
    });
  }

  /** Follow a drag of a column's right edge that starts with `event`. */
  resize(event) {
    const grip = event.target;
    const column = Number(grip.getAttribute("data-column"));
    const startX = event.clientX;
    const start = this.widths[column];
    grip.setPointerCapture(event.pointerId);
    const move = (moved) => {
      this.widths[column] = resizedWidth(start, moved.clientX - startX);
      this.resized[column] = true;
      this.root.style.setProperty(`--gc-w${column}`, `${this.widths[column]}px`);
      this.label();
      this.onResize();
    };
    const end = () => {
      grip.removeEventListener("pointermove", move);
      grip.removeEventListener("pointerup", end);
      grip.removeEventListener("pointercancel", end);
    };
    grip.addEventListener("pointermove", move, { signal: this.signal });
    grip.addEventListener("pointerup", end, { signal: this.signal });
    grip.addEventListener("pointercancel", end, { signal: this.signal });
    event.preventDefault();
  }

  /** Mark the column the rows are sorted by. */
  markSorted(name) {
    this.element.querySelectorAll("[data-metric]").forEach((cell) => {
      cell.classList.toggle("gc-sorted", cell.getAttribute("data-metric") === name);
    });
  }
}
