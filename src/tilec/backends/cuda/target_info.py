"""What the SIMT lowering asks of the GPU it targets, behind one object (Lowering.target).

The rules get thread and program ids, the warp size, the block barrier, warp shuffles,
predicated global loads, stores and atomics, math functions (fmod included) and grouped fp32
division, variable 64-bit shifts, paired fp32 -> fp16/bf16 conversion, a copy LLVM cannot fold
through, printf and assert, the fence between shared-memory stores and the async proxy, the
address spaces of global, shared and generic pointers, and where shared memory and constant
strings live from a TargetInfo, never by naming an intrinsic or writing PTX. NvptxTarget spells
them for NVPTX (intrinsics.py, ptx_memory.py, ptx_atomic.py, math_functions.py, fdiv.py); a
second GPU vendor is another implementation of the Protocol. What is NVIDIA's own by nature stays in its
modules: tensor cores (mma, wgmma) and cp.async.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from llvmlite import ir

from ...ir import ops as O
from ...ir.types import ScalarType
from ..llvm import scalar as S
from . import fdiv, math_functions, ptx_atomic, ptx_memory
from . import intrinsics as intr
from .layout import WARP_SIZE
from .types import GENERIC_PTR, GLOBAL_PTR, I8, I32, I64, SHARED_PTR, VOID, llvm_type


@dataclass(frozen=True)
class Access:
    """How a global load or store is made: a cache hint tl accepts ('' for none), volatility."""

    hint: str = ""
    volatile: bool = False

    @property
    def plain(self) -> bool:
        """Nothing asked of the access but the value: an ordinary LLVM load or store does."""
        return not self.hint and not self.volatile


class TargetInfo(Protocol):
    """The vendor-specific calls of the SIMT lowering."""

    @property
    def warp_size(self) -> int:
        """Threads that run in lock step and trade registers by shuffles (lane and warp ids)."""
        ...

    @property
    def vector_bytes(self) -> int:
        """The widest memory access one thread makes in one instruction: layouts give a thread
        this many contiguous bytes, and loads, stores and buffer copies move them as one."""
        ...

    @property
    def kernel_convention(self) -> str:
        """The LLVM calling convention that makes a function a kernel entry point."""
        ...

    @property
    def global_ptr(self) -> ir.PointerType:
        """A pointer to global memory (kernel arguments, loads, stores, atomics)."""
        ...

    @property
    def shared_ptr(self) -> ir.PointerType:
        """A pointer to the block's shared memory."""
        ...

    @property
    def generic_ptr(self) -> ir.PointerType:
        """A pointer into any memory (what printf, assert and C varargs take)."""
        ...

    def thread_id(self, b: ir.IRBuilder) -> ir.Value:
        """The thread's index in its (one-dimensional) block, i32."""
        ...

    def program_id(self, b: ir.IRBuilder, axis: int) -> ir.Value:
        """The block's index along grid ``axis`` (0, 1, 2), i32."""
        ...

    def num_programs(self, b: ir.IRBuilder, axis: int) -> ir.Value:
        """The grid's size along ``axis``, i32."""
        ...

    def barrier(self, b: ir.IRBuilder) -> None:
        """Every thread of the block arrives; shared-memory writes before it are visible after."""
        ...

    def shuffle_xor(self, b: ir.IRBuilder, v: ir.Value, lane_mask: int) -> ir.Value:
        """``v`` from the lane whose index is this one's XOR ``lane_mask`` (any 8..64-bit value)."""
        ...

    def fence_async_shared(self, b: ir.IRBuilder) -> None:
        """Order this thread's shared-memory writes before reads by asynchronous units."""
        ...

    def shared_memory(self, module: ir.Module, name: str, align: int) -> ir.GlobalVariable:
        """The block's dynamic shared memory (sized at launch), as an opaque pointer."""
        ...

    def constant_string(self, module: ir.Module, b: ir.IRBuilder, name: str, text: str) -> ir.Value:
        """A NUL-terminated constant string, as a generic pointer at ``b``."""
        ...

    def masked_load(
        self,
        b: ir.IRBuilder,
        ptr: ir.Value,
        pred: ir.Value,
        others: list[ir.Value],
        mem_ty: ir.Type,
        access: Access,
    ) -> list[ir.Value]:
        """``len(others)`` consecutive values of ``mem_ty`` from global ``ptr`` in one access
        where ``pred`` holds, else ``others``."""
        ...

    def masked_store(
        self,
        b: ir.IRBuilder,
        ptr: ir.Value,
        pred: ir.Value,
        vals: list[ir.Value],
        mem_ty: ir.Type,
        access: Access,
    ) -> None:
        """Store ``vals`` to global ``ptr`` in one access where ``pred`` holds."""
        ...

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
        """The old value at ``ptr``, updated by ``kind`` with ``val`` where ``pred`` holds."""
        ...

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
        """The old value at ``ptr``, replaced by ``val`` if it equals ``cmp`` where ``pred``."""
        ...

    @property
    def f32_divide_group(self) -> int:
        """The fewest fp32 quotients per thread worth dividing together (divide_f32); 0: the
        target divides one by one (``fdiv``)."""
        ...

    def divide_f32(
        self, b: ir.IRBuilder, pairs: Sequence[tuple[ir.Value, ir.Value]]
    ) -> list[ir.Value]:
        """Correctly rounded ``x / y`` for every fp32 pair, in order."""
        ...

    def math(
        self, b: ir.IRBuilder, fn: str, args: list[ir.Value], elem: ScalarType, fast: bool
    ) -> ir.Value:
        """The math function ``fn`` (tl's name) of one element of type ``elem``; ``fast``
        allows the approximations tl.math's fast functions permit; ``fmod`` is C's (exact)."""
        ...

    def shift(
        self, b: ir.IRBuilder, kind: O.BinaryKind, signed: bool, x: ir.Value, y: ir.Value
    ) -> ir.Value:
        """``x`` shifted (SHL, SHR) by the variable amount ``y`` of its own type, with
        llvm/scalar.shift's semantics: amounts >= the width give 0, or the sign fill."""
        ...

    def narrows_in_pairs(self, dst: ScalarType) -> bool:
        """Whether :meth:`narrow_pair` rounds two fp32 values to ``dst`` in one instruction."""
        ...

    def narrow_pair(
        self, b: ir.IRBuilder, lo: ir.Value, hi: ir.Value, dst: ScalarType
    ) -> tuple[ir.Value, ir.Value]:
        """``lo`` and ``hi`` (fp32) rounded to nearest-even to ``dst`` together: the same
        values as two casts."""
        ...

    def opaque(self, b: ir.IRBuilder, x: ir.Value) -> ir.Value:
        """The integer ``x`` unchanged, through a copy LLVM's optimizer cannot look through."""
        ...

    def printf(
        self, b: ir.IRBuilder, entry: ir.IRBuilder, fmt: ir.Value, args: list[ir.Value]
    ) -> None:
        """Print ``args`` (already widened as C varargs) by the format string ``fmt``; stack
        slots are allocated at ``entry``."""
        ...

    def assert_fail(
        self, b: ir.IRBuilder, message: ir.Value, file: ir.Value, line: int, function: ir.Value
    ) -> None:
        """Report a failed assertion and trap the kernel."""
        ...


