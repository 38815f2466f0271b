"""Run in a fresh process by the end-to-end tests: a vector add on the real CPU backend, reporting
whether it had to be compiled (not on a disk-cache hit) and how long the call took."""

from __future__ import annotations

import json
import time

t_start = time.perf_counter()

import numpy as np  # noqa: E402

import tilec  # noqa: E402
import tilec.language as tl  # noqa: E402
from tilec.runtime import compiler  # noqa: E402

COMPILES = []
_uncached = compiler._compile_uncached


def _counting(*args, **kwargs):
    COMPILES.append(1)
    return _uncached(*args, **kwargs)


compiler._compile_uncached = _counting


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def main() -> dict:
    rng = np.random.default_rng()
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    t0 = time.perf_counter()
    add_kernel[(tilec.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    first_call = time.perf_counter() - t0
    ok = bool(np.allclose(out, x.astype(np.float64) + y, rtol=1e-6, atol=0))
    return {
        "ok": ok,
        "compiled": len(COMPILES),
        "first_call_s": first_call,
        "process_s": time.perf_counter() - t_start,
    }


if __name__ == "__main__":
    print(json.dumps(main()))
