"""tl.cat along any dimension (negative ones too), compared with numpy's concatenate."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def cat3(x_ptr, y_ptr, z_ptr, DIM: tl.constexpr):
    a, b, c = tl.arange(0, 2), tl.arange(0, 4), tl.arange(0, 8)
    offs = a[:, None, None] * 32 + b[None, :, None] * 8 + c[None, None, :]
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.cat(x, y, dim=DIM)
    tl.store(z_ptr + tl.arange(0, 128), z.reshape([128]))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_along_each_dimension(dim):
    x, y = random((2, 4, 8), np.float32, -1, 1), random((2, 4, 8), np.float32, -1, 1)
    z = poisoned(128, np.float32)
    cat3[(1,)](x, y, z, DIM=dim)
    np.testing.assert_array_equal(z, np.concatenate([x, y], axis=dim).ravel())
