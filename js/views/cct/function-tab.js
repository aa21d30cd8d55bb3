// The bottom-up and flat tabs of the CCT view: a virtualized table of the function rows the
// kernel sends (functions.js). A row's toggle opens its callers (view state); ✕ and ◎
// (keys h and f) hide or focus on the row's function, edits the kernel turns into name
// conditions of the view's query. Columns are those the kernel sends (with ranks, the
// metric's min, max and imbalance over ranks), fitted, sorted and explained as in the tree.
import { element, set } from "../../lib/dom.js";
import { formatMetric, formatPercent } from "../../lib/format.js";
import { rowAt, VirtualList } from "../../lib/virtual.js";
import { breakable, indentation, SLOT_WIDTH, textMeasure, valueNeed } from "./columns.js";
import { childrenOf, functionRows, rowPath, shownRows } from "./functions.js";
import { ColumnHeader } from "./header.js";
import { placeTooltip } from "./tooltip.js";

const ROW_HEIGHT = 22;

export class FunctionTab {
  /** A tab in `panel` of the view `host` (CCTView: model, edits, tree, tooltip). */
  constructor(host, panel, signal) {
    this.host = host;
    this.panel = panel;
    this.signal = signal;
    this.rows = null;
    this.expanded = new Set(); // path keys of open rows: they survive a new payload
    this.cursor = -1;
    this.pointer = null;
    this.message = element("div", "gc-tab-message");
    this.headerSlot = element("div");
    this.body = element("div", "gc-function-rows");
    this.body.tabIndex = -1;
    panel.append(this.message, this.headerSlot, this.body);
    this.list = new VirtualList(this.body, {
      rowHeight: ROW_HEIGHT, makeRow: () => this.makeRow(),
      draw: (row, index) => this.drawRow(row, index), signal,
    });
    this.actions = element("span", "gc-actions");
    this.actions.append(
      element("button", "", {
        "data-action": "hide_function", text: "✕",
        title: "hide every call of this function and what it calls (h)",
      }),
      element("button", "", {
        "data-action": "focus_function", text: "◎",
        title: "focus on this function: its calls, their callers and callees (f)",
      }),
    );
    const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
    on(this.body, "click", (event) => this.onClick(event));
    on(this.body, "mousemove", (event) => {
      this.pointer = { x: event.clientX, y: event.clientY };
      this.hover();
    });
    on(this.body, "scroll", () => {
      if (this.pointer) requestAnimationFrame(() => this.hover());
    }, { passive: true });
    on(this.body, "mouseleave", () => {
      this.pointer = null;
      this.hover();
    });
    const resizing = new ResizeObserver(() => this.fit());
    resizing.observe(this.body);
    signal.addEventListener("abort", () => resizing.disconnect());
  }

  /** New rows from the kernel (a payload): those of the tab shown (null when it holds
   * none), and on an offline page those of every function tab. */
  setRows(payload) {
    this.live = functionRows(payload);
    this.page = payload.fields.tables
      ? { flat: functionRows(payload, "flat"), "bottom-up": functionRows(payload, "bottom-up") }
      : null;
    this.cursor = -1;
    this.refresh();
  }

  /** The path key of a row: the names from its function's row down to it. */
  keyOf(r) {
    return rowPath(this.rows, r, (i) => this.host.tree.names.get(i)).join("\u0000");
  }

  sortValues() {
    const { rows } = this;
    const name = this.host.model.get("sort_metric");
    const byName = rows.metrics.find((m) => m.name === name);
    const fallback = rows.metrics.find((m) => m.kind === "exclusive") ?? rows.metrics[0];
    return (byName ?? fallback)?.values ?? null;
  }

  /** The rows of the `kind` tab: the kernel's, or those the offline page holds. */
  rowsOf(kind) {
    return this.live?.kind === kind ? this.live : this.page?.[kind] ?? null;
  }

  /** Why the rows of the tab are not shown as they are ("" when they are): none yet, of
   * an older query, or (offline) of edits made on the page. */
  missing(rows, kind) {
    const { model } = this.host;
    if (model.get("offline")) {
      if (!rows) return "this tab is computed by the kernel: run the notebook to see it";
      if (this.host.editedOffline()) {
        return "edits made on this page change these rows, which the kernel computes: run "
          + "the notebook, or undo the edits to see the rows of the exported view";
      }
      return "";
    }
    if (!rows || rows.kind !== kind) return "computing…";
    if (rows.query !== model.get("query") || rows.restriction !== model.get("restriction")) {
      return "updating…";
    }
    return "";
  }

  /** What the tab says of rows left out of the page ("" when none are). */
  cutNote(rows) {
    if (!rows.cut) return "";
    const where = this.host.model.get("offline")
      ? "they need the kernel: run the notebook"
      : "view.function_table() in the kernel has them all";
    return `${rows.limit.toLocaleString("en")} rows at most in the page: the callers of `
      + `${rows.cut.toLocaleString("en")} rows (▸ without rows under them) are left out; ${where}`;
  }

