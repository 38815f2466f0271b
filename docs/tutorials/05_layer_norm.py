"""Tutorial 5: layer normalization — a reduction, then an elementwise pass, in one kernel.

``y = (x - mean(x)) / sqrt(var(x) + eps) * w + b`` per row. One program owns a row: when the
row fits one tile (the common case, and the one this kernel handles) it is loaded once, its
mean and variance are reduced in float32 whatever the input type, and the normalized row is
written back in the input's type. The mean and 1/std are stored too: a backward pass needs
them. Padding columns are masked out of the variance, or they would count as (0 - mean)^2.

Run it:  python docs/tutorials/05_layer_norm.py [--quick] [--device cpu|cuda] [--no-bench]
"""

from __future__ import annotations

import _tutorial
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def layer_norm_kernel(
    x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, n_cols, eps, BLOCK: tl.constexpr
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=inside, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    centered = tl.where(inside, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=inside).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=inside).to(tl.float32)
    y = centered * rstd * w + b
    tl.store(y_ptr + row * row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=inside)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def layer_norm(x, w, b, y, mean, rstd, s, eps=1e-5, kernel=layer_norm_kernel):
    n_rows, n_cols = x.shape
    kernel[(n_rows,)](
        x, y, w, b, mean, rstd, s.strides(x)[0], n_cols, eps, BLOCK=tilec.next_power_of_2(n_cols)
    )
    return y


def reference(x, w, b, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    return (x - mean) * rstd * w + b, mean[:, 0], rstd[:, 0]


def main() -> None:
    s = _tutorial.start("layer-norm", __doc__.splitlines()[0])
    dtype = "float16" if s.device == "cuda" else "float32"
    n_rows, n_cols = (61, 300) if s.quick else (1151, 2000)
    x = s.rand((n_rows, n_cols), dtype, lo=-3, hi=5)
    w, b = s.rand(n_cols, dtype), s.rand(n_cols, dtype)
    y, mean, rstd = s.empty((n_rows, n_cols), dtype), s.empty(n_rows), s.empty(n_rows)
    layer_norm(x, w, b, y, mean, rstd, s)
    ref_y, ref_mean, ref_rstd = reference(s.numpy(x), s.numpy(w), s.numpy(b))
    tol = 1e-2 if dtype == "float16" else 1e-5
    s.check("layer norm output", y, ref_y, atol=tol, rtol=tol)
    s.check("row means", mean, ref_mean, atol=1e-5, rtol=1e-5)
    s.check("row 1/std", rstd, ref_rstd, atol=1e-5, rtol=1e-4)

    n_rows = 256 if s.quick else 4096

    def bench(n_cols, provider):
        xs = s.rand((n_rows, n_cols), dtype)
        ws, bs = s.rand(n_cols, dtype), s.rand(n_cols, dtype)
        ys, ms_, rs = s.empty((n_rows, n_cols), dtype), s.empty(n_rows), s.empty(n_rows)
        if provider == "tilec":
            ms = s.time_ms(lambda: layer_norm(xs, ws, bs, ys, ms_, rs, s))
        elif provider == "torch":
            f = s.torch.nn.functional.layer_norm
            ms = s.time_ms(lambda: f(xs, (n_cols,), ws, bs, 1e-5))
        elif provider == "numpy":
            ms = s.time_ms(lambda: reference(xs, ws, bs))
        else:
            twin = _tutorial.triton_twins(s.triton, layer_norm_kernel).layer_norm_kernel
            ms = s.time_ms(lambda: layer_norm(xs, ws, bs, ys, ms_, rs, s, kernel=twin))
        size = 2 if dtype == "float16" else 4
        return _tutorial.gbps(2 * size * n_rows * n_cols, ms)

    widths = [256, 512, 1024] if s.quick else [512 * i for i in range(2, 17, 2)]
    s.benchmark(bench, x_names=["n_cols"], x_vals=widths, xlabel="columns", ylabel="GB/s")


if __name__ == "__main__":
    main()
