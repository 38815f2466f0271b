"""tl's atomic ``sem=`` and ``scope=``: checked when the kernel is built, named in the tile IR,
spelled as PTX ``atom`` qualifiers, and refused with the accepted names when unknown."""

from __future__ import annotations

import re

import pytest

import tilec
import tilec.language as tl
from support.build import build
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target
from tilec.errors import TilecError
from tilec.ir.printer import print_ir


@tilec.jit
def _counter(ptr, SEM: tl.constexpr, SCOPE: tl.constexpr):
    tl.atomic_add(ptr, 1, sem=SEM, scope=SCOPE)
    tl.atomic_cas(ptr + 1, 0, 1, sem=SEM, scope=SCOPE)


@pytest.mark.parametrize(
    "sem,scope",
    [("acq_rel", "gpu"), ("acquire", "cta"), ("release", "sys"), ("relaxed", "gpu")],
)
def test_the_ordering_reaches_the_ir_and_the_ptx(sem: str, scope: str) -> None:
    module = build(_counter.fn, "*i32", sem, scope)
    tir = print_ir(module)
    assert tir.count(f"sem = '{sem}'") == 2 and tir.count(f"scope = '{scope}'") == 2, tir
    art = CudaCompiler(assembler="none").compile(module, Target("cuda", "sm_90"), CompileOptions())
    atoms = re.findall(r"atom\.[\w.]+", art.asm["ptx"])
    assert atoms == [f"atom.{sem}.{scope}.global.add.u32", f"atom.{sem}.{scope}.global.cas.b32"]


@pytest.mark.parametrize(
    "sem,scope,named",
    [("seq_cst", "gpu", "sem 'seq_cst'"), ("acq_rel", "device", "scope 'device'")],
)
def test_an_unknown_ordering_is_refused_with_the_accepted_names(
    sem: str, scope: str, named: str
) -> None:
    with pytest.raises(TilecError, match=f"{named} is not supported; use one of"):
        build(_counter.fn, "*i32", sem, scope)