  refresh() {
    const { host } = this;
    const kind = host.model.get("tab");
    const found = this.rowsOf(kind);
    const missing = this.missing(found, kind);
    const rows = missing && (!found || host.model.get("offline")) ? null : found;
    if (rows && this.rows && rows.metrics.map((m) => m.name).join() !== this.columnKey) {
      this.header = null;
    }
    this.rows = rows;
    const text = missing || (rows ? this.cutNote(rows) : "");
    this.message.textContent = text;
    this.message.style.display = text ? "" : "none";
    if (!rows) {
      this.order = { rows: new Int32Array(0), depth: new Int32Array(0) };
      this.list.update(0);
      return;
    }
    if (!this.header) this.buildHeader();
    const values = this.sortValues();
    this.totals = rows.metrics.map((m) => {
      let total = 0;
      for (const r of childrenOf(rows, -1, null)) if (m.values[r] > 0) total += m.values[r];
      return total;
    });
    const expanded = { has: (r) => this.expanded.has(this.keyOf(r)) };
    this.order = shownRows(rows, expanded, values);
    this.header.markSorted(rows.metrics.find((m) => m.values === values)?.name ?? "");
    this.fit();
    this.list.update(this.order.rows.length);
    this.hover();
  }

  buildHeader() {
    const { rows } = this;
    this.columnKey = rows.metrics.map((m) => m.name).join();
    this.columns = rows.metrics.map((m, index) => ({ ...m, partner: -1, index }));
    this.header = new ColumnHeader(this.panel, this.columns, this.body, this.signal, (metric) => {
      this.host.model.set("sort_metric", metric);
      this.host.model.save_changes();
    }, () => this.fit());
    this.headerSlot.replaceChildren(this.header.element);
    this.list.reset();
  }

  fit() {
    const width = this.body.clientWidth;
    if (!width || !this.header || !this.rows) return;
    const widths = this.header.fit(width, this.columnNeeds());
    const nameWidth = width - widths.reduce((a, b) => a + b, 0) - SLOT_WIDTH;
    let deepest = 0;
    for (const d of this.order?.depth ?? []) if (d > deepest) deepest = d;
    this.indent = indentation(nameWidth, deepest);
    this.list.render();
  }

  /** What each column needs to show its values whole (px, see valueNeed), measured in
   * the rows' font once per set of rows. */
  columnNeeds() {
    if (this.needsOf !== this.rows) {
      const measure = textMeasure(this.body);
      this.needs = this.rows.metrics.map(({ values, unit }) => {
        let lo = Infinity;
        let hi = -Infinity;
        for (const value of values) {
          if (value < lo) lo = value;
          if (value > hi) hi = value;
        }
        const extremes = lo <= hi ? [lo, hi] : [];
        return valueNeed(values, extremes, (value) => formatMetric(value, unit), measure);
      });
      this.needsOf = this.rows;
    }
    return this.needs;
  }

  makeRow() {
    const row = element("div", "gc-row");
    const name = element("span", "gc-name");
    const parts = {
      name, toggle: element("span", "gc-toggle"), text: element("span", "gc-text"),
      arrow: element("span", "gc-caller-arrow", { text: "←" }), numbers: [], memo: {},
      badge: element("span", "gc-device", { text: "GPU", title: "device work (GPU)" }),
    };
    name.append(parts.toggle, parts.arrow, parts.text, parts.badge);
    row.append(name);
    (this.columns ?? []).forEach((_, c) => {
      const cell = element("span", "gc-cell");
      cell.style.width = `var(--gc-w${c})`;
      parts.numbers.push(element("span", "gc-num"));
      cell.append(parts.numbers[c]);
      row.append(cell);
    });
    row.append(element("span", "gc-slot"));
    row.gladeParts = parts;
    return row;
  }

  drawRow(row, index) {
    const { rows } = this;
    const r = this.order.rows[index];
    const depth = this.order.depth[index];
    const parts = row.gladeParts;
    row.dataset.row = String(r);
    set(parts.name.style, "paddingLeft", `${(this.indent ?? (() => 4))(depth)}px`, parts.memo);
    const open = rows.childPtr[r + 2] > rows.childPtr[r + 1] || rows.more[r] === 1;
    set(parts.toggle, "className", !open ? "gc-toggle"
      : this.expanded.has(this.keyOf(r)) ? "gc-toggle gc-open" : "gc-toggle gc-closed");
    parts.arrow.style.display = depth > 0 ? "" : "none";
    set(parts.text, "textContent", this.host.tree.names.get(rows.name[r]));
    rows.metrics.forEach((m, c) => {
      set(parts.numbers[c], "textContent", formatMetric(m.values[r], m.unit));
    });
    row.classList.toggle("gc-cursor", r === this.cursor);
    row.classList.toggle("gc-on-device", this.deviceNames().has(rows.name[r]));
  }

