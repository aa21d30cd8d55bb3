// Calling-context tree view: a collapsible, virtualized, indented tree with metric columns
// and bars. Every edit (collapse, hide, elide, focus, expand to depth, threshold) is kept
// as an edit list in the `history` trait of the shared edit log (js/lib/history.js): the
// page sends each edit, the kernel applies it and turns the history into the view's query.
import "./cct.css";
import { callTreeFromPayload, linkedValues } from "./calltree.js";
import { colourScale, extent } from "../../lib/colour.js";
import {
  applyEdit, COLLAPSED, isEmpty, keyMasks, replay,
} from "./edits.js";
import { debounce, element, set } from "../../lib/dom.js";
import { formatMetric } from "../../lib/format.js";
import { EditLog } from "../../lib/history.js";
import { readPayload, watchPayload } from "../../lib/payload.js";
import { bindErrorLine } from "../../lib/error.js";
import { bindEditKeys } from "../../lib/keys.js";
import { buildFooter, buildRowButtons, buildTabs, buildToolbar } from "./controls.js";
import { FunctionTab } from "./function-tab.js";
import { IcicleTab } from "./icicle-tab.js";
import { ColumnHeader } from "./header.js";
import { indentation, SLOT_WIDTH, textMeasure, valueNeed } from "./columns.js";
import { fillTooltip, placeTooltip } from "./tooltip.js";
import { displayTree, rowOrder, sortKey } from "./layout.js";
import { hotPath } from "./hotpath.js";
import { matchingNodes, searchPattern } from "./search.js";
import { rowAt, VirtualList } from "../../lib/virtual.js";

const ROW_HEIGHT = 22;
const THRESHOLD_STEPS = 1000;
const THRESHOLD_DELAY_MS = 250;
const SEARCH_DELAY_MS = 150;

class CCTView {
  constructor(model, el, signal, payload) {
    this.model = model;
    this.loadedHistory = JSON.stringify(model.get("history"));
    this.signal = signal;
    this.revision = payload.revision;
    this.tree = callTreeFromPayload(payload);
    this.edits = new EditLog(model, (added) => {
      this.state = added ? applyEdit(this.tree, this.state, added)
        : replay(this.tree, this.edits.history);
      this.refresh();
      if (this.revealCursor) {
        this.revealCursor = false;
        this.scrollToCursor();
      }
      if (this.revealing) {
        // the callers of the matches are expanded now: move to the next one
        this.revealing = false;
        this.revealNextMatch(false);
      }
    });
    this.state = replay(this.tree, this.edits.history);
    this.selected = new Set();
    this.sortKeys = new Map();
    this.scales = new Map();
    this.cursorNode = -1;
    this.pointer = null;
    this.search = { pattern: null, matches: null };
    // Columns: the exclusive and inclusive metrics and those the kernel marks as columns
    // (the rank spread: min, max, imbalance), or every metric when there are none (an
    // ensemble's statistics, say).
    const metrics = this.tree.metrics.map((m, j) => ({ ...m, index: j }));
    const shown = metrics.filter((m) => m.kind !== "other" || m.column);
    this.columns = shown.length ? shown : metrics;
    this.build(el);
    this.functionTab.setRows(payload);
    this.listen();
    this.refresh();
    this.showTab();
    this.onRemoteSelection();
  }

