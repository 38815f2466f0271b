"""Alias scopes of the CPU backend: tile-buffer accesses carry the buffer scope, memory accesses
exclude it, and an address that may be either gets neither (LLVM then assumes nothing)."""

from __future__ import annotations

from llvmlite import ir

from tilec.backends.cpu import aliasing

F32, I64, PTR = ir.FloatType(), ir.IntType(64), ir.PointerType()


def _function() -> tuple[ir.Function, ir.IRBuilder]:
    module = ir.Module()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, ir.IntType(1)]), "f")
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


def _scopes(instr: ir.Instruction) -> set[str]:
    return {name for name in ("alias.scope", "noalias") if name in instr.metadata}


def test_buffers_and_memory_are_told_apart() -> None:
    fn, b = _function()
    user, flag = fn.args
    buf = b.alloca(ir.ArrayType(F32, 64))
    elem = b.gep(buf, [ir.Constant(I64, 0), ir.Constant(I64, 3)], source_etype=buf.allocated_type)
    from_buffer = b.load(elem, typ=F32)
    out = b.gep(user, [ir.Constant(I64, 5)], source_etype=F32)
    to_memory = b.store(from_buffer, out)
    loaded_ptr = b.load(user, typ=PTR)  # a pointer read from memory points into memory
    through = b.load(b.gep(loaded_ptr, [ir.Constant(I64, 1)], source_etype=F32), typ=F32)
    either = b.load(b.select(flag, elem, out), typ=F32)
    b.ret_void()
    aliasing.annotate(fn)
    assert _scopes(from_buffer) == {"alias.scope"}
    assert _scopes(to_memory) == {"noalias"}
    assert _scopes(loaded_ptr) == {"noalias"}
    assert _scopes(through) == {"noalias"}
    assert _scopes(either) == set()
    text = str(fn.module)
    assert '!"tilec.buffers"' in text and '!"tilec.program"' in text


def test_heap_block_is_a_buffer() -> None:
    fn, b = _function()
    malloc = ir.Function(fn.module, ir.FunctionType(PTR, [I64]), "malloc")
    heap = b.call(malloc, [ir.Constant(I64, 256)])
    load = b.load(b.gep(heap, [ir.Constant(I64, 8)], source_etype=ir.IntType(8)), typ=F32)
    b.ret_void()
    aliasing.annotate(fn)
    assert _scopes(load) == {"alias.scope"}
