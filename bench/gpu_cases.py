"""The GPU benchmark's problems: inputs, launches of tilec / Triton / torch, checks and work.

Each case takes ``(torch, tilec_kernels, triton_kernels, tilec_launch, do_bench, quick)`` and
returns Rows (bench/gpu.py). Outputs are NaN-poisoned before each checked run.
"""

from __future__ import annotations

from typing import Any


def _row(name: str, unit: str, work: float) -> Any:
    from gpu import Row  # type: ignore[import-not-found]

    return Row(name, unit, work)


def _measure(row: Any, impl: str, run: Any, check: Any, out: Any, do_bench: Any) -> None:
    out.fill_(float("nan"))
    try:
        run()
        import torch

        torch.cuda.synchronize()
        row.ok[impl] = bool(check())
        row.ms[impl] = float(do_bench(run, warmup=25, rep=100))
    except Exception as exc:  # report and keep going
        import traceback

        traceback.print_exc()
        row.ok[impl] = False
        row.notes["error"] = f"{impl}: {type(exc).__name__}: {exc}"[:300]


def vector_add(torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, quick: bool) -> list[Any]:
    n = 1 << (24 if quick else 28)
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    block = 1024
    grid = (triton_cdiv(n, block),)
    row = _row(f"vector_add fp32 n=2^{n.bit_length() - 1}", "GB/s", 12.0 * n)
    expect = x + y

    def check() -> bool:
        return bool(torch.equal(out, expect))

    _measure(
        row,
        "tilec",
        lambda: launch(tk.vector_add, grid, (x, y, out, n), {"BLOCK": block}, 4),
        check,
        out,
        do_bench,
    )
    _measure(
        row, "triton", lambda: tr.vector_add[grid](x, y, out, n, BLOCK=block), check, out, do_bench
    )
    _measure(row, "torch", lambda: torch.add(x, y, out=out), check, out, do_bench)
    return [row]