  // ------------------------------------------------------------------ DOM
  build(el) {
    const root = element("div", "glade-cct");
    this.root = root;
    const toolbar = buildToolbar(this.tree, THRESHOLD_STEPS);
    const notice = element("div", "gc-notice");
    const body = element("div", "gc-body");
    body.style.height = `${this.model.get("height")}px`;
    this.header = new ColumnHeader(root, this.columns, body, this.signal, (metric) => {
      this.model.set("sort_metric", metric);
      this.model.save_changes();
    }, () => this.fitColumns());
    const footer = buildFooter();
    const tooltip = element("div", "gc-tooltip");
    const tabs = buildTabs();
    const functionPanel = element("div", "gc-panel gc-function-panel");
    const iciclePanel = element("div", "gc-panel gc-icicle-panel");
    root.append(tabs.bar, toolbar.bar, notice, this.header.element, body, functionPanel,
      iciclePanel, footer.footer, tooltip);
    el.append(root);
    Object.assign(this, toolbar, footer, {
      notice, body, tooltip, tabButtons: tabs.buttons, functionPanel, iciclePanel,
      actions: buildRowButtons(),
    });
    this.functionTab = new FunctionTab(this, functionPanel, this.signal);
    this.icicleTab = new IcicleTab(this, iciclePanel, this.signal);
    this.sizePanels();
    this.indent = indentation(Infinity, 0);
    this.list = new VirtualList(body, {
      rowHeight: ROW_HEIGHT,
      makeRow: () => this.makeRow(),
      draw: (row, index) => this.drawRow(row, index),
      signal: this.signal,
    });
    // The metric columns stay on the right at any panel width: they narrow to fit, and
    // indentation narrows so that deep rows never push them.
    const resizing = new ResizeObserver(() => this.fitColumns());
    resizing.observe(body);
    this.signal.addEventListener("abort", () => resizing.disconnect());
  }

  /** The panels of the tabs are as high as the tree's body. */
  sizePanels() {
    const height = `${this.model.get("height")}px`;
    this.body.style.height = height;
    this.functionTab.body.style.height = height;
    this.icicleTab.scroller.style.height = height;
  }

  /** Show the panel of the model's tab (view state: it changes no query). */
  showTab() {
    const tab = this.model.get("tab");
    for (const [name, button] of this.tabButtons) {
      button.setAttribute("aria-selected", String(name === tab));
      button.classList.toggle("gc-tab-active", name === tab);
    }
    const tree = tab === "top-down";
    this.header.element.style.display = tree ? "" : "none";
    this.body.style.display = tree ? "" : "none";
    this.hotButton.style.display = tree ? "" : "none";
    this.functionPanel.style.display = tab === "bottom-up" || tab === "flat" ? "" : "none";
    this.iciclePanel.style.display = tab === "icicle" ? "" : "none";
    this.tooltip.style.display = "none";
    this.drawTab();
    if (tree) this.fitColumns();
  }

  /** Redraw the tab shown, when it is not the tree. */
  drawTab() {
    const tab = this.model.get("tab");
    if (tab === "icicle") this.icicleTab.draw();
    else if (tab !== "top-down") this.functionTab.refresh();
  }

  /** The top and bottom of `element` (a tab's rows or drawing) in px from the view's top:
   * where a tooltip may go without covering the toolbar. */
  rowBand(element) {
    const root = this.root.getBoundingClientRect();
    const box = element.getBoundingClientRect();
    return { top: box.top - root.top, bottom: box.bottom - root.top };
  }

  /** Fit the columns to the body's width and the indentation to the name column. */
  fitColumns() {
    const rowWidth = this.body.clientWidth;
    if (!rowWidth) return;
    const widths = this.header.fit(rowWidth, this.columnNeeds());
    const nameWidth = rowWidth - widths.reduce((a, b) => a + b, 0) - SLOT_WIDTH;
    const depth = this.order?.depth ?? [];
    let deepest = 0;
    for (let r = 0; r < depth.length; r++) if (depth[r] > deepest) deepest = depth[r];
    const key = `${nameWidth}/${deepest}`;
    if (key === this.indentKey) return;
    this.indentKey = key;
    this.indent = indentation(nameWidth, deepest);
    this.list?.render();
  }

  /** What each column needs to show its values whole (px), measured in the cells' font
   * once per set of values. */
  columnNeeds() {
    if (!this.needs) {
      const measure = textMeasure(this.body);
      this.needs = this.columns.map(({ index, unit }) => {
        const { lo, hi, full } = this.scaleOf(index);
        const format = (value) => formatMetric(value, unit);
        return valueNeed(this.tree.metrics[index].values, [lo, hi, full], format, measure);
      });
    }
    return this.needs;
  }

