"""Bounds-checked mode (``@jit(debug=True)``, TILEC_DEBUG / TRITON_DEBUG, ``debug=True`` at
launch): an access outside its argument's memory raises one OutOfBoundsError naming the kernel,
the argument, the offset, the allowed range, the program id and the source line; correct
kernels give the same results as without checks; masked-off lanes are never reported."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import DeviceAssertError, OutOfBoundsError

pytestmark = pytest.mark.usefixtures("private_cache")


@tilec.jit(debug=True)
def copy_checked(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@tilec.jit
def scale_off_by_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs <= n, other=0.0)
    tl.store(y_ptr + offs, x * 2, mask=offs < n)


@tilec.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)  # fmt: skip


@tilec.jit
def softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@tilec.jit
def scalar_read(x_ptr, y_ptr, i):
    tl.store(y_ptr, tl.load(x_ptr + i))


@tilec.jit
def walk(x_ptr, y_ptr, steps, BLOCK: tl.constexpr):
    p = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for _ in range(steps):  # a loop-carried pointer
        acc += tl.load(p)
        p += BLOCK
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)


@tilec.jit
def block_copy(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(y_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(dst, tl.load(src), boundary_check=(0, 1))


@tilec.jit
def count(idx_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(counts_ptr + tl.load(idx_ptr + offs, mask=offs < n, other=0), 1, mask=offs < n)


@tilec.jit
def claim(flag_ptr, i):
    tl.atomic_cas(flag_ptr + i, 0, 7)


@tilec.jit
def checked_assert(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_assert(x >= 0, "negative input")


def _line(fn, needle: str) -> tuple[str, int, str]:
    """(file, line, source text) of the kernel line containing ``needle``."""
    lines, first = inspect.getsourcelines(fn.fn)
    for i, text in enumerate(lines):
        if needle in text:
            return inspect.getsourcefile(fn.fn) or "", first + i, text.rstrip("\n")
    raise AssertionError(needle)


def _expected(fn, needle: str, message: str) -> str:
    """The error text: ``file:line:col: message``, the line, carets under the call."""
    file, line, text = _line(fn, needle)
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    col = text.index(needle)
    width = text.rindex(")") + 1 - col
    return f"{file}:{line}:{col + 1}: {message}\n    {stripped}\n    {' ' * (col - indent)}{'^' * width}"


def test_reversed_output_is_caught_with_the_full_message() -> None:
    n = 100
    x = np.random.rand(n).astype(np.float32)
    y = np.empty(n, np.float32)[::-1]  # the base pointer is the buffer's last element
    with pytest.raises(OutOfBoundsError) as info:
        copy_checked[(1,)](x, y, n, BLOCK=128)
    err = info.value
    message = (
        "kernel copy_checked: out-of-bounds store through argument 'y_ptr' at program id "
        "(0, 0, 0): byte offset 4 (element 1 of fp32) from y_ptr's base pointer; its memory "
        "is bytes [-396, 4) of that pointer"
    )
    assert str(err) == _expected(copy_checked, "tl.store(y_ptr", message)
    assert (err.kernel, err.argument, err.offset) == ("copy_checked", "y_ptr", 4)
    assert err.allowed == (-396, 4) and err.program_id == (0, 0, 0)
    assert isinstance(err, tilec.errors.LaunchError)


def test_off_by_one_mask_is_caught() -> None:
    n = 128
    x, y = np.random.rand(n).astype(np.float32), np.full(n, np.nan, np.float32)
    with pytest.raises(OutOfBoundsError) as info:
        scale_off_by_one[(1,)](x, y, n, BLOCK=256, debug=True)
    message = (
        "kernel scale_off_by_one: out-of-bounds load through argument 'x_ptr' at program id "
        "(0, 0, 0): byte offset 512 (element 128 of fp32) from x_ptr's base pointer; its "
        "memory is bytes [0, 512) of that pointer"
    )
    assert str(info.value) == _expected(scale_off_by_one, "tl.load(x_ptr", message)


def test_the_offending_program_is_named() -> None:
    n = 4 * 64 - 1  # only the last program's off-by-one lane leaves the array
    x, y = np.random.rand(n).astype(np.float32), np.zeros(n, np.float32)
    with pytest.raises(OutOfBoundsError) as info:
        scale_off_by_one[(4,)](x, y, n, BLOCK=64, debug=True)
    assert info.value.program_id == (3, 0, 0) and info.value.offset == 4 * n


def test_masked_off_lanes_are_not_reported() -> None:
    n = 37  # most lanes of the block point past the array, all of them masked off
    x = np.random.rand(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    copy_checked[(1,)](x, y, n, BLOCK=128)
    np.testing.assert_array_equal(y, x)
    out = np.full(n, np.nan, np.float32)
    scale_off_by_one[(1,)](x[:-1].copy(), out, n - 1, BLOCK=64, debug=False)  # unchecked baseline
    assert np.isnan(out[-1])


@tilec.jit
def even_lanes(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    keep = (offs % 2 == 0) & (offs < n)  # not a range: every lane is checked on its own
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=keep, other=-1.0), mask=keep)


@tilec.jit
def rows_copy(x_ptr, y_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.arange(0, BR)[:, None]
    c = tl.arange(0, BC)[None, :]
    tl.store(y_ptr + r * cols + c, tl.load(x_ptr + r * cols + c, mask=c < cols), mask=c < cols)


def test_masked_off_lanes_of_any_mask_are_not_reported() -> None:
    n = 11
    x = np.random.rand(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    even_lanes[(1,)](x, y, n, BLOCK=64, debug=True)
    np.testing.assert_array_equal(y[::2], x[::2])
    assert np.isnan(y[1::2]).all()
    with pytest.raises(OutOfBoundsError, match=r"load through argument 'x_ptr'.*offset 48 "):
        even_lanes[(1,)](x, y, n + 2, BLOCK=64, debug=True)


def test_each_row_of_a_tile_is_checked() -> None:
    x = np.random.rand(4, 5).astype(np.float32)
    y = np.full((4, 5), np.nan, np.float32)
    rows_copy[(1,)](x, y, 4, 5, BR=4, BC=8, debug=True)
    np.testing.assert_array_equal(y, x)
    short = np.random.rand(3, 5).astype(np.float32)  # the tile's fourth row is past the array
    with pytest.raises(OutOfBoundsError, match=r"load through argument 'x_ptr'.*offset 60 "):
        rows_copy[(1,)](short, y, 4, 5, BR=4, BC=8, debug=True)


@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_checked_results_equal_unchecked(n: int) -> None:
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    plain, checked = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    grid = (triton_cdiv(n, 256),)
    add[grid](x, y, plain, n, BLOCK=256)
    add[grid](x, y, checked, n, BLOCK=256, debug=True)
    np.testing.assert_array_equal(checked, plain)
    np.testing.assert_allclose(checked, x.astype(np.float64) + y, rtol=1e-6)
    rows, cols = 7, max(n // 7, 1)
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    s_plain, s_checked = np.full_like(a, np.nan), np.full_like(a, np.nan)
    block = tilec.next_power_of_2(cols)
    softmax[(rows,)](s_plain, a, cols, cols, BLOCK=block)
    softmax[(rows,)](s_checked, a, cols, cols, BLOCK=block, debug=True)
    np.testing.assert_array_equal(s_checked, s_plain)
    ref = np.exp(a - a.max(axis=1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(s_checked, ref / ref.sum(axis=1, keepdims=True), rtol=1e-5)


def triton_cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def test_unchecked_kernels_gain_nothing() -> None:
    x, y = np.ones(8, np.float32), np.zeros(8, np.float32)
    plain = add[(1,)](x, x, y, 8, BLOCK=8)
    checked = add[(1,)](x, x, y, 8, BLOCK=8, debug=True)
    assert plain.metadata.bounds is None and plain.metadata.options.debug is False
    assert "bounds" not in str(plain.asm["llir"]) and "cmpxchg" not in str(plain.asm["llir"])
    assert checked.metadata.bounds is not None
    assert checked.metadata.bounds.pointers == ("x_ptr", "y_ptr", "out_ptr")
    assert len(checked.metadata.params) == len(plain.metadata.params)  # hidden ones are extra


def test_scalar_access_is_checked() -> None:
    x, y = np.arange(10, dtype=np.float32), np.zeros(1, np.float32)
    scalar_read[(1,)](x, y, 9, debug=True)
    assert y[0] == 9
    with pytest.raises(OutOfBoundsError, match=r"load through argument 'x_ptr'.*byte offset 40 "):
        scalar_read[(1,)](x, y, 10, debug=True)
    with pytest.raises(OutOfBoundsError, match=r"byte offset -4 \(element -1 of fp32\)"):
        scalar_read[(1,)](x, y, -1, debug=True)


def test_loop_carried_pointer_is_checked() -> None:
    x, y = np.random.rand(4 * 32).astype(np.float32), np.zeros(32, np.float32)
    walk[(1,)](x, y, 4, BLOCK=32, debug=True)
    np.testing.assert_allclose(y, x.reshape(4, 32).astype(np.float64).sum(axis=0), rtol=1e-6)
    with pytest.raises(OutOfBoundsError, match=r"byte offset 512 \(element 128 of fp32\)"):
        walk[(1,)](x, y, 5, BLOCK=32, debug=True)


def test_block_pointer_is_checked() -> None:
    x = np.random.rand(8, 8).astype(np.float32)
    y = np.zeros((8, 8), np.float32)
    block_copy[(1,)](x, y, 8, 8, BM=8, BN=8, debug=True)
    np.testing.assert_array_equal(y, x)
    small = np.random.rand(6, 8).astype(np.float32)  # the load has no boundary check
    with pytest.raises(OutOfBoundsError, match=r"load through argument 'x_ptr'.*byte offset 192 "):
        block_copy[(1,)](small, y, 6, 8, BM=8, BN=8, debug=True)


def test_atomics_are_checked() -> None:
    idx = np.array([0, 3, 3, 5], np.int32)
    counts = np.zeros(6, np.int32)
    count[(1,)](idx, counts, 4, BLOCK=8, debug=True)
    np.testing.assert_array_equal(counts, [1, 0, 0, 2, 0, 1])
    with pytest.raises(OutOfBoundsError, match=r"atomic through argument 'counts_ptr'.*offset 24 "):
        count[(1,)](np.array([6], np.int32), counts, 1, BLOCK=8, debug=True)
    flags = np.zeros(4, np.int32)
    claim[(1,)](flags, 2, debug=True)
    with pytest.raises(OutOfBoundsError, match=r"atomic through argument 'flag_ptr'.*offset 16 "):
        claim[(1,)](flags, 4, debug=True)
    np.testing.assert_array_equal(flags, [0, 0, 7, 0])


def test_numpy_views_may_reach_their_whole_base_buffer() -> None:
    base = np.arange(64, dtype=np.float32)
    y = np.zeros(1, np.float32)
    view = base[16:32]
    scalar_read[(1,)](view, y, -16, debug=True)  # before the view, inside the buffer
    assert y[0] == 0
    with pytest.raises(OutOfBoundsError, match=r"its memory is bytes \[-64, 192\)"):
        scalar_read[(1,)](view, y, 48, debug=True)


def test_torch_tensors_are_checked_against_their_storage() -> None:
    torch = pytest.importorskip("torch")
    base = torch.arange(32, dtype=torch.float32)
    y = torch.zeros(1)
    scalar_read[(1,)](base[8:12], y, -8, debug=True)
    assert y.item() == 0
    with pytest.raises(OutOfBoundsError, match=r"its memory is bytes \[-32, 96\)"):
        scalar_read[(1,)](base[8:12], y, 24, debug=True)


def test_a_compiled_kernel_launched_directly_is_checked() -> None:
    x = np.random.rand(64).astype(np.float32)
    compiled = copy_checked.warmup(x, np.zeros(64, np.float32), 64, BLOCK=64, grid=(1,))
    y = np.zeros(64, np.float32)
    compiled[(1,)](x, y, 64, 64)
    np.testing.assert_array_equal(y, x)
    reversed_aligned = np.empty(68, np.float32)[64::-1]  # starts 16-byte aligned, as compiled
    with pytest.raises(OutOfBoundsError, match=r"byte offset 16 \(element 4 of fp32\)"):
        compiled[(1,)](x, reversed_aligned, 64, 64)


@tilec.jit
def read_either(a_ptr, b_ptr, out_ptr, use_a, i):
    p = a_ptr if use_a != 0 else b_ptr  # a pointer from one of two arguments
    tl.store(out_ptr, tl.load(p + i))


def test_a_pointer_from_either_argument_is_checked_against_both() -> None:
    a, b = np.arange(4, dtype=np.float32), np.arange(10, 18, dtype=np.float32)
    out = np.zeros(1, np.float32)
    read_either[(1,)](a, b, out, 0, 7, debug=True)
    assert out[0] == 17
    a_lo = a.ctypes.data
    i = next(k for k in (8, -1, 64, -64) if not a_lo <= b.ctypes.data + 4 * k < a_lo + 16)
    with pytest.raises(OutOfBoundsError, match=rf"load through argument 'b_ptr'.*offset {4 * i} "):
        read_either[(1,)](a, b, out, 0, i, debug=True)


def test_environment_turns_debug_mode_on() -> None:
    for name in ("TILEC_DEBUG", "TRITON_DEBUG"):
        assert config.Config.from_env({name: "1"}).debug
    assert not config.Config.from_env({}).debug


def test_configuration_switch_checks_an_already_launched_kernel() -> None:
    n = 100
    x = np.random.rand(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    add[(1,)](x, x, y, n, BLOCK=128)  # unchecked, its launch function cached
    with config.override(debug=True), pytest.raises(OutOfBoundsError, match="store through"):
        add[(1,)](x, x, np.empty(n, np.float32)[::-1], n, BLOCK=128)
    with config.override(debug=True), pytest.raises(OutOfBoundsError, match="store through"):
        add[(1,)](x, x, np.empty(n, np.float32)[::-1], n, BLOCK=128)
    add[(1,)](x, x, y, n, BLOCK=128)  # and back to the unchecked kernel
    np.testing.assert_array_equal(y, 2 * x)


def test_device_assert_still_reports_in_debug_mode() -> None:
    x = np.ones(16, np.float32)
    checked_assert[(1,)](x, 16, BLOCK=16, debug=True)
    x[3] = -1
    with pytest.raises(DeviceAssertError, match="negative input"):
        checked_assert[(1,)](x, 16, BLOCK=16, debug=True)


def test_the_next_launch_works_after_an_error() -> None:
    x = np.random.rand(64).astype(np.float32)
    for _ in range(3):
        with pytest.raises(OutOfBoundsError):
            copy_checked[(1,)](x, np.empty(64, np.float32)[::-1], 64, BLOCK=64)
        y = np.zeros(64, np.float32)
        copy_checked[(1,)](x, y, 64, BLOCK=64)
        np.testing.assert_array_equal(y, x)


def _gpu() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU and torch")
def test_cuda_overrunning_output_is_caught() -> None:
    import torch

    n = 100
    x = torch.rand(n, device="cuda")
    y = torch.empty(n, device="cuda")[1:]  # a tail view: a forward write of n runs past it
    with pytest.raises(OutOfBoundsError) as info:
        copy_checked[(1,)](x, y, n, BLOCK=128)
    message = (
        "kernel copy_checked: out-of-bounds store through argument 'y_ptr' at program id "
        f"(0, 0, 0): byte offset {4 * (n - 1)} (element {n - 1} of fp32) from y_ptr's base "
        f"pointer; its memory is bytes [-4, {4 * (n - 1)}) of that pointer"
    )
    assert str(info.value) == _expected(copy_checked, "tl.store(y_ptr", message)
    z = torch.zeros(n, device="cuda")
    copy_checked[(1,)](x, z, n, BLOCK=128)  # the context is still usable
    assert torch.equal(z, x)


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU and torch")
def test_cuda_off_by_one_mask_is_caught() -> None:
    import torch

    n = 128
    x, y = torch.rand(n, device="cuda"), torch.zeros(n, device="cuda")
    with pytest.raises(OutOfBoundsError) as info:
        scale_off_by_one[(1,)](x, y, n, BLOCK=256, debug=True)
    message = (
        "kernel scale_off_by_one: out-of-bounds load through argument 'x_ptr' at program id "
        "(0, 0, 0): byte offset 512 (element 128 of fp32) from x_ptr's base pointer; its "
        "memory is bytes [0, 512) of that pointer"
    )
    assert str(info.value) == _expected(scale_off_by_one, "tl.load(x_ptr", message)


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU and torch")
def test_cuda_checked_results_equal_unchecked_and_masked_lanes_pass() -> None:
    import torch

    n = 4099
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    plain = torch.full((n,), float("nan"), device="cuda")
    checked = torch.full((n,), float("nan"), device="cuda")
    add[(triton_cdiv(n, 256),)](x, y, plain, n, BLOCK=256)
    add[(triton_cdiv(n, 256),)](x, y, checked, n, BLOCK=256, debug=True)
    assert torch.equal(plain, checked)
    a = torch.randn(7, 300, device="cuda")
    s_plain, s_checked = torch.empty_like(a), torch.empty_like(a)
    softmax[(7,)](s_plain, a, 300, 300, BLOCK=512)
    softmax[(7,)](s_checked, a, 300, 300, BLOCK=512, debug=True)
    assert torch.equal(s_plain, s_checked)
    flags = torch.zeros(4, dtype=torch.int32, device="cuda")
    with pytest.raises(OutOfBoundsError, match=r"atomic through argument 'flag_ptr'.*offset 16 "):
        claim[(1,)](flags, 4, debug=True)
    assert flags.tolist() == [0, 0, 0, 0]
