"""Tutorial 2: a fused softmax — several rows per program, one trip through memory.

Written as separate array operations, a row softmax reads and writes the matrix several times
(max, subtract, exp, sum, divide). A kernel that holds a whole row in registers reads it once
and writes it once. This one loads a 2-D tile of ROWS rows at a time and reduces along
``axis=1``, so short rows still give every program enough work; the column count is padded to
a power of two, and the padding reads as -inf so that it adds exp(-inf) = 0 to the sum.

Run it:  python docs/tutorials/02_fused_softmax.py [--quick] [--device cpu|cuda] [--no-bench]
"""

from __future__ import annotations

import _tutorial
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def softmax_rows_kernel(
    out_ptr, x_ptr, n_rows, n_cols, x_stride, out_stride, ROWS: tl.constexpr, COLS: tl.constexpr
):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    inside = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(
        x_ptr + rows[:, None] * x_stride + cols[None, :], mask=inside, other=-float("inf")
    ).to(tl.float32)
    # Subtracting the row maximum keeps exp() from overflowing; it cancels in the ratio.
    z = x - tl.max(x, axis=1)[:, None]
    e = tl.exp(z)
    y = e / tl.sum(e, axis=1)[:, None]
    tl.store(
        out_ptr + rows[:, None] * out_stride + cols[None, :],
        y.to(out_ptr.dtype.element_ty),
        mask=inside,
    )


def softmax(x, out, s):
    n_rows, n_cols = x.shape
    cols = tilec.next_power_of_2(n_cols)
    rows = max(1, min(16, 4096 // cols))  # about 4096 elements per program
    softmax_rows_kernel[(tilec.cdiv(n_rows, rows),)](
        out, x, n_rows, n_cols, s.strides(x)[0], s.strides(out)[0], ROWS=rows, COLS=cols
    )
    return out


def reference(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def main() -> None:
    s = _tutorial.start("fused-softmax", __doc__.splitlines()[0])
    shape = (123, 181) if s.quick else (1823, 781)  # neither a power of two
    x = s.rand(shape, lo=-8, hi=8)
    out = softmax(x, s.empty(shape), s)
    s.check("softmax", out, reference(s.numpy(x)), atol=1e-6, rtol=1e-5)

    n_rows = 256 if s.quick else 4096

    def bench(n_cols, provider):
        x, y = s.rand((n_rows, n_cols)), s.empty((n_rows, n_cols))
        if provider == "tilec":
            ms = s.time_ms(lambda: softmax(x, y, s))
        elif provider == "torch":
            ms = s.time_ms(lambda: s.torch.softmax(x, dim=-1))
        elif provider == "numpy":
            ms = s.time_ms(lambda: reference(x))
        else:
            twin = _tutorial.triton_twins(s.triton, softmax_rows_kernel).softmax_rows_kernel
            rows = max(1, min(16, 4096 // tilec.next_power_of_2(n_cols)))
            ms = s.time_ms(
                lambda: twin[(tilec.cdiv(n_rows, rows),)](
                    y,
                    x,
                    n_rows,
                    n_cols,
                    n_cols,
                    n_cols,
                    ROWS=rows,
                    COLS=tilec.next_power_of_2(n_cols),
                )
            )
        return _tutorial.gbps(2 * 4 * n_rows * n_cols, ms)

    widths = [128, 256, 512, 1024] if s.quick else [128 * i for i in range(2, 33, 6)]
    s.benchmark(bench, x_names=["n_cols"], x_vals=widths, xlabel="columns", ylabel="GB/s", args={})


if __name__ == "__main__":
    main()
