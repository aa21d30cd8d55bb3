// Strings encoded as glade's Python side sends them (glade/packing.py): one UTF-8
// blob and int32 byte offsets.

/** {blob: Uint8Array, offsets: Int32Array} of plain JS strings. */
export function encodeStrings(strings) {
  const encoder = new TextEncoder();
  const parts = strings.map((text) => encoder.encode(text));
  const offsets = new Int32Array(parts.length + 1);
  parts.forEach((part, i) => {
    offsets[i + 1] = offsets[i] + part.length;
  });
  const blob = new Uint8Array(offsets[parts.length]);
  parts.forEach((part, i) => {
    blob.set(part, offsets[i]);
  });
  return { blob, offsets };
}
