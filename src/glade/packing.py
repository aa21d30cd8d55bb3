"""How views send arrays to the browser: little-endian typed-array bytes for bytes traits
and custom messages.

A bytes trait reaches the front end as a binary buffer (a ``DataView`` in JS), so large
structures cost their raw size and no JSON parsing. Strings travel as a string table:
the unique values as one UTF-8 blob, int32 byte offsets, and an int32 index per item.
Several named arrays travel as one blob with descriptors (:func:`pack_arrays`), in a
custom message's buffer or a bytes trait alike.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from glade.errors import GladeError


def int32_bytes(values: np.ndarray | Sequence[int]) -> bytes:
    """The values as little-endian int32 bytes (an Int32Array in JS)."""
    return np.ascontiguousarray(values, dtype="<i4").tobytes()


def float64_bytes(values: np.ndarray | Sequence[float]) -> bytes:
    """The values as little-endian float64 bytes (a Float64Array in JS)."""
    return np.ascontiguousarray(values, dtype="<f8").tobytes()


def string_table(strings: Sequence[str]) -> tuple[bytes, bytes]:
    """``strings`` as (UTF-8 blob, int32 byte offsets of length len + 1): string i is
    ``blob[offsets[i]:offsets[i + 1]]``."""
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return b"".join(encoded), int32_bytes(offsets)


def mask_ranges(mask: np.ndarray) -> list[list[int]]:
    """The runs of true values of a boolean mask as ``[[start, stop], ...]``."""
    padded = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return edges.reshape(-1, 2).tolist()


def mask_from_ranges(n: int, ranges: Sequence[Sequence[int]]) -> np.ndarray:
    """The boolean mask of length ``n`` that is true on the ``[start, stop)`` ranges."""
    bounds = np.asarray(ranges, dtype=np.int64).reshape(-1, 2)
    delta = np.zeros(n + 1, dtype=np.int64)
    np.add.at(delta, bounds[:, 0], 1)
    np.add.at(delta, bounds[:, 1], -1)
    return np.cumsum(delta[:-1]) > 0


#: The dtypes a packed array may have (each is a JS typed array).
PACKED_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64")


def pack_arrays(
    arrays: Mapping[str, np.ndarray], deflate: Collection[str] = (), noisy: Collection[str] = ()
) -> tuple[list[dict], bytes]:
    """Named arrays as one blob for a custom message or a bytes trait: descriptors
    (``name``, ``dtype``, ``count``, byte ``offset`` and ``size`` in the blob,
    ``deflate``) and the blob, each array little-endian at an offset that is a
    multiple of 8 (so JS views it without a copy) or zlib-compressed when its name is
    in ``deflate`` (``js/lib/transport.js`` unpacks both). Arrays in ``deflate`` that
    are also ``noisy`` (few repeated runs, such as the opacities of a raster) are
    compressed by Huffman coding alone: as small, in half the time."""
    descriptors, parts, offset = [], [], 0
    for name, values in arrays.items():
        values = np.asarray(values)
        if values.dtype.name not in PACKED_DTYPES:
            raise GladeError(
                f"array {name!r} has dtype {values.dtype}; pack one of {PACKED_DTYPES}"
            )
        raw = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<")).tobytes()
        packed = _compressed(raw, name in noisy) if name in deflate else raw
        descriptors.append(
            {
                "name": name,
                "dtype": values.dtype.name,
                "count": int(values.size),
                "offset": offset,
                "size": len(packed),
                "deflate": name in deflate,
            }
        )
        padding = -len(packed) % 8
        parts += [packed, b"\0" * padding]
        offset += len(packed) + padding
    return descriptors, b"".join(parts)


def join_packed(parts: Sequence[tuple[str, Sequence[dict], bytes]]) -> tuple[list[dict], bytes]:
    """Blobs already packed by :func:`pack_arrays` as one: each part is (prefix,
    descriptors, blob), its arrays named ``prefix + name`` at offsets shifted by the
    parts before it (each blob is a multiple of 8 bytes long, so arrays stay aligned)."""
    descriptors: list[dict] = []
    blobs: list[bytes] = []
    offset = 0
    for prefix, items, blob in parts:
        descriptors += [
            {**item, "name": prefix + item["name"], "offset": item["offset"] + offset}
            for item in items
        ]
        padding = -len(blob) % 8
        blobs += [blob, b"\0" * padding]
        offset += len(blob) + padding
    return descriptors, b"".join(blobs)


def _compressed(raw: bytes, noisy: bool) -> bytes:
    """``raw`` as a zlib stream (RFC 1950) at the fastest level, by Huffman coding alone
    when ``noisy``."""
    strategy = zlib.Z_HUFFMAN_ONLY if noisy else zlib.Z_DEFAULT_STRATEGY
    packer = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS, 9, strategy)
    return packer.compress(raw) + packer.flush()


def unpack_arrays(descriptors: Sequence[dict], blob: bytes) -> dict[str, np.ndarray]:
    """The arrays :func:`pack_arrays` packed."""
    out = {}
    for item in descriptors:
        raw = blob[item["offset"] : item["offset"] + item["size"]]
        if item["deflate"]:
            raw = zlib.decompress(raw)
        out[item["name"]] = np.frombuffer(
            raw, dtype=np.dtype(item["dtype"]).newbyteorder("<"), count=item["count"]
        )
    return out
