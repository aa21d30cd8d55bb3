// The Sankey's colour scales and the legend that explains them: outside a diff a node's
// fill is its histogram (light to dark blue: few to many profiles per bin), in a diff its
// colour is mean(b) − mean(a) on a symmetric diverging scale.
import { interpolateBlues, interpolateRdBu } from "d3-scale-chromatic";
import { element } from "../../lib/dom.js";
import { formatMetric } from "../../lib/format.js";

/** The colour of a histogram bin holding share t (0..1) of its node's fullest bin. */
export const density = (t) => interpolateBlues(0.1 + 0.8 * t);
/** The colour of a difference at t of the scale (0: −largest, 0.5: none, 1: +largest). */
export const diverging = (t) => interpolateRdBu(1 - t);

/** Fill `legend` for a drawing: outside a diff (`diff` null) the histogram scale and the
 * target line; in a diff the names of groups a and b (`groups`: the view's choices) and
 * the scale from −largest to +largest in `unit`. */
export function fillLegend(legend, { diff, groups, largest, unit }) {
  legend.replaceChildren();
  const bar = element("span", "gs-legend-bar");
  const stops = diff ? [0, 0.25, 0.5, 0.75, 1].map(diverging) : [0, 0.5, 1].map(density);
  bar.style.background = `linear-gradient(to right, ${stops.join(", ")})`;
  if (diff) {
    const name = (g) => groups.find(
      (x) => JSON.stringify(x.group) === JSON.stringify(g))?.label ?? "group";
    const title = `mean(${name(diff.b)}) − mean(${name(diff.a)}): `;
    legend.append(element("span", "", { text: title }),
      element("span", "", { text: `−${formatMetric(largest, unit)}` }), bar,
      element("span", "", { text: `+${formatMetric(largest, unit)}` }));
  } else {
    legend.append(element("span", "", { text: "profiles per bin (smallest values on "
      + "top): few" }), bar, element("span", "", { text: "many" }),
    element("span", "gs-legend-target", { text: "— target" }));
  }
}
