"""Rule for DotOp: ``acc + a @ b`` on stack buffers, accumulated in fp32 / i32 / fp64.

Operands are materialized once (row-major), then multiplied by the kernel in cpu/matmul.py;
fp16/bf16 inputs are widened to fp32 and int8 to i32, so the accumulation is exact in type.
"""

from __future__ import annotations

from collections.abc import Callable

from ....errors import UnsupportedFeature
from ....ir import ops as O
from ....ir.types import Element, ScalarType, element_of, float32, float64, int32, shape_of
from ..load_tile import LoadTile
from ..lower import Lowering
from ..matmul import WIDENED, as_work, fits_micro_kernel, matmul, micro_kernel
from ..operand import InPlace, Packed, in_bounds, in_place
from ..scalar import cast
from ..tiles import BufferTile, MapTile, Tile


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
    a_t, b_t = lw.tile(a_v), lw.tile(b_v)
    c_in = lw.tile(c_v, shape)
    if ec != work:
        c_in = MapTile(c_in.shape, work, [c_in], lambda bld, v: cast(bld, v[0], ec, work))
    aliases = sum(1 for x in lw.env.values() if x is c_in)
    # the dot counts once among the users even where the accumulator is also an operand
    # (tl.dot(c, b, c)): adding into c in place would change that operand while it is read
    operand = c_v is a_v or c_v is b_v
    alone = lw.live.n_users(c_v) == 1 and aliases == 1 and not operand
    if isinstance(c_in, BufferTile) and c_in.row_major and alone:
        c = c_in  # nobody else reads this accumulator: add into it in place (loop carries)
    else:
        c = lw.buffer(work, shape)
        lw.write(c_in, c)
    _multiply(lw, a_t, b_t, c)
    if ec != work:
        out = lw.materialize(MapTile(shape, ec, [c], lambda bld, v: cast(bld, v[0], work, ec)))
        lw.define(op.result, out)
    else:
        lw.define(op.result, c)


def _multiply(lw: Lowering, a: Tile, b: Tile, c: BufferTile) -> None:
    """``c += a @ b``. The fp32 kernel reads a loaded operand where it lies (any stride for A,
    whose elements it broadcasts; unit stride for B, whose rows it loads as vectors) when the
    load's mask holds on the whole tile: checked at run time, the other branch packs a copy."""
    if not fits_micro_kernel(lw, c):
        matmul(lw, lw.materialize(a), lw.materialize(b), c)
        return
    a_in, b_in = _in_place(a, c.elem), _in_place(b, c.elem)
    if b_in is not None and b_in.step != 1:
        b_in = None
    direct = [x for x in (a_in, b_in) if x is not None]
    if not direct:
        matmul(lw, lw.materialize(a), lw.materialize(b), c)
        return
    # an operand read through a buffer either way is packed once, before the branch
    a_op = a_in or Packed(as_work(lw, lw.materialize(a), c))
    b_op = b_in or Packed(as_work(lw, lw.materialize(b), c))
    fn = lw.b.function
    fast, slow, done = (fn.append_basic_block(f"dot.{k}") for k in ("inplace", "packed", "done"))
    lw.b.cbranch(in_bounds(lw, direct), fast, slow)
    lw.b.position_at_end(slow)
    packed_a = a_op if a_in is None else Packed(lw.materialize(a))
    packed_b = b_op if b_in is None else Packed(lw.materialize(b))
    micro_kernel(lw, packed_a, packed_b, c)
    lw.b.branch(done)
    lw.b.position_at_end(fast)
    micro_kernel(lw, a_op, b_op, c)
    lw.b.branch(done)
    lw.b.position_at_end(done)


def _in_place(t: Tile, acc: Element) -> InPlace | None:
    """``t`` read in place by the fp32 kernel (which widens fp16 / bf16 itself)."""
    if not isinstance(t, LoadTile) or t.volatile or str(acc) != "fp32":
        return None
    if str(t.elem) not in WIDENED:
        return None
    return in_place(t.ptr, t.mask, t.elem)


RULES: dict[type, Callable[..., None]] = {O.DotOp: _dot}
