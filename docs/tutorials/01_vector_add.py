"""Tutorial 1: vector addition — the shape of every tilec program.

A kernel is a Python function under ``@tilec.jit``. It is launched over a *grid* of programs;
each program works on one tile (here BLOCK consecutive elements) chosen by its
``tl.program_id``. Loads and stores take a tile of pointers and a mask: the last program's tile
hangs past the end of the arrays, and the mask keeps it from touching memory it does not own.

Run it:  python docs/tutorials/01_vector_add.py [--quick] [--device cpu|cuda] [--no-bench]
"""

from __future__ import annotations

import _tutorial
import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # BLOCK is a compile-time constant: tile shapes must be known when the kernel is compiled.
    first = tl.program_id(axis=0) * BLOCK
    idx = first + tl.arange(0, BLOCK)  # the BLOCK element indices this program owns
    inside = idx < n
    a = tl.load(a_ptr + idx, mask=inside)
    b = tl.load(b_ptr + idx, mask=inside)
    tl.store(out_ptr + idx, a + b, mask=inside)


def add(a, b, out, block: int = 1024):
    """Host side: pick the grid (enough programs to cover n) and launch."""
    n = out.numel() if hasattr(out, "numel") else out.size
    add_kernel[(tilec.cdiv(n, block),)](a, b, out, n, BLOCK=block)
    return out


def main() -> None:
    s = _tutorial.start("vector-add", __doc__.splitlines()[0])
    n = 10_007 if s.quick else 1_000_003  # not a multiple of BLOCK: the mask matters
    a, b = s.rand(n), s.rand(n)
    out = add(a, b, s.empty(n))
    s.check("a + b", out, s.numpy(a) + s.numpy(b), atol=1e-6, rtol=1e-6)

    def bench(size, provider):
        x, y, z = s.rand(size), s.rand(size), s.empty(size)
        if provider == "tilec":
            ms = s.time_ms(lambda: add(x, y, z))
        elif provider == "torch":
            ms = s.time_ms(lambda: s.torch.add(x, y, out=z))
        elif provider == "numpy":
            ms = s.time_ms(lambda: np.add(x, y, out=z))
        else:
            twin = _tutorial.triton_twins(s.triton, add_kernel).add_kernel
            ms = s.time_ms(lambda: twin[(tilec.cdiv(size, 1024),)](x, y, z, size, BLOCK=1024))
        return _tutorial.gbps(3 * 4 * size, ms)  # two reads and one write of float32

    sizes = [2**i for i in (range(12, 17) if s.quick else range(12, 26, 2))]
    s.benchmark(bench, x_names=["size"], x_vals=sizes, x_log=True, xlabel="elements", ylabel="GB/s")


if __name__ == "__main__":
    main()