  makeRow() {
    const row = element("div", "gc-row");
    const name = element("span", "gc-name");
    const parts = {
      name, toggle: element("span", "gc-toggle"), swatch: element("span", "gc-swatch"),
      text: element("span", "gc-text"), bars: [], numbers: [], memo: {},
      badge: element("span", "gc-device", { text: "GPU", title: "device work (GPU)" }),
    };
    name.append(parts.toggle, parts.swatch, parts.text, parts.badge);
    row.append(name);
    for (let c = 0; c < this.columns.length; c++) {
      const cell = element("span", "gc-cell");
      cell.style.width = `var(--gc-w${c})`;
      parts.bars.push(element("span", "gc-bar"));
      parts.numbers.push(element("span", "gc-num"));
      cell.append(parts.bars[c], parts.numbers[c]);
      row.append(cell);
    }
    // The row buttons appear in this slot, never over a value.
    row.append(element("span", "gc-slot"));
    row.gladeParts = parts;
    return row;
  }

  // --------------------------------------------------------------- events
  listen() {
    const { model, signal } = this;
    const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
    const setTrait = (name, value) => {
      model.set(name, value);
      model.save_changes();
    };
    on(this.metricSelect, "change", () => setTrait("metric", this.metricSelect.value));
    on(this.colourSelect, "change", () => setTrait("color_metric", this.colourSelect.value));
    on(this.sortSelect, "change", () => setTrait("sort_metric", this.sortSelect.value));
    on(this.schemeSelect, "change", () => setTrait("color_scheme", this.schemeSelect.value));
    on(this.logBox, "change", () => setTrait("color_log", this.logBox.checked));
    on(this.depthSelect, "change", () => {
      const value = this.depthSelect.value;
      this.depthSelect.value = "";
      if (value !== "") this.edits.edit({ op: "depth", depth: Number(value) });
    });
    const commitThreshold = debounce(() => {
      const metric = this.model.get("metric");
      this.edits.edit({ op: "threshold", metric, value: this.thresholdValue() });
    }, THRESHOLD_DELAY_MS);
    on(this.thresholdInput, "input", () => {
      this.thresholdLabel.textContent = this.formatOf(this.model.get("metric"),
        this.thresholdValue());
      commitThreshold();
    });
    signal.addEventListener("abort", () => commitThreshold.cancel());
    const runSearch = debounce(() => this.runSearch(), SEARCH_DELAY_MS);
    on(this.searchInput, "input", runSearch);
    on(this.searchInput, "keydown", (event) => {
      event.stopPropagation();
      if (event.key === "Enter") {
        runSearch.cancel();
        this.runSearch();
        this.revealNextMatch();
      } else if (event.key === "Escape") {
        this.root.focus();
      }
    });
    // Toolbar buttons hand the keyboard back to the tree (a button that gets disabled
    // would otherwise drop the focus to the page).
    const button = (target, action) => on(target, "click", () => {
      action();
      this.root.focus({ preventScroll: true });
    });
    button(this.undoButton, () => this.edits.undo());
    button(this.redoButton, () => this.edits.redo());
    button(this.unfocusButton, () => this.edits.edit({ op: "unfocus" }));
    button(this.hotButton, () => this.expandHotPath());
    button(this.resetButton, () => this.edits.reset());
    on(this.copyButton, "click", () => navigator.clipboard?.writeText(this.queryText.textContent));
    for (const [name, tab] of this.tabButtons) {
      button(tab, () => setTrait("tab", name));
    }
    on(this.body, "click", (event) => this.onRowClick(event));
    on(this.body, "dblclick", (event) => {
      const group = this.groupAt(event);
      if (group >= 0) this.toggle(group);
    });
    // What the pointer is over is found from its position, not from the element under it:
    // a wheel scroll moves the rows under a still pointer, and the tooltip and the row
    // buttons must follow (the list redraws in the animation frame after a scroll, so
    // the hover is updated in the frame after that).
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
    bindEditKeys(this.root, {
      undo: () => this.edits.undo(),
      redo: () => this.edits.redo(),
      escape: () => this.clearSelection(),
    }, signal);
    bindErrorLine(model, this.root, signal);
    on(this.root, "keydown", (event) => this.onKey(event));
    for (const name of ["metric", "color_metric", "sort_metric", "color_scheme", "color_log"]) {
      model.on(`change:${name}`, () => this.refresh());
    }
    model.on("change:selected_paths", () => this.onRemoteSelection());
    const stop = watchPayload(model, (payload) => this.onPayload(payload));
    signal.addEventListener("abort", stop);
    model.on("change:notice", () => this.refresh());
    model.on("change:query", () => this.showQuery());
    model.on("change:height", () => this.sizePanels());
    model.on("change:tab", () => this.showTab());
  }

