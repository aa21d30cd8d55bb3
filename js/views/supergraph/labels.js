// Where the Sankey's labels go and what they say, from the node boxes, the columns' x and
// the real widths of the texts (a `measure(text)` function): a label starts beside its
// node and may run right across the gaps and columns that have nothing across its lines
// (nodes, or labels placed there already), tall nodes wrap their names over several
// lines with the value on a line of its own, and labels of a column never overlap. Pure
// (tested without a browser), and about linear in the nodes: a sort per column, and a
// binary search per label and column crossed.

/** Height of a label line, in pixels. */
export const LABEL_HEIGHT = 14;
/** Labels start this far right of their node. */
export const LABEL_OFFSET = 6;
/** Room kept between a label's end and what it would run into. */
export const LABEL_GAP = 6;
/** A label wraps its name over at most this many lines (its value takes one more). */
export const MAX_LINES = 3;
/** Fewest characters of a name kept before one-line labels drop their values. */
export const NAME_KEPT = 6;
/** A name wraps into pieces of at least this many characters (but its last line). */
export const MIN_PIECE = 3;

/** `text` cut to fit `width` pixels (with "…"), by the `measure(text)` width function;
 * "" when not even one character fits. */
export function truncate(text, width, measure) {
  if (measure(text) <= width) return text;
  const cut = fittingPrefix(text, width, measure, "…");
  return cut > 0 ? `${text.slice(0, cut)}…` : "";
}

/** The most characters of `text` that fit `width` pixels followed by `tail`. */
function fittingPrefix(text, width, measure, tail = "") {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(`${text.slice(0, mid)}${tail}`) <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Where a name may break: after "_", ":", ".", "/", "-", a space or a comma, or before
 * an upper-case letter that follows a lower-case one (camelCase). */
function breakBefore(name, at) {
  const previous = name[at - 1];
  const next = name[at];
  return "_:./-, ".includes(previous)
    || (/[a-z]/.test(previous) && /[A-Z]/.test(next));
}

/**
 * `name` over at most `lines` lines of `width` pixels: each line as long as fits, broken
 * at the last separator (see breakBefore) that leaves it MIN_PIECE characters or more,
 * else within a word (never leaving fewer than MIN_PIECE characters after the break);
 * the last line cut with "…" when the rest does not fit. Null when not one character
 * fits.
 * @param {string} name @param {number} width @param {number} lines
 * @param {(text: string) => number} measure
 * @returns {string[] | null}
 */
export function wrapName(name, width, lines, measure) {
  const out = [];
  let rest = name;
  while (rest && out.length < lines) {
    if (out.length === lines - 1 || measure(rest) <= width) {
      const last = truncate(rest, width, measure);
      if (!last) break;
      out.push(last);
      break;
    }
    const fits = fittingPrefix(rest, width, measure);
    if (fits === 0) break;
    let cut = fits;
    for (let at = fits; at >= MIN_PIECE; at--) {
      if (breakBefore(rest, at)) {
        cut = at;
        break;
      }
    }
    // within a word: no piece of fewer than MIN_PIECE characters at its end
    if (cut === fits && rest.length - cut < MIN_PIECE) cut = Math.max(rest.length - MIN_PIECE, 1);
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return out.length ? out : null;
}

/** How many label lines a node `height` pixels tall holds (at least one, at most
 * MAX_LINES + 1: the name's lines and its value's). */
export function linesOf(height, lineHeight = LABEL_HEIGHT) {
  return Math.max(1, Math.min(MAX_LINES + 1, Math.floor(height / lineHeight)));
}

/** Vertical extents [[top, bottom]] sorted and merged into disjoint ones. */
function merged(extents) {
  extents.sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [top, bottom] of extents) {
    const last = out[out.length - 1];
    if (last && top <= last[1]) last[1] = Math.max(last[1], bottom);
    else out.push([top, bottom]);
  }
  return out;
}

/** Whether one of the disjoint sorted `extents` overlaps the band top..bottom (extents
 * that only touch it do not). */
function meets(extents, top, bottom) {
  let lo = 0;
  let hi = extents.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (extents[mid][1] <= top) lo = mid + 1;
    else hi = mid;
  }
  return lo < extents.length && extents[lo][0] < bottom;
}

/**
 * The text of a label in `room` pixels for a node holding `lines` label lines (see
 * linesOf): {lines: [name lines], value, below}: the name and its value on one line when
 * they fit; else, on a node of two lines or more, the name wrapped over the lines but one
 * and the value under it; else (one line) the name cut to keep the value beside it. A
 * one-line label without `withValue` is the name alone, cut if need be. Null when not one
 * character fits.
 */
export function labelText(name, value, room, measure, lines, withValue) {
  const shown = lines > 1 || withValue ? value : "";
  if (measure(shown ? `${name} ${shown}` : name) <= room) {
    return { lines: [name], value: shown, below: false };
  }
  if (lines > 1) {
    const keepValue = value && measure(value) <= room;
    const wrapped = wrapName(name, room, keepValue ? lines - 1 : lines, measure);
    if (!wrapped) return null;
    return { lines: wrapped, value: keepValue ? value : "", below: Boolean(keepValue) };
  }
  if (withValue && value) {
    const beside = truncate(name, room - measure(` ${value}`), measure);
    if (beside) return { lines: [beside], value, below: false };
  }
  const cut = truncate(name, room, measure);
  return cut ? { lines: [cut], value: "", below: false } : null;
}

