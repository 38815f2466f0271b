"""Compile an llvmlite module to this machine's code and run it in the test process, for tests
of the element layer that call one emitted function directly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir


def compile_native(module: ir.Module | str, opt: int = 2) -> Any:
    """An MCJIT engine holding ``module`` (parsed and verified), its code emitted; keep it alive
    while its functions are called."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(opt=opt)
    engine = llvm.create_mcjit_compiler(parsed, machine)
    engine.finalize_object()
    return engine


def native_function(
    build: Callable[[ir.IRBuilder, list[ir.Value]], ir.Value], args: list[ir.Type], ret: ir.Type
) -> tuple[Any, int]:
    """``f(args) -> ret`` whose body returns ``build(builder, arguments)``, compiled: the engine
    and the function's address."""
    module = ir.Module(name="m")
    fn = ir.Function(module, ir.FunctionType(ret, args), "f")
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(build(b, list(fn.args)))
    engine = compile_native(module)
    return engine, engine.get_function_address("f")
