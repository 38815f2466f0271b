"""llvm/prune.py, which the CUDA backend runs on every kernel before printing it: dead pure
instructions go (loop-carried ones too), anything with an effect and what it uses stays; a
printed module taken apart is freed by reference counting alone."""

from __future__ import annotations

import gc
import weakref

import llvmlite.binding as llvm
from llvmlite import ir

from tilec.backends.llvm.prune import dismantle, prune

I32 = ir.IntType(32)


def _kernel() -> tuple[ir.Module, ir.Function]:
    module = ir.Module("k")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.PointerType(), I32]), "k")
    out, n = fn.args
    entry, loop, done = (fn.append_basic_block(x) for x in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    dead = b.mul(b.add(n, ir.Constant(I32, 1)), n)  # used by nothing
    b.udiv(dead, ir.Constant(I32, 3))
    live = b.shl(n, ir.Constant(I32, 2))
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(I32)
    junk = b.phi(I32)  # a loop-carried value nothing outside the cycle reads
    i_next = b.add(i, ir.Constant(I32, 1))
    junk_next = b.xor(junk, i)
    i.add_incoming(ir.Constant(I32, 0), entry)
    i.add_incoming(i_next, loop)
    junk.add_incoming(ir.Constant(I32, 7), entry)
    junk.add_incoming(junk_next, loop)
    b.cbranch(b.icmp_unsigned("<", i_next, live), loop, done)
    b.position_at_end(done)
    b.store(b.add(i_next, live), out)
    b.ret_void()
    return module, fn


def test_prune_drops_dead_values_and_keeps_effects() -> None:
    module, fn = _kernel()
    assert prune(fn) == 5  # add, mul, udiv; the junk phi and its xor
    text = str(module)
    assert " mul " not in text and " udiv " not in text and " xor " not in text
    assert text.count(" phi ") == 1 and "store" in text and " shl " in text
    parsed = llvm.parse_assembly(text)
    parsed.verify()
    assert prune(fn) == 0


def test_dismantled_module_is_freed_without_the_collector() -> None:
    module, fn = _kernel()
    probe = weakref.ref(fn.blocks[1].instructions[0])
    str(module)
    enabled = gc.isenabled()
    gc.disable()
    try:
        dismantle(module)
        del module, fn
        assert probe() is None
    finally:
        if enabled:
            gc.enable()
