// Message arrows under the pointer: which arrow a point is on (within a few pixels of
// its segment), what its tooltip says (size, tag, communicator, latency; a bundle's
// count, bytes and mean latency), and which arrows a highlight keeps.
import { formatBytes, formatTimeAt } from "../../lib/format.js";

const REACH = 4; // px: how far from an arrow's line the pointer may be

/** The distance from point (x, y) to the segment (xa, ya)-(xb, yb). */
export function segmentDistance(x, y, xa, ya, xb, yb) {
  const dx = xb - xa;
  const dy = yb - ya;
  const length = dx * dx + dy * dy;
  const t = length ? Math.max(0, Math.min(1, ((x - xa) * dx + (y - ya) * dy) / length)) : 0;
  return Math.hypot(x - (xa + t * dx), y - (ya + t * dy));
}

/** The arrow of `picture` nearest to CSS pixel (x, y), within REACH pixels (-1 for
 * none), among those `shown` keeps (a predicate of an arrow's index; all for null).
 * `place(i)` gives arrow i's ends: [xa, ya, xb, yb]. */
export function arrowAt(picture, x, y, place, shown = null) {
  let best = -1;
  let nearest = REACH;
  const count = picture.arrow_send?.length ?? 0;
  for (let i = 0; i < count; i++) {
    if (shown && !shown(i)) continue;
    const distance = segmentDistance(x, y, ...place(i));
    if (distance <= nearest) {
      nearest = distance;
      best = i;
    }
  }
  return best;
}

/** The tooltip of arrow `i`: [key, value] lines; `slack` ns per pixel; `label(row)`
 * names a row. */
export function arrowLines(picture, i, slack, label) {
  const latency = picture.arrow_receive[i] - picture.arrow_send[i];
  const route = ["from → to", `${label(picture.arrow_from[i])} → ${label(picture.arrow_to[i])}`];
  if (picture.arrows_bundled) {
    const count = picture.arrow_count[i];
    return [["", `${count} messages`], route, ["bytes", formatBytes(picture.arrow_size[i])],
      ["mean latency", formatTimeAt(latency, slack)]];
  }
  const lines = [["", "message"], route, ["size", formatBytes(picture.arrow_size[i])]];
  if (picture.arrow_tag) {
    const known = (value) => (value < 0 ? "–" : String(value));
    lines.push(["tag", known(picture.arrow_tag[i])],
      ["communicator", known(picture.arrow_communicator[i])]);
  }
  lines.push(["latency", formatTimeAt(latency, slack)]);
  return lines;
}

/** Which arrows a highlight keeps: those whose send or receive instant (or the call
 * holding it) is highlighted; null (all) when nothing is, or arrows carry no nodes. */
export function highlightedArrows(picture, highlight) {
  if (!highlight?.size || !picture.arrow_send_node || picture.arrows_bundled) return null;
  const sends = picture.arrow_send_node;
  const receives = picture.arrow_receive_node;
  return (i) => highlight.has(sends[i]) || highlight.has(receives[i]);
}
