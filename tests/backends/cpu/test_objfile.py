"""Object files are checked before LLVM reads them: undefined symbols are listed for the three
formats, and malformed objects (junk, truncated, corrupted tables) are LaunchErrors, not crashes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import llvmlite.binding as llvm
import pytest

from tilec.backends.cpu import objfile
from tilec.backends.llvm import machine
from tilec.errors import LaunchError

_CALLS = """
declare float @sinf(float)
declare void @declared_but_unused(float)
define float @k(float %x) {
  %y = call float @sinf(float %x)
  %z = frem float %y, %x
  ret float %z
}
"""


def host_object(ir: str) -> bytes:
    host = machine.host_cpu()
    module = llvm.parse_assembly(ir)
    module.triple = host.triple
    return machine.new_target_machine(host.triple, host.name, host.features).emit_object(module)


@pytest.mark.parametrize(
    "triple",
    [
        "x86_64-unknown-linux-gnu",
        "aarch64-pc-windows-msvc",
        "x86_64-pc-windows-msvc",
        "arm64-apple-darwin",
    ],
)
def test_undefined_symbols_of_each_format(triple: str) -> None:
    module = llvm.parse_assembly(_CALLS)
    module.triple = triple
    obj = machine.new_target_machine(triple, "", "").emit_object(module)
    # fmodf comes from code generation (frem), not from a declaration
    assert objfile.undefined_symbols(obj) == ("fmodf", "sinf")


@pytest.mark.parametrize(
    "obj",
    [b"hello world" * 10, b"\x7fELF" + b"\0" * 100, b"\xcf\xfa\xed\xfe" + b"\0" * 40, b""],
)
def test_junk_is_a_launch_error(obj: bytes) -> None:
    with pytest.raises(LaunchError, match="malformed object"):
        objfile.undefined_symbols(obj)


_FUZZ = """
import random, sys
from tilec.backends import registry
from tilec.backends.artifacts import CompiledKernel
from tilec.errors import LaunchError
sys.path.insert(0, {tests!r})
from cpu.support import Kernel, kernel
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

def body(b, x):
    p = b.addptr(b.splat(x, (16,)), b.make_range(0, 16))
    b.store(p, b.load(p))

good = Kernel(kernel([pointer_arg("x", T.float32)], body)).compiled
obj, rng, driver = good.asm["obj"], random.Random({seed}), registry.get("cpu").driver
cases = [obj[:n] for n in range(0, len(obj), max(1, len(obj) // 60))]
for _ in range(150):  # overwrite one header or table field with a random or extreme value
    b = bytearray(obj)
    at = rng.randrange(len(b) - 8)
    b[at:at + rng.choice((1, 2, 4, 8))] = rng.choice((b"\\xff" * 8, b"\\0" * 8, rng.randbytes(8)))[:8]
    cases.append(bytes(b[:len(obj)]))
errors = 0
for case in cases:
    try:
        driver.load(CompiledKernel(good.metadata, {{**good.asm, "obj": case}}))
    except LaunchError:
        errors += 1
print("ok", len(cases), errors)
"""


def test_corrupted_objects_never_crash_the_process() -> None:
    tests = str(__import__("pathlib").Path(__file__).parents[1])
    code = textwrap.dedent(_FUZZ).format(tests=tests, seed=20261130)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("ok"), proc.stdout


def test_baseline_cpu_libcalls_are_resolved_before_linking() -> None:
    # without SSE4.1/FMA code generation turns these intrinsics into libm calls the IR never names
    host = machine.host_cpu()
    if not host.triple.startswith("x86_64"):
        pytest.skip("the baseline x86-64 CPU is what lacks roundss and vfmadd")
    ir = "declare float @llvm.rint.f32(float)\ndeclare float @llvm.fma.f32(float, float, float)\n"
    ir += "define float @k(float %x) {\n  %r = call float @llvm.rint.f32(float %x)\n"
    ir += "  %f = call float @llvm.fma.f32(float %r, float %x, float %x)\n  ret float %f\n}\n"
    module = llvm.parse_assembly(ir)
    module.triple = host.triple
    obj = machine.new_target_machine(host.triple, "x86-64", "").emit_object(module)
    assert {"rintf", "fmaf"} <= set(objfile.undefined_symbols(obj))
    from tilec.backends.cpu import driver

    assert all(driver._resolve(name) for name in objfile.undefined_symbols(obj))
