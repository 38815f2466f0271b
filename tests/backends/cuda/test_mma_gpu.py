"""``tl.dot`` on tensor cores gives numpy's float64 answers on a real GPU (marked gpu): fp16,
bf16, tf32, tf32x3, int8 and uint8 dots in K loops, fp16 accumulation, transposed operands,
accumulating into C, masked edges, odd sizes, several tile shapes and warp counts, 3-D dots.

Errors are bounded relative to ``|A| @ |B|`` (the size a rounding error in the sum can reach),
plus the rounding of the output type; outputs are NaN-poisoned and inputs fresh random."""

from __future__ import annotations

import mma_kernels as K
import numpy as np
import pytest
from cuda_harness import gpu_available

import tilec.language as tl
from tilec import config

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]

# operand dtype (torch name), output dtype, accumulator, precision, error bound vs |A|@|B|:
# fp32 accumulation (tensor cores may truncate inside an instruction) 1e-4; tf32 rounds each
# operand to 11 bits (2e-3); tf32x3 and ieee near fp32; fp16 accumulation 1e-2. A wrong
# fragment layout gives errors of order 1.
CASES = {
    "fp16": ("float16", "float32", tl.float32, "tf32", 1e-4),
    "fp16_out16": ("float16", "float16", tl.float32, "tf32", 1e-4),
    "fp16acc": ("float16", "float16", tl.float16, "tf32", 1e-2),
    "bf16": ("bfloat16", "float32", tl.float32, "tf32", 1e-4),
    "bf16_out16": ("bfloat16", "bfloat16", tl.float32, "tf32", 1e-4),
    "tf32": ("float32", "float32", tl.float32, "tf32", 2e-3),
    "tf32x3": ("float32", "float32", tl.float32, "tf32x3", 2e-5),
    "ieee": ("float32", "float32", tl.float32, "ieee", 1e-5),
    "int8": ("int8", "int32", tl.int32, "tf32", 0.0),
    "uint8": ("uint8", "int32", tl.int32, "tf32", 0.0),
}
# relative rounding of one output element
OUT_ROUNDING = {"float32": 0.0, "float16": 2.0**-11, "bfloat16": 2.0**-8, "int32": 0.0}


@pytest.fixture
def pipelining_on():
    """cp.async pipelining is opt-in (TILEC_EXPERIMENTAL=cuda-pipelining)."""
    with config.override(experimental=frozenset({"cuda-pipelining"})):
        yield


def _inputs(dtype: str, shape: tuple[int, ...], rng: np.random.Generator):  # type: ignore[no-untyped-def]
    """A device tensor of ``dtype`` and its exact float64 values on the host."""
    import torch

    if dtype in ("int8", "uint8"):
        lo, hi = (-128, 128) if dtype == "int8" else (0, 256)
        host = rng.integers(lo, hi, shape).astype(dtype)
        return torch.from_numpy(host).cuda(), host.astype(np.float64)
    t = torch.from_numpy(rng.uniform(-1, 1, shape).astype(np.float32)).cuda()
    t = t.to(getattr(torch, dtype))
    return t, t.float().cpu().numpy().astype(np.float64)


def _poisoned(dtype: str, shape: tuple[int, ...]):  # type: ignore[no-untyped-def]
    import torch

    if dtype == "int32":
        return torch.full(shape, -(2**31), dtype=torch.int32, device="cuda")
    return torch.full(shape, float("nan"), dtype=getattr(torch, dtype), device="cuda")


def _host(t) -> np.ndarray:  # type: ignore[no-untyped-def]
    import torch

    torch.cuda.synchronize()
    return t.float().cpu().numpy().astype(np.float64) if t.dtype != torch.int32 else t.cpu().numpy()


def _check(got: np.ndarray, want: np.ndarray, scale: np.ndarray, bound: float, out: str) -> None:
    if out == "int32":
        np.testing.assert_array_equal(got, want)
        return
    assert not np.isnan(got).any(), "unwritten (NaN) outputs"
    tol = bound * scale + OUT_ROUNDING[out] * np.abs(want) + 1e-30
    err = np.abs(got - want)
    worst = np.unravel_index(np.argmax(err / tol), err.shape)
    assert (err <= tol).all(), f"at {worst}: got {got[worst]}, want {want[worst]}, tol {tol[worst]}"


