"""Unsupported Python syntax is rejected before any IR is generated, at the construct."""

from __future__ import annotations

import pytest

import tilec.language as tl
from support.build import build
from tilec.errors import UnsupportedSyntax

G = 0


def k_class(p):
    class A:
        pass


def k_with(p):
    with open("x"):
        pass


def k_yield(p):
    yield p


def k_global(p):
    global G
    G = 1


def k_del(p):
    x = 1
    del x


def k_import(p):
    import math  # noqa: F401


def k_listcomp(p):
    t = (1, 2)
    return [i + j for i in t for j in t]


def k_listcomp_if(p):
    t = (1, 2)
    return [i for i in t if i > 1]


def k_dict(p):
    d = {"a": 1}  # noqa: F841


def k_set(p):
    s = {1, 2}  # noqa: F841


def k_walrus_while(p):
    i = 0
    while (i := i + 1) < 3:
        tl.store(p, i)


def k_walrus_listcomp(p):
    t = (1, 2)
    u = [(n := x) for x in t]  # noqa: F841


def k_starred_assign(p):
    a, *b = (p, 1.0)  # noqa: F841


def k_kwcall(p):
    tl.store(p, 1.0, **p)


def k_while_else(p):
    i = 0
    while i < 3:
        i += 1
    else:
        pass


def k_nested_def(p):
    def inner():
        return 1

    return inner


def k_kwargs(p, **rest):
    pass


def k_raise(p):
    raise ValueError("no")


def k_raise_in_dead_branch(p, MODE: tl.constexpr):
    if MODE == "store":
        tl.store(p, 1.0)
    else:
        raise ValueError(f"unknown MODE {MODE}")


def test_raise_in_a_branch_left_out_at_compile_time():
    build(k_raise_in_dead_branch, "*fp32", "store")
    with pytest.raises(UnsupportedSyntax, match="raise statements are not supported"):
        build(k_raise_in_dead_branch, "*fp32", "load")


@pytest.mark.parametrize(
    ("fn", "what"),
    [
        (k_class, "class definitions are not supported in kernels"),
        (k_with, "with statements are not supported in kernels"),
        (k_yield, "yield (generators) are not supported in kernels"),
        (k_global, "global statements are not supported in kernels"),
        (k_del, "del statements are not supported in kernels"),
        (k_import, "import statements are not supported in kernels"),
        (k_listcomp, "nested comprehensions are not supported in kernels"),
        (k_listcomp_if, "'if' clauses in comprehensions are not supported in kernels"),
        (k_dict, "dict displays are not supported in kernels"),
        (k_set, "set displays are not supported in kernels"),
        (
            k_walrus_while,
            "assignment expressions (:=) in while loop conditions are not supported in kernels",
        ),
        (
            k_walrus_listcomp,
            "assignment expressions (:=) in comprehensions are not supported in kernels",
        ),
        (k_starred_assign, "starred expressions other than f(*tuple) are not supported in kernels"),
        (k_kwcall, "**keyword arguments are not supported in kernels"),
        (k_while_else, "else clauses on loops are not supported in kernels"),
        (k_nested_def, "nested function definitions are not supported in kernels"),
        (
            k_raise,
            "raise statements are not supported in kernels, except in a branch that a "
            "compile-time condition leaves out",
        ),
    ],
)
def test_rejected_before_codegen(fn, what):
    with pytest.raises(UnsupportedSyntax) as info:
        build(fn, "*fp32")
    assert info.value.message == what
    assert info.value.loc.line > fn.__code__.co_firstlineno


def test_keyword_parameters():
    with pytest.raises(UnsupportedSyntax) as info:
        build(k_kwargs, "*fp32")
    assert info.value.message == "**kwargs parameters are not supported in kernels"
