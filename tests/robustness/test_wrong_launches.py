"""Wrong launches (bad grids, arguments of the wrong kind, value or dtype) are TilecErrors that
name the argument; None or a scalar where the kernel uses a pointer is reported at the kernel
line that uses it. Strided (non-contiguous) arrays are valid, as in Triton, and run correctly."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import errors as E


@tilec.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=inside), mask=inside)  # uses both


def _arrays(n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    return np.random.default_rng().standard_normal(n).astype(np.float32), np.full(
        n, np.nan, np.float32
    )


BAD_GRIDS = {
    "negative": ((-1,), "must be >= 0"),
    "float": ((1.5,), "must be integers"),
    "four_dimensions": ((1, 1, 1, 1), "1 to 3 dimensions"),
    "empty": ((), "1 to 3 dimensions"),
    "string": ("a", "must be integers"),
    "none": (None, "must be integers"),
    "past_int32": ((2**31,), "2**31-1"),
    "past_int64": ((2**64,), "2**31-1"),
    "callable_returning_text": (lambda meta: "x", "must be integers"),
}


@pytest.mark.parametrize("case", sorted(BAD_GRIDS))
def test_bad_grid(case: str) -> None:
    grid, fragment = BAD_GRIDS[case]
    x, out = _arrays()
    with pytest.raises(E.TilecError, match=fragment.replace("*", r"\*")):
        copy[grid](x, out, 64, BLOCK=16)
    assert np.isnan(out).all()  # nothing ran


def test_unknown_keyword_is_named() -> None:
    x, out = _arrays()
    with pytest.raises(E.UsageError, match="bogus"):
        copy[(1,)](x, out, 64, BLOCK=16, bogus=3)


BAD_ARGUMENTS = {
    "text": ("x_ptr", "abc", "cannot pass a builtins.str"),
    "list": ("x_ptr", [1.0, 2.0], "cannot pass a builtins.list"),
    "object": ("x_ptr", object(), "cannot pass a builtins.object"),
    "complex": ("n", 1j, "cannot pass a builtins.complex"),
    "int_past_64_bits": ("n", 2**64, "does not fit in 64 bits"),
    "int_below_int64": ("n", -(2**63) - 1, "does not fit in 64 bits"),
    "object_dtype": ("x_ptr", np.array([object()] * 4), "dtype object"),
    "string_dtype": ("x_ptr", np.array(["a"] * 4), "dtype str"),
    "complex_dtype": ("x_ptr", np.zeros(4, np.complex64), "dtype complex64"),
    "datetime_dtype": ("x_ptr", np.zeros(4, "datetime64[s]"), "dtype datetime64"),
    "structured_dtype": ("x_ptr", np.zeros(4, [("a", "f4")]), "dtype void"),
    "byte_swapped": ("x_ptr", np.zeros(4, ">f4"), "byte-swapped"),
    "array_as_constexpr": ("BLOCK", np.zeros(4, np.float32), "not hashable"),
}


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_bad_argument_is_named(case: str) -> None:
    name, value, fragment = BAD_ARGUMENTS[case]
    x, out = _arrays()
    args = {"x_ptr": x, "out_ptr": out, "n": 64, "BLOCK": 16, name: value}
    with pytest.raises(E.UsageError) as info:
        copy[(4,)](**args)
    assert fragment in str(info.value) and f"'{name}'" in str(info.value)
    assert str(info.value).startswith("copy: ")
    assert np.isnan(out).all()


USED_AS_POINTER = {
    "none_input": ("x_ptr", None),
    "none_output": ("out_ptr", None),
    "int_input": ("x_ptr", 12345),
    "float_input": ("x_ptr", 1.5),
    "numpy_scalar": ("x_ptr", np.float32(3)),
}


@pytest.mark.parametrize("case", sorted(USED_AS_POINTER))
def test_non_pointer_where_the_kernel_needs_one(case: str) -> None:
    name, value = USED_AS_POINTER[case]
    x, out = _arrays()
    args = {"x_ptr": x, "out_ptr": out, "n": 64, "BLOCK": 16, name: value}
    with pytest.raises(E.TileTypeError) as info:
        copy[(4,)](**args)
    err = info.value
    assert err.loc is not None and err.loc.file == __file__
    assert "# uses both" in err.loc.source_line()


def test_strided_arrays_run_like_triton() -> None:
    whole = np.random.default_rng().standard_normal((8, 16)).astype(np.float32)
    col = whole[:, 3]  # stride 16 elements: the kernel reads the first 8 contiguous values
    out = np.full(8, np.nan, np.float32)
    copy[(1,)](col, out, 8, BLOCK=8)
    np.testing.assert_array_equal(out, whole.reshape(-1)[3:11])
    x, out = _arrays()
    copy[(1,)](x[::2], out[1::2], 16, BLOCK=16)  # views: only their first address is passed
    np.testing.assert_array_equal(out[1:17], x[:16])
    assert np.isnan(out[0]) and np.isnan(out[17:]).all()


def test_zero_sized_array_and_zero_grid() -> None:
    empty = np.zeros(0, np.float32)
    x, out = _arrays()
    copy[(0,)](empty, empty, 0, BLOCK=16)
    copy[(4, 0)](x, out, 64, BLOCK=16)
    assert np.isnan(out).all()
