"""Tutorial 8: grouped GEMM — many matrix products of different shapes in one launch.

Mixture-of-experts layers and batched requests of uneven length need C_g = A_g @ B_g for
several (M_g, N_g, K_g). A launch per product pays the launch cost each time and leaves the
device idle between small products. Here one launch of a fixed number of programs shares out
the output tiles of every product: tiles are numbered group after group, and program ``p``
takes tiles p, p + P, p + 2P ... wherever they fall.

The matrices live in three flat buffers; a small int64 table gives each product's sizes and
where its A, B and C start (element offsets), so the kernel needs no pointer arrays.

Run it:  python docs/tutorials/08_grouped_gemm.py [--quick] [--device cpu|cuda] [--no-bench]
"""

from __future__ import annotations

import _tutorial
import numpy as np

import tilec
import tilec.language as tl

FIELDS = 6  # one table row: M, N, K, offset of A, offset of B, offset of C


@tilec.jit
def grouped_gemm_kernel(
    a_ptr, b_ptr, c_ptr, table_ptr, n_groups, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    pid = tl.program_id(0)
    n_programs = tl.num_programs(0)
    tiles_before = tl.full([], 0, tl.int64)  # tiles of the groups passed (int64, as the table)
    for g in range(0, n_groups):
        row = table_ptr + g * 6
        M, N, K = tl.load(row), tl.load(row + 1), tl.load(row + 2)
        a_g, b_g, c_g = a_ptr + tl.load(row + 3), b_ptr + tl.load(row + 4), c_ptr + tl.load(row + 5)
        tiles_n = tl.cdiv(N, BN)
        tiles = tl.cdiv(M, BM) * tiles_n
        # the first tile of this group that is ours: the next index congruent to pid
        first = (pid - tiles_before % n_programs + n_programs) % n_programs
        for t in range(first, tiles, n_programs):
            rm = (t // tiles_n) * BM + tl.arange(0, BM)
            rn = (t % tiles_n) * BN + tl.arange(0, BN)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k0 in range(0, K, BK):
                ks = k0 + tl.arange(0, BK)
                a = tl.load(
                    a_g + rm[:, None] * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K),
                    other=0.0,
                )
                b = tl.load(
                    b_g + ks[:, None] * N + rn[None, :],
                    mask=(ks[:, None] < K) & (rn[None, :] < N),
                    other=0.0,
                )
                acc = tl.dot(a, b, acc)
            tl.store(
                c_g + rm[:, None] * N + rn[None, :],
                acc.to(c_ptr.dtype.element_ty),
                mask=(rm[:, None] < M) & (rn[None, :] < N),
            )
        tiles_before += tiles


def pack(shapes, s, dtype):
    """Random A_g, B_g in flat buffers, a NaN-filled C buffer, and the int64 table."""
    table, sizes = [], [0, 0, 0]
    for m, n, k in shapes:
        table.append([m, n, k, *sizes])
        sizes = [sizes[0] + m * k, sizes[1] + k * n, sizes[2] + m * n]
    a, b, c = s.rand(sizes[0], dtype), s.rand(sizes[1], dtype), s.empty(sizes[2], dtype)
    return a, b, c, s.array(np.array(table, dtype=np.int64))


def blocks(device: str) -> dict[str, int]:
    if device == "cuda":
        return {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4}
    return {"BM": 32, "BN": 32, "BK": 32}


def grouped_gemm(a, b, c, table, s, kernel=grouped_gemm_kernel):
    kernel[(s.cores,)](a, b, c, table, table.shape[0], **blocks(s.device))
    return c


def unpack(flat: np.ndarray, table: np.ndarray, which: int) -> list[np.ndarray]:
    """Matrix ``which`` (0: A, 1: B, 2: C) of every group, as float64."""
    dims = {0: (0, 2), 1: (2, 1), 2: (0, 1)}[which]
    return [
        flat[row[3 + which] :][: row[dims[0]] * row[dims[1]]].reshape(row[dims[0]], row[dims[1]])
        for row in table
    ]


def main() -> None:
    s = _tutorial.start("grouped-gemm", __doc__.splitlines()[0])
    dtype = "float16" if s.device == "cuda" else "float32"
    shapes = (
        [(40, 33, 17), (7, 64, 50), (65, 9, 31)]
        if s.quick
        else [(1024, 1024, 1024), (512, 384, 256), (300, 700, 150), (64, 1000, 900)]
    )
    a, b, c, table = pack(shapes, s, dtype)
    grouped_gemm(a, b, c, table, s)
    t = s.numpy(table).astype(np.int64)
    expected = [x @ y for x, y in zip(unpack(s.numpy(a), t, 0), unpack(s.numpy(b), t, 1))]
    tol = 1e-2 if dtype == "float16" else 1e-4
    s.check(
        "every C_g = A_g @ B_g",
        c,
        np.concatenate([e.ravel() for e in expected]),
        atol=tol,
        rtol=tol,
    )

    def bench(size, provider):
        group = [(size, size, size)] * 4
        a, b, c, table = pack(group, s, dtype)
        if provider == "tilec":
            ms = s.time_ms(lambda: grouped_gemm(a, b, c, table, s))
        elif provider in ("torch", "numpy"):
            n = size * size
            mats = [
                (
                    a[i * n : (i + 1) * n].reshape(size, size),
                    b[i * n : (i + 1) * n].reshape(size, size),
                )
                for i in range(4)
            ]
            mul = s.torch.matmul if provider == "torch" else np.matmul
            ms = s.time_ms(lambda: [mul(x, y) for x, y in mats])  # one launch per product
        else:
            twin = _tutorial.triton_twins(s.triton, grouped_gemm_kernel).grouped_gemm_kernel
            ms = s.time_ms(lambda: grouped_gemm(a, b, c, table, s, kernel=twin))
        return _tutorial.tflops(4 * 2.0 * size**3, ms)

    sizes = [32, 64, 128] if s.quick else [128, 256, 512, 1024, 2048]
    s.benchmark(
        bench,
        x_names=["size"],
        x_vals=sizes,
        x_log=True,
        xlabel="M = N = K of each of 4 products",
        ylabel="TFLOP/s",
    )


if __name__ == "__main__":
    main()