  /** The name codes of the functions with device (GPU) work in the tree, found once. */
  deviceNames() {
    if (!this.device) {
      const { tree } = this.host;
      this.device = new Set();
      if (tree.device) {
        for (let i = 0; i < tree.n; i++) if (tree.device[i]) this.device.add(tree.nameIndex[i]);
      }
    }
    return this.device;
  }

  rowOfEvent(event) {
    const row = event.target.closest(".gc-row");
    return row && row.dataset.row !== undefined ? Number(row.dataset.row) : -1;
  }

  onClick(event) {
    const r = this.rowOfEvent(event);
    if (r < 0) return;
    this.host.root.focus({ preventScroll: true });
    this.cursor = r;
    const action = event.target.closest("[data-action]")?.getAttribute("data-action");
    if (action) this.edit(action, r);
    else if (event.target.closest(".gc-toggle")) this.toggle(r);
    else this.list.render();
  }

  edit(op, r) {
    this.host.edits.edit({ op, name: this.host.tree.names.get(this.rows.name[r]) });
  }

  toggle(r) {
    if (this.rows.more[r] && this.rows.childPtr[r + 2] === this.rows.childPtr[r + 1]) {
      this.message.textContent = `the callers of this row are left out: ${this.cutNote(this.rows)}`;
      this.message.style.display = "";
      return;
    }
    const key = this.keyOf(r);
    if (this.expanded.has(key)) this.expanded.delete(key);
    else if (this.rows.childPtr[r + 2] > this.rows.childPtr[r + 1]) this.expanded.add(key);
    this.refresh();
  }

  /** Keys while this tab is shown; true when handled. */
  onKey(key) {
    const count = this.order?.rows.length ?? 0;
    if (!count) return false;
    let index = Math.max(0, this.order.rows.indexOf(this.cursor));
    const r = this.order.rows[index];
    const move = (to) => {
      index = Math.min(count - 1, Math.max(0, to));
      this.cursor = this.order.rows[index];
      this.list.scrollTo(index);
      this.list.render();
    };
    if (key === "ArrowDown") move(index + (this.cursor < 0 ? 0 : 1));
    else if (key === "ArrowUp") move(index - 1);
    else if (key === "Home") move(0);
    else if (key === "End") move(count - 1);
    else if (key === "ArrowRight" || key === "ArrowLeft") {
      const open = this.expanded.has(this.keyOf(r));
      if ((key === "ArrowRight") !== open) this.toggle(r);
    } else if (key === "h") this.edit("hide_function", r);
    else if (key === "f") this.edit("focus_function", r);
    else return false;
    return true;
  }

  hover() {
    const { tooltip } = this.host;
    const box = this.pointer ? this.body.getBoundingClientRect() : null;
    const index = box && this.order
      ? rowAt(this.pointer.y - box.top, this.list.scrollTop, ROW_HEIGHT, this.order.rows.length)
      : -1;
    const target = index >= 0 ? this.list.elementAt(index) : null;
    if (this.hovered !== target) {
      this.hovered?.classList.remove("gc-hovered");
      target?.classList.add("gc-hovered");
      target?.append(this.actions);
      this.hovered = target;
    }
    if (index < 0) {
      tooltip.style.display = "none";
      return;
    }
    this.fillTooltip(this.order.rows[index]);
    const first = this.headerSlot.querySelector(".gc-column");
    placeTooltip(tooltip, this.host.root, this.pointer,
      first ? first.getBoundingClientRect().left : box.right, this.host.rowBand(this.body));
  }

  fillTooltip(r) {
    const { rows } = this;
    const path = rowPath(rows, r, (i) => this.host.tree.names.get(i));
    const lines = [element("div", "gc-tip-path", { text: path.join(" ← ") })];
    const table = element("table");
    rows.metrics.forEach((m, j) => {
      const tr = element("tr");
      // a share of the total means nothing for a min, max or imbalance over ranks
      const share = m.kind === "other" && m.column ? "" : formatPercent(m.values[r], this.totals[j]);
      tr.append(element("td", "", { text: breakable(m.name) }),
        element("td", "gc-tip-num", { text: formatMetric(m.values[r], m.unit) }),
        element("td", "gc-tip-num", { text: share }));
      table.append(tr);
    });
    lines.push(table);
    const note = rows.kind === "flat"
      ? "inclusive: outermost calls only (recursion counted once)"
      : path.length > 1 ? `the calls of ${path[0]} along this chain of callers`
        : "every call of this function; open it for its callers";
    lines.push(element("div", "gc-tip-note", { text: note }));
    this.host.tooltip.replaceChildren(...lines);
  }
}
