"""Tutorial 4: dropout whose mask is never stored — random numbers from (seed, offset).

Dropout zeroes each element with probability p and scales the survivors by 1 / (1 - p). The
usual implementation draws a keep-mask, stores it for the backward pass, and reads it again.
``tl.rand(seed, offsets)`` is a counter-based generator (Philox): the same seed and offset
always give the same number, on any device and in any program. So the backward pass can
regenerate the mask instead of keeping it, and the only state dropout needs is one integer.

Run it:  python docs/tutorials/04_low_memory_dropout.py [--quick] [--device cpu|cuda]
"""

from __future__ import annotations

import _tutorial
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = idx < n
    x = tl.load(x_ptr + idx, mask=inside)
    keep = tl.rand(seed, idx) > p  # a fresh uniform number in [0, 1) per element
    tl.store(out_ptr + idx, tl.where(keep, x / (1 - p), 0.0), mask=inside)


@tilec.jit
def uniform_kernel(out_ptr, n, seed, BLOCK: tl.constexpr):
    # The numbers dropout_kernel compares with p, written out so the check can see them.
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + idx, tl.rand(seed, idx), mask=idx < n)


def dropout(x, out, p: float, seed: int, block: int = 1024):
    n = out.numel() if hasattr(out, "numel") else out.size
    dropout_kernel[(tilec.cdiv(n, block),)](x, out, n, p, seed, BLOCK=block)
    return out


def main() -> None:
    s = _tutorial.start("low-memory-dropout", __doc__.splitlines()[0])
    n, p, seed = (5_003 if s.quick else 1_000_003), 0.3, 1234
    x = s.rand(n, lo=0.5, hi=1.5)  # never zero, so a dropped element is always visible
    out = dropout(x, s.empty(n), p, seed)

    uniform = s.empty(n)
    uniform_kernel[(tilec.cdiv(n, 1024),)](uniform, n, seed, BLOCK=1024)
    u = s.numpy(uniform)
    expected = np.where(u > p, s.numpy(x) / (1 - p), 0.0)
    s.check("dropout", out, expected, atol=1e-6, rtol=1e-6)

    again = s.numpy(dropout(x, s.empty(n), p, seed))
    other = s.numpy(dropout(x, s.empty(n), p, seed + 1))
    if not np.array_equal(again, s.numpy(out)):
        raise SystemExit("the same seed gave a different mask")
    if np.array_equal(other, again):
        raise SystemExit("a different seed gave the same mask")
    kept = float(np.mean(s.numpy(out) != 0))
    # the kept fraction is Binomial(n, 1 - p) / n: 6 standard deviations is a safe band
    band = 6 * np.sqrt(p * (1 - p) / n)
    if not (u.min() >= 0.0 and u.max() < 1.0 and abs(kept - (1 - p)) < band):
        raise SystemExit(f"kept {kept:.4f} of the elements, expected {1 - p} +- {band:.4f}")
    print(
        f"check passed: the mask is reproducible from the seed; kept {kept:.4f} (expected {1 - p})"
    )

    def bench(size, provider):
        xs, ys = s.rand(size), s.empty(size)
        if provider == "tilec":
            ms = s.time_ms(lambda: dropout(xs, ys, p, seed))
        elif provider == "torch":
            ms = s.time_ms(lambda: s.torch.nn.functional.dropout(xs, p, training=True))
        elif provider == "numpy":
            rng = np.random.default_rng(seed)
            ms = s.time_ms(lambda: np.where(rng.random(size) > p, xs / (1 - p), 0.0))
        else:
            twin = _tutorial.triton_twins(s.triton, dropout_kernel).dropout_kernel
            grid = (tilec.cdiv(size, 1024),)
            ms = s.time_ms(lambda: twin[grid](xs, ys, size, p, seed, BLOCK=1024))
        return _tutorial.gbps(2 * 4 * size, ms)

    sizes = [2**i for i in (range(12, 16) if s.quick else range(14, 25, 2))]
    s.benchmark(bench, x_names=["size"], x_vals=sizes, x_log=True, xlabel="elements", ylabel="GB/s")


if __name__ == "__main__":
    main()
