// Where the timeline's rows are on screen when counter tracks sit under their process:
// each row is `rowHeight` tall and may have lanes under it (one per counter track shown
// there, LANE_HEIGHT tall). Without lanes a row's top is row * rowHeight, as before.

export const LANE_HEIGHT = 28;

/** The rows of a timeline with the lanes under them. `under` maps a row to the tracks
 * (indices) drawn beneath it, in order (a Map; rows without tracks are absent). */
export class RowLayout {
  constructor(rows, rowHeight, under = new Map()) {
    this.rows = rows;
    this.rowHeight = rowHeight;
    this.under = under;
    this.gapped = under.size > 0;
    if (!this.gapped) return;
    // tops[r]: the top of row r (content pixels); tops[rows]: the content's height
    const tops = new Float64Array(rows + 1);
    for (let r = 0; r < rows; r++) {
      tops[r + 1] = tops[r] + rowHeight + (under.get(r)?.length ?? 0) * LANE_HEIGHT;
    }
    this.tops = tops;
  }

  /** The top of row `row` in content pixels. */
  top(row) {
    return this.gapped ? this.tops[Math.max(0, Math.min(row, this.rows))] : row * this.rowHeight;
  }

  /** The height of the rows and their lanes. */
  get total() {
    return this.top(this.rows);
  }

  /** What content pixel `y` shows: { row, lane } with lane -1 on the row itself, else the
   * index of its lane under `row`; row -1 above the first row, `rows` below the last. */
  at(y) {
    if (!this.gapped) return { row: Math.floor(y / this.rowHeight), lane: -1 };
    if (y < 0) return { row: -1, lane: -1 };
    const tops = this.tops;
    if (y >= tops[this.rows]) return { row: this.rows, lane: -1 };
    let lo = 0;
    let hi = this.rows - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (tops[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    const inside = y - tops[lo] - this.rowHeight;
    return { row: lo, lane: inside < 0 ? -1 : Math.floor(inside / LANE_HEIGHT) };
  }

  /** The rows in view, [row0, row1), for a scroll offset clamped so that the last row
   * can reach the bottom of `height` pixels; and that offset. */
  visible(height, scrollTop) {
    const top = Math.max(0, Math.min(scrollTop, Math.max(0, this.total - height)));
    const first = this.at(top).row;
    const last = this.at(top + height - 1e-6).row;
    return {
      row0: Math.max(0, Math.min(this.rows, first)),
      row1: Math.max(0, Math.min(this.rows, last + 1)),
      scrollTop: top,
    };
  }

  /** The lanes under rows [row0, row1): [{ row, track, top }] (top in content pixels). */
  lanes(row0, row1) {
    const out = [];
    if (!this.gapped) return out;
    for (let row = row0; row < row1; row++) {
      const tracks = this.under.get(row);
      if (!tracks) continue;
      const top = this.tops[row] + this.rowHeight;
      for (const [i, track] of tracks.entries()) {
        out.push({ row, track, top: top + i * LANE_HEIGHT });
      }
    }
    return out;
  }
}

/** The row each process's counter tracks go under: the last row of the process in the
 * order shown. `processes` holds the process of each location, `locationRows` the first
 * row of each location (ascending), `rows` the number of rows. Returns a Map process ->
 * row. */
export function lastRows(processes, locationRows, rows) {
  const last = new Map();
  for (let i = 0; i < processes.length; i++) {
    const end = (i + 1 < locationRows.length ? locationRows[i + 1] : rows) - 1;
    const p = Number(processes[i]);
    if (end >= 0 && end >= (last.get(p) ?? -1)) last.set(p, end);
  }
  return last;
}

/** Which tracks go under which row: the tracks (kernel meta: { counter, process }) whose
 * counter is `shown` (a Set of names) and whose process is not `collapsed` (a Set),
 * under the last row of their process (see lastRows). Returns a Map row -> [track]. */
export function tracksUnder(tracks, shown, collapsed, lastRow) {
  const under = new Map();
  tracks.forEach((track, k) => {
    if (!shown.has(track.counter) || collapsed.has(track.process)) return;
    const row = lastRow.get(track.process);
    if (row === undefined) return;
    if (!under.has(row)) under.set(row, []);
    under.get(row).push(k);
  });
  return under;
}
