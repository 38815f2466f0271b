"""Every backend lowers ops through one driver (backends/rules.py) with one error policy: what
goes wrong in a rule is reported at the kernel source line of the op, ``file:line:col`` with a
caret. Before, the CUDA backend's errors from inside a rule (an atomic add on bf16 below
sm_90, say) carried no location, and a rule's own bug escaped as a bare KeyError."""

from __future__ import annotations

import pytest

import tilec
import tilec.language as tl
from support.build import build
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.rules import apply_rule
from tilec.backends.target import CompileOptions, Target
from tilec.errors import LoweringError, UnsupportedFeature
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.source import SourceLoc


@tilec.jit
def bf16_counter(ptr):
    offs = tl.arange(0, 32)
    tl.atomic_add(ptr + offs, tl.full([32], 1.0, tl.bfloat16))


def test_an_error_from_inside_a_cuda_rule_names_the_source_line() -> None:
    module = build(bf16_counter.fn, "*bf16")
    with pytest.raises(UnsupportedFeature, match="needs sm_90") as info:
        CudaCompiler(assembler="none").compile(module, Target("cuda", "sm_80"), CompileOptions())
    assert info.value.loc is not None
    assert info.value.loc.line == bf16_counter.fn.__code__.co_firstlineno + 3
    assert "test_rule_errors.py" in str(info.value) and "^" in str(info.value)


def _op() -> O.ConstantOp:
    return O.ConstantOp(1, T.int32, SourceLoc("kernel.py", 7, 4, text="    x = 1"))


@pytest.mark.parametrize("backend", ["CPU", "CUDA"])
def test_a_bug_in_a_rule_is_a_located_lowering_error(backend: str) -> None:
    def broken(lowering: object, op: O.Op) -> None:
        raise KeyError("plan")

    with pytest.raises(LoweringError, match=r"KeyError: 'plan'") as info:
        apply_rule(None, broken, _op(), backend)
    assert info.value.loc is not None and info.value.loc.line == 7
    assert isinstance(info.value.__cause__, KeyError)


@pytest.mark.parametrize("backend", ["CPU", "CUDA"])
def test_an_op_without_a_rule_is_unsupported(backend: str) -> None:
    with pytest.raises(UnsupportedFeature, match=f"the {backend} backend cannot lower 'constant'"):
        apply_rule(None, None, _op(), backend)


def test_a_located_error_keeps_its_place() -> None:
    inner = SourceLoc("kernel.py", 3, 0, "y")

    def located(lowering: object, op: O.Op) -> None:
        raise UnsupportedFeature("inner", inner)

    with pytest.raises(UnsupportedFeature) as info:
        apply_rule(None, located, _op(), "CPU")
    assert info.value.loc is inner
