"""No elementwise op, math function or cast on any float dtype makes LLVM abort on the older
targets (sm_70/75/80, where the fewest NVPTX instructions exist). Compiles run in forked children
so an abort fails the test instead of killing pytest."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback

import pytest
from cuda_ir_dsl import KernelBuilder

from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target
from tilec.errors import TilecError
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg
from tilec.ir.ops import ModuleOp

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def _kernel(dtype: T.ScalarType, build_op) -> ModuleOp:  # type: ignore[no-untyped-def]
    k = KernelBuilder(
        "probe", [pointer_arg("x", dtype), pointer_arg("y", dtype), pointer_arg("o", dtype)]
    )
    offs = k.arange(128)
    x, y = k.load(k.add(k.arg["x"], offs)), k.load(k.add(k.arg["y"], offs))
    r = build_op(k, x, y)
    if r.type != x.type:
        r = k.cast(r, dtype)
    k.store(k.add(k.arg["o"], offs), r)
    return k.finish()


# math functions lowered to NVPTX instructions or LLVM intrinsics (the rest call libdevice,
# which cannot fail instruction selection)
NATIVE_MATH = (
    "neg", "abs", "fma", "floor", "ceil", "trunc", "rint", "nearbyint", "round", "sqrt", "sqrt_rn",
    "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tanh", "fmin", "fmax", "copysign",
    "fdiv_ieee", "isnan", "isinf", "isfinite", "signbit",
)  # fmt: skip


def _ops(dtype: T.ScalarType) -> dict[str, object]:
    ops: dict[str, object] = {}
    for kind in ("add", "sub", "mul", "div", "rem", "min", "max"):
        ops[f"binary.{kind}"] = lambda k, x, y, kind=kind: k.b.binary(O.BinaryKind(kind), x, y)
        if kind in ("min", "max"):
            ops[f"binary.{kind}.nan"] = lambda k, x, y, kind=kind: k.b.binary(
                O.BinaryKind(kind), x, y, propagate_nan=True
            )
    for kind in ("lt", "ne"):
        ops[f"compare.{kind}"] = lambda k, x, y, kind=kind: k.b.compare(O.CompareKind(kind), x, y)
    for name in NATIVE_MATH:
        spec = O.MATH_FUNCTIONS[name]

        def math(k, x, y, name=name, spec=spec, fast=False):  # type: ignore[no-untyped-def]
            return k.b.math(name, *[x, y, x][: spec.arity], fast=fast)

        ops[f"math.{name}"] = math
        ops[f"math.{name}.fast"] = lambda k, x, y, math=math: math(k, x, y, fast=True)
    for other in ("fp16", "bf16", "fp32", "fp64", "i8", "i32", "i64", "u32", "i1"):
        ops[f"cast.{other}"] = lambda k, x, y, other=other: k.cast(x, T.BY_NAME[other])
    twin = {"fp16": "bf16", "bf16": "fp16"}.get(dtype.name)
    if twin is not None:  # a 16-bit float reinterpreted as the other one, then tested for zero
        ops.update(_reinterpreted(T.BY_NAME[twin]))
    return ops


def _reinterpreted(twin: T.ScalarType) -> dict[str, object]:
    def as_twin(k, x):  # type: ignore[no-untyped-def]
        # after a rounding function, whose result LLVM reasons about (ceil(x) == 0 ...)
        return k.b.bitcast(k.b.math("ceil", x), T.with_element(x.type, twin))

    def zero(k, x):  # type: ignore[no-untyped-def]
        return k.b.constant(0.0, x.type)

    return {
        "bitcast.cast.i1": lambda k, x, y: k.cast(as_twin(k, x), T.BY_NAME["i1"]),
        **{
            f"bitcast.compare.{kind}.zero": lambda k, x, y, kind=kind: k.b.compare(
                O.CompareKind(kind), as_twin(k, x), zero(k, as_twin(k, x))
            )
            for kind in ("ne", "eq")
        },
    }


def _compile_all_in_child(dtype: T.ScalarType, arch: str, names: list[str]) -> tuple[int, str]:
    """Compile each op in a forked child; returns (wait status, name being compiled at exit)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report each name before compiling it, so a crash names its op
        code = 3  # the child always ends here, never in the forked copy of pytest's loop
        try:
            os.close(read)
            ops = _ops(dtype)
            compiler = CudaCompiler(assembler="none")
            for name in names:
                os.write(write, (name + "\n").encode())
                with contextlib.suppress(TilecError):  # a clear error is fine; an abort is not
                    target = Target("cuda", arch)
                    compiler.compile(_kernel(dtype, ops[name]), target, CompileOptions())
            os.write(write, b"DONE\n")
            code = 0
        except BaseException:  # not a clean TilecError: a failure, reported by the exit code
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    lines = b"".join(chunks).decode().split()
    return status, lines[-1] if lines else ""


@pytest.mark.parametrize(
    ("dtype", "arch"),
    [("fp16", "sm_70"), ("bf16", "sm_75"), ("bf16", "sm_80"), ("fp32", "sm_70"), ("fp64", "sm_80")],
)
def test_every_float_op_compiles_or_raises(dtype: str, arch: str) -> None:
    t = T.BY_NAME[dtype]
    sys.stdout.flush()
    status, last = _compile_all_in_child(t, arch, sorted(_ops(t)))
    assert status == 0 and last == "DONE", (
        f"LLVM died, or a non-tilec exception escaped, compiling {last} on {dtype}/{arch} "
        f"(wait status {status})"
    )
