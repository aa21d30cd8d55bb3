// The window summary under the timeline: per function, per process or per process and
// function, the time inside the brushed window (clipped at its edges, as the kernel
// measures it: glade/trace/windows.py), its share, the time spent waiting for other
// processes (wait states, clipped likewise), the calls and the messages with their
// bytes. The kernel sorts (a click on a column header asks again); a click on a row
// selects that row's calls, which the timeline then highlights.
import { element, option } from "../../lib/dom.js";
import { formatBytes, formatTime, formatValue } from "../../lib/format.js";

/** What a row can be: [value of `by`, label]. */
export const SUMMARY_BY = [
  ["function", "per function"],
  ["process", "per process"],
  ["process-function", "per process × function"],
];

/** The header of each column the kernel sends. */
export const COLUMN_TITLES = {
  Process: "process", name: "function", time: "time (excl.)", "time (inc)": "time (incl.)",
  share: "share", "waiting time": "waiting", calls: "calls", sent: "sent", "sent bytes": "bytes sent",
  received: "received", "received bytes": "bytes received",
};

/** The text of one cell: times with units, the share in percent, bytes in B/KB/MB. */
export function summaryCell(column, value) {
  if (column === "name") return String(value);
  if (column === "Process") return String(value);
  if (column === "time" || column === "time (inc)" || column === "waiting time") {
    return formatTime(value);
  }
  if (column === "share") return `${(100 * value).toFixed(1)}%`;
  if (column.endsWith("bytes")) return formatBytes(value);
  return formatValue(value);
}

/** The processes of a window as short text ("all processes", "processes 0–3, 7"). */
export function processText(processes) {
  if (!processes) return "all processes";
  const parts = [];
  let first = null;
  let last = null;
  for (const p of processes) {
    if (last !== null && p === last + 1) last = p;
    else {
      if (first !== null) parts.push(first === last ? `${first}` : `${first}–${last}`);
      first = p;
      last = p;
    }
  }
  if (first !== null) parts.push(first === last ? `${first}` : `${first}–${last}`);
  return `${processes.length === 1 ? "process" : "processes"} ${parts.join(", ")}`;
}

/** The title line of a summary answer, times from the trace's start `origin`. */
export function summaryTitle(answer, origin) {
  const { t0, t1, processes } = answer.window;
  const rows = answer.count > answer.rows.length
    ? `${answer.rows.length} of ${answer.count} rows` : `${answer.count} rows`;
  return `window ${formatTime(t0 - origin)} – ${formatTime(t1 - origin)} `
    + `(${formatTime(t1 - t0)}) on ${processText(processes)}: ${rows}`;
}

/** The row's calls as the kernel names them: {name, process} (either may be absent). */
export function rowTarget(columns, row) {
  const target = {};
  const name = columns.indexOf("name");
  const process = columns.indexOf("Process");
  if (name >= 0) target.name = row[name];
  if (process >= 0) target.process = row[process];
  return target;
}

/** The summary panel: its elements, and what it shows. `ask(by, sort, descending)` asks
 * the kernel for a table; `pick(target)` selects a row's calls. */
export class SummaryPanel {
  constructor(ask, pick, signal) {
    this.ask = ask;
    this.pick = pick;
    this.by = "function";
    this.sort = "time";
    this.descending = true;
    this.answer = null;
    this.picked = -1;
    this.root = element("div", "gt-summary");
    const head = element("div", "gt-summary-head");
    this.title = element("span", "gt-summary-title");
    this.bySelect = element("select", "gt-summary-by", { title: "what a row is" });
    for (const [value, label] of SUMMARY_BY) option(this.bySelect, value, label);
    this.closeButton = element("button", "gt-summary-close", {
      text: "×", title: "close the summary",
    });
    head.append(this.title, this.bySelect, this.closeButton);
    this.table = element("table", "gt-summary-table");
    this.scroller = element("div", "gt-summary-rows");
    this.scroller.append(this.table);
    this.root.append(head, this.scroller);
    this.root.style.display = "none";
    const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
    on(this.bySelect, "change", () => {
      this.by = this.bySelect.value;
      this.sort = "time";
      this.descending = true;
      this.refresh();
    });
    on(this.closeButton, "click", () => this.close());
    on(this.table, "click", (event) => {
      const header = event.target.closest("th[data-column]");
      if (header) {
        const column = header.getAttribute("data-column");
        this.descending = column === this.sort ? !this.descending
          : !(column === "name" || column === "Process");
        this.sort = column;
        this.refresh();
        return;
      }
      const row = event.target.closest("tr[data-row]");
      if (row && this.answer) {
        this.picked = Number(row.getAttribute("data-row"));
        this.pick(rowTarget(this.answer.columns, this.answer.rows[this.picked]));
        this.render();
      }
    });
  }

  get open() {
    return this.root.style.display !== "none";
  }

  /** Show the panel and ask for its table. */
  show() {
    this.root.style.display = "";
    this.refresh();
  }

  close() {
    this.root.style.display = "none";
    this.answer = null;
  }

  refresh() {
    if (this.open) this.ask(this.by, this.sort, this.descending);
  }

  /** A table from the kernel (`origin`: the trace's first time). */
  setAnswer(answer, origin) {
    if (answer.by !== this.by) return;
    const sameRows = this.answer && this.answer.by === answer.by
      && this.answer.window.t0 === answer.window.t0 && this.answer.window.t1 === answer.window.t1;
    if (!sameRows) this.picked = -1;
    this.answer = answer;
    this.origin = origin;
    this.render();
  }

  render() {
    const answer = this.answer;
    if (!answer) return;
    this.title.textContent = summaryTitle(answer, this.origin);
    this.bySelect.value = this.by;
    const head = element("tr");
    for (const column of answer.columns) {
      const sorted = column === answer.sort;
      const th = element("th", sorted ? "gt-sorted" : "", {
        "data-column": column, title: `sort by ${COLUMN_TITLES[column] ?? column}`,
        text: `${COLUMN_TITLES[column] ?? column}${sorted ? (answer.descending ? " ▾" : " ▴") : ""}`,
      });
      head.append(th);
    }
    const rows = answer.rows.map((row, i) => {
      const tr = element("tr", i === this.picked ? "gt-picked" : "", {
        "data-row": String(i), title: "highlight these calls",
      });
      answer.columns.forEach((column, j) => {
        const text = summaryCell(column, row[j]);
        tr.append(element("td", column === "name" ? "gt-summary-name" : "", { text }));
      });
      return tr;
    });
    this.table.replaceChildren(head, ...rows);
  }
}