  /** A new payload: a link restricted the view (or lifted its restriction), so draw the
   * values it sent (the tree itself never changes). */
  onPayload(payload) {
    if (payload.revision === this.revision) return;
    this.revision = payload.revision;
    this.functionTab.setRows(payload);
    const { metrics, linkKeep } = linkedValues(payload, this.tree.n);
    this.tree.metrics = metrics;
    this.tree.linkKeep = linkKeep;
    this.sortKeys.clear();
    this.scales.clear();
    this.needs = null;
    this.fitColumns();
    this.refresh();
  }

  groupAt(event) {
    const row = event.target.closest(".gc-row");
    return row && row.dataset.group !== undefined ? Number(row.dataset.group) : -1;
  }

  onRowClick(event) {
    const group = this.groupAt(event);
    if (group < 0) return;
    this.root.focus({ preventScroll: true });
    this.cursorNode = this.display.first[group];
    const action = event.target.closest("[data-action]")?.getAttribute("data-action");
    if (action) {
      this.edits.edit({ op: action, nodes: this.members(group) });
      return;
    }
    if (event.target.closest(".gc-toggle")) {
      this.toggle(group);
      return;
    }
    this.select(group, event.ctrlKey || event.metaKey || event.shiftKey);
  }

  onKey(event) {
    // Keys belong to the tree when it (or a row) has the focus, not to toolbar controls.
    if (event.target !== this.root && !this.body.contains(event.target)
      && !this.functionPanel.contains(event.target) && !this.iciclePanel.contains(event.target)) {
      return;
    }
    // (undo, redo and Escape are the keys every view shares: js/lib/keys.js)
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key;
    const tab = this.model.get("tab");
    if (tab !== "top-down") {
      if (key === "u") this.edits.edit({ op: "unfocus" });
      const handled = key === "u"
        || (tab === "icicle" ? this.icicleTab.onKey(key) : this.functionTab.onKey(key));
      if (handled) {
        event.preventDefault();
        event.stopPropagation();
      }
      return;
    }
    const rowCount = this.order.rows.length;
    if (!rowCount) return;
    let row = Math.max(0, this.rowOf(this.cursorNode));
    const group = this.order.rows[row];
    const handled = () => {
      event.preventDefault();
      event.stopPropagation();
    };
    const move = (target) => {
      row = Math.min(rowCount - 1, Math.max(0, target));
      this.cursorNode = this.display.first[this.order.rows[row]];
      this.list.scrollTo(row);
      this.list.render();
    };
    const page = Math.max(1, Math.floor(this.list.viewportHeight / ROW_HEIGHT) - 1);
    if (key === "ArrowDown") move(row + 1);
    else if (key === "ArrowUp") move(row - 1);
    else if (key === "PageDown") move(row + page);
    else if (key === "PageUp") move(row - page);
    else if (key === "Home") move(0);
    else if (key === "End") move(rowCount - 1);
    else if (key === "ArrowRight") {
      if (this.display.collapsed[group]) this.toggle(group);
      else if (this.hasChildren(group)) move(row + 1);
    } else if (key === "ArrowLeft") {
      if (this.hasChildren(group)) this.toggle(group);
      else if (this.display.parent[group] >= 0) move(this.rowOfGroup(this.display.parent[group]));
    } else if (key === "Enter" || key === " ") this.select(group, event.shiftKey);
    else if (key === "h") this.edits.edit({ op: "hide", nodes: this.members(group) });
    else if (key === "e") this.edits.edit({ op: "elide", nodes: this.members(group) });
    else if (key === "f") this.edits.edit({ op: "focus", nodes: this.members(group) });
    else if (key === "u") this.edits.edit({ op: "unfocus" });
    else if (key === "p") this.expandHotPath();
    else if (key === "/") this.searchInput.focus();
    else return;
    handled();
  }

