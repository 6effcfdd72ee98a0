"""How vectors are stored: int8 with one scale per vector, plus their sign bits.

int8 keeps cosine within about 0.001 of float32 at a quarter of the size; the sign bits
(48 bytes for 384 dims) let search scan a million vectors in memory before it reranks a
few thousand candidates exactly.
"""

from __future__ import annotations

import numpy as np


def quantize(vectors: np.ndarray) -> list[tuple[float, bytes, bytes]]:
    """(scale, int8 bytes, sign-bit code) for each row of a float32 matrix."""
    peaks = np.maximum(np.abs(vectors).max(axis=1), 1e-12)
    scales = peaks / 127.0
    q = np.round(vectors / scales[:, None]).astype(np.int8)
    codes = sign_codes(vectors)
    return [(float(scales[i]), q[i].tobytes(), codes[i].tobytes()) for i in range(len(q))]


def sign_codes(vectors: np.ndarray) -> np.ndarray:
    """Sign bits of each row, packed and padded to whole 64-bit words (uint64 matrix)."""
    bits = np.packbits(vectors > 0, axis=1)
    pad = (-bits.shape[1]) % 8
    if pad:
        bits = np.pad(bits, ((0, 0), (0, pad)))
    return np.ascontiguousarray(bits).view(np.uint64)
