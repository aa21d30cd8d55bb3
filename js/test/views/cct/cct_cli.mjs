// Runs the CCT view's JS logic under node for pytest (tests/views/): reads a JSON list of
// cases {payload, payload_meta, edits} on stdin (the widget's payload base64-encoded and
// its descriptor), and prints for each case the displayed rows.
import { readPayload } from "../../../lib/payload.js";
import { callTreeFromPayload } from "../../../views/cct/calltree.js";
import { replay } from "../../../views/cct/edits.js";
import { displayTree } from "../../../views/cct/layout.js";

function modelOf(payload, meta) {
  const traits = { payload: new Uint8Array(Buffer.from(payload, "base64")), payload_meta: meta };
  return { get: (name) => traits[name] };
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const payloads = await Promise.all(
  cases.map(({ payload, payload_meta }) => readPayload(modelOf(payload, payload_meta))));
const results = cases.map(({ edits }, i) => {
  const tree = callTreeFromPayload(payloads[i]);
  const state = replay(tree, edits);
  const display = displayTree(tree, state);
  const rows = Array.from(display.groups, (g) => ({
    node: display.first[g],
    parent: display.parent[g] >= 0 ? display.first[display.parent[g]] : -1,
    members: display.membersOf(g),
    values: tree.metrics.map((_, j) => display.value(j, g)),
    collapsed: display.collapsed[g] === 1,
  }));
  return { rows };
});
process.stdout.write(JSON.stringify(results));
