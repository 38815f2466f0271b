"""Dot operands copied by cp.async straight into the dot's shared layout (pipeline_operands.py),
checked offline: the copies each thread issues (``pipeline_lowering._operand_chunk`` run on a
NumPy model of the block, simt_model.py) must write every byte of the operand tile exactly
where ``swizzled_offset`` puts it, which is where the ldmatrix reads of test_mma_layout.py
(simulated against the PTX ISA) take A and B from. Plus which loads qualify."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import numpy as np
import operand_kernels as K
import pytest
import simt_model
from test_mma_layout import stage

import tilec
import tilec.language as tl
from tilec.backends.cuda import pipeline_lowering
from tilec.backends.cuda.compiler import kernel_of, lower
from tilec.backends.cuda.vector_access import vector_groups
from tilec.backends.target import CompileOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build


@tilec.jit
def k_loop(
    a_ptr, b_ptr, c_ptr, K, s_am, s_ak, s_bk, s_bn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, OTHER: tl.constexpr,
):  # fmt: skip
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
    b = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(a, mask=rk[None, :] < K - k * BK, other=OTHER)
        y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0)
        acc = tl.dot(x, y, acc)
        a += BK * s_ak
        b += BK * s_bk
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


class _Builder(simt_model.Builder):
    """The model's builder with the operations the swizzle emits."""

    def xor(self, a, b):  # type: ignore[no-untyped-def]
        return np.bitwise_xor(self.v(a), self.v(b))

    def lshr(self, a, b):  # type: ignore[no-untyped-def]
        return np.right_shift(self.v(a), self.v(b))


class _Model:
    """The parts of Lowering ``_operand_chunk`` uses, over every thread of the block."""

    def __init__(self, lowering, num_warps: int) -> None:  # type: ignore[no-untyped-def]
        self.block = simt_model.Block(num_warps)
        self.b = _Builder(self.block.b.threads)
        self.lowering = lowering

    def want(self, v):  # type: ignore[no-untyped-def]
        return self.lowering.want(v)

    def coord(self, layout, shape, key):  # type: ignore[no-untyped-def]
        return self.block.coord(layout, shape, key)

    def keys(self, layout, shape):  # type: ignore[no-untyped-def]
        return self.block.keys(layout, shape)


def _pipeline(dtype: str, block, warps: int, a_k_contiguous=True, b_k_contiguous=False,
              other=0.0, stages=3):  # type: ignore[no-untyped-def]  # fmt: skip
    out = {"fp16": "fp32", "bf16": "fp32", "fp32": "fp32", "i8": "i32"}[dtype]
    s_am, s_ak = ("i32:16", 1) if a_k_contiguous else (1, "i32:16")
    s_bk, s_bn = (1, "i32:16") if b_k_contiguous else ("i32:16", 1)
    sig = (f"*{dtype}", f"*{dtype}", f"*{out}", "i32:16", s_am, s_ak, s_bk, s_bn, *block, other)
    func = kernel_of(build(k_loop.fn, *sig))
    _, lowering = lower(func, "sm_80", CompileOptions(num_warps=warps, num_stages=stages))
    pipes = list(lowering.pipelines.values())
    return lowering, pipes[0] if pipes else None