def triton_cdiv(a: int, b: int) -> int:
    return -(-a // b)


def softmax(torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, quick: bool) -> list[Any]:
    shapes = [(2048, 4096), (4096, 1024)] if quick else [(8192, 4096), (32768, 1024)]
    return [_softmax_one(torch, tk, tr, launch, do_bench, m, n) for m, n in shapes]


def _softmax_one(torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, m: int, n: int) -> Any:
    x = torch.randn(m, n, device="cuda")
    out = torch.empty_like(x)
    block = 1 << (n - 1).bit_length()
    warps = 8 if block >= 2048 else 4
    row = _row(f"softmax fp32 {m}x{n}", "GB/s", 8.0 * m * n)
    expect = torch.softmax(x.double(), dim=1)

    def check() -> bool:
        return bool(torch.allclose(out.double(), expect, rtol=1e-4, atol=1e-6))

    def run_tilec() -> None:
        launch(
            tk.softmax_rows, (m,), (out, x, x.stride(0), out.stride(0), n), {"BLOCK": block}, warps
        )

    def run_triton() -> None:
        tr.softmax_rows[(m,)](out, x, x.stride(0), out.stride(0), n, BLOCK=block, num_warps=warps)

    _measure(row, "tilec", run_tilec, check, out, do_bench)
    _measure(row, "triton", run_triton, check, out, do_bench)
    _measure(row, "torch", lambda: torch.softmax(x, dim=1, out=out), check, out, do_bench)
    return row


def layer_norm(torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, quick: bool) -> list[Any]:
    m, n = (1024, 8192) if quick else (4096, 8192)
    dt = torch.float16
    x = torch.randn(m, n, device="cuda", dtype=dt)
    w = torch.rand(n, device="cuda", dtype=dt)
    b = torch.rand(n, device="cuda", dtype=dt)
    y = torch.empty_like(x)
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    block = min(65536 // x.element_size(), 1 << (n - 1).bit_length())
    warps = min(max(block // 256, 1), 8)
    row = _row(f"layer_norm fwd fp16 {m}x{n}", "GB/s", 2.0 * m * n * 2)
    expect = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)

    def check() -> bool:
        return bool(torch.allclose(y.float(), expect, rtol=1e-2, atol=1e-2))

    args = (x, y, w, b, mean, rstd, x.stride(0), n, 1e-5)
    _measure(
        row,
        "tilec",
        lambda: launch(tk.layer_norm_fwd, (m,), args, {"BLOCK": block}, warps),
        check,
        y,
        do_bench,
    )
    _measure(
        row,
        "triton",
        lambda: tr.layer_norm_fwd[(m,)](*args, BLOCK=block, num_warps=warps),
        check,
        y,
        do_bench,
    )
    _measure(
        row,
        "torch",
        lambda: y.copy_(torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)),
        check,
        y,
        do_bench,
    )
    return [row]


def matmul(torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, quick: bool) -> list[Any]:
    sizes = [1024] if quick else [4096, 8192]
    return [
        _matmul_one(torch, tk, tr, launch, do_bench, size, dtype)
        for dtype in ("float16", "bfloat16")
        for size in sizes
    ]


def _matmul_one(
    torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, size: int, dtype: str
) -> Any:
    dt = getattr(torch, dtype)
    a = torch.randn(size, size, device="cuda", dtype=dt)
    b = torch.randn(size, size, device="cuda", dtype=dt)
    c = torch.empty(size, size, device="cuda", dtype=dt)
    short = "fp16" if dtype == "float16" else "bf16"
    row = _row(f"matmul {short} {size}^3", "TFLOP/s", 2.0 * size**3)
    expect = a.float() @ b.float()

    def check() -> bool:
        return bool(torch.allclose(c.float(), expect, rtol=1e-2, atol=0.25))

    args = (a, b, c, size, size, size, a.stride(0), 1, b.stride(0), 1, c.stride(0), 1)
    big = {"BM": 128, "BN": 256, "BK": 64, "GROUP": 8}
    big_grid = (triton_cdiv(size, 128) * triton_cdiv(size, 256),)
    small = {"BM": 128, "BN": 128, "BK": 32, "GROUP": 8}
    small_grid = (triton_cdiv(size, 128) ** 2,)
    for impl, meta, grid in (
        ("tilec", {**big, "num_stages": 3}, big_grid),  # Triton's configuration
        ("tilec_128x128x32", {**small, "num_stages": 3}, small_grid),
        ("tilec_unpipelined", {**small, "num_stages": 1}, small_grid),
    ):
        _measure(
            row,
            impl,
            lambda m=meta, g=grid: launch(tk.matmul, g, args, m, 8),
            check,
            c,
            do_bench,
        )
    _measure(
        row,
        "triton",
        lambda: tr.matmul[big_grid](*args, **big, num_warps=8, num_stages=3),
        check,
        c,
        do_bench,
    )
    _measure(row, "torch", lambda: torch.matmul(a, b, out=c), check, c, do_bench)
    row.notes["config"] = (
        "tilec and triton BM=128 BN=256 BK=64 8 warps 3 stages (both: wgmma on sm_90a unless "
        "DISABLE_MMA_V3=1, then mma.sync; tilec's operands cp.async'ed into the dot's swizzled "
        "layout); tilec_128x128x32: BM=BN=128 BK=32 3 stages; tilec_unpipelined: "
        "the same with num_stages=1"
    )
    return row


def attention(torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, quick: bool) -> list[Any]:
    shapes = (
        [(2, 8, 1024, 64)] if quick else [(4, 16, 2048, 64), (4, 16, 4096, 64), (4, 8, 4096, 128)]
    )
    return [_attention_one(torch, tk, tr, launch, do_bench, *shape) for shape in shapes]


def _attention_one(
    torch: Any, tk: Any, tr: Any, launch: Any, do_bench: Any, z: int, h: int, n: int, d: int
) -> Any:
    q, k, v = (torch.randn(z, h, n, d, device="cuda", dtype=torch.float16) * 0.5 for _ in range(3))
    o = torch.empty_like(q)
    scale = d**-0.5
    row = _row(f"attention fwd fp16 Z{z} H{h} N{n} D{d}", "TFLOP/s", 4.0 * z * h * n * n * d)
    expect = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), scale=scale
    )

    def check() -> bool:
        return bool(torch.allclose(o.float(), expect, rtol=2e-2, atol=2e-2))

    args = (q, k, v, o, scale, n)
    meta = {"BM": 64, "BN": 64, "D": d}
    grid = (n // 64, z * h)
    _measure(
        row, "tilec", lambda: launch(tk.attention_fwd, grid, args, meta, 4), check, o, do_bench
    )
    wide = {"BM": 128, "BN": 64, "D": d}
    wide_grid = (n // 128, z * h)
    _measure(
        row,
        "tilec_128x64_w8",
        lambda: launch(tk.attention_fwd, wide_grid, args, wide, 8),
        check,
        o,
        do_bench,
    )
    _measure(
        row,
        "triton",
        lambda: tr.attention_fwd[grid](*args, **meta, num_warps=4),
        check,
        o,
        do_bench,
    )
    _measure(
        row,
        "torch",
        lambda: o.copy_(torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)),
        check,
        o,
        do_bench,
    )
    row.notes["config"] = (
        "tilec and triton BM=64 BN=64 4 warps, non-causal; tilec_128x64_w8: BM=128 BN=64 8 warps"
    )
    return row


CASES = [vector_add, softmax, layer_norm, matmul, attention]
