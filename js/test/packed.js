// Arrays packed as glade's Python side packs them (glade/packing.py pack_arrays): each
// array's bytes (some deflated) padded to 8-byte parts of one blob, with descriptors.
import { deflateSync } from "node:zlib";

/** {descriptors, blob} of named typed arrays; those named in `deflate` are deflated. */
export function pack(arrays, deflate = []) {
  const parts = [];
  const descriptors = [];
  let offset = 0;
  for (const [name, values] of Object.entries(arrays)) {
    let bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    if (deflate.includes(name)) bytes = new Uint8Array(deflateSync(bytes));
    descriptors.push({
      name,
      dtype: values.constructor.name.replace("Array", "").toLowerCase(),
      count: values.length,
      offset,
      size: bytes.length,
      deflate: deflate.includes(name),
    });
    const padded = new Uint8Array(Math.ceil(bytes.length / 8) * 8);
    padded.set(bytes);
    parts.push(padded);
    offset += padded.length;
  }
  const blob = new Uint8Array(offset);
  let at = 0;
  for (const part of parts) {
    blob.set(part, at);
    at += part.length;
  }
  return { descriptors, blob };
}