  // ---------------------------------------------------------------- edits
  /** Expand hpcviewer's hot path from the cursor row (the first root without one), as
   * view.expand_hot_path() does in Python, and put the cursor on its last node. */
  expandHotPath() {
    const { tree } = this;
    const start = Math.max(this.cursorNode, 0);
    let metric = this.tree.metrics[this.metricIndex(this.model.get("metric"))];
    if (metric.kind === "exclusive" && metric.partner >= 0) metric = tree.metrics[metric.partner];
    const path = hotPath(tree, start, metric.values);
    const nodes = path.filter((i) => tree.childCount[i] > 0);
    this.cursorNode = path[path.length - 1];
    if (nodes.some((i) => this.state.flags[tree.pathKey[i]] & COLLAPSED)) {
      this.revealCursor = true;
      this.edits.edit({ op: "expand", nodes });
    } else {
      this.scrollToCursor();
    }
  }

  scrollToCursor() {
    const row = this.rowOf(this.cursorNode);
    if (row >= 0) this.list.scrollTo(row);
    this.list.render();
  }

  toggle(group) {
    const nodes = this.members(group);
    if (this.display.collapsed[group]) this.edits.edit({ op: "expand", nodes });
    else if (nodes.some((i) => this.tree.childCount[i] > 0)) this.edits.edit({ op: "collapse", nodes });
  }

  members(group) {
    return this.display.membersOf(group);
  }

  hasChildren(group) {
    return this.display.childCount[group] > 0;
  }

  // ------------------------------------------------------------ selection
  select(group, extend) {
    const nodes = this.members(group);
    const already = nodes.every((i) => this.selected.has(i));
    if (!extend) this.selected.clear();
    for (const i of nodes) {
      if (extend && already) this.selected.delete(i);
      else this.selected.add(i);
    }
    this.sentSelection = this.selectionPaths();
    this.model.set("selected_paths", this.sentSelection);
    this.model.save_changes();
    this.list.render();
  }

  /** Select nothing, and drop the search's highlight (Escape). */
  clearSelection() {
    if (this.search.pattern || this.searchInput.value) {
      this.searchInput.value = "";
      this.runSearch();
    }
    if (!this.selected.size) return;
    this.selected.clear();
    this.sentSelection = [];
    this.model.set("selected_paths", this.sentSelection);
    this.model.save_changes();
    this.list.render();
  }

  selectionPaths() {
    const seen = new Set();
    const paths = [];
    for (const node of [...this.selected].sort((a, b) => a - b)) {
      const path = this.tree.pathNames(node);
      const key = path.join("\u0000");
      if (!seen.has(key)) {
        seen.add(key);
        paths.push(path);
      }
    }
    return paths;
  }

  onRemoteSelection() {
    const paths = this.model.get("selected_paths");
    if (paths === this.sentSelection) return;
    this.selected = new Set(paths.flatMap((path) => this.nodesAt(path)));
    this.list.render();
  }

