"""Tutorial 3: matrix multiplication, with the output tiles visited in grouped order.

Each program computes one BM x BN tile of C = A @ B by walking K in BK-wide steps and
accumulating ``tl.dot`` products in float32. Which tile a program takes matters for speed:
numbering tiles row by row, the programs running at the same time all read the same row
block of A but every column block of B, so B streams through the cache over and over.
Numbering them in *groups* of GROUP row blocks (down a column of tiles first, then to the
next column) makes programs that run together share both their A and their B blocks.

Run it:  python docs/tutorials/03_matmul.py [--quick] [--device cpu|cuda] [--no-bench]
"""

from __future__ import annotations

import _tutorial
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def grouped_tile(pid, tiles_m, tiles_n, GROUP: tl.constexpr):
    """The (row, column) tile of program ``pid`` when tiles are numbered in groups of rows."""
    per_group = GROUP * tiles_n  # programs in one group: GROUP rows times every column
    group = pid // per_group
    first_row = group * GROUP
    rows_here = min(tiles_m - first_row, GROUP)  # the last group may be shorter
    within = pid % per_group
    return first_row + within % rows_here, within // rows_here


@tilec.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP: tl.constexpr,
):
    tile_m, tile_n = grouped_tile(tl.program_id(0), tl.cdiv(M, BM), tl.cdiv(N, BN), GROUP)
    rm = tile_m * BM + tl.arange(0, BM)
    rn = tile_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ks = k0 + rk
        a = tl.load(
            a_ptr + rm[:, None] * sam + ks[None, :] * sak,
            mask=(rm[:, None] < M) & (ks[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ks[:, None] * sbk + rn[None, :] * sbn,
            mask=(ks[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    tl.store(
        c_ptr + rm[:, None] * scm + rn[None, :] * scn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def blocks(device: str) -> dict[str, int]:
    # GPU tiles: what tilec's CUDA dot runs best today (Triton prefers larger ones); CPU tiles fit
    # a core's caches and vector registers.
    if device == "cuda":
        return {"BM": 64, "BN": 64, "BK": 32, "GROUP": 8, "num_warps": 4}
    return {"BM": 32, "BN": 32, "BK": 32, "GROUP": 4}


def matmul(a, b, c, s, kernel=matmul_kernel):
    M, K = a.shape
    N = b.shape[1]
    cfg = blocks(s.device)
    grid = (tilec.cdiv(M, cfg["BM"]) * tilec.cdiv(N, cfg["BN"]),)
    kernel[grid](a, b, c, M, N, K, *s.strides(a), *s.strides(b), *s.strides(c), **cfg)
    return c


def main() -> None:
    s = _tutorial.start("matmul", __doc__.splitlines()[0])
    dtype = "float16" if s.device == "cuda" else "float32"
    M, N, K = (77, 93, 65) if s.quick else (515, 387, 259)  # ragged edges on every side
    a, b = s.rand((M, K), dtype), s.rand((K, N), dtype)
    c = matmul(a, b, s.empty((M, N), dtype), s)
    tol = 1e-2 if dtype == "float16" else 1e-4
    s.check("A @ B", c, s.numpy(a) @ s.numpy(b), atol=tol, rtol=tol)

    def bench(size, provider):
        x, y = s.rand((size, size), dtype), s.rand((size, size), dtype)
        z = s.empty((size, size), dtype)
        if provider == "tilec":
            ms = s.time_ms(lambda: matmul(x, y, z, s))
        elif provider == "torch":
            ms = s.time_ms(lambda: s.torch.matmul(x, y, out=z))
        elif provider == "numpy":
            ms = s.time_ms(lambda: np.matmul(x, y, out=z))
        else:
            twins = _tutorial.triton_twins(s.triton, grouped_tile, matmul_kernel)
            ms = s.time_ms(lambda: matmul(x, y, z, s, twins.matmul_kernel))
        return _tutorial.tflops(2.0 * size**3, ms)

    sizes = [64, 128, 192] if s.quick else [256 * i for i in range(1, 9)]
    if s.device == "cuda" and not s.quick:
        sizes = [512 * i for i in range(1, 9)]
    s.benchmark(bench, x_names=["size"], x_vals=sizes, xlabel="M = N = K", ylabel="TFLOP/s")


if __name__ == "__main__":
    main()
