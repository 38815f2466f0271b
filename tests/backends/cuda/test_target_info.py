"""The SIMT lowering reaches the GPU only through its TargetInfo (target_info.py), offline.

A stand-in vendor that spells every call differently lowers tutorial kernels (program and
thread ids, warp-shuffle and cross-warp reductions, masked loads and stores, atomics, math,
grouped division, device_print, device_assert, variable 64-bit shifts, fmod, half <-> bfloat
bitcasts, fp32 -> fp16 casts in pairs) to LLVM IR with none of NVPTX's special registers,
barriers, shuffles, inline-PTX accesses, shifts and conversions, ex2.approx, libdevice, vprintf
or __assertfail left; the NVPTX target is the default.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cuda_tl_kernels as K
import pytest
from llvmlite import ir

import tilec
import tilec.language as tl
from tilec.backends.cuda import intrinsics as intr
from tilec.backends.cuda.compiler import RULES, kernel_of
from tilec.backends.cuda.lowering import Lowering
from tilec.backends.cuda.target_info import Access, NvptxTarget, TargetInfo
from tilec.backends.cuda.types import I32, VOID, llvm_type
from tilec.ir import ops as O
from tilec.ir.types import ScalarType

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build

NVPTX_SPELLINGS = ("llvm.nvvm.read.ptx.sreg", "llvm.nvvm.barrier", "llvm.nvvm.shfl", "vprintf",
                   "__assertfail", "ptx_kernel", "ld.global", "st.global", "atom.",
                   "llvm.nvvm.ex2.approx", "shr.u64", "shl.b64", "mov.b16",
                   "__nv_fmod", "cvt.rn.f16x2.f32")  # fmt: skip


def _call(b: ir.IRBuilder, name: str, args: list[ir.Value], ret: ir.Type = I32) -> ir.Value:
    return b.call(intr.declare(b, name, ret, [a.type for a in args]), args)


OTHER_SHARED = ir.PointerType(addrspace=7)
OTHER_GENERIC = ir.PointerType(addrspace=4)


@dataclass(frozen=True)
class OtherGpu(NvptxTarget):
    """Another vendor as a small delta: each call under a name of its own."""

    kernel_convention: str = "amdgpu_kernel"
    f32_divide_group: int = 2
    shared_ptr: ir.PointerType = OTHER_SHARED
    generic_ptr: ir.PointerType = OTHER_GENERIC

    def thread_id(self, b: ir.IRBuilder) -> ir.Value:
        return _call(b, "other_thread_id", [])

    def program_id(self, b: ir.IRBuilder, axis: int) -> ir.Value:
        return _call(b, f"other_program_id_{axis}", [])

    def num_programs(self, b: ir.IRBuilder, axis: int) -> ir.Value:
        return _call(b, f"other_num_programs_{axis}", [])

    def barrier(self, b: ir.IRBuilder) -> None:
        _call(b, "other_barrier", [], VOID)

    def shuffle_xor(self, b: ir.IRBuilder, v: ir.Value, lane_mask: int) -> ir.Value:
        return _call(b, f"other_shuffle_xor_{v.type}", [v, ir.Constant(I32, lane_mask)], v.type)

    def masked_load(
        self,
        b: ir.IRBuilder,
        ptr: ir.Value,
        pred: ir.Value,
        others: list[ir.Value],
        mem_ty: ir.Type,
        access: Access,
    ) -> list[ir.Value]:
        return [_call(b, "other_masked_load", [ptr, pred, o], mem_ty) for o in others]

    def masked_store(
        self,
        b: ir.IRBuilder,
        ptr: ir.Value,
        pred: ir.Value,
        vals: list[ir.Value],
        mem_ty: ir.Type,
        access: Access,
    ) -> None:
        for v in vals:
            _call(b, "other_masked_store", [ptr, pred, v], VOID)

    def atomic_rmw(
        self,
        b: ir.IRBuilder,
        kind: O.AtomicKind,
        ptr: ir.Value,
        val: ir.Value,
        pred: ir.Value,
        elem: ScalarType,
        order: O.Ordering,
    ) -> ir.Value:
        return _call(b, f"other_atomic_{kind.value}", [ptr, val, pred], val.type)

    def atomic_cas(
        self,
        b: ir.IRBuilder,
        ptr: ir.Value,
        cmp: ir.Value,
        val: ir.Value,
        pred: ir.Value,
        elem: ScalarType,
        order: O.Ordering,
    ) -> ir.Value:
        return _call(b, "other_atomic_cas", [ptr, cmp, val, pred], val.type)

    def divide_f32(
        self, b: ir.IRBuilder, pairs: Sequence[tuple[ir.Value, ir.Value]]
    ) -> list[ir.Value]:
        return [_call(b, "other_divide", [x, y], x.type) for x, y in pairs]

    def math(
        self, b: ir.IRBuilder, fn: str, args: list[ir.Value], elem: ScalarType, fast: bool
    ) -> ir.Value:
        return _call(b, f"other_math_{fn}", args, args[0].type)

    def shift(
        self, b: ir.IRBuilder, kind: O.BinaryKind, signed: bool, x: ir.Value, y: ir.Value
    ) -> ir.Value:
        return _call(b, f"other_shift_{kind.value}_{x.type}", [x, y], x.type)

    def opaque(self, b: ir.IRBuilder, x: ir.Value) -> ir.Value:
        return _call(b, f"other_opaque_{x.type}", [x], x.type)

    def narrow_pair(
        self, b: ir.IRBuilder, lo: ir.Value, hi: ir.Value, dst: ScalarType
    ) -> tuple[ir.Value, ir.Value]:
        ty = llvm_type(dst)
        return _call(b, "other_narrow_lo", [lo, hi], ty), _call(b, "other_narrow_hi", [lo, hi], ty)

    def printf(
        self, b: ir.IRBuilder, entry: ir.IRBuilder, fmt: ir.Value, args: list[ir.Value]
    ) -> None:
        _call(b, f"other_printf_{len(args)}", [fmt, *args])

    def assert_fail(
        self, b: ir.IRBuilder, message: ir.Value, file: ir.Value, line: int, function: ir.Value
    ) -> None:
        _call(b, "other_assert_fail", [message, file, ir.Constant(I32, line), function], VOID)


@tilec.jit
def atomics(x_ptr, out_ptr, lock, n, N: tl.constexpr):  # type: ignore[no-untyped-def]
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i, mask=i < n, other=0)
    tl.atomic_add(out_ptr + i % 4, x, mask=i < n)
    tl.store(out_ptr + 8, tl.atomic_cas(lock, 0, 1))


@tilec.jit
def element_calls(x_ptr, s_ptr, h_ptr, out_ptr, N: tl.constexpr):  # type: ignore[no-untyped-def]
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    s = tl.load(s_ptr + i)
    tl.store(out_ptr + i, (x >> s) + (x << s))
    h = tl.load(h_ptr + i)
    y = h.to(tl.bfloat16, bitcast=True).to(tl.float16) % h
    tl.store(h_ptr + i, (y.to(tl.float32) * 3.0).to(tl.float16))


KERNELS = {
    "atomics": (atomics, ("*i32", "*i32", "*i32", "i32", 128)),
    "softmax": (K.softmax, ("*fp32", "*fp32", "i32", "i32", "i32", 1024)),
    "argmax_cumsum": (K.argmax_cumsum, ("*fp32", "*i32", "*fp32", 128)),
    "debug_print": (K.debug_print, ("*fp32", 64)),
    "element_calls": (element_calls, ("*u64", "*u64", "*fp16", "*u64", 512)),
}


def _llvm_ir(name: str, target: TargetInfo | None) -> str:
    fn, sig = KERNELS[name]
    func = kernel_of(build(fn.fn, *sig))
    module = ir.Module(name=func.sym_name)
    Lowering(module, func, 4, 80, RULES, target=target).run()
    return str(module)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_another_vendor_leaves_no_nvptx_call(name: str) -> None:
    text = _llvm_ir(name, OtherGpu())
    assert [s for s in NVPTX_SPELLINGS if s in text] == []
    assert "other_thread_id" in text and "amdgpu_kernel" in text


def test_every_call_of_the_simt_core_goes_through_the_target() -> None:
    text = "".join(_llvm_ir(name, OtherGpu()) for name in KERNELS)
    calls = ("program_id_0", "num_programs_0", "barrier", "shuffle_xor_float", "printf_",
             "assert_fail", "masked_load", "masked_store", "atomic_add", "atomic_cas",
             "math_exp", "divide", "shift_shr_i64", "shift_shl_i64", "opaque_i16",
             "math_fmod", "narrow_lo", "narrow_hi")  # fmt: skip
    for name in calls:
        assert f'@"other_{name}' in text, name


def test_shared_memory_and_strings_live_where_the_target_says() -> None:
    other = "".join(_llvm_ir(name, OtherGpu()) for name in KERNELS)
    nvptx = "".join(_llvm_ir(name, None) for name in KERNELS)
    assert "addrspace(7)" in other and "addrspace(3)" not in other
    assert "to ptr addrspace(4)" in other and "addrspace(7)" not in nvptx
    assert "addrspace(3)" in nvptx and "addrspace(4)" not in nvptx


def test_nvptx_is_the_default_target() -> None:
    text = "".join(_llvm_ir(name, None) for name in KERNELS)
    for spelling in NVPTX_SPELLINGS:
        assert spelling in text, spelling
    assert "shr.u64" in text and "mov.b16" in text and "__nv_fmodf" in text
    assert "llvm.nvvm.read.ptx.sreg.tid.x" in text and "llvm.nvvm.shfl.sync.bfly.i32" in text
    assert "other_" not in text
