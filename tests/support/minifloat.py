"""Reference decoders for the small float formats (fp8, fp4), written from their definitions."""

from __future__ import annotations

import numpy as np

# exponent bits, mantissa bits, bias, where the NaNs and infinities are
FP8 = {
    "float8e4nv": (4, 3, 7, "fn"),
    "float8e4b15": (4, 3, 15, "fn"),
    "float8e5": (5, 2, 15, "ieee"),
    "float8e4b8": (4, 3, 8, "fnuz"),
    "float8e5b16": (5, 2, 16, "fnuz"),
}
E2M1 = (2, 1, 1, "none")


def decode(bits: np.ndarray, e: int, m: int, bias: int, specials: str) -> np.ndarray:
    """float64 values of the patterns in ``bits`` (sign bit just above exponent and mantissa)."""
    flat = np.asarray(bits).astype(np.int64).ravel()
    out = np.empty(flat.shape, np.float64)
    for i, v in enumerate(flat.tolist()):
        sign = -1.0 if v >> (e + m) & 1 else 1.0
        exp, man = (v >> m) & ((1 << e) - 1), v & ((1 << m) - 1)
        if exp == 0:
            x = sign * man * 2.0 ** (1 - bias - m)
        else:
            x = sign * (1 + man / 2**m) * 2.0 ** (exp - bias)
        if specials == "ieee" and exp == (1 << e) - 1:
            x = sign * np.inf if man == 0 else np.nan
        if specials == "fn" and v & 0x7F == 0x7F:
            x = np.nan
        if specials == "fnuz" and v == 0x80:
            x = np.nan
        out[i] = x
    return out.reshape(np.shape(bits))