/**
 * The labels of a Sankey drawing, none overlapping another and none cut beyond the
 * drawing.
 *
 * `nodes` are the boxes [{x0, x1, y0, y1}], `level` each node's column, `columnX` each
 * column's left side, `width` the drawing's width, `texts` each node's [name, value],
 * `measure(text)` a text's width in the labels' font. Columns are laid out right to
 * left: a label's room runs from LABEL_OFFSET right of its node to LABEL_GAP before the
 * first column to its right with a node or a label across its lines (the drawing's edge
 * when none is). Each node holds linesOf(height) lines; labels are kept by node height,
 * tallest first (nodes of one height from the top down), when they overlap no kept label
 * of their column. One-line labels show their values (their names cut to keep them) in
 * a column where every one of them keeps NAME_KEPT characters of its name that way;
 * where one cannot, none of that column's one-line labels shows its value (it is in the
 * tooltip), so that the small nodes of a column read alike.
 *
 * Returns, per node, null (no label) or {x, y, lines, value, below, top, bottom, right}:
 * x the text's start, y the centre of its first line, `lines` the name's lines, `value`
 * beside the last one or (`below`) on a line under them, top..bottom its extent and
 * `right` the end of its text. Only the columns a label runs across are searched (a
 * label that fits whole stops there), so the work is about linear in the nodes.
 */
export function layoutLabels({ nodes, level, columnX, width, texts, measure,
  lineHeight = LABEL_HEIGHT }) {
  const levels = columnX.length;
  const columns = Array.from({ length: levels }, () => []);
  nodes.forEach((_, i) => {
    columns[level[i]].push(i);
  });
  // what lies across each column, right of it first: its nodes, then its labels
  const taken = new Array(levels);
  const placed = new Array(nodes.length).fill(null);
  const band = (i, lines) => {
    const middle = (nodes[i].y0 + nodes[i].y1) / 2;
    return [middle - (lines * lineHeight) / 2, middle + (lines * lineHeight) / 2];
  };
  for (let c = levels - 1; c >= 0; c--) {
    const members = columns[c];
    const room = new Map();
    for (const i of members) {
      const [top, bottom] = band(i, linesOf(nodes[i].y1 - nodes[i].y0, lineHeight));
      const [name, value] = texts[i];
      const start = nodes[i].x1 + LABEL_OFFSET;
      // the columns crossed until what lies across the label, or until it fits whole
      const whole = start + measure(value ? `${name} ${value}` : name);
      let end = width - LABEL_GAP;
      for (let k = c + 1; k < levels && columnX[k] - LABEL_GAP < whole; k++) {
        if (meets(taken[k], top, bottom)) {
          end = columnX[k] - LABEL_GAP;
          break;
        }
      }
      room.set(i, end - start);
    }
    // tallest first, then from the top down; kept when clear of the kept ones
    const order = members.filter((i) => room.get(i) >= measure("W…"))
      .sort((a, b) => (nodes[b].y1 - nodes[b].y0) - (nodes[a].y1 - nodes[a].y0)
        || nodes[a].y0 - nodes[b].y0 || a - b);
    const kept = [];
    for (const i of order) {
      const [top, bottom] = band(i, linesOf(nodes[i].y1 - nodes[i].y0, lineHeight));
      if (meets(kept, top, bottom)) continue;
      insertSorted(kept, [top, bottom]);
      placed[i] = true;
    }
    // one-line labels: values for all of the column's, or for none
    let withValue = true;
    for (const i of members) {
      if (!placed[i] || linesOf(nodes[i].y1 - nodes[i].y0, lineHeight) > 1) continue;
      const [name, value] = texts[i];
      if (!value || measure(`${name} ${value}`) <= room.get(i)) continue;
      // the name is cut then: NAME_KEPT characters and "…" (fewer for a shorter name)
      const beside = truncate(name, room.get(i) - measure(` ${value}`), measure);
      if (beside.length <= Math.min(NAME_KEPT, name.length - 1)) {
        withValue = false;
        break;
      }
    }
    const extents = members.map((i) => [nodes[i].y0, nodes[i].y1]);
    for (const i of members) {
      if (!placed[i]) continue;
      const [name, value] = texts[i];
      const text = labelText(name, value, room.get(i), measure,
        linesOf(nodes[i].y1 - nodes[i].y0, lineHeight), withValue);
      if (!text) {
        placed[i] = null;
        continue;
      }
      const count = text.lines.length + (text.below ? 1 : 0);
      const [top, bottom] = band(i, count);
      let right = nodes[i].x1 + LABEL_OFFSET;
      text.lines.forEach((line, k) => {
        const beside = k === text.lines.length - 1 && text.value && !text.below
          ? ` ${text.value}` : "";
        right = Math.max(right, nodes[i].x1 + LABEL_OFFSET + measure(line + beside));
      });
      if (text.below) right = Math.max(right, nodes[i].x1 + LABEL_OFFSET + measure(text.value));
      placed[i] = { x: nodes[i].x1 + LABEL_OFFSET, y: top + lineHeight / 2, ...text, top,
        bottom, right };
      extents.push([top, bottom]);
    }
    taken[c] = merged(extents);
  }
  return placed;
}

/** Insert a disjoint extent into sorted disjoint `extents`, keeping them sorted. */
function insertSorted(extents, extent) {
  let lo = 0;
  let hi = extents.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (extents[mid][0] < extent[0]) lo = mid + 1;
    else hi = mid;
  }
  extents.splice(lo, 0, extent);
}
