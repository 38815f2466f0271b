"""Conformance kernels for single features, written as tile IR: reductions, scans, shape ops,
math functions, casts, masked loads and atomics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cuda_ir_case import NP, Arrays, Case
from cuda_ir_dsl import C, K, KernelBuilder

from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg
from tilec.ir.ops import ModuleOp


def reduce_2d(
    axis: int,
    kind: K = K.ADD,
    m: int = 16,
    n: int = 128,
    dtype: T.ScalarType = T.float32,
    num_warps: int = 4,
) -> Case:
    def build() -> ModuleOp:
        k = KernelBuilder(
            f"reduce_{kind.value}_{axis}",
            [pointer_arg("x", dtype), pointer_arg("out", dtype)],
        )
        a = k.arg
        rm, rn = k.arange(m), k.arange(n)
        x = k.load(k.add(k.add(a["x"], k.mul(k.col(rm), k.c(n))), k.row(rn)))
        r = k.reduce(x, axis, kind)
        k.store(k.add(a["out"], rn if axis == 0 else rm), r)
        return k.finish()

    fn = {K.ADD: np.sum, K.MAX: np.max, K.MIN: np.min}[kind]
    npt = NP[str(dtype)]

    def inputs(r: np.random.Generator) -> Arrays:
        if dtype.is_floating():
            return {"x": r.standard_normal((m, n)).astype(npt)}
        return {"x": r.integers(-1000, 1000, (m, n)).astype(npt)}

    return Case(
        f"reduce_{kind.value}_axis{axis}_{dtype.name}_{m}x{n}_w{num_warps}",
        build,
        inputs,
        lambda i: {"out": np.empty(n if axis == 0 else m, npt)},
        lambda i: ["x", "out"],
        lambda i: (1,),
        lambda i: {"out": fn(i["x"].astype(np.float64), axis=axis)},
        rtol=2e-3 if dtype.bits == 16 else 1e-5,
        atol=0.1 if dtype.bits == 16 else 1e-5,
        num_warps=num_warps,
    )


def masked_other(dtype: T.ScalarType, n: int = 1000, other: float = 7.0) -> Case:
    """Masked loads whose masked-off lanes read ``other`` (packed 1- and 2-byte elements)."""

    def build() -> ModuleOp:
        k = KernelBuilder(
            f"masked_{dtype.name}", [pointer_arg("x", dtype), pointer_arg("out", dtype)]
        )
        offs = k.add(k.mul(k.pid(), k.c(256)), k.arange(256))
        x = k.load(
            k.add(k.arg["x"], offs),
            k.cmp(C.LT, offs, k.c(n)),
            other if dtype.is_floating() else int(other),
        )
        k.store(k.add(k.arg["out"], offs), x)
        return k.finish()

    npt = NP[str(dtype)]
    total = 4 * 256

    def ref(i: Arrays) -> Arrays:
        out = np.full(total, other, np.float64)
        out[:n] = i["x"][:n]
        return {"out": out}

    return Case(
        f"masked_other_{dtype.name}",
        build,
        lambda r: {"x": r.integers(-100, 100, total).astype(npt)},
        lambda i: {"out": np.empty(total, npt)},
        lambda i: ["x", "out"],
        lambda i: (4,),
        ref,
        rtol=0,
        atol=0,
    )


def scan_2d(axis: int, m: int = 8, n: int = 64, reverse: bool = False) -> Case:
    def build() -> ModuleOp:
        k = KernelBuilder(
            f"cumsum_{axis}", [pointer_arg("x", T.int32), pointer_arg("out", T.int32)]
        )
        a = k.arg
        offs = k.add(k.mul(k.col(k.arange(m)), k.c(n)), k.row(k.arange(n)))
        x = k.load(k.add(a["x"], offs))
        k.store(k.add(a["out"], offs), k.scan(x, axis, K.ADD, reverse))
        return k.finish()

    def ref(i: Arrays) -> Arrays:
        x = i["x"].astype(np.int64)
        if reverse:
            return {"out": np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis)}
        return {"out": np.cumsum(x, axis=axis)}

    return Case(
        f"cumsum_axis{axis}{'_rev' if reverse else ''}",
        build,
        lambda r: {"x": r.integers(-50, 50, (m, n)).astype(np.int32)},
        lambda i: {"out": np.empty((m, n), np.int32)},
        lambda i: ["x", "out"],
        lambda i: (1,),
        ref,
        rtol=0,
        atol=0,
    )


def _copy_2d(
    name: str,
    m: int,
    n: int,
    transform: Callable[[KernelBuilder, Any], Any],
    out_shape: tuple[int, ...],
    ref: Callable[[np.ndarray], np.ndarray],
) -> Case:
    """Load an [m, n] fp32 tile, apply a shape op, store the result row-major."""

    def build() -> ModuleOp:
        k = KernelBuilder(name, [pointer_arg("x", T.float32), pointer_arg("out", T.float32)])
        a = k.arg
        x = k.load(k.add(a["x"], k.add(k.mul(k.col(k.arange(m)), k.c(n)), k.row(k.arange(n)))))
        y = transform(k, x)
        shape = T.shape_of(y.type)
        offs: Any = None
        stride = 1
        for dim in reversed(range(len(shape))):
            r = k.arange(shape[dim])
            for _ in range(dim):
                r = k.row(r)
            for _ in range(len(shape) - dim - 1):
                r = k.b.expand_dims(r, len(T.shape_of(r.type)))
            term = k.mul(r, k.c(stride))
            offs = term if offs is None else k.add(offs, term)
            stride *= shape[dim]
        k.store(k.add(a["out"], offs), y)
        return k.finish()

    return Case(
        name,
        build,
        lambda r: {"x": r.standard_normal((m, n)).astype(np.float32)},
        lambda i: {"out": np.empty(out_shape, np.float32)},
        lambda i: ["x", "out"],
        lambda i: (1,),
        lambda i: {"out": ref(i["x"].astype(np.float64))},
    )


def shape_ops() -> list[Case]:
    m, n = 16, 32

    def split0(k: KernelBuilder, x: Any) -> Any:
        return k.b.split(k.b.reshape(x, (m, n // 2, 2)))[0]

    def join(k: KernelBuilder, x: Any) -> Any:
        return k.b.join(x, k.math("neg", x))

    return [
        _copy_2d("trans", m, n, lambda k, x: k.b.trans(x, (1, 0)), (n, m), lambda x: x.T),
        _copy_2d(
            "reshape", m, n, lambda k, x: k.b.reshape(x, (n, m)), (n, m), lambda x: x.reshape(n, m)
        ),
        _copy_2d("flip", m, n, lambda k, x: k.b.flip(x, 1), (m, n), lambda x: x[:, ::-1]),
        _copy_2d(
            "cat", m, n, lambda k, x: k.b.cat(x, x), (2 * m, n), lambda x: np.concatenate([x, x])
        ),
        _copy_2d("split", m, n, split0, (m, n // 2), lambda x: x.reshape(m, n // 2, 2)[..., 0]),
        _copy_2d("join", m, n, join, (m, n, 2), lambda x: np.stack([x, -x], axis=-1)),
    ]


def elementwise(
    fn: str,
    dtype: T.ScalarType = T.float32,
    n: int = 2048,
    fast: bool = False,
    low: float = 0.1,
    high: float = 4.0,
) -> Case:
    npt = NP[str(dtype)]

    def build() -> ModuleOp:
        k = KernelBuilder(
            f"math_{fn}_{dtype.name}", [pointer_arg("x", dtype), pointer_arg("out", dtype)]
        )
        offs = k.add(k.mul(k.pid(), k.c(256)), k.arange(256))
        x = k.load(k.add(k.arg["x"], offs))
        k.store(k.add(k.arg["out"], offs), k.math(fn, x, fast=fast))
        return k.finish()

    np_fn = {
        "exp": np.exp,
        "log": np.log,
        "sqrt": np.sqrt,
        "sin": np.sin,
        "cos": np.cos,
        "exp2": np.exp2,
        "log2": np.log2,
        "rsqrt": lambda x: 1 / np.sqrt(x),
        "floor": np.floor,
        "abs": np.abs,
        "tanh": np.tanh,
        "erf": _erf,
        "atan": np.arctan,
    }[fn]
    tol = 1e-3 if dtype.bits == 16 else (2e-6 if dtype.bits == 32 else 1e-12)
    return Case(
        f"math_{fn}_{dtype.name}{'_fast' if fast else ''}",
        build,
        lambda r: {"x": r.uniform(low, high, n).astype(npt)},
        lambda i: {"out": np.empty(n, npt)},
        lambda i: ["x", "out"],
        lambda i: (n // 256,),
        lambda i: {"out": np_fn(i["x"].astype(np.float64))},
        rtol=max(tol, 4e-6 if fast else tol),
        atol=1e-6,
    )


def _erf(x: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf)(x)


def cast(src: T.ScalarType, dst: T.ScalarType, n: int = 1024) -> Case:
    def build() -> ModuleOp:
        k = KernelBuilder(
            f"cast_{src.name}_{dst.name}", [pointer_arg("x", src), pointer_arg("out", dst)]
        )
        offs = k.add(k.mul(k.pid(), k.c(256)), k.arange(256))
        x = k.load(k.add(k.arg["x"], offs))
        k.store(k.add(k.arg["out"], offs), k.cast(x, dst))
        return k.finish()

    s, d = NP[str(src)], NP[str(dst)]
    return Case(
        f"cast_{src.name}_{dst.name}",
        build,
        lambda r: {"x": (r.standard_normal(n) * 50).astype(s)},
        lambda i: {"out": np.empty(n, d)},
        lambda i: ["x", "out"],
        lambda i: (n // 256,),
        lambda i: {"out": i["x"].astype(d).astype(np.float64)},
        rtol=0,
        atol=0,
    )


def atomics(n: int = 4096, bins: int = 16) -> Case:
    """A histogram with tile atomic adds plus a grand total through one scalar atomic per program."""

    def build() -> ModuleOp:
        from tilec.ir.ops import AtomicKind

        k = KernelBuilder(
            "histogram",
            [
                pointer_arg("x", T.int32),
                pointer_arg("hist", T.int32),
                pointer_arg("total", T.float32),
                pointer_arg("vals", T.float32),
            ],
        )
        a = k.arg
        offs = k.add(k.mul(k.pid(), k.c(512)), k.arange(512))
        x = k.load(k.add(a["x"], offs))
        ones = k.full((512,), 1, T.int32)
        k.b.atomic_rmw(AtomicKind.ADD, k.add(a["hist"], k.bin(K.AND, x, k.c(bins - 1))), ones)
        v = k.load(k.add(a["vals"], offs))
        k.b.atomic_rmw(AtomicKind.ADD, a["total"], k.reduce(v, 0, K.ADD))
        return k.finish()

    def ref(i: Arrays) -> Arrays:
        return {
            "hist": np.bincount(i["x"] & (bins - 1), minlength=bins).astype(np.float64),
            "total": np.array([i["vals"].astype(np.float64).sum()]),
        }

    return Case(
        "atomics_histogram",
        build,
        lambda r: {
            "x": r.integers(0, 1000, n).astype(np.int32),
            "vals": r.random(n).astype(np.float32),
        },
        lambda i: {"hist": np.zeros(bins, np.int32), "total": np.zeros(1, np.float32)},
        lambda i: ["x", "hist", "total", "vals"],
        lambda i: (n // 512,),
        ref,
        rtol=1e-5,
        atol=1e-3,
        tags=("zero_outputs",),
    )


def atomic_minmax(n: int = 2048, slots: int = 8) -> Case:
    """Float atomic max and min (the integer-ordering trick) over mixed-sign values."""

    def build() -> ModuleOp:
        from tilec.ir.ops import AtomicKind

        k = KernelBuilder(
            "atomic_minmax",
            [
                pointer_arg("x", T.float32),
                pointer_arg("hi", T.float32),
                pointer_arg("lo", T.float32),
            ],
        )
        a = k.arg
        offs = k.add(k.mul(k.pid(), k.c(256)), k.arange(256))
        x = k.load(k.add(a["x"], offs))
        slot = k.bin(K.AND, offs, k.c(slots - 1))
        k.b.atomic_rmw(AtomicKind.MAX, k.add(a["hi"], slot), x)
        k.b.atomic_rmw(AtomicKind.MIN, k.add(a["lo"], slot), x)
        return k.finish()

    def ref(i: Arrays) -> Arrays:
        x = i["x"].astype(np.float64).reshape(-1, slots)
        return {"hi": x.max(0), "lo": x.min(0)}

    return Case(
        "atomic_minmax_fp32",
        build,
        lambda r: {"x": r.standard_normal(n).astype(np.float32)},
        lambda i: {
            "hi": np.full(slots, -np.inf, np.float32),
            "lo": np.full(slots, np.inf, np.float32),
        },
        lambda i: ["x", "hi", "lo"],
        lambda i: (n // 256,),
        ref,
        rtol=0,
        atol=0,
        tags=("zero_outputs",),
    )


def atomic_add_fp16(n: int = 1024, slots: int = 4) -> Case:
    """Tile atomic adds of fp16 values (small integers, so every order sums exactly)."""

    def build() -> ModuleOp:
        from tilec.ir.ops import AtomicKind

        k = KernelBuilder(
            "atomic_add_fp16", [pointer_arg("x", T.float16), pointer_arg("acc", T.float16)]
        )
        offs = k.add(k.mul(k.pid(), k.c(256)), k.arange(256))
        x = k.load(k.add(k.arg["x"], offs))
        k.b.atomic_rmw(AtomicKind.ADD, k.add(k.arg["acc"], k.bin(K.AND, offs, k.c(slots - 1))), x)
        return k.finish()

    return Case(
        "atomic_add_fp16",
        build,
        lambda r: {"x": r.integers(-3, 4, n).astype(np.float16)},
        lambda i: {"acc": np.zeros(slots, np.float16)},
        lambda i: ["x", "acc"],
        lambda i: (n // 256,),
        lambda i: {"acc": i["x"].astype(np.float64).reshape(-1, slots).sum(0)},
        rtol=0,
        atol=0,
        tags=("zero_outputs",),
    )