def _run(
    case: str,
    m: int,
    n: int,
    k: int,
    block: tuple[int, int, int],
    warps: int = 4,
    trans_a: bool = False,
    trans_b: bool = False,
    init: bool = False,
) -> None:
    dtype, out, acc, precision, bound = CASES[case]
    rng = np.random.default_rng()
    a, a_h = _inputs(dtype, (k, m) if trans_a else (m, k), rng)
    b, b_h = _inputs(dtype, (n, k) if trans_b else (k, n), rng)
    a_h, b_h = (a_h.T if trans_a else a_h), (b_h.T if trans_b else b_h)
    if init:
        c, c_h = _inputs(out, (m, n), rng) if out != "int32" else _int_init(rng, (m, n))
    else:
        c, c_h = _poisoned(out, (m, n)), np.zeros((m, n))
    s_am, s_ak = (1, m) if trans_a else (k, 1)
    s_bk, s_bn = (1, k) if trans_b else (n, 1)
    bm, bn, bk = block
    grid = (-(-m // bm), -(-n // bn))
    K.matmul[grid](
        a, b, c, m, n, k, s_am, s_ak, s_bk, s_bn, n, 1,
        BM=bm, BN=bn, BK=bk, ACC=acc, PRECISION=precision, TRANS_A=trans_a, TRANS_B=trans_b,
        INIT=init, num_warps=warps,
    )  # fmt: skip
    want = c_h + a_h @ b_h
    _check(_host(c), want, np.abs(c_h) + np.abs(a_h) @ np.abs(b_h), bound, out)


def _int_init(rng: np.random.Generator, shape: tuple[int, int]):  # type: ignore[no-untyped-def]
    import torch

    host = rng.integers(-1000, 1000, shape).astype(np.int32)
    return torch.from_numpy(host).cuda(), host.astype(np.float64)


@pytest.mark.parametrize("case", sorted(CASES))
def test_k_loop_with_masked_edges(case: str) -> None:
    _run(case, 200, 136, 200, (64, 64, 32))


@pytest.mark.parametrize("case", ["fp16", "bf16", "tf32", "int8"])
def test_accumulates_into_c(case: str) -> None:
    _run(case, 96, 80, 100, (32, 32, 32), init=True)


@pytest.mark.parametrize("trans_a,trans_b", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("case", ["fp16", "bf16", "tf32", "int8"])
def test_transposed_operands(case: str, trans_a: bool, trans_b: bool) -> None:
    _run(case, 130, 72, 90, (64, 32, 32), trans_a=trans_a, trans_b=trans_b)


@pytest.mark.parametrize(
    "size,block,warps",
    [
        ((16, 16, 16), (16, 16, 16), 4),
        ((48, 48, 48), (16, 16, 16), 1),
        ((48, 48, 48), (32, 32, 16), 2),
        ((80, 80, 80), (32, 64, 32), 4),
        ((80, 80, 80), (16, 128, 16), 8),
        ((256, 512, 192), (128, 256, 64), 8),
        ((300, 300, 130), (128, 128, 32), 4),
        ((64, 64, 256), (64, 64, 128), 4),
    ],
)
@pytest.mark.parametrize("case", ["fp16", "tf32", "int8"])
def test_tile_shapes_and_odd_sizes(case: str, size, block, warps) -> None:
    if case == "int8" and block[2] < 32:
        block = (*block[:2], 32)
    _run(case, *size, block, warps=warps)


@pytest.mark.parametrize("case", ["fp16", "bf16", "tf32", "int8"])
@pytest.mark.parametrize("shape", [(2, 16, 16, 32), (4, 32, 64, 32), (2, 64, 16, 64)])
def test_batched_dot(case: str, shape: tuple[int, int, int, int]) -> None:
    dtype, out, _, precision, bound = CASES[case]
    nb, m, n, k = shape
    rng = np.random.default_rng()
    a, a_h = _inputs(dtype, (nb, m, k), rng)
    b, b_h = _inputs(dtype, (nb, k, n), rng)
    c = _poisoned(out, (nb, m, n))
    K.bmm[(1,)](a, b, c, B=nb, M=m, N=n, K=k, PRECISION=precision)
    _check(_host(c), a_h @ b_h, np.abs(a_h) @ np.abs(b_h), bound, out)


@pytest.mark.usefixtures("pipelining_on")
@pytest.mark.parametrize("stages", [1, 2, 4])
def test_pipelined_k_loop(stages: int) -> None:
    import torch

    m, n, k = 300, 260, 264
    rng = np.random.default_rng()
    a, a_h = _inputs("float16", (m, k), rng)
    b, b_h = _inputs("float16", (k, n), rng)
    c = _poisoned("float16", (m, n))
    grid = (-(-m // 128), -(-n // 128))
    K.pipelined_matmul[grid](
        a, b, c, m, n, k, k, n, n, BM=128, BN=128, BK=32, STAGES=stages, num_warps=8
    )
    torch.cuda.synchronize()
    _check(_host(c), a_h @ b_h, np.abs(a_h) @ np.abs(b_h), 1e-4, "float16")


@pytest.mark.parametrize("engine", ["mma.sync", "native"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "shape,warps",
    [((0, 128, 32, 64, 64), 4), ((0, 128, 64, 32, 128), 8), ((0, 64, 32, 64, 32), 8),
     ((2, 64, 32, 32, 32), 4), ((4, 32, 16, 64, 16), 2)],
)  # fmt: skip
def test_chained_dots(engine: str, dtype: str, shape: tuple[int, ...], warps: int) -> None:
    # (a @ b).to(dtype) @ c: where every warp fits along M the second dot reads its A from the
    # first's accumulator registers. Small integers keep every product exact (|s| <= 128 is a
    # bf16 integer), so the result must equal float64's bit for bit.
    import torch

    nb, m, k, n, p = shape
    lead = (nb,) if nb else ()
    rng = np.random.default_rng()
    host = [
        rng.integers(-2, 3, lead + dims).astype(np.float64) for dims in ((m, k), (k, n), (n, p))
    ]
    a, b, c = (torch.from_numpy(x).to(getattr(torch, dtype)).cuda() for x in host)
    out = _poisoned("float32", (*lead, m, p))
    with config.override(disable_mma_v3=engine == "mma.sync"):
        if nb:
            K.chained_bmm[(1,)](a, b, c, out, B=nb, M=m, K=k, N=n, P=p, num_warps=warps)
        else:
            K.chained[(1,)](a, b, c, out, M=m, K=k, N=n, P=p, num_warps=warps)
    np.testing.assert_array_equal(_host(out), (host[0] @ host[1]) @ host[2])