def _copy_in_model(lowering, staged, warps: int, tile: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The slot's bytes after every thread issued its copies of ``tile``."""
    model = _Model(lowering, warps)
    op = staged.op
    layout, shape = lowering.want(op.result), op.result.type.shape
    s = staged.operand
    eb = tile.dtype.itemsize
    raw = tile.view(np.uint8).reshape(*tile.shape, eb)
    smem = np.full(s.nbytes, -1, np.int16)
    base = simt_model.Pointer(np.zeros(model.b.threads, np.int64), 1)
    for group in vector_groups(layout, shape, staged.vw):
        dst = pipeline_lowering._operand_chunk(model, staged, base, group[0]).byte
        coords = [model.coord(layout, shape, key) for key in group]
        for t in range(model.b.threads):
            first = [int(c[t]) for c in coords[0]]
            for j, c in enumerate(coords):  # a vector: consecutive along the smem row
                here = [int(x[t]) for x in c]
                want = list(first)
                want[s.col_axis] += j
                assert here == want
                data = raw[tuple(here)]
                at = int(dst[t]) + j * eb
                old = smem[at : at + eb]
                assert ((old == -1) | (old == data)).all(), "two copies disagree"
                smem[at : at + eb] = data
    assert (smem >= 0).all(), "bytes of the slot no copy writes"
    return smem.astype(np.uint8)


CASES = [
    ("fp16", (128, 256, 64), 8, True, False),
    ("fp16", (128, 128, 32), 8, True, False),
    ("fp16", (64, 64, 32), 4, True, True),
    ("fp16", (64, 32, 16), 4, False, False),  # A M-contiguous: ldmatrix .trans
    ("bf16", (32, 64, 64), 2, True, False),
    ("fp32", (64, 64, 32), 4, True, True),  # tf32 fragments: K-contiguous only
    ("i8", (64, 64, 64), 4, True, True),
]


@pytest.mark.parametrize("dtype, block, warps, a_kc, b_kc", CASES)
def test_copies_land_where_the_dot_reads(dtype, block, warps, a_kc, b_kc) -> None:  # type: ignore[no-untyped-def]
    lowering, pipe = _pipeline(dtype, block, warps, a_kc, b_kc, other=0)
    assert pipe is not None and pipe.synchronized
    operands = [s for s in pipe.loads if s.operand is not None]
    assert len(operands) == 2
    rng = np.random.default_rng(sum(block) + warps)
    np_dtype = {"fp16": np.float16, "bf16": np.uint16, "fp32": np.float32, "i8": np.int8}[dtype]
    for staged in operands:
        shape = staged.op.result.type.shape
        tile = rng.integers(-100, 100, shape).astype(np_dtype)
        got = _copy_in_model(lowering, staged, warps, tile)
        s = staged.operand
        oriented = tile if s.row_axis == 0 else np.ascontiguousarray(tile.T)
        want, row_bytes = stage(oriented, s.kmajor)
        assert row_bytes == s.row_bytes
        np.testing.assert_array_equal(got, want)


def test_slots_are_aligned_and_disjoint() -> None:
    lowering, pipe = _pipeline("fp16", (128, 256, 64), 8, stages=3)
    assert pipe is not None and pipe.stages == 3
    spans = []
    for s in pipe.loads:
        assert s.offset % 128 == 0 and s.stage_bytes % 128 == 0
        spans.append((s.offset, s.offset + pipe.stages * s.stage_bytes))
    spans.sort()
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))
    assert lowering.reserved >= spans[-1][1]


@pytest.mark.parametrize("other", [1.0, -0.0])
def test_a_nonzero_other_keeps_the_register_path(other: float) -> None:
    """cp.async zero-fills masked-off chunks: an operand whose ``other`` is not +0 is not read
    in place (without cuda-pipelining it is then not copied ahead at all)."""
    _, pipe = _pipeline("fp16", (64, 64, 32), 4, other=other)
    assert pipe is not None
    a_load = [s for s in pipe.loads if s.operand is None]
    assert not a_load  # A is left to the plain load; B (other=0) is still staged
    assert len(pipe.loads) == 1 and pipe.loads[0].operand is not None


def test_one_stage_means_no_pipeline() -> None:
    _, pipe = _pipeline("fp16", (64, 64, 32), 4, stages=1)
    assert pipe is None


def _compiled(fn, sig, warps: int, stages: int = 3, arch: str = "sm_80"):  # type: ignore[no-untyped-def]
    from tilec.backends.cuda.compiler import CudaCompiler
    from tilec.backends.target import Target

    options = CompileOptions(num_warps=warps, num_stages=stages)
    kernel = CudaCompiler(assembler="none").compile(
        build(fn.fn, *sig), Target("cuda", arch), options
    )
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    return kernel, ptx


