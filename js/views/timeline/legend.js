// The legend under the timeline: the functions taking the most time (a click hides one:
// its time goes to its caller), the hidden ones (a click shows them again), and how many
// more a search would find.
import { element } from "../../lib/dom.js";
import { formatPercent } from "../../lib/format.js";

const LEGEND_FUNCTIONS = 12;

/** The legend's items: `totals` by function code, `hidden` names, `matches` the codes a
 * search keeps (null: no search). */
export function legendItems(totals, names, colours, hidden, matches) {
  const order = Array.from(totals.keys()).filter((c) => totals[c] > 0)
    .sort((a, b) => totals[b] - totals[a]);
  const all = order.reduce((sum, c) => sum + totals[c], 0);
  const shown = (matches ? order.filter((c) => matches.has(c)) : order)
    .slice(0, LEGEND_FUNCTIONS);
  const items = shown.map((code) => {
    const item = element("span", "gt-legend-item", {
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
  if (more > 0 && !matches) {
    items.push(element("span", "gt-legend-more", { text: `+${more} more (search to find them)` }));
  }
  return items;
}
