"""Rule for DotOp: ``acc + a @ b`` on stack buffers, accumulated in fp32 / i32 / fp64.

Operands are materialized once (row-major), then multiplied by the kernel in cpu/matmul.py;
fp16/bf16 inputs are widened to fp32 and int8 to i32, so the accumulation is exact in type.
"""

from __future__ import annotations

from collections.abc import Callable

from ....errors import UnsupportedFeature
from ....ir import ops as O
from ....ir.types import ScalarType, element_of, float32, float64, int32, shape_of
from ..lower import Lowering
from ..matmul import matmul
from ..scalar import cast
from ..tiles import BufferTile, MapTile


def accumulator_type(a: ScalarType, acc: ScalarType) -> ScalarType:
    if acc.is_floating():
        return float64 if (acc.name == "fp64" or a.name == "fp64") else float32
    if a.is_int() and acc.is_int():
        return int32 if acc.bits <= 32 else acc
    raise UnsupportedFeature(f"dot of {a} inputs into a {acc} accumulator")


def _dot(lw: Lowering, op: O.DotOp) -> None:
    a_v, b_v, c_v = op.operands
    ea, eb, ec = (element_of(v.type) for v in op.operands)
    assert isinstance(ea, ScalarType) and isinstance(eb, ScalarType) and isinstance(ec, ScalarType)
    work = accumulator_type(ea, ec)
    shape = shape_of(c_v.type)
    a = lw.materialize(lw.tile(a_v))
    b = lw.materialize(lw.tile(b_v))
    c_in = lw.tile(c_v, shape)
    if ec != work:
        c_in = MapTile(c_in.shape, work, [c_in], lambda bld, v: cast(bld, v[0], ec, work))
    aliases = sum(1 for x in lw.env.values() if x is c_in)
    if isinstance(c_in, BufferTile) and lw.live.n_users(c_v) == 1 and aliases == 1:
        c = c_in  # nobody else reads this accumulator: add into it in place (loop carries)
    else:
        c = lw.buffer(work, shape)
        lw.write(c_in, c)
    matmul(lw, a, b, c)
    if ec != work:
        out = lw.materialize(MapTile(shape, ec, [c], lambda bld, v: cast(bld, v[0], work, ec)))
        lw.define(op.result, out)
    else:
        lw.define(op.result, c)


RULES: dict[type, Callable[..., None]] = {O.DotOp: _dot}
