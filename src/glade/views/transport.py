"""How views send arrays to the browser: little-endian typed-array bytes for bytes traits.

A bytes trait reaches the front end as a binary buffer (a ``DataView`` in JS), so large
structures cost their raw size and no JSON parsing. Strings travel as a string table:
the unique values as one UTF-8 blob, int32 byte offsets, and an int32 index per item.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


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
