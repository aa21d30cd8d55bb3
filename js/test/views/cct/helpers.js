// Test helpers: a CallTree from a small spec, as glade's Python side would send it.
import { StringTable } from "../../../lib/transport.js";
import { CallTree } from "../../../views/cct/calltree.js";
import { encodeStrings } from "../../strings.js";

/** A string table of plain JS strings, encoded as Python encodes one. */
function stringTable(strings) {
  const { blob, offsets } = encodeStrings(strings);
  return new StringTable(blob, offsets);
}

/**
 * spec: {parent: [pre-order parent ids], name: [...], file?: [...], time: [exclusive]}.
 * Metrics: "time (inc)" (summed here) and "time".
 */
export function treeFromSpec(spec) {
  const n = spec.parent.length;
  const parent = Int32Array.from(spec.parent);
  const frames = spec.name.map((name, i) => JSON.stringify([name, spec.file?.[i] ?? null]));
  const frameIds = new Map();
  const frameCode = Int32Array.from(frames, (f) => {
    if (!frameIds.has(f)) frameIds.set(f, frameIds.size);
    return frameIds.get(f);
  });
  const keyIds = new Map();
  const pathKey = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const key = `${parent[i] >= 0 ? pathKey[parent[i]] : -1}/${frameCode[i]}`;
    if (!keyIds.has(key)) keyIds.set(key, keyIds.size);
    pathKey[i] = keyIds.get(key);
  }
  const unique = [...new Set(spec.name)];
  const nameIndex = Int32Array.from(spec.name, (name) => unique.indexOf(name));
  const time = Float64Array.from(spec.time);
  const inclusive = time.slice();
  for (let i = n - 1; i > 0; i--) if (parent[i] >= 0) inclusive[parent[i]] += inclusive[i];
  return new CallTree({
    parent, frameCode, pathKey, nameIndex,
    names: stringTable(unique),
    metrics: [
      { name: "time (inc)", kind: "inclusive", partner: -1, values: inclusive },
      { name: "time", kind: "exclusive", partner: 0, values: time },
    ],
  });
}
