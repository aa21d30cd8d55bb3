// Typed arrays and string tables from the bytes traits a view receives from Python
// (glade/views/transport.py writes them): little-endian, no copy when aligned.

const decoder = new TextDecoder();

/** The bytes of a bytes trait (DataView, ArrayBuffer or typed array) as a Uint8Array. */
export function bytesOf(data) {
  if (data == null) return new Uint8Array(0);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function typed(data, Type) {
  const bytes = bytesOf(data);
  if (bytes.byteOffset % Type.BYTES_PER_ELEMENT === 0) {
    return new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
  }
  return new Type(bytes.slice().buffer);
}

/** A bytes trait holding little-endian int32 values, as an Int32Array (no copy when aligned). */
export const int32Of = (data) => typed(data, Int32Array);

/** A bytes trait holding little-endian float64 values, as a Float64Array. */
export const float64Of = (data) => typed(data, Float64Array);

/** Strings stored as one UTF-8 blob plus byte offsets; decoded lazily, once each. */
export class StringTable {
  constructor(blob, offsets) {
    this.blob = bytesOf(blob);
    this.offsets = offsets;
    this.cache = new Array(Math.max(offsets.length - 1, 0));
  }

  get length() {
    return this.cache.length;
  }

  get(i) {
    let text = this.cache[i];
    if (text === undefined) {
      text = decoder.decode(this.blob.subarray(this.offsets[i], this.offsets[i + 1]));
      this.cache[i] = text;
    }
    return text;
  }
}

/** The bytes of `data` inflated (zlib / RFC 1950, as Python's zlib.compress writes). */
export async function inflate(data) {
  const stream = new Blob([bytesOf(data)]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const ARRAY_TYPES = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, float32: Float32Array, float64: Float64Array,
};

/**
 * The named typed arrays of a blob packed by glade/views/transport.py (pack_arrays):
 * `descriptors` give each array's name, dtype, count, byte offset and size, and whether
 * it was deflated.
 */
export async function unpackArrays(descriptors, blob) {
  const bytes = bytesOf(blob);
  const out = {};
  for (const item of descriptors) {
    const Type = ARRAY_TYPES[item.dtype];
    if (!Type) throw new Error(`unknown array dtype ${item.dtype}`);
    let part = bytes.subarray(item.offset, item.offset + item.size);
    if (item.deflate) part = await inflate(part);
    out[item.name] = part.byteOffset % Type.BYTES_PER_ELEMENT === 0
      ? new Type(part.buffer, part.byteOffset, item.count)
      : new Type(part.slice().buffer, 0, item.count);
  }
  return out;
}
