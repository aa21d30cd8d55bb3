// @ts-check
// Typed arrays and string tables from the bytes traits a view receives from Python
// (glade/packing.py writes them): little-endian, no copy when aligned.

const decoder = new TextDecoder();

/** @typedef {ArrayBuffer | ArrayBufferView | null | undefined} Bytes What a bytes trait holds. */
/** @typedef {Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array
 *   | Float32Array | Float64Array} TypedArray */
/** @typedef {{ new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): TypedArray,
 *   new (length: number): TypedArray, BYTES_PER_ELEMENT: number }} TypedArrayType */

/** The bytes of a bytes trait (DataView, ArrayBuffer or typed array) as a Uint8Array.
 * @param {Bytes} data @returns {Uint8Array} */
export function bytesOf(data) {
  if (data == null) return new Uint8Array(0);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * @template {TypedArray} T
 * @param {Bytes} data
 * @param {{ new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T,
 *   BYTES_PER_ELEMENT: number }} Type
 * @returns {T}
 */
function typed(data, Type) {
  const bytes = bytesOf(data);
  if (bytes.byteOffset % Type.BYTES_PER_ELEMENT === 0) {
    return new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
  }
  return new Type(bytes.slice().buffer);
}

/** A bytes trait holding little-endian int32 values, as an Int32Array (no copy when aligned).
 * @param {Bytes} data @returns {Int32Array} */
export const int32Of = (data) => typed(data, Int32Array);

/** A bytes trait holding little-endian float64 values, as a Float64Array.
 * @param {Bytes} data @returns {Float64Array} */
export const float64Of = (data) => typed(data, Float64Array);

/** Strings stored as one UTF-8 blob plus byte offsets; decoded lazily, once each. */
export class StringTable {
  /** @param {Bytes} blob @param {ArrayLike<number>} offsets n + 1 byte offsets into it */
  constructor(blob, offsets) {
    this.blob = bytesOf(blob);
    this.offsets = offsets;
    /** @type {(string | undefined)[]} */
    this.cache = new Array(Math.max(offsets.length - 1, 0));
  }

  get length() {
    return this.cache.length;
  }

  /** String `i`. @param {number} i @returns {string} */
  get(i) {
    let text = this.cache[i];
    if (text === undefined) {
      text = decoder.decode(this.blob.subarray(this.offsets[i], this.offsets[i + 1]));
      this.cache[i] = text;
    }
    return text;
  }
}

/**
 * Inflate `data` (zlib / RFC 1950, as Python's zlib.compress writes) into `out`, a
 * Uint8Array of exactly the inflated size (an error otherwise). The stream reads from
 * memory, so its steps are microtasks: the page does nothing else between them (a
 * Blob's stream would hand the bytes to the browser's blob store and read them back
 * over several tasks, while the page runs whatever else is queued).
 * @param {Bytes} data
 * @param {Uint8Array} out
 * @returns {Promise<Uint8Array>}
 */
export async function inflate(data, out) {
  const stream = new DecompressionStream("deflate");
  const writer = stream.writable.getWriter();
  // a corrupt stream rejects these too; reading reports it
  // (the trait's bytes are never in a SharedArrayBuffer)
  writer.write(/** @type {Uint8Array<ArrayBuffer>} */ (bytesOf(data))).catch(() => {});
  writer.close().catch(() => {});
  const reader = stream.readable.getReader();
  let size = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    if (size + part.value.length > out.length) {
      reader.cancel().catch(() => {});
      throw new Error(`inflated data longer than the ${out.length} bytes expected`);
    }
    out.set(part.value, size);
    size += part.value.length;
  }
  if (size !== out.length) throw new Error(`inflated ${size} bytes, not ${out.length}`);
  return out;
}

/** @type {Record<string, TypedArrayType>} */
const ARRAY_TYPES = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  float32: Float32Array,
  float64: Float64Array,
};

/**
 * The named typed arrays of a blob packed by glade/packing.py (pack_arrays):
 * `descriptors` give each array's name, dtype, count, byte offset and size, and whether
 * it was deflated. Plain arrays are views of the blob (no copy when aligned); deflated
 * ones are inflated together, each straight into its own typed array.
 * @param {{ name: string, dtype: string, count: number, offset: number, size: number,
 *   deflate?: boolean }[]} descriptors
 * @param {Bytes} blob
 * @returns {Promise<Record<string, TypedArray>>}
 */
export async function unpackArrays(descriptors, blob) {
  const bytes = bytesOf(blob);
  /** @type {Record<string, TypedArray>} */
  const out = {};
  /** @type {Promise<Uint8Array>[]} */
  const inflating = [];
  for (const item of descriptors) {
    const Type = ARRAY_TYPES[item.dtype];
    if (!Type) throw new Error(`unknown array dtype ${item.dtype}`);
    const part = bytes.subarray(item.offset, item.offset + item.size);
    if (item.deflate) {
      const values = new Type(item.count);
      out[item.name] = values;
      inflating.push(inflate(part, new Uint8Array(values.buffer)));
    } else {
      out[item.name] =
        part.byteOffset % Type.BYTES_PER_ELEMENT === 0
          ? new Type(part.buffer, part.byteOffset, item.count)
          : new Type(part.slice().buffer, 0, item.count);
    }
  }
  await Promise.all(inflating);
  return out;
}
