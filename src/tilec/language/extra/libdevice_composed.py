"""libdevice functions with no MathOp of their own, written in tl from those that have one.

``llrint`` (round half to even, then to int64) is what Inductor prints for ``RoundToInt`` in
index expressions.
"""

# mypy: ignore-errors
# (tl code: run by the frontend, where tensors have methods mypy cannot see)
from __future__ import annotations

from ...frontend.builtins_math import math_function
from .. import core as tl
from ..library import library

_rint = math_function("rint")  # libdevice.rint: the MathOp itself


@library
def llrint(x):
    return _rint(x).to(tl.int64)


COMPOSED = {"llrint": llrint}
