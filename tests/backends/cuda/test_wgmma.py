"""``tl.dot`` on sm_90a runs on wgmma.mma_async (offline: the layout math simulated on ints, the
PTX checked and assembled by ptxas; the GPU results are in test_mma_gpu.py and friends).

The accumulator keeps mma.sync's layout with every warp along M; operand A's rows are stored
permuted so that each thread's wgmma results are the registers that layout names, and both
operands sit in shared memory exactly as the hardware's swizzle modes address them."""

from __future__ import annotations

import dataclasses
import itertools
import re

import cuda_tl_kernels as T
import pytest
from test_mma_ptx import CASES, assert_assembles, build, matmul_ptx

import tilec
import tilec.language as tl
from tilec import config
from tilec.backends.cuda import assemble, toolchain, wgmma
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.cuda.mma import (
    AccKind,
    Engine,
    MmaKind,
    MmaPlan,
    Staged,
    acc_row,
    staging,
    wgmma_row,
)
from tilec.backends.target import CompileOptions, Target


def _plan(m: int, n: int, k: int, warps: int) -> MmaPlan:
    return MmaPlan(MmaKind.F16, AccKind.F32, 1, 0, m, n, k, warps, 1, Engine.WGMMA)


@pytest.mark.parametrize("m,warps", [(64, 4), (128, 4), (256, 4), (128, 8), (256, 8)])
def test_a_rows_land_where_each_thread_receives_them(m: int, warps: int) -> None:
    # thread (warp w, group g) holds accumulator register row r = 2*mi + h at logical row
    # 8*w + g + 8*warps*r (mma.sync's layout, warps along M); wgmma gives warp w%4 of
    # warpgroup w//4 the slab rows 16*(w%4) + 8*h + g of instruction mi's slab
    plan = _plan(m, 64, 32, warps)
    groups = warps // 4
    seen = set()
    for w, g, r in itertools.product(range(warps), range(8), range(m // (8 * warps))):
        logical = acc_row(plan, w, g, r)
        mi, h = divmod(r, 2)
        slab = mi * groups + w // 4
        assert wgmma_row(logical, warps) == 64 * slab + 16 * (w % 4) + 8 * h + g
        seen.add(wgmma_row(logical, warps))
    assert seen == set(range(m))


def _hardware_swizzle(address: int, width: int) -> int:
    """The swizzle modes as the hardware applies them to an address: 16-byte chunk bits XORed
    with the bits of the 8-row period (128B: bits 4-6 ^ 7-9; 64B: 4-5 ^ 7-8; 32B: 4 ^ 7)."""
    bits = {128: 7, 64: 3, 32: 1}[width]
    return address ^ (((address >> 7) & bits) << 4)


@pytest.mark.parametrize("rows,row_bytes", [(64, 128), (128, 256), (64, 64), (32, 32), (16, 512)])
def test_staged_layout_is_the_hardware_swizzle(rows: int, row_bytes: int) -> None:
    s = Staged(0, True, 0, 1, rows, row_bytes, atom=min(row_bytes, 128))
    width = s.width
    for row, col in itertools.product(range(rows), range(0, row_bytes, 16)):
        block, within = divmod(col, width)
        canonical = block * rows * width + row * width + within  # before swizzling
        assert s.at(row, col) == _hardware_swizzle(canonical, width)


def test_descriptor_fields() -> None:
    s = Staged(0, False, 0, 1, 64, 256, atom=128)  # an MN-major B: 64 rows of K, N = 128 fp16
    high = wgmma.descriptor_high(s)
    assert (high >> 16) & 0x3FFF == 64 * 128 >> 4  # LBO: one column block of 64 rows
    assert (high >> 32) & 0x3FFF == 8 * 128 >> 4  # SBO: eight 128-byte rows
    assert high >> 62 == 1  # 128-byte swizzle
    assert wgmma.b_offset(s, 2) == 32 * 128  # k step 2: row 32
    a = Staged(0, True, 0, 1, 128, 64, atom=64, warps=4)  # K-major A, BK = 32 fp16
    assert wgmma.descriptor_high(a) >> 62 == 2  # 64-byte swizzle
    assert wgmma.a_offset(a, 1, 1) == 64 * 64 + 32


def test_staging_for_wgmma() -> None:
    plan = _plan(128, 128, 64, 4)
    a = staging((128, 64), 1, True, plan, 0)
    assert (a.kmajor, a.atom, a.warps) == (True, 128, 4)
    b = staging((64, 128), 1, False, plan, 0)  # N contiguous: MN-major, two 128-byte blocks
    assert (b.kmajor, b.row_bytes, b.atom, b.warps) == (False, 256, 128, 0)
    assert staging((128, 64), 0, True, plan, 0).atom == 0  # an M-major A stays for ldmatrix


@pytest.fixture
def pipelining_on():
    with config.override(experimental=frozenset({"cuda-pipelining"})):
        yield


@pytest.mark.parametrize(
    "block,warps,trans_b",
    [((128, 128, 64), 4, False), ((128, 256, 64), 8, False), ((64, 64, 32), 4, True),
     ((128, 64, 16), 8, False)],
)  # fmt: skip
@pytest.mark.parametrize("case", ["fp16", "bf16"])
def test_sm90a_matmul_runs_on_wgmma(case: str, block, warps: int, trans_b: bool) -> None:
    ptx = matmul_ptx(case, "sm_90a", block=block, warps=warps, trans_b=trans_b)
    m, n, k = block
    ty = "f16" if case == "fp16" else "bf16"
    # each warpgroup issues its own slabs' instructions
    assert ptx.count(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty}") == (
        (m // (64 * (warps // 4))) * (k // 16)
    )
    for text in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
                 "wgmma.wait_group.sync.aligned 0", "fence.proxy.async.shared::cta"):  # fmt: skip
        assert text in ptx
    assert "ldmatrix" not in ptx and "mma.sync" not in ptx
    assert_assembles(ptx, "sm_90a")


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
def test_other_targets_keep_mma_sync(arch: str) -> None:
    ptx = matmul_ptx("fp16", arch, block=(128, 128, 64))
    assert "wgmma" not in ptx and CASES["fp16"][4] in ptx


def test_disable_mma_v3_keeps_mma_sync_on_sm90a() -> None:
    with config.override(disable_mma_v3=True):
        ptx = matmul_ptx("fp16", "sm_90a", block=(128, 128, 64))
    assert "wgmma" not in ptx and CASES["fp16"][4] in ptx


@pytest.mark.parametrize(
    "case,block,warps",
    [("tf32", (128, 128, 32), 4), ("int8", (128, 128, 64), 4), ("fp16acc", (128, 128, 64), 4),
     ("fp16", (32, 64, 32), 4), ("fp16", (64, 64, 32), 8)],
)  # fmt: skip
def test_dots_wgmma_cannot_take_stay_on_mma_sync(case: str, block, warps: int) -> None:
    # tf32/int8 kinds, fp16 accumulators, M below a 64-row slab per warpgroup
    ptx = matmul_ptx(case, "sm_90a", block=block, warps=warps)
    assert "wgmma.mma_async" not in ptx and CASES[case][4] in ptx
    assert_assembles(ptx, "sm_90a")


@pytest.mark.parametrize("bm,bn,d,warps", [(64, 32, 64, 4), (128, 64, 64, 8)])
def test_attention_takes_q_and_p_from_registers(bm: int, bn: int, d: int, warps: int) -> None:
    # Q (loaded before the loop) is loaded in the accumulator's layout and P is computed in it:
    # both dots read A from registers
    sig = ("*fp16", "*fp16", "*fp16", "*fp16", "fp32", "i32:16", bm, bn, d)
    module = build(T.attention.fn, *sig)
    target = Target("cuda", "sm_90a")
    options = CompileOptions(num_warps=warps, num_stages=2)
    ptx = CudaCompiler(assembler="none").compile(module, target, options).asm["ptx"]
    assert isinstance(ptx, str)
    per_warpgroup = (bm // (64 * (warps // 4))) * (d // 16 + bn // 16)
    register_a = re.findall(r"wgmma\.mma_async[^;]*\}, \{%r\d+,%r\d+,%r\d+,%r\d+\}, %rd", ptx)
    assert len(register_a) == per_warpgroup, ptx
    assert "ldmatrix" not in ptx and "mma.sync" not in ptx
    # K (loaded [BN, D], used as tl.trans(k)) and V are copied into the slots as wgmma reads
    # them: the loop body's first barrier publishes the stage, nothing else is staged. P @ V's
    # group stays in flight into the next iteration, whose q @ k waits for both at once (one
    # wait_group 0 per iteration); with two warpgroups a barrier then keeps the copies from
    # refilling V's slot before the other warpgroup's P @ V has read it
    loop = ptx[ptx.index("cp.async.wait_group") : ptx.index("cp.async.wait_all")]
    assert loop.count("bar.sync") == 1 + (warps > 4) and "st.shared" not in loop
    assert loop.count("wgmma.wait_group.sync.aligned 0") == 1
    assert "wgmma.wait_group" in ptx[ptx.index("cp.async.wait_all") :]  # the exit waits
    assert_assembles(ptx, "sm_90a")


def _pipelined_matmul_ptx(block, warps: int, out: str = "fp16", assembler: str = "none") -> str:
    i32 = "i32:16"
    sig = ("*fp16", "*fp16", f"*{out}", i32, i32, i32, i32, 1, i32, 1, i32, 1, *block, 8)
    module = build(T.matmul.fn, *sig)
    options = CompileOptions(num_warps=warps, num_stages=3)
    ptx = CudaCompiler(assembler).compile(module, Target("cuda", "sm_90a"), options)
    text = ptx.asm["ptx"]
    assert isinstance(text, str)
    return text


@pytest.mark.parametrize("block,warps", [((128, 128, 64), 4), ((128, 256, 64), 8)])
def test_k_loop_keeps_one_wgmma_group_in_flight(block, warps: int) -> None:
    # acc = tl.dot(a, b, acc): each iteration waits for the previous iteration's group only
    # (whose slot the next copies refill; two warpgroups add a barrier first), and the loop's
    # exit waits for the last one before the epilogue reads the accumulator
    ptx = _pipelined_matmul_ptx(block, warps)
    loop = ptx[ptx.index("cp.async.wait_group") : ptx.index("cp.async.wait_all")]
    assert loop.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert "wgmma.wait_group.sync.aligned 0;" not in loop
    after = loop[loop.index("wgmma.wait_group.sync.aligned 1;") :]
    assert ("bar.sync" in after.split("cp.async.cg")[0]) == (warps == 8)
    exit_ = ptx[ptx.index("cp.async.wait_all") :]
    assert exit_.index("wgmma.wait_group.sync.aligned 0;") < exit_.index("st.global")
    assert_assembles(ptx, "sm_90a")


@tilec.jit
def matmul_through_fp16(
    a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    """A K loop whose fp32 result is rounded to fp16 and stored widened again."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a), tl.load(b), acc)
        a += BK
        b += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


def test_a_loop_ptxas_serialized_is_built_again_waiting_in_each_iteration(monkeypatch) -> None:
    # when ptxas reports a loop's in-flight group serialized (C7514), the kernel is built again
    # waiting in each iteration, which runs faster then; the report is injected here, since
    # the kernels that drew it (a scalar cvt.rn.f16.f32 of the accumulator) no longer do
    real = assemble.assemble
    logs = []

    def reporting(ptx, arch, prefer="auto", driver_cuda="probe"):  # type: ignore[no-untyped-def]
        got = real(ptx, arch, "none", driver_cuda)
        serialized = "wgmma.wait_group.sync.aligned 1;" in ptx
        logs.append(serialized)
        log = "ptxas info    : (C7514) Potential Performance Loss" if serialized else ""
        return dataclasses.replace(got, log=log)

    monkeypatch.setattr(assemble, "assemble", reporting)
    module = build(matmul_through_fp16.fn, "*fp16", "*fp16", "*fp32", "i32:16", 128, 128, 32)
    options = CompileOptions(num_warps=8, num_stages=3)
    kernel = CudaCompiler("auto").compile(module, Target("cuda", "sm_90a"), options)
    ptx = kernel.asm["ptx"]
    assert logs == [True, False]  # built twice, the second time without a group in flight
    assert isinstance(ptx, str) and "wgmma.wait_group.sync.aligned 1;" not in ptx
    loop = ptx[ptx.index("cp.async.wait_group") : ptx.index("cp.async.wait_all")]
    assert "wgmma.wait_group.sync.aligned 0;" in loop


@pytest.mark.skipif(not toolchain.ptxas_path(), reason="needs ptxas")
def test_an_epilogue_rounding_the_accumulator_keeps_the_group_in_flight() -> None:
    # fp32 -> fp16 in pairs (cvt.rn.f16x2.f32): a scalar cvt.rn.f16.f32 of each accumulator
    # register made ptxas serialize the loop's wgmmas (C7514), so it was built waiting
    module = build(matmul_through_fp16.fn, "*fp16", "*fp16", "*fp32", "i32:16", 128, 128, 32)
    options = CompileOptions(num_warps=8, num_stages=3)
    kernel = CudaCompiler("ptxas").compile(module, Target("cuda", "sm_90a"), options)
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str) and "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "cvt.rn.f16x2.f32" in ptx and "cvt.rn.f16.f32" not in ptx
