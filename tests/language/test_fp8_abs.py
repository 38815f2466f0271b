"""``tl.abs`` of fp8 values clears the sign bit on every bit pattern (the NaN of the fnuz
formats stays NaN), and dtypes report Triton's ``exponent_bias``."""

from __future__ import annotations

import pytest

import tilec
import tilec.language as tl

torch = pytest.importorskip("torch")


@tilec.jit
def _abs(X, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, tl.abs(tl.load(X + offs)))


@pytest.mark.parametrize(
    ("torch_dtype", "tl_dtype"),
    [("float8_e4m3fn", tl.float8e4nv), ("float8_e5m2", tl.float8e5),
     ("float8_e4m3fnuz", tl.float8e4b8), ("float8_e5m2fnuz", tl.float8e5b16)],
)  # fmt: skip
def test_abs_of_every_fp8_bit_pattern(torch_dtype: str, tl_dtype) -> None:  # type: ignore[no-untyped-def]
    x = torch.arange(-128, 128, dtype=torch.int8).view(getattr(torch, torch_dtype))
    z = torch.full((256,), 0x55, dtype=torch.int8).view(x.dtype)  # poisoned
    _abs[(1,)](x, z, N=256)
    want, got = x.float().abs(), z.float()
    assert torch.equal(got.isnan(), want.isnan())
    assert torch.equal(got[~want.isnan()], want[~want.isnan()])
    assert not got.signbit().any()


def test_exponent_bias_as_triton_reports_it() -> None:
    ieee = {tl.float16: 5, tl.bfloat16: 8, tl.float32: 8, tl.float64: 11, tl.float8e4nv: 4,
            tl.float8e5: 5}  # fmt: skip
    for dtype, exponent_bits in ieee.items():
        assert dtype.exponent_bias == 2 ** (exponent_bits - 1) - 1
    # fnuz formats shift the bias by one; e4b15 is Triton's own
    assert (tl.float8e4b8.exponent_bias, tl.float8e5b16.exponent_bias) == (8, 16)
    assert tl.float8e4b15.exponent_bias == 15
    with pytest.raises(AttributeError):
        _ = tl.int32.exponent_bias
