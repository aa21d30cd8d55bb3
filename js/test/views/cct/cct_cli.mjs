// Runs the CCT view's JS logic under node for pytest (tests/views/): reads a JSON list of
// cases {traits, edits} on stdin, where traits holds the widget's traits (bytes traits
// base64-encoded), and prints for each case the JS query text and the displayed rows.
import { callTreeFromModel } from "../../../views/cct/calltree.js";
import { replay } from "../../../views/cct/edits.js";
import { displayTree } from "../../../views/cct/layout.js";
import { buildQuery } from "../../../views/cct/query.js";

const BYTES = ["parents", "frame_codes", "path_keys", "names", "name_offsets", "name_index",
  "conditions", "condition_offsets", "extra_ptr", "extra_index", "values"];

function modelOf(traits) {
  const decoded = { ...traits };
  for (const name of BYTES) decoded[name] = new Uint8Array(Buffer.from(traits[name], "base64"));
  return { get: (name) => decoded[name] };
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const results = cases.map(({ traits, edits }) => {
  const tree = callTreeFromModel(modelOf(traits));
  const state = replay(tree, edits);
  const display = displayTree(tree, state);
  const rows = Array.from(display.groups, (g) => ({
    node: display.first[g],
    parent: display.parent[g] >= 0 ? display.first[display.parent[g]] : -1,
    members: display.membersOf(g),
    values: tree.metrics.map((_, j) => display.value(j, g)),
    collapsed: display.collapsed[g] === 1,
  }));
  return { query: buildQuery(tree, state), rows };
});
process.stdout.write(JSON.stringify(results));
