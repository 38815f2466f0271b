"""A launch with a missing argument is a UsageError that names the kernel and the argument (not
a bare TypeError from the generated launch function)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import UsageError


@tilec.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


CALLS = {
    "missing_runtime": (lambda k, x: k[(1,)](x, x, BLOCK=16), "'n'"),
    "missing_constexpr": (lambda k, x: k[(1,)](x, x, 16), "'BLOCK'"),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_wrong_argument_count_names_the_argument(case: str) -> None:
    call, name = CALLS[case]
    x = np.zeros(16, np.float32)
    with pytest.raises(UsageError) as info:
        call(copy, x)
    assert str(info.value).startswith("copy") and name in str(info.value)
    assert "_tilec" not in str(info.value)
