// The CCT view's controls: the toolbar above the tree, the footer below it, and the row
// buttons that appear on the row under the pointer. Building only; index.js wires them.
import { SCHEMES } from "../../lib/colour.js";
import { button, element, option } from "../../lib/dom.js";

const group = (...children) => {
  const span = element("span", "gc-group");
  span.append(...children);
  return span;
};

const label = (text, control) => {
  const item = element("label", "gc-label");
  item.append(text, control);
  return item;
};

/** The toolbar (`bar`) and its controls, for a tree's metrics and depth. */
export function buildToolbar(tree, thresholdSteps) {
  const metricSelect = element("select", "gc-metric", {
    title: "metric for bars, threshold and color",
  });
  const colourSelect = element("select", "gc-colour-metric", { title: "color rows by" });
  const sortSelect = element("select", "gc-sort", { title: "order siblings by" });
  for (const m of tree.metrics) {
    option(metricSelect, m.name);
    option(colourSelect, m.name);
    option(sortSelect, m.name);
  }
  option(sortSelect, "", "profile order");
  const schemeSelect = element("select", "gc-scheme", { title: "color map" });
  for (const name of Object.keys(SCHEMES)) option(schemeSelect, name);
  const logBox = element("input", "gc-log", { type: "checkbox", title: "logarithmic color scale" });
  const depthSelect = element("select", "gc-depth", { title: "collapse every node at this depth" });
  option(depthSelect, "", "expand to depth…");
  for (let d = 0; d <= Math.min(tree.maxDepth, 64); d++) option(depthSelect, String(d));
  const thresholdInput = element("input", "gc-threshold", {
    type: "range", min: "0", max: String(thresholdSteps), value: "0",
    title: "also collapse every node whose metric is below this value "
      + "(other collapses, expand to depth included, stay; one drag is one undo step)",
  });
  const thresholdLabel = element("span", "gc-threshold-label");
  const searchInput = element("input", "gc-search", {
    type: "search", placeholder: "search names (regex), Enter: reveal", spellcheck: "false",
  });
  const searchInfo = element("span", "gc-search-info");
  const undoButton = button("gc-undo", "↶", "undo (z)");
  const redoButton = button("gc-redo", "↷", "redo (y)");
  const unfocusButton = button("gc-unfocus", "unfocus", "show the whole tree again (u)");
  const hotButton = button("gc-hot", "hot path",
    "expand the hot path from the cursor row: the largest child while it holds half of "
      + "its parent (p)");
  const resetButton = button("gc-reset", "reset", "drop every edit");
  const bar = element("div", "gc-toolbar");
  bar.append(
    group(label("metric ", metricSelect), label("color ", colourSelect), schemeSelect,
      label("log", logBox), label("sort ", sortSelect)),
    group(depthSelect, label("below ", thresholdInput), thresholdLabel),
    group(searchInput, searchInfo),
    group(hotButton, undoButton, redoButton, unfocusButton, resetButton),
  );
  return {
    bar, metricSelect, colourSelect, sortSelect, schemeSelect, logBox, depthSelect,
    thresholdInput, thresholdLabel, searchInput, searchInfo, undoButton, redoButton,
    unfocusButton, resetButton, hotButton,
  };
}

/** The view's tabs over the same data, and what each shows (their tooltips). */
export const TABS = [
  ["top-down", "the calling-context tree"],
  ["bottom-up", "callers: each function's totals over all its calls, opened into its callers"],
  ["flat", "one row per function"],
  ["icicle", "flame graph of the tree, left-heavy: click to zoom"],
];

/** The tab bar (`bar`) and its buttons by tab name. */
export function buildTabs() {
  const bar = element("div", "gc-tabs", { role: "tablist" });
  const buttons = new Map();
  for (const [name, title] of TABS) {
    const tab = element("button", "gc-tab", { role: "tab", "data-tab": name, title, text: name });
    buttons.set(name, tab);
    bar.append(tab);
  }
  return { bar, buttons };
}

/** The footer (`footer`): colour legend, status line and the query with a copy button. */
export function buildFooter() {
  const footer = element("div", "gc-footer");
  const legend = element("div", "gc-legend");
  const status = element("span", "gc-status");
  const details = element("details", "gc-query");
  const copyButton = button("gc-copy", "copy", "copy the query text");
  const queryText = element("pre", "gc-query-text");
  details.append(element("summary", "", { text: "query" }), copyButton, queryText);
  footer.append(legend, status, details);
  return { footer, legend, status, copyButton, queryText };
}

/** One set of row buttons, moved to the row under the pointer. */
export function buildRowButtons() {
  const actions = element("span", "gc-actions");
  actions.append(
    element("button", "", { "data-action": "hide", title: "hide this subtree (h)", text: "✕" }),
    element("button", "", {
      "data-action": "elide", title: "remove this node, keep its children (e)", text: "⤴",
    }),
    element("button", "", {
      "data-action": "focus", title: "focus: keep only this subtree and its callers (f)",
      text: "◎",
    }),
  );
  return actions;
}
