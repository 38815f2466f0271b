"""How control flow lowers: compile-time branches vanish, run-time ones become region ops with
merged or loop-carried values, static_range unrolls, early returns nest the rest."""

from __future__ import annotations

import tilec.language as tl
from support.build import build, op_names
from tilec.ir import ops as O


def k_const_if(p, FLAG: tl.constexpr):
    x = 1.0
    if FLAG:
        x = 2.0
    tl.store(p, x)


def test_constexpr_if_is_resolved():
    names = op_names(k_const_if, "*fp32", True)
    assert "if" not in names
    store = next(op for op in build(k_const_if, "*fp32", False).walk() if isinstance(op, O.StoreOp))
    assert store.value.defining_op.value == 1.0


def k_runtime_if(p, n):
    x = 1.0
    y = 0
    if n > 3:
        x = 2.0
        z = 5  # noqa: F841 - defined on one path only: not merged
    else:
        y = n
    tl.store(p, x + y)


def test_runtime_if_merges_changed_names():
    ifs = [op for op in build(k_runtime_if, "*fp32", "i32").walk() if isinstance(op, O.IfOp)]
    assert len(ifs) == 1
    assert [str(r.type) for r in ifs[0].results] == ["fp32", "i32"]


def k_static(p):
    acc = 0.0
    for i in tl.static_range(4):
        acc += i
    tl.store(p, acc)


def test_static_range_unrolls():
    assert "for" not in op_names(k_static, "*fp32")


def k_range_attrs(p, n):
    acc = tl.zeros((16,), tl.float32)
    for i in tl.range(0, n, 2, num_stages=3, loop_unroll_factor=4, flatten=True):
        acc += i
    tl.store(p + tl.arange(0, 16), acc)


def test_tl_range_attributes_reach_the_for_op():
    loop = next(op for op in build(k_range_attrs, "*fp32", "i32").walk() if isinstance(op, O.ForOp))
    assert (loop.num_stages, loop.loop_unroll_factor, loop.flatten) == (3, 4, True)
    assert [str(v.type) for v in loop.init_args] == ["tile<16xfp32>"]


def k_while(p, n):
    i = 0
    s = 1.0
    while i < n:
        s = s * 2.0
        i += 1
    tl.store(p, s)


def test_while_carries_values():
    loop = next(op for op in build(k_while, "*fp32", "i32").walk() if isinstance(op, O.WhileOp))
    assert sorted(str(r.type) for r in loop.results) == ["fp32", "i32"]


def k_early_return(p, n):
    if tl.program_id(0) >= n:
        return
    tl.store(p, 1.0)


def test_early_return_nests_the_rest():
    func = build(k_early_return, "*fp32", "i32").functions[0]
    top = [op.name for op in func.body.ops]
    assert top[-2:] == ["if", "return"] and "store" not in top
    if_op = next(op for op in func.body.ops if isinstance(op, O.IfOp))
    assert [op.name for op in if_op.else_block.ops][-2:] == ["store", "yield"]
    assert [op.name for op in if_op.then_block.ops] == ["yield"]


def k_block_ptr_loop(p, n):
    bp = tl.make_block_ptr(p, (n, n), (n, 1), (0, 0), (16, 16), (1, 0))
    acc = tl.zeros((16, 16), tl.float32)
    for _ in range(0, n, 16):
        acc += tl.load(bp, boundary_check=(0, 1))
        bp = tl.advance(bp, (0, 16))
    tl.store(bp, acc)


def test_only_changing_parts_of_a_block_pointer_are_carried():
    loop = next(
        op for op in build(k_block_ptr_loop, "*fp32", "i32").walk() if isinstance(op, O.ForOp)
    )
    # the two offsets and the accumulator; base, shape and strides are loop-invariant
    assert [str(r.type) for r in loop.results] == ["tile<16x16xfp32>", "i32", "i32"]


def k_ifexp(p, n):
    tl.store(p, 1.0 if n > 0 else 2.0)


def test_runtime_conditional_expression():
    assert "if" in op_names(k_ifexp, "*fp32", "i32")


def k_while_invariant(p, n):
    i = 0
    step = 2
    while i < n:
        step = step
        i += step
    tl.store(p, i)


def test_while_drops_unchanged_values():
    loop = next(
        op for op in build(k_while_invariant, "*i32", "i32").walk() if isinstance(op, O.WhileOp)
    )
    assert [str(r.type) for r in loop.results] == ["i32"]
