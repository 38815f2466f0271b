"""Tutorial 9: a persistent matmul — as many programs as the device has cores, no more.

Tutorial 3 launches one program per output tile. A *persistent* kernel launches one program
per streaming multiprocessor (GPU) or core (CPU), and each program loops over tiles
pid, pid + P, pid + 2P ... until all are done. Every program starts once, so per-program setup
is paid P times instead of once per tile, and a program can prepare its next tile while the
current one finishes. ``tl.range`` is the loop to use: on a GPU its ``num_stages`` pipelines
the loads of the inner loop. The tile order is grouped, as in tutorial 3, here through
``tl.swizzle2d`` — the library function that computes the same mapping.

Run it:  python docs/tutorials/09_persistent_matmul.py [--quick] [--device cpu|cuda] [--no-bench]
"""

from __future__ import annotations

import _tutorial
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def persistent_matmul_kernel(
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
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, tl.num_programs(0)):
        tile_m, tile_n = tl.swizzle2d(tile // tiles_n, tile % tiles_n, tiles_m, tiles_n, GROUP)
        rm = tile_m * BM + tl.arange(0, BM)
        rn = tile_n * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in tl.range(0, K, BK):
            ks = k0 + tl.arange(0, BK)
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
    if device == "cuda":
        return {"BM": 64, "BN": 64, "BK": 32, "GROUP": 8, "num_warps": 4}
    return {"BM": 32, "BN": 32, "BK": 32, "GROUP": 4}


def matmul(a, b, c, s, kernel=persistent_matmul_kernel):
    M, K = a.shape
    N = b.shape[1]
    cfg = blocks(s.device)
    tiles = tilec.cdiv(M, cfg["BM"]) * tilec.cdiv(N, cfg["BN"])
    grid = (min(s.cores, tiles),)
    kernel[grid](a, b, c, M, N, K, *s.strides(a), *s.strides(b), *s.strides(c), **cfg)
    return c


def main() -> None:
    s = _tutorial.start("persistent-matmul", __doc__.splitlines()[0])
    dtype = "float16" if s.device == "cuda" else "float32"
    M, N, K = (97, 71, 45) if s.quick else (777, 555, 333)
    a, b = s.rand((M, K), dtype), s.rand((K, N), dtype)
    c = matmul(a, b, s.empty((M, N), dtype), s)
    tol = 1e-2 if dtype == "float16" else 1e-4
    s.check("A @ B (persistent)", c, s.numpy(a) @ s.numpy(b), atol=tol, rtol=tol)

    def bench(size, provider):
        x, y, z = s.rand((size, size), dtype), s.rand((size, size), dtype), None
        z = s.empty((size, size), dtype)
        if provider == "tilec":
            ms = s.time_ms(lambda: matmul(x, y, z, s))
        elif provider == "torch":
            ms = s.time_ms(lambda: s.torch.matmul(x, y, out=z))
        elif provider == "numpy":
            ms = s.time_ms(lambda: np.matmul(x, y, out=z))
        else:
            twin = _tutorial.triton_twins(s.triton, persistent_matmul_kernel)
            ms = s.time_ms(lambda: matmul(x, y, z, s, twin.persistent_matmul_kernel))
        return _tutorial.tflops(2.0 * size**3, ms)

    sizes = [64, 128, 192] if s.quick else [256 * i for i in range(1, 9)]
    if s.device == "cuda" and not s.quick:
        sizes = [512 * i for i in range(1, 9)]
    s.benchmark(bench, x_names=["size"], x_vals=sizes, xlabel="M = N = K", ylabel="TFLOP/s")


if __name__ == "__main__":
    main()
