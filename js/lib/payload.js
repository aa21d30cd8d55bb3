// @ts-check
// The one way a view reads what the kernel sends it: a state change is one packed payload
// (glade/views/base.py QueryView._publish), the `payload` bytes trait holding the arrays
// packed by glade/packing.py pack_arrays and the `payload_meta` dict holding their
// descriptors, the view's small JSON fields and a revision number.

import { unpackArrays } from "./transport.js";

/** @typedef {import("./widget").Model} Model */
/** @typedef {import("./transport.js").TypedArray} TypedArray */
/** @typedef {{ name: string, dtype: string, count: number, offset: number, size: number,
 *   deflate?: boolean }} Descriptor */
/** @typedef {{ revision?: number, arrays?: Descriptor[], fields?: Record<string, any> }}
 *   PayloadMeta */
/** @typedef {{ revision: number, fields: Record<string, any>,
 *   arrays: Record<string, TypedArray> }} Payload */

/** The revision of the model's payload (0 before the first), known without decoding it.
 * @param {Model} model @returns {number} */
export function payloadRevision(model) {
  const meta = /** @type {PayloadMeta | undefined} */ (model.get("payload_meta"));
  return meta?.revision ?? 0;
}

/**
 * The model's payload: its revision, its JSON fields and its typed arrays (decoded by
 * js/lib/transport.js; no copy for arrays that were not deflated).
 * @param {Model} model
 * @returns {Promise<Payload>}
 */
export async function readPayload(model) {
  const meta = /** @type {PayloadMeta | undefined} */ (model.get("payload_meta")) ?? {};
  const arrays = await unpackArrays(meta.arrays ?? [], model.get("payload"));
  return { revision: meta.revision ?? 0, fields: meta.fields ?? {}, arrays };
}

/**
 * Call `onPayload(payload)` with the model's payload now and after every change of it,
 * in revision order: a payload that a newer one replaced while it was being decoded is
 * dropped. Returns a function that stops listening.
 * @param {Model} model
 * @param {(payload: Payload) => void} onPayload
 * @param {(error: unknown) => void} [onError]
 * @returns {() => void}
 */
export function watchPayload(model, onPayload, onError = (error) => console.error(error)) {
  let shown = -1;
  let stopped = false;
  const read = () => {
    const revision = payloadRevision(model);
    readPayload(model).then((payload) => {
      if (stopped || payload.revision <= shown || revision !== payloadRevision(model)) return;
      shown = payload.revision;
      onPayload(payload);
    }, onError);
  };
  model.on("change:payload_meta", read);
  read();
  return () => {
    stopped = true;
    model.off("change:payload_meta", read);
  };
}

/**
 * The arrays of a payload whose names start with `prefix` (a group the kernel packed
 * apart, such as a timeline's "snapshot/"), named without it.
 * @param {Record<string, TypedArray>} arrays @param {string} prefix
 * @returns {Record<string, TypedArray>}
 */
export function arraysUnder(arrays, prefix) {
  /** @type {Record<string, TypedArray>} */
  const out = {};
  for (const [name, values] of Object.entries(arrays)) {
    if (name.startsWith(prefix)) out[name.slice(prefix.length)] = values;
  }
  return out;
}
