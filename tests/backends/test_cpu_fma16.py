"""tl.fma on fp16 and bf16 is one rounding of the exact ``x * y + z``, as the native
``fma.rn.f16``/``fma.rn.bf16`` of the CUDA backend (and Triton) computes it, not an fp32 fma
rounded again to 16 bits (which turns ``x * y`` on a 16-bit tie plus a tiny ``z`` into the tie)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit

torch = pytest.importorskip("torch")

# x * y is a 16-bit tie (2049 at fp16's 11 bits, 345 at bf16's 8) that rounds down to even;
# z, lost in fp32 (or even in fp64), puts the exact value above it
CASES = {
    torch.float16: [(683.0, 3.0, 2.0**-20), (-683.0, 3.0, -(2.0**-20)), (683.0, 0.75, 2.0**-24)],
    torch.bfloat16: [(15.0, 23.0, 2.0**-18), (15 * 2.0**50, 23 * 2.0**50, 2.0**-100)],
}


@jit
def fma3(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.fma(x, y, z), mask=mask)


def _finite_values(dtype: torch.dtype) -> np.ndarray:
    """Every finite value of the 16-bit type, sorted, and its bit pattern."""
    bits = torch.arange(0, 1 << 16, dtype=torch.int32).to(torch.int16)
    values = bits.view(dtype).double().numpy()
    keep = np.isfinite(values)
    order = np.argsort(values[keep], kind="stable")
    return np.stack([values[keep][order], bits.numpy()[keep][order].astype(np.float64)])


def _round(v: Fraction, table: np.ndarray) -> float:
    """``v`` rounded to nearest, ties to the even bit pattern, by exact arithmetic."""
    values, bits = table
    i = int(np.searchsorted(values, float(v)))
    near = [j for j in (i - 1, i, i + 1) if 0 <= j < len(values)]
    best = min(near, key=lambda j: (abs(Fraction(float(values[j])) - v), int(bits[j]) & 1))
    return float(values[best])


def _inputs(dtype: torch.dtype) -> list[torch.Tensor]:
    g = np.random.default_rng()
    n = 2048
    x, y = g.standard_normal(n), g.standard_normal(n)
    z = g.standard_normal(n) * np.exp2(g.integers(-14, 1, n))
    cols = [np.concatenate([[c[k] for c in CASES[dtype]], col]) for k, col in enumerate((x, y, z))]
    return [torch.tensor(c, dtype=torch.float64).to(dtype) for c in cols]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
def test_fma_16_bit_is_one_rounding(dtype: torch.dtype) -> None:
    x, y, z = _inputs(dtype)
    n = x.numel()
    out = torch.full((n,), float("nan"), dtype=dtype)
    fma3[((n + 255) // 256,)](x, y, z, out, n, BLOCK=256)
    table = _finite_values(dtype)
    xs, ys, zs = (t.double().numpy() for t in (x, y, z))
    want = [_round(Fraction(a) * Fraction(b) + Fraction(c), table) for a, b, c in zip(xs, ys, zs)]
    got = out.double().numpy()
    bad = [i for i in range(n) if got[i] != want[i]]
    assert not bad, [(xs[i], ys[i], zs[i], got[i], want[i]) for i in bad[:4]]