_PAIRED = {"fp16": "f16x2", "bf16": "bf16x2"}  # cvt.rn's two-value forms (sm_80+)


@dataclass(frozen=True)
class NvptxTarget:
    """NVIDIA GPUs through LLVM's NVPTX back end: special registers, ``bar.sync``,
    ``shfl.sync``, and the CUDA runtime's ``vprintf`` and ``__assertfail``."""

    arch: int = 80  # the compute capability (bf16 atomic adds need 90, tanh.approx 75)
    flush_exp2: bool = True  # fp32 exp2 as ex2.approx.ftz (CompileOptions.enable_reflect_ftz)
    warp_size: int = WARP_SIZE
    vector_bytes: int = 16  # ld/st .v4.b32
    kernel_convention: str = "ptx_kernel"
    global_ptr: ir.PointerType = GLOBAL_PTR
    shared_ptr: ir.PointerType = SHARED_PTR
    generic_ptr: ir.PointerType = GENERIC_PTR
    # ptxas expands each div.rn.f32 with a slow-path call; groups share one branch (fdiv.py)
    f32_divide_group: int = fdiv.GROUP

    def thread_id(self, b: ir.IRBuilder) -> ir.Value:
        return intr.sreg(b, "tid.x")

    def program_id(self, b: ir.IRBuilder, axis: int) -> ir.Value:
        return intr.sreg(b, "ctaid." + "xyz"[axis])

    def num_programs(self, b: ir.IRBuilder, axis: int) -> ir.Value:
        return intr.sreg(b, "nctaid." + "xyz"[axis])

    def barrier(self, b: ir.IRBuilder) -> None:
        intr.barrier(b)

    def shuffle_xor(self, b: ir.IRBuilder, v: ir.Value, lane_mask: int) -> ir.Value:
        return intr.shuffle_xor(b, v, lane_mask)

    def fence_async_shared(self, b: ir.IRBuilder) -> None:
        intr.fence_proxy_async(b)

    def shared_memory(self, module: ir.Module, name: str, align: int) -> ir.GlobalVariable:
        # external and unsized: the launch sets the size (as in Triton)
        space = self.shared_ptr.addrspace
        smem = ir.GlobalVariable(module, ir.ArrayType(I8, 0), name, addrspace=space)
        smem.linkage = "external"
        smem.align = align
        smem.type = self.shared_ptr  # opaque, so GEPs and stores take any element type
        return smem

    def constant_string(self, module: ir.Module, b: ir.IRBuilder, name: str, text: str) -> ir.Value:
        data = bytearray(text.encode("utf-8")) + b"\0"
        ty = ir.ArrayType(I8, len(data))
        g = ir.GlobalVariable(module, ty, name, addrspace=self.global_ptr.addrspace)
        g.linkage = "internal"
        g.global_constant = True
        g.initializer = ir.Constant(ty, data)
        return b.addrspacecast(g, self.generic_ptr)

    def masked_load(
        self,
        b: ir.IRBuilder,
        ptr: ir.Value,
        pred: ir.Value,
        others: list[ir.Value],
        mem_ty: ir.Type,
        access: Access,
    ) -> list[ir.Value]:
        modifier = ".volatile.global" if access.volatile else ".global" + access.hint
        return ptx_memory.masked_load(b, ptr, pred, others, mem_ty, modifier)

    def masked_store(
        self,
        b: ir.IRBuilder,
        ptr: ir.Value,
        pred: ir.Value,
        vals: list[ir.Value],
        mem_ty: ir.Type,
        access: Access,
    ) -> None:
        ptx_memory.masked_store(b, ptr, pred, vals, mem_ty, access.hint)

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
        return ptx_atomic.atom(b, self.arch, kind, ptr, val, pred, elem, order)

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
        return ptx_atomic.cas(b, ptr, cmp, val, pred, elem, order)

    def divide_f32(
        self, b: ir.IRBuilder, pairs: Sequence[tuple[ir.Value, ir.Value]]
    ) -> list[ir.Value]:
        return fdiv.divide(b, pairs)

    def math(
        self, b: ir.IRBuilder, fn: str, args: list[ir.Value], elem: ScalarType, fast: bool
    ) -> ir.Value:
        return math_functions.apply(b, fn, args, elem, fast, self.arch, self.flush_exp2)

    def shift(
        self, b: ir.IRBuilder, kind: O.BinaryKind, signed: bool, x: ir.Value, y: ir.Value
    ) -> ir.Value:
        """64-bit shifts as PTX's own clamping shift: NVPTX folds S.shift's
        ``select(y > 63, 0, lshr(x, y))`` back into ``shr.u64`` and narrows the amount to 32
        bits, so ``3 >> 0x3FF0000000000000`` shifted by 0 (fuzz seed 103 #1266). The amount is
        clamped to 64 in 64 bits first, where LLVM cannot see the shift to undo it."""
        if x.type.width != 64:
            return S.shift(b, kind, signed, x, y)
        wide = ir.Constant(y.type, 64)
        amount = b.trunc(b.select(b.icmp_unsigned(">", y, wide), wide, y), I32)
        return intr.shift64(b, kind is O.BinaryKind.SHL, signed, x, amount)

    def opaque(self, b: ir.IRBuilder, x: ir.Value) -> ir.Value:
        return intr.mov(b, x)

    def narrows_in_pairs(self, dst: ScalarType) -> bool:
        # as Triton converts: half the instructions of scalar cvt.rn, and ptxas serializes a K
        # loop's wgmma groups when scalar cvt.rn.f16.f32 read the accumulator after it (C7514)
        return self.arch >= 80 and dst.name in _PAIRED

    def narrow_pair(
        self, b: ir.IRBuilder, lo: ir.Value, hi: ir.Value, dst: ScalarType
    ) -> tuple[ir.Value, ir.Value]:
        return intr.cvt_rn_pair(b, lo, hi, _PAIRED[dst.name], llvm_type(dst))

    def printf(
        self, b: ir.IRBuilder, entry: ir.IRBuilder, fmt: ir.Value, args: list[ir.Value]
    ) -> None:
        """``vprintf(fmt, buffer)``: the arguments packed in a struct on the stack."""
        ptr = self.generic_ptr
        fn = intr.declare(b, "vprintf", I32, [ptr, ptr])
        argp: ir.Value = ir.Constant(ptr, None)
        if args:
            struct = ir.LiteralStructType([a.type for a in args])
            # in the entry block: allocas anywhere else defeat SROA
            argp = entry.alloca(struct)
            argp.type = ptr  # opaque, so GEPs into the struct can store each field
            for i, a in enumerate(args):
                field = b.gep(argp, [ir.Constant(I32, 0), ir.Constant(I32, i)], source_etype=struct)
                b.store(a, field)
        b.call(fn, [fmt, argp])

    def assert_fail(
        self, b: ir.IRBuilder, message: ir.Value, file: ir.Value, line: int, function: ir.Value
    ) -> None:
        """``__assertfail(message, file, line, function, char size)``."""
        ptr = self.generic_ptr
        args = [ptr, ptr, I32, ptr, I64]
        fn = intr.declare(b, "__assertfail", VOID, args)
        b.call(fn, [message, file, ir.Constant(I32, line), function, ir.Constant(I64, 1)])
