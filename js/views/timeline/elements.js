// The timeline's elements: the toolbar (search, depth rows, messages, row height, home,
// undo/redo, edits), the notice, the gutter and plot canvases, the axis, the overview,
// the selection bar, the legend, the footer (status and query) and the tooltip.
import { button, element, group, labelled, option } from "../../lib/dom.js";

export const ROW_HEIGHTS = ["fit", 6, 10, 16, 24];

/** Build the timeline's elements inside `el`; returns them by name. */
export function timelineElements(el) {
  const root = element("div", "glade-timeline glade-view");
  const bar = element("div", "glade-toolbar");
  const search = element("input", "gt-search", {
    type: "search", placeholder: "search functions (regex; Enter: next)", spellcheck: "false",
  });
  const depth = element("input", "gt-depth", { type: "checkbox" });
  const arrows = element("input", "gt-arrows", { type: "checkbox" });
  arrows.checked = true;
  const onlyMarked = element("input", "gt-arrows-marked", {
    type: "checkbox", title: "draw only the messages of the highlighted calls",
  });
  const rowHeight = element("select", "gt-row-height", { title: "height of a row" });
  for (const choice of ROW_HEIGHTS) {
    option(rowHeight, String(choice), choice === "fit" ? "fit all rows" : `${choice} px rows`);
  }
  const home = button("gt-home", "⤢", "show the whole trace (0)");
  const activity = button("gt-activity", "activity",
    "zoom to where the calls happen, past a long initialisation (i)");
  const undoButton = button("gt-undo", "↶", "undo (z)");
  const redoButton = button("gt-redo", "↷", "redo (y)");
  const clearWindow = button("gt-clear-window", "clear window", "keep every time and process");
  const unfocus = button("gt-unfocus", "unfocus", "show every call path again");
  const reset = button("gt-reset", "reset", "drop every edit");
  const summary = button("gt-summary-button", "summary",
    "the time, calls and messages inside the window (brush with Shift+drag)");
  const label = (text, control) => labelled(text, control, true);
  bar.append(
    group(search),
    group(label("depth rows", depth), label("messages", arrows),
      label("only highlighted", onlyMarked), rowHeight),
    group(home, activity, undoButton, redoButton),
    group(summary, clearWindow, unfocus, reset),
  );
  const notice = element("div", "gt-notice");
  const main = element("div", "gt-main");
  const gutter = element("canvas", "gt-gutter");
  const plot = element("canvas", "gt-plot");
  main.append(gutter, plot);
  const axis = element("canvas", "gt-axis");
  const overview = element("canvas", "gt-overview", {
    title: "the time profile of the whole trace: drag to choose the range shown",
  });
  const selection = element("div", "gt-selection");
  const legend = element("div", "gt-legend");
  const footer = element("div", "gt-footer");
  const status = element("span", "gt-status");
  const waiting = element("span", "gt-waiting");
  const details = element("details", "gt-query");
  const queryLabel = element("summary", "", { text: "query" });
  const queryText = element("pre", "gt-query-text");
  details.append(queryLabel, queryText);
  footer.append(status, waiting, details);
  const tooltip = element("div", "gt-tooltip");
  root.append(bar, notice, main, axis, overview, selection, legend, footer, tooltip);
  el.append(root);
  return {
    root, searchInput: search, depthBox: depth, arrowsBox: arrows, markedArrowsBox: onlyMarked, rowHeightSelect: rowHeight,
    homeButton: home, activityButton: activity, undoButton, redoButton, clearWindowButton: clearWindow,
    unfocusButton: unfocus, resetButton: reset, summaryButton: summary, notice, main, gutter, plot, axis,
    overviewCanvas: overview, selectionBar: selection, legend, status, waiting, queryText,
    tooltip,
  };
}