  /** Node ids whose call path (names from the root) is `path`. */
  nodesAt(path) {
    if (!this.childIndex) {
      const { n, parent } = this.tree;
      const ptr = new Int32Array(n + 2);
      for (let i = 0; i < n; i++) ptr[parent[i] + 2] += 1;
      for (let i = 0; i <= n; i++) ptr[i + 1] += ptr[i];
      const index = new Int32Array(n);
      const fill = ptr.slice();
      for (let i = 0; i < n; i++) index[fill[parent[i] + 1]++] = i;
      this.childIndex = { ptr, index };
    }
    const { ptr, index } = this.childIndex;
    let current = [-1];
    for (const name of path) {
      const next = [];
      for (const p of current) {
        for (let j = ptr[p + 1]; j < ptr[p + 2]; j++) {
          if (this.tree.name(index[j]) === name) next.push(index[j]);
        }
      }
      current = next;
    }
    return path.length ? current : [];
  }

  // --------------------------------------------------------------- search
  runSearch() {
    const text = this.searchInput.value;
    let pattern = null;
    try {
      pattern = searchPattern(text);
      this.searchInput.classList.remove("gc-invalid");
    } catch {
      this.searchInput.classList.add("gc-invalid");
      this.searchInfo.textContent = "invalid regex";
    }
    const matches = pattern ? matchingNodes(this.tree, pattern) : null;
    this.search = { pattern, matches };
    this.updateSearchInfo();
    this.list.render();
  }

  updateSearchInfo() {
    const { matches } = this.search;
    if (!matches) {
      if (!this.searchInput.classList.contains("gc-invalid")) this.searchInfo.textContent = "";
      return;
    }
    const shown = matches.filter((i) => this.display.groupOf[i] >= 0).length;
    this.searchInfo.textContent = shown === matches.length
      ? `${matches.length} matches`
      : `${matches.length} matches, ${shown} shown`;
  }

  /** Expand the collapsed callers of every match, then (once the kernel has applied
   * that) move to the next shown match. */
  revealNextMatch(expandCallers = true) {
    const { matches } = this.search;
    if (!matches?.length) return;
    const { parent, pathKey } = this.tree;
    const flags = this.state.flags;
    const expand = new Set();
    for (const i of matches) {
      if (this.display.groupOf[i] >= 0) continue;
      for (let a = parent[i]; a >= 0; a = parent[a]) {
        if (flags[pathKey[a]] & COLLAPSED) expand.add(a);
      }
    }
    if (expand.size && expandCallers) {
      this.revealing = true;
      this.edits.edit({ op: "expand", nodes: [...expand].sort((a, b) => a - b) });
      return;
    }
    const shownRows = matches
      .map((i) => this.display.groupOf[i])
      .filter((g) => g >= 0)
      .map((g) => this.rowOfGroup(g))
      .sort((a, b) => a - b);
    if (!shownRows.length) return;
    const current = this.rowOf(this.cursorNode);
    const row = shownRows.find((r) => r > current) ?? shownRows[0];
    this.cursorNode = this.display.first[this.order.rows[row]];
    this.list.scrollTo(row);
    this.list.render();
    this.updateSearchInfo();
  }

  // -------------------------------------------------------------- drawing
  metricIndex(name) {
    const index = this.tree.metricIndex.get(name);
    return index === undefined ? 0 : index;
  }

  thresholdValue() {
    const [lo, hi] = this.thresholdRange;
    const t = Number(this.thresholdInput.value) / THRESHOLD_STEPS;
    if (!(hi > lo)) return lo;
    if (lo > 0 && hi / lo > 100) return lo * (hi / lo) ** t;
    return lo + (hi - lo) * t;
  }

  /** Range of a metric over the profile's nodes, and the value a full bar stands for (the
   * total for an exclusive metric with an inclusive partner), computed once per metric. */
  scaleOf(index) {
    if (!this.scales.has(index)) {
      const metric = this.tree.metrics[index];
      const [lo, hi] = extent(metric.values);
      const whole = metric.partner >= 0 ? extent(this.tree.metrics[metric.partner].values)[1] : hi;
      this.scales.set(index, { lo, hi, full: Math.max(0, whole || 0) });
    }
    return this.scales.get(index);
  }

