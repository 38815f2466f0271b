"""Tutorial 7: math beyond ``tl`` — the ``libdevice`` functions.

``tl`` has the everyday functions (exp, log, sqrt, sin ...). Special functions come from
``tilec.language.extra.libdevice``, the module Triton kernels import under the same name
(``triton.language.extra.libdevice``), so kernels that use it port by changing the import. On
an NVIDIA GPU each call becomes a call into NVIDIA's libdevice bitcode (``TILEC_LIBDEVICE_PATH``
picks a different file); on the CPU it becomes the host's math routines or tilec's own
polynomials. ``dir(libdevice)`` lists every function tilec provides; a name it lacks is a
clear compile error, not a wrong answer.

Run it:  python docs/tutorials/07_libdevice_functions.py [--quick] [--device cpu|cuda]
"""

from __future__ import annotations

import math

import _tutorial
import numpy as np

import tilec
import tilec.language as tl
from tilec.language.extra import libdevice


@tilec.jit
def special_kernel(
    x_ptr, y_ptr, erf_ptr, lgamma_ptr, cbrt_ptr, asinh_ptr, hypot_ptr, n, BLOCK: tl.constexpr
):
    # Five functions of one input tile: one compiled kernel, five outputs.
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = idx < n
    x = tl.load(x_ptr + idx, mask=inside, other=1.0)
    y = tl.load(y_ptr + idx, mask=inside, other=1.0)
    tl.store(erf_ptr + idx, libdevice.erf(x), mask=inside)
    tl.store(lgamma_ptr + idx, libdevice.lgamma(y), mask=inside)
    tl.store(cbrt_ptr + idx, libdevice.cbrt(x), mask=inside)
    tl.store(asinh_ptr + idx, libdevice.asinh(x), mask=inside)
    tl.store(hypot_ptr + idx, libdevice.hypot(x, y), mask=inside)


NAMES = ("erf", "lgamma", "cbrt", "asinh", "hypot")


def special(x, y, outs, kernel=special_kernel, block=1024):
    n = x.numel() if hasattr(x, "numel") else x.size
    kernel[(tilec.cdiv(n, block),)](x, y, *outs, n, BLOCK=block)
    return outs


def reference(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    erf, lgamma = np.vectorize(math.erf), np.vectorize(math.lgamma)
    return [erf(x), lgamma(y), np.cbrt(x), np.arcsinh(x), np.hypot(x, y)]


def main() -> None:
    s = _tutorial.start("libdevice-functions", __doc__.splitlines()[0])
    n = 3_001 if s.quick else 100_003
    x = s.rand(n, lo=-4, hi=4)
    y = s.rand(n, lo=0.1, hi=20)  # lgamma's poles are at 0, -1, -2 ...: stay positive
    outs = special(x, y, [s.empty(n) for _ in NAMES])
    for name, got, expected in zip(NAMES, outs, reference(s.numpy(x), s.numpy(y))):
        # float32 results: a few units in the last place of the float64 value
        s.check(f"libdevice.{name}", got, expected, atol=1e-6, rtol=4e-6)

    def bench(size, provider):
        xs, ys = s.rand(size, lo=-4, hi=4), s.rand(size, lo=0.1, hi=20)
        outs = [s.empty(size) for _ in NAMES]
        if provider == "tilec":
            ms = s.time_ms(lambda: special(xs, ys, outs))
        elif provider == "torch":
            t = s.torch
            ms = s.time_ms(
                lambda: (
                    t.erf(xs),
                    t.lgamma(ys),
                    xs.sign() * xs.abs().pow(1 / 3),
                    t.asinh(xs),
                    t.hypot(xs, ys),
                )
            )
        elif provider == "numpy":
            ms = s.time_ms(lambda: reference(xs, ys))
        else:
            twin = _tutorial.triton_twins(s.triton, special_kernel).special_kernel
            ms = s.time_ms(lambda: special(xs, ys, outs, kernel=twin))
        return _tutorial.gbps(7 * 4 * size, ms)  # two inputs and five outputs of float32

    sizes = [2**i for i in (range(10, 14) if s.quick else range(12, 23, 2))]
    s.benchmark(bench, x_names=["size"], x_vals=sizes, x_log=True, xlabel="elements", ylabel="GB/s")


if __name__ == "__main__":
    main()
