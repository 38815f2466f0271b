"""A parameter both tl.constexpr and listed in do_not_specialize is refused when the kernel
compiles, by a launch or by triton.compile, as Triton refuses it."""

from __future__ import annotations

import pytest

import tilec
import tilec.language as tl
from tilec.compat.triton.compiler.compiler import ASTSource, compile


@tilec.jit(do_not_specialize=["N"])
def both(N: tl.constexpr):
    tl.static_assert(N > 0)


@tilec.jit(do_not_specialize=["M"])
def fine(M, N: tl.constexpr):
    tl.static_assert(N > 0)


def test_refused_at_launch_and_by_compile():
    with pytest.raises(tilec.CompileError, match="N marked as constexpr and listed in do_not"):
        both[(1,)](5)
    with pytest.raises(tilec.CompileError, match="N marked as constexpr and listed in do_not"):
        compile(ASTSource(fn=both, signature={}, constexprs={"N": 5}))


def test_other_parameters_still_launch():
    fine[(1,)](3, 5)
