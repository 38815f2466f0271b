"""CPU objects never need a compiler runtime helper (``__truncdfhf2``, ``__extendhfsf2``,
``__udivti3`` ...): a Python process need not have one, and the kernel would fail at launch. Every
cast pair, integer division width, umulhi and the math functions are compiled for the host, for
baseline x86-64 (no F16C) and for AArch64, and each object's undefined symbols are checked
against the C library names tilec calls on purpose."""

from __future__ import annotations

import pytest

from tilec.backends import registry
from tilec.backends.cpu.objfile import undefined_symbols
from tilec.backends.target import CompileOptions, Target
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg
from tilec.ir.types import TileType

from .support import kernel

TYPES = [T.int8, T.int16, T.int32, T.int64, T.uint8, T.uint16, T.uint32, T.uint64, T.float16,
         T.bfloat16, T.float32, T.float64]  # fmt: skip
FLOATS = [T.float16, T.bfloat16, T.float32, T.float64]
MATH = ["exp", "exp2", "log", "log2", "sqrt", "sin", "cos", "tanh", "floor", "ceil", "rint",
        "round", "trunc", "abs", "neg", "rsqrt", "erf", "pow", "fmod", "atan2", "fma", "signbit",
        "isnan", "ilogb"]  # fmt: skip
_LIBM = ["exp", "exp2", "log", "log2", "sin", "cos", "tan", "tanh", "erf", "pow", "fmod", "atan2",
         "floor", "ceil", "rint", "round", "trunc", "sqrt", "fma", "ilogb", "nearbyint", "ldexp"]  # fmt: skip
ALLOWED = {*_LIBM, *(n + "f" for n in _LIBM), "memcpy", "memset", "memmove", "printf", "fflush",
           "abort", "__chkstk", "_fltused"}  # fmt: skip
TARGETS = {
    "host": None,
    "x86-64": Target("cpu", "x86-64", "", "x86_64-unknown-linux-gnu"),
    "aarch64": Target("cpu", "generic", "+neon", "aarch64-unknown-linux-gnu"),
}
N = 64


def _module(pairs: list[tuple[T.ScalarType, T.ScalarType]], ops: list[str]) -> O.ModuleOp:
    """One kernel per type pair: load ``src``, apply every op in ``ops``, store ``dst``."""
    src_types = sorted({s for s, _ in pairs}, key=str)
    specs = [pointer_arg(f"in_{s}", s) for s in src_types]
    specs += [pointer_arg(f"out{i}", d) for i, (_, d) in enumerate(pairs)]

    def body(b, *args) -> None:
        ins = dict(zip(src_types, args[: len(src_types)]))
        outs = args[len(src_types) :]
        offs = b.make_range(0, N)
        for (s, d), out in zip(pairs, outs):
            x = b.load(b.addptr(b.splat(ins[s], (N,)), offs))
            for op in ops:
                x = _apply(b, op, x, s)
            b.store(b.addptr(b.splat(out, (N,)), offs), b.cast(x, TileType((N,), d)))

    return kernel(specs, body)


def _apply(b, op: str, x, t: T.ScalarType):
    if op in ("div", "rem"):
        kind = O.BinaryKind.DIV if op == "div" else O.BinaryKind.REM
        return b.binary(kind, x, b.binary(O.BinaryKind.ADD, x, x))
    if op == "umulhi":
        return b.math("umulhi", x, x)
    if op in ("pow", "fmod", "atan2"):
        return b.math(op, x, x)
    if op == "fma":
        return b.math("fma", x, x, x)
    if op in ("signbit", "isnan"):
        return b.select(b.math(op, x), x, x)
    if op == "ilogb":
        return b.math("ldexp", x, b.math("ilogb", x))
    return b.math(op, x)


def _assert_no_helpers(module: O.ModuleOp, target_name: str, what: str = "") -> None:
    backend = registry.get("cpu")
    target = TARGETS[target_name] or backend.driver.current_target()
    compiled = backend.compiler.compile(module, target, CompileOptions())
    obj = compiled.asm["obj"]
    assert isinstance(obj, bytes)
    names = {n.lstrip("_") if target_name == "macos" else n for n in undefined_symbols(obj)}
    extra = sorted(names - ALLOWED)
    assert not extra, f"{target_name}: the object{what} needs {extra}"


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_cast_pair(target: str) -> None:
    # a kernel per pair: one kernel of all 132 casts took LLVM's AArch64 code generator 4 times
    # as long as the 132 small ones (its cost grows faster than the kernel)
    for s in TYPES:
        for d in TYPES:
            if d != s:
                _assert_no_helpers(_module([(s, d)], []), target, f" of the cast {s} -> {d}")


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_integer_division_and_umulhi(target: str) -> None:
    ints = [t for t in TYPES if t.is_int()]
    unsigned = [t for t in ints if t.kind is T.Kind.UINT]
    _assert_no_helpers(_module([(t, t) for t in ints], ["div", "rem"]), target)
    _assert_no_helpers(_module([(t, t) for t in unsigned], ["umulhi"]), target)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_math_functions(target: str) -> None:
    for fn in MATH:
        _assert_no_helpers(_module([(t, t) for t in FLOATS], [fn]), target)
