"""``@tilec.language.core._aggregate`` (Triton's ``@triton.aggregate``): classes whose instances
bundle kernel values, built in kernels and on the host, immutable once built, carried through
``if`` and loops, with @jit, constexpr and plain methods."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random

aggregate = tl.core._aggregate


@aggregate
class Affine:
    scale: tl.tensor
    shift: tl.tensor
    BLOCK: tl.constexpr

    @tilec.jit
    def apply(self, x):
        return x * self.scale + self.shift

    def block(self):  # plain Python: runs at compile time
        return self.BLOCK

    @tilec.constexpr_function
    def twice_block(self):
        return 2 * self.BLOCK


@aggregate
class Counter:
    total: tl.tensor
    steps: tl.tensor

    @tilec.jit
    def __init__(self, start):
        self.total = start
        self.steps = start * 0


@jit
def affine_kernel(X, Y, a, b, BLOCK: tl.constexpr):
    f = Affine(a, b, BLOCK)
    offs = tl.arange(0, f.block())
    tl.static_assert(f.twice_block() == 2 * BLOCK)
    tl.store(Y + offs, f.apply(tl.load(X + offs)))


def test_fields_and_methods_in_a_kernel():
    x = random(32, np.float32)
    y = poisoned(32, np.float32)
    affine_kernel[(1,)](x, y, 1.5, -2.0, BLOCK=32)
    # one rounding of the product and one of the sum (a GPU may fuse them into an fma)
    bound = 2.0**-23 * (np.abs(x.astype(np.float64)) * 1.5 + 2.0)
    assert np.all(np.abs(y - (x.astype(np.float64) * 1.5 - 2.0)) <= bound)


@jit
def loop_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    c = Counter(tl.zeros((BLOCK,), tl.float32))
    for i in range(N):
        x = tl.load(X + i * BLOCK + offs)
        c = tl.aggregate_replace(c, total=c.total + x, steps=c.steps + 1)
    if N > 2:
        c = tl.aggregate_replace(c, total=c.total * 2)
    tl.store(Y + offs, c.total / c.steps)


@pytest.mark.parametrize("n", [1, 3])
def test_carried_through_loops_and_ifs(n):
    x = random((n, 16), np.float32)
    y = poisoned(16, np.float32)
    loop_kernel[(1,)](x, y, n, BLOCK=16)
    ref = x.astype(np.float64).sum(0) * (2 if n > 2 else 1) / n
    np.testing.assert_allclose(y, ref, rtol=1e-5)


@jit
def mutate_kernel(X):
    f = Affine(tl.load(X), tl.load(X), 4)
    f.scale = tl.load(X)


@jit
def missing_field_kernel(X):
    Affine(tl.load(X), tl.load(X))


def test_built_instances_are_immutable():
    with pytest.raises(tilec.CompileError, match="cannot assign to field 'scale'"):
        mutate_kernel[(1,)](np.zeros(1, np.float32))


def test_missing_arguments_are_reported():
    with pytest.raises(tilec.CompileError, match="missing required argument: 'BLOCK'"):
        missing_field_kernel[(1,)](np.zeros(1, np.float32))


def test_host_side_construction_defaults_and_inheritance():
    @aggregate
    class Base:
        x: tl.constexpr
        y: tl.constexpr = 42

    @aggregate
    class Child(Base):
        z: tl.constexpr

    c = Child(1, z=3)
    assert (c.x.value, c.y.value, c.z.value) == (1, 42, 3)
    d = tl.aggregate_replace(c, x=5)
    assert (d.x.value, c.x.value) == (5, 1)
    with pytest.raises(AttributeError, match="immutable aggregate"):
        c.x = tl.constexpr(2)
    with pytest.raises(TypeError, match="has no field 'w'"):
        tl.aggregate_replace(c, w=1)
    with pytest.raises(TypeError, match="expects an aggregate instance"):
        tl.aggregate_replace(7, x=1)


def test_only_aggregates_may_be_bases():
    class Plain:
        pass

    with pytest.raises(TypeError, match="only inherit from other aggregates"):

        @aggregate
        class Bad(Plain):
            x: tl.constexpr


def test_field_types_are_checked():
    with pytest.raises(TypeError, match="attribute 'scale'"):
        Affine(1.0, 2.0, 4)  # compile-time numbers are not tensors


def test_string_annotations_resolve_in_a_module_not_in_sys_modules(tmp_path):
    # a module run from a spec without registering it (as test collectors and plug-in loaders
    # do) has no sys.modules entry for get_type_hints to find its globals in
    import importlib.util

    path = tmp_path / "unregistered_aggregate.py"
    path.write_text(
        "from __future__ import annotations\n"
        "import tilec.language as tl\n"
        "@tl.core._aggregate\n"
        "class Pair:\n"
        "    a: tl.tensor\n"
        "    B: tl.constexpr\n"
    )
    spec = importlib.util.spec_from_file_location("unregistered_aggregate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.Pair.__aggregate_fields__ == ("a", "B")
    assert module.Pair.__aggregate_annotations__["B"] is tl.constexpr