OFFLINE = {
    # kernel, signature, warps, (cp.async.wait_group values, barriers in the K loop)
    "strided_tf32": (
        K.strided_k_loop,
        ("*fp32", "*fp32", "*fp32", "i32:16", "i32:16", "i32:16", "i32:16", 1, 1, "i32:16",
         64, 64, 64, 3),
        4,
        {"1"},
    ),
    "strided_int8": (
        K.strided_k_loop,
        ("*i8", "*i8", "*i32", "i32:16", "i32:16", "i32:16", "i32:16", 1, 1, "i32:16",
         64, 64, 64, 2),
        4,
        {"0"},
    ),
    "two_dots": (K.two_dots, ("*fp16", "*fp16", "*fp16", "*fp32", "i32:16", 64, 128, 32), 4, {"1"}),
    "persistent": (
        K.persistent, ("*fp16", "*fp16", "*fp16", "i32:16", "i32:16", "i32:16", 128, 128, 32, 0),
        8,
        {"0", "1"},  # the tile loop's 2 stages and the K loop's 3
    ),
    "persistent_inner4": (
        K.persistent, ("*fp16", "*fp16", "*fp16", "i32:16", "i32:16", "i32:16", 128, 128, 32, 1),
        8,
        {"0", "2"},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(OFFLINE))
def test_operand_pipelines_compile_and_assemble(case: str) -> None:
    """Dots whose operands come from their stage slots in the gpu tests' kernels: one wait and
    one barrier per K-loop iteration, every copy 16 bytes, and ptxas accepts the result."""
    import ptx_loops

    from tilec.backends.cuda import assemble, toolchain

    fn, sig, warps, waits = OFFLINE[case]
    _, ptx = _compiled(fn, sig, warps)
    assert set(re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx)) == waits
    c = ptx_loops.counts(ptx_loops.k_loop(ptx))
    assert c["bar.sync"] == c["cp.async.wait_group"] == c["cp.async.commit_group"] == 1
    assert c["ld.shared"] == c["st.shared"] == c["global"] == 0
    assert set(re.findall(r"cp\.async\.\w+\.shared\.global \[[^]]+\], \[[^]]+\], (\d+)", ptx)) == {
        "16"
    }
    ptxas = toolchain.ptxas_path()
    if ptxas:
        assert assemble.with_ptxas(ptx, "sm_80", ptxas).cubin


@pytest.mark.parametrize("block, warps", [((128, 256, 64), 8), ((64, 64, 32), 4)])
def test_copies_share_a_predicate_only_where_the_masks_agree(block, warps) -> None:  # type: ignore[no-untyped-def]
    """``rk < K - k*BK`` with K a multiple of 16 is constant over 16 rows of K: registers in
    one such block share a predicate. Checked on every thread for many K and k."""
    lowering, pipe = _pipeline("fp16", block, warps)
    assert pipe is not None
    model = _Model(lowering, warps)
    shared = 0
    for staged in pipe.loads:
        op = staged.op
        layout, shape = lowering.want(op.result), op.result.type.shape
        keys = [g[0] for g in vector_groups(layout, shape, staged.vw)]
        same = pipeline_lowering._same_mask(lowering, op.mask, layout, shape, keys)
        k_axis = 1 if shape == (block[0], block[2]) else 0  # A [BM, BK] or B [BK, BN]
        for key, rep in same.items():
            if key == rep:
                continue
            shared += 1
            rk, rk_rep = (
                model.coord(layout, shape, key)[k_axis],
                model.coord(layout, shape, rep)[k_axis],
            )
            for limit in range(-32, 2 * block[2] + 32, 16):  # K - k*BK: a multiple of 16
                np.testing.assert_array_equal(rk < limit, rk_rep < limit)
    assert shared > 0
