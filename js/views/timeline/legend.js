// The legend under the timeline: the functions taking the most time (a click hides one:
// its time goes to its caller), the hidden ones (a click shows them again), and how many
// more there are. A search never filters it: the functions it matches are marked, the
// others dimmed, and a note says how many match in all.
import { element } from "../../lib/dom.js";
import { formatPercent } from "../../lib/format.js";

const LEGEND_FUNCTIONS = 12;

/** The legend's items: `totals` by function code, `hidden` names, `matches` the codes a
 * search keeps (null: no search). */
export function legendItems(totals, names, colours, hidden, matches) {
  const order = Array.from(totals.keys()).filter((c) => totals[c] > 0)
    .sort((a, b) => totals[b] - totals[a]);
  const all = order.reduce((sum, c) => sum + totals[c], 0);
  const shown = order.slice(0, LEGEND_FUNCTIONS);
  const items = shown.map((code) => {
    const marked = matches ? (matches.has(code) ? " gt-match" : " gt-unmatched") : "";
    const item = element("span", `gt-legend-item${marked}`, {
      "data-name": names[code], title: `hide ${names[code]} (its time goes to its caller)`,
    });
    const swatch = element("span", "gt-swatch");
    swatch.style.background = colours[code];
    item.append(swatch, `${names[code]} ${formatPercent(totals[code], all)}`);
    return item;
  });
  for (const name of hidden) {
    items.push(element("span", "gt-legend-item gt-hidden", {
      "data-name": name, title: `show ${name} again`, text: name,
    }));
  }
  const more = order.length - shown.length;
  if (more > 0) {
    items.push(element("span", "gt-legend-more", { text: `+${more} more (search to find them)` }));
  }
  if (matches) {
    const count = matches.size;
    items.push(element("span", "gt-legend-more", {
      text: `search: ${count} function${count === 1 ? "" : "s"} match (Enter: next call, `
        + "Shift+Enter: previous)",
    }));
  }
  return items;
}
