"""Tutorial 09's persistent matmul: fewer programs than output tiles, each striding over them
with ``tl.range(..., flatten=True)``; contiguity hints on clamped offsets; ragged M, N, K."""

from __future__ import annotations

import numpy as np
import pytest

from . import kernels
from .buffers import assert_guard_untouched, guarded, uniform


@pytest.mark.parametrize(("m", "n", "k", "num_sms"), [(77, 61, 45, 3), (16, 16, 16, 5)])
def test_persistent_matmul_fp16(m, n, k, num_sms):
    a, b = uniform((m, k), np.float16, -1, 1), uniform((k, n), np.float16, -1, 1)
    c, whole = guarded((m, n), np.float16)
    kernels.persistent_matmul(a, b, c, num_sms=num_sms)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=2e-3, atol=2e-3)
    assert_guard_untouched(c, whole)