  refresh() {
    const { tree, model } = this;
    const masks = keyMasks(tree, this.state.flags);
    this.display = displayTree(tree, this.state, masks);
    const sortName = model.get("sort_metric");
    const sortIndex = sortName ? this.metricIndex(sortName) : -1;
    if (!this.sortKeys.has(sortIndex)) {
      const values = sortIndex >= 0 ? tree.metrics[sortIndex].values : null;
      this.sortKeys.set(sortIndex, sortKey(tree, values));
    }
    this.order = rowOrder(this.display, this.sortKeys.get(sortIndex), sortIndex);
    const { rows } = this.order;
    this.rowOfGroupTable = new Int32Array(this.display.first.length);
    for (let r = 0; r < rows.length; r++) this.rowOfGroupTable[rows[r]] = r;
    const metric = model.get("metric");
    const colourName = model.get("color_metric") || metric;
    this.colourIndex = this.metricIndex(colourName);
    const { lo, hi } = this.scaleOf(this.colourIndex);
    this.scale = colourScale(lo, hi, {
      scheme: model.get("color_scheme"), log: model.get("color_log"),
    });
    const thresholdScale = this.scaleOf(this.metricIndex(metric));
    this.thresholdRange = [thresholdScale.lo, thresholdScale.hi];
    this.metricSelect.value = metric;
    this.colourSelect.value = colourName;
    this.sortSelect.value = sortName;
    this.schemeSelect.value = model.get("color_scheme");
    this.logBox.checked = model.get("color_log");
    this.undoButton.disabled = !this.edits.history.length;
    this.redoButton.disabled = !this.edits.future.length;
    this.unfocusButton.disabled = !masks.focused && !this.state.focusNames.length;
    const last = this.edits.history[this.edits.history.length - 1];
    if (!(last?.op === "threshold" && last.metric === metric)) this.thresholdInput.value = "0";
    this.thresholdLabel.textContent = this.formatOf(metric, this.thresholdValue());
    this.notice.textContent = model.get("notice");
    this.notice.style.display = model.get("notice") ? "" : "none";
    const { nodes, shown } = this.display;
    this.status.textContent = `${nodes} of ${tree.n} nodes shown`
      + (shown < nodes ? ` in ${shown} rows` : "")
      + (isEmpty(this.state) ? "" : " (edited)");
    this.showQuery();
    this.drawLegend(colourName);
    this.header.markSorted(sortName);
    this.fitColumns();
    this.list.update(this.order.rows.length);
    if (this.search.matches) this.updateSearchInfo();
    this.drawTab();
    this.hover();
  }

  /**
   * The kernel's query (it alone writes queries). A page no kernel answers shows the
   * query it was exported with until an edit is made on it.
   */
  showQuery() {
    this.queryText.textContent = this.editedOffline()
      ? "(edited on a page without a kernel: run the notebook for the query of these edits)"
      : this.model.get("query");
  }

  /** True on a page no kernel answers once its edits differ from those it was exported
   * with. */
  editedOffline() {
    return this.model.get("offline")
      && JSON.stringify(this.edits.history) !== this.loadedHistory;
  }

  /** A value of the named metric as text (a time with its unit when it is one). */
  formatOf(name, value) {
    return formatMetric(value, this.tree.metrics[this.metricIndex(name)].unit);
  }

  rowOfGroup(group) {
    return this.rowOfGroupTable[group];
  }

  rowOf(node) {
    if (node < 0) return -1;
    const group = this.display.groupOf[node];
    return group >= 0 ? this.rowOfGroup(group) : -1;
  }

