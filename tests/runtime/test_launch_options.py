"""Launch keywords beyond the kernel's parameters: other targets' Triton options (AMD's
``waves_per_eu`` ...) accepted and ignored, typos rejected, and ``extern_libs={...}`` (tutorial
07) keyed by its hashable form, ignored on the CPU and fed to the CUDA backend's libdevice."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.backends.cuda import toolchain
from tilec.errors import PlatformError, UnsupportedFeature, UsageError
from tilec.language.extra import libdevice
from tilec.runtime import launch_options


@triton.jit
def copy(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def asin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, libdevice.asin(x), mask=offs < n)


def test_other_targets_options_are_accepted_and_ignored():
    x = np.random.default_rng().standard_normal(100).astype(np.float32)
    y = np.full_like(x, np.nan)
    copy[(2,)](y, x, 100, BLOCK=64, waves_per_eu=2, matrix_instr_nonkdim=16, kpack=2)
    np.testing.assert_array_equal(y, x)
    plain = launch_options.compile_options({"num_warps": 4}, None)
    amd = launch_options.compile_options({"num_warps": 4, "waves_per_eu": 2}, None)
    assert plain == amd  # the same compiled kernel, the same cache key


def test_unknown_options_are_still_rejected():
    x = np.zeros(16, np.float32)
    with pytest.raises(UsageError, match="num_warp"):
        copy[(1,)](x, x, 16, BLOCK=16, num_warp=4)


def test_extern_libs_on_the_cpu(tmp_path):
    x = np.random.default_rng().uniform(-1, 1, 100).astype(np.float32)
    y = np.full_like(x, np.nan)
    libs = {"libdevice": str(tmp_path / "libdevice.10.bc")}  # the CPU uses the host's libm
    asin_kernel[(1,)](x, y, 100, BLOCK=128, extern_libs=libs)
    np.testing.assert_allclose(y, np.arcsin(x.astype(np.float64)), rtol=1e-6, atol=1e-7)
    y[:] = np.nan
    asin_kernel[(1,)](x, y, 100, BLOCK=128, extern_libs=libs)  # the warm path finds it
    assert not np.isnan(y).any()


def test_extern_libs_is_part_of_the_key():
    opts = launch_options.compile_options({"extern_libs": {"libdevice": "/a.bc"}}, None)
    assert dict(opts.extra)["extern_libs"] == (("libdevice", "/a.bc"),)
    other = launch_options.compile_options({"extern_libs": {"libdevice": "/b.bc"}}, None)
    assert hash(opts) != hash(other) and opts != other
    with pytest.raises(UsageError, match="extern_libs"):
        launch_options.compile_options({"extern_libs": "/a.bc"}, None)


def test_extern_libs_checked_for_cuda(tmp_path):
    missing = launch_options.compile_options({"extern_libs": {"libdevice": "/no/such.bc"}}, None)
    with pytest.raises(UsageError, match="does not exist"):
        launch_options.check_extern_libs(missing, "cuda")
    launch_options.check_extern_libs(missing, "cpu")
    (tmp_path / "m.bc").write_bytes(b"")
    unknown = launch_options.compile_options(
        {"extern_libs": {"libm": str(tmp_path / "m.bc")}}, None
    )
    with pytest.raises(UnsupportedFeature, match="libm"):
        launch_options.check_extern_libs(unknown, "cuda")


@pytest.mark.skipif(toolchain.libdevice_path() is None, reason="no libdevice installed")
def test_extern_libs_feeds_the_cuda_backend(tmp_path):
    signature = "*fp32:16, *fp32:16, i32, BLOCK=128"
    copied = tmp_path / "libdevice.10.bc"
    shutil.copyfile(str(toolchain.libdevice_path()), copied)
    with_lib = triton.compile(asin_kernel, signature, target="cuda:sm_90a",
                              extern_libs={"libdevice": str(copied)})  # fmt: skip
    assert "__nv_asinf" not in with_lib.asm["ptx"]  # linked and inlined from that file
    broken = tmp_path / "broken.bc"
    broken.write_bytes(b"not bitcode")
    with pytest.raises(PlatformError, match="not LLVM bitcode"):
        triton.compile(asin_kernel, signature, target="cuda:sm_90a",
                       extern_libs={"libdevice": str(broken)})  # fmt: skip
