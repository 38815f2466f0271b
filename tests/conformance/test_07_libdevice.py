"""Tutorial 07: an extern math function through ``triton.language.extra.libdevice`` (asin),
for fp32 and fp64 inputs, over a ragged size; on the CPU it resolves to the host's routines."""

from __future__ import annotations

import numpy as np
import pytest

from . import kernels
from .buffers import assert_guard_untouched, guarded, poisoned, uniform


@pytest.mark.parametrize(("dtype", "rtol"), [(np.float32, 2e-7), (np.float64, 1e-15)])
def test_asin(dtype, rtol):
    n = 1001
    x = uniform(n, dtype, -1, 1)
    x[:3] = [-1.0, 0.0, 1.0]  # the ends of the domain and the zero
    out, whole = guarded(n, dtype)
    kernels.asin(x, out)
    np.testing.assert_allclose(out, np.arcsin(x.astype(np.float64)), rtol=rtol, atol=1e-30)
    assert_guard_untouched(out, whole)


def test_asin_outside_the_domain_is_nan():
    x = np.array([1.5, -2.0, np.inf, np.nan], np.float32)
    out, _ = guarded(4, np.float32)
    out[...] = 0.0
    kernels.asin(x, out)
    assert np.isnan(out).all()


def test_custom_libdevice_path_is_accepted():
    # The tutorial's extern_libs launch option; the CPU uses the host's math routines instead.
    x = uniform(100, np.float32, -1, 1)
    out = poisoned(100, np.float32)
    kernels.asin_kernel[(1,)](
        x, out, 100, BLOCK_SIZE=128, extern_libs={"libdevice": "/opt/libdevice.10.bc"}
    )
    np.testing.assert_allclose(out, np.arcsin(x.astype(np.float64)), rtol=2e-7, atol=1e-30)
