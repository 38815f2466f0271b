"""``tilec doctor --run``: compile and run a 1-block add kernel on each backend, in a subprocess.

The platform layer may not import the compiler, and a compiler or driver crash must not take the
doctor down, so the kernel runs in a fresh interpreter through ``System.run_python``; its exit
status and last error line become a Finding.
"""

from __future__ import annotations

import time

from .finding import Category, Finding, Status
from .system import System

_KERNEL = """
import numpy as np
import tilec
import tilec.language as tl

@tilec.jit(backend={backend!r})
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)

rng = np.random.default_rng()
n = 100
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
out = np.full(n, np.nan, dtype=np.float32)
{launch}
err = float(np.max(np.abs(out.astype(np.float64) - (x.astype(np.float64) + y))))
assert err < 1e-6, f"wrong result: max abs error {{err}}"
print("TILEC_SMOKE_OK", err)
"""

_CPU_LAUNCH = "add[(1,)](x, y, out, n, BLOCK=128)"

# Device memory through cuda-bindings, exposed with __cuda_array_interface__ (no torch needed).
_CUDA_LAUNCH = """
from cuda.bindings import driver as cu

def check(result):
    status, *values = result if isinstance(result, tuple) else (result,)
    if int(status) != 0:
        raise RuntimeError(f"CUDA driver call failed: {status}")
    return values

check(cu.cuInit(0))
(dev,) = check(cu.cuDeviceGet(0))
(ctx,) = check(cu.cuDevicePrimaryCtxRetain(dev))
check(cu.cuCtxSetCurrent(ctx))

class DeviceArray:
    def __init__(self, host):
        self.n = host.size
        (self.ptr,) = check(cu.cuMemAlloc(host.nbytes))
        check(cu.cuMemcpyHtoD(self.ptr, host.ctypes.data, host.nbytes))

    @property
    def __cuda_array_interface__(self):
        return {"shape": (self.n,), "typestr": "<f4", "data": (int(self.ptr), False),
                "strides": None, "version": 3}

dx, dy, dout = DeviceArray(x), DeviceArray(y), DeviceArray(out)
add[(1,)](dx, dy, dout, n, BLOCK=128)
check(cu.cuCtxSynchronize())
check(cu.cuMemcpyDtoH(out.ctypes.data, dout.ptr, out.nbytes))
"""

SMOKE_TIMEOUT_S = 300.0


def kernel_source(backend: str) -> str:
    """The program ``--run`` executes for ``backend`` ("cpu" or "cuda")."""
    launch = _CUDA_LAUNCH if backend == "cuda" else _CPU_LAUNCH
    return _KERNEL.format(backend=backend, launch=launch)


def run_smoke(system: System, backend: str) -> Finding:
    """Compile and run the add kernel on ``backend``; the result (or the real error) as a Finding."""
    start = time.perf_counter()
    result = system.run_python(kernel_source(backend), timeout=SMOKE_TIMEOUT_S)
    seconds = time.perf_counter() - start
    check = f"smoke.{backend}"
    if result.ok and "TILEC_SMOKE_OK" in result.stdout:
        summary = (
            f"{backend}: compiled and ran a 1-block add kernel, matches numpy ({seconds:.1f} s)"
        )
        return Finding(check, Category.SMOKE, Status.OK, summary)
    lines = [ln for ln in (result.stderr or result.stdout).strip().splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else f"exit status {result.returncode}"
    if result.returncode < 0 and not lines:
        last = f"killed by signal {-result.returncode}"
    summary = f"{backend}: the smoke kernel failed: {last}"
    return Finding(check, Category.SMOKE, Status.FAIL, summary, tuple(lines[-15:]))