  drawLegend(name) {
    const { scale } = this;
    const gradient = `linear-gradient(to right, ${scale.stops(9).join(", ")})`;
    this.legend.replaceChildren(
      element("span", "gc-legend-title", { text: `${name}${scale.log ? " (log)" : ""}` }),
      element("span", "gc-legend-value", { text: this.formatOf(name, scale.domain[0]) }),
      Object.assign(element("span", "gc-legend-bar"), { style: `background: ${gradient}` }),
      element("span", "gc-legend-value", { text: this.formatOf(name, scale.domain[1]) }),
    );
  }

  drawRow(row, index) {
    const { display, tree } = this;
    const group = this.order.rows[index];
    const node = display.first[group];
    const parts = row.gladeParts;
    const { memo } = parts;
    row.dataset.group = String(group);
    set(parts.name.style, "paddingLeft", `${this.indent(this.order.depth[index])}px`, memo);
    // Drawn by CSS: a glyph like ▸ would make the browser look for a fallback font on
    // every redraw, which costs more than the rest of the row.
    set(parts.toggle, "className", display.collapsed[group] ? "gc-toggle gc-closed"
      : this.hasChildren(group) ? "gc-toggle gc-open" : "gc-toggle");
    const colour = this.scale.colour(display.value(this.colourIndex, group));
    memo.swatch ??= {};
    set(parts.swatch.style, "backgroundColor", colour, memo.swatch);
    const barColour = `color-mix(in srgb, ${colour} 38%, transparent)`;
    const label = tree.name(node);
    const merged = display.memberCount(group);
    set(parts.text, "textContent", merged > 1 ? `${label} (×${merged})` : label);
    for (let c = 0; c < this.columns.length; c++) {
      const { index: metric, unit } = this.columns[c];
      const value = display.value(metric, group);
      const max = this.scaleOf(metric).full;
      const bar = parts.bars[c].style;
      memo[`bar${c}`] ??= {};
      const barMemo = memo[`bar${c}`];
      set(bar, "width", max > 0 && value > 0 ? `${((100 * value) / max).toFixed(1)}%` : "0",
        barMemo);
      set(bar, "backgroundColor", barColour, barMemo);
      set(parts.numbers[c], "textContent", formatMetric(value, unit));
    }
    const selected = this.selected.size > 0
      && display.membersOf(group).some((i) => this.selected.has(i));
    row.classList.toggle("gc-selected", selected);
    row.classList.toggle("gc-cursor",
      this.cursorNode >= 0 && display.groupOf[this.cursorNode] === group);
    row.classList.toggle("gc-match", Boolean(this.search.pattern?.test(label)));
    const device = tree.device !== null
      && display.membersOf(group).some((i) => tree.device[i]);
    row.classList.toggle("gc-on-device", device);
  }

  /** Show the row buttons and the tooltip of the row under the pointer (none when the
   * pointer is outside the rows). */
  hover() {
    if (this.model.get("tab") !== "top-down") return;
    const box = this.pointer ? this.body.getBoundingClientRect() : null;
    const row = box && this.pointer.x < box.right
      ? rowAt(this.pointer.y - box.top, this.list.scrollTop, ROW_HEIGHT, this.order.rows.length)
      : -1;
    const target = row >= 0 ? this.list.elementAt(row) : null;
    if (this.hovered !== target) {
      this.hovered?.classList.remove("gc-hovered");
      target?.classList.add("gc-hovered");
      target?.append(this.actions);
      this.hovered = target;
    }
    if (row < 0) {
      this.tooltip.style.display = "none";
      return;
    }
    fillTooltip(this.tooltip, this.tree, this.display, this.order.rows[row],
      (j) => this.scaleOf(j).full);
    const firstValue = this.header.element.querySelector(".gc-column");
    placeTooltip(this.tooltip, this.root, this.pointer,
      firstValue ? firstValue.getBoundingClientRect().left : this.body.getBoundingClientRect().right,
      this.rowBand(this.body));
  }
}

async function render({ model, el, signal }) {
  const view = new CCTView(model, el, signal, await readPayload(model));
  return () => view.root.remove();
}

export default { render };
