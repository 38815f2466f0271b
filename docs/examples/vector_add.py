"""Add two vectors with a tilec kernel on the default (CPU) backend and compare with numpy."""

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def main() -> None:
    rng = np.random.default_rng()
    n = 98_432
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    grid = lambda meta: (tilec.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    expected = x + y
    print("tilec :", out[:4], "...")
    print("numpy :", expected[:4], "...")
    err = float(np.max(np.abs(out - expected)))
    print(f"max abs difference vs numpy: {err:.3g}")
    if not np.allclose(out, expected):
        raise SystemExit("tilec's result differs from numpy's")
    print("ok")


if __name__ == "__main__":
    main()
