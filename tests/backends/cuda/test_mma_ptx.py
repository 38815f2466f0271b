"""``tl.dot`` compiles to mma.sync + ldmatrix on sm_80 and newer, and ptxas accepts it for every
target (offline: no GPU needed). Dots the tensor cores cannot take keep the FMA path."""

from __future__ import annotations

import sys
from pathlib import Path

import mma_kernels as K
import pytest

from tilec import config
from tilec.backends.cuda import assemble, toolchain
from tilec.backends.cuda.compiler import CudaCompiler, kernel_of, lower
from tilec.backends.cuda.layout import Slice
from tilec.backends.cuda.mma import choose, warp_grid
from tilec.backends.target import CompileOptions, Target
from tilec.ir import ops as O
from tilec.language import float16, float32, int32

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build

ARCHS = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_120"]

# (operand type, output pointer type, accumulator, precision) → the instruction expected
CASES = {
    "fp16": ("fp16", "fp16", float32, "tf32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    "fp16acc": ("fp16", "fp16", float16, "tf32", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"),
    "bf16": ("bf16", "bf16", float32, "tf32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    "tf32": ("fp32", "fp32", float32, "tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    "tf32x3": ("fp32", "fp32", float32, "tf32x3", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    "int8": ("i8", "i32", int32, "tf32", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"),
    "uint8": ("u8", "i32", int32, "tf32", "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32"),
}  # fmt: skip


@pytest.fixture
def pipelining_on():
    """cp.async pipelining is opt-in (TILEC_EXPERIMENTAL=cuda-pipelining)."""
    with config.override(experimental=frozenset({"cuda-pipelining"})):
        yield


def matmul_ptx(
    case: str, arch: str, block=(64, 64, 32), trans_a=False, trans_b=False, warps=4, precision=None
):
    dt, out, acc, default_precision, _ = CASES[case]
    precision = precision or default_precision
    # strides: A (s_am, s_ak), B (s_bk, s_bn), C (s_cm, s_cn); the contiguous one is constexpr 1
    a_strides = (1, "i32") if trans_a else ("i32", 1)
    b_strides = (1, "i32") if trans_b else ("i32", 1)
    sig = (
        f"*{dt}", f"*{dt}", f"*{out}", "i32", "i32", "i32",
        *a_strides, *b_strides, "i32", 1, *block, acc, precision, trans_a, trans_b, False,
    )  # fmt: skip
    module = build(K.matmul.fn, *sig)
    options = CompileOptions(num_warps=warps)
    ptx = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), options).asm["ptx"]
    assert isinstance(ptx, str)
    return ptx


def assert_assembles(ptx: str, arch: str) -> None:
    ptxas = toolchain.ptxas_path()
    if ptxas:
        assert assemble.with_ptxas(ptx, arch, ptxas).cubin


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_k_loop_matmul_uses_mma_and_ldmatrix(case: str, arch: str) -> None:
    ptx = matmul_ptx(case, arch)
    assert CASES[case][4] in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    if case.startswith("tf32"):
        assert "cvt.rna.tf32.f32" in ptx
    assert_assembles(ptx, arch)


@pytest.mark.parametrize("trans_a,trans_b", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("case", ["fp16", "tf32", "int8"])
def test_transposed_operands(case: str, trans_a: bool, trans_b: bool) -> None:
    ptx = matmul_ptx(case, "sm_80", trans_a=trans_a, trans_b=trans_b)
    assert CASES[case][4] in ptx
    if case == "fp16" and trans_a:  # an M-contiguous 16-bit A is read with ldmatrix .trans
        assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
    assert_assembles(ptx, "sm_80")


@pytest.mark.parametrize("block,warps", [((16, 16, 16), 4), ((128, 256, 64), 8), ((32, 64, 16), 1)])
def test_tile_shapes(block, warps) -> None:
    ptx = matmul_ptx("fp16", "sm_80", block=block, warps=warps)
    m, n, k = block
    wm, wn = warp_grid(m, n, warps)  # each warp issues its own share of the instruction tiles
    assert ptx.count("mma.sync.aligned.m16n8k16") == (m // (16 * wm)) * (n // (8 * wn)) * (k // 16)
    assert_assembles(ptx, "sm_80")


def test_k_loop_keeps_the_accumulator_in_registers() -> None:
    # the loop-carried accumulator lives in the dot's mma layout (no conversion per iteration),
    # and the accumulator operand of the dot inside the loop is asked for in that layout too
    dt, out, acc, precision, _ = CASES["fp16"]
    sig = (f"*{dt}", f"*{dt}", f"*{out}", "i32", "i32", "i32", "i32", 1, "i32", 1, "i32", 1)
    module = build(K.matmul.fn, *sig, 64, 64, 32, acc, precision, False, False, False)
    func = kernel_of(module)
    _, lowering = lower(func, "sm_80", CompileOptions())
    loop = next(op for op in func.walk() if isinstance(op, O.ForOp))
    dot = next(op for op in func.walk() if isinstance(op, O.DotOp))
    plan = choose(dot, 4, 80)
    assert plan is not None
    carried = [loop.results[0], loop.body.args[1], dot.result, dot.operands[2]]
    assert all(lowering.plan[v] == plan.layout() for v in carried)
    # the epilogue's fp32 -> fp16 cast happens in registers, before the move to the store layout
    cast = next(
        op for op in func.walk() if isinstance(op, O.CastOp) and loop.results[0] in op.operands
    )
    assert lowering.plan[cast.result] == plan.layout()


@pytest.mark.parametrize("case", ["fp16", "tf32", "int8"])
def test_batched_dot(case: str) -> None:
    dt, out, _, precision, instr = CASES[case]
    module = build(K.bmm.fn, f"*{dt}", f"*{dt}", f"*{out}", 2, 32, 16, 32, precision)
    ptx = CudaCompiler(assembler="none").compile(module, Target("cuda", "sm_80"), CompileOptions())
    text = ptx.asm["ptx"]
    assert isinstance(text, str) and instr in text
    assert_assembles(text, "sm_80")


@pytest.mark.parametrize(
    "case,arch,block",
    [
        ("fp16", "sm_75", (64, 64, 32)),  # before Ampere
        ("fp16", "sm_80", (16, 16, 8)),  # K below 16
        ("int8", "sm_80", (32, 32, 16)),  # K below the instruction's 32
    ],
)
def test_fma_path_remains(case: str, arch: str, block) -> None:
    ptx = matmul_ptx(case, arch, block=block)
    assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    assert_assembles(ptx, arch)


def test_ieee_fp32_stays_exact() -> None:
    ptx = matmul_ptx("tf32", "sm_80", precision="ieee")
    assert "mma.sync" not in ptx and "fma.rn.f32" in ptx


def test_attention_softmax_stays_in_the_mma_layout() -> None:
    # s = q @ k^T on tensor cores; the row max/sum, p = exp(s - m) and the rescaled accumulator
    # follow its layout (slices of it for the per-row values), so the loop body converts nothing
    # between the two dots
    import cuda_tl_kernels as T

    sig = ("*fp16", "*fp16", "*fp16", "*fp16", "fp32", "i32", 64, 64, 64)
    func = kernel_of(build(T.attention.fn, *sig))
    _, lowering = lower(func, "sm_80", CompileOptions())
    qk, pv = [op for op in func.walk() if isinstance(op, O.DotOp)]
    qk_plan, pv_plan = lowering.dot_plans(qk), lowering.dot_plans(pv)
    assert qk_plan is not None and pv_plan is not None
    # a chain of dots puts every warp along M: each warp owns whole rows of s and p
    assert (qk_plan.wm, qk_plan.wn) == (pv_plan.wm, pv_plan.wn) == (4, 1)
    mma = qk_plan.layout()
    assert lowering.plan[pv.operands[0]] == mma  # p.to(fp16): pv's A fragments in registers
    loop = next(op for op in func.walk() if isinstance(op, O.ForOp))
    carried = [lowering.plan[a] for a in loop.body.args[1:]]  # m_i, l_i, acc in some order
    assert sorted(map(str, carried)) == sorted(map(str, [Slice(mma, 1)] * 2 + [pv_plan.layout()]))


@pytest.mark.usefixtures("pipelining_on")
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_120"])
def test_pipelined_matmul_uses_cp_async_ldmatrix_and_mma(arch: str) -> None:
    # strides divisible by 16 elements, as the runtime specializes them: rows start 16-byte aligned
    sig = ("*fp16", "*fp16", "*fp16", "i32", "i32", "i32", "i32:16", "i32:16", "i32:16", 128, 128, 32, 4)
    module = build(K.pipelined_matmul.fn, *sig)
    options = CompileOptions(num_warps=8)
    ptx = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), options).asm["ptx"]
    assert isinstance(ptx, str)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4" in ptx and "cp.async" in ptx
    assert_assembles(ptx, arch)
