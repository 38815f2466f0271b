"""Conformance kernels written as tile IR (the shapes of Triton's tutorials and of single
features), each with inputs, a grid and a float64 numpy reference.

A Case's ``args`` lists the runtime parameters in order: names of arrays in ``inputs`` /
``outputs`` (passed as device pointers) or plain scalars.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from cuda_ir_dsl import C, K, KernelBuilder

from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg
from tilec.ir.ops import ModuleOp

Arrays = dict[str, np.ndarray]


@dataclass
class Case:
    name: str
    build: Callable[[], ModuleOp]
    inputs: Callable[[np.random.Generator], Arrays]
    outputs: Callable[[Arrays], Arrays]  # empty (NaN-poisoned on the device) output arrays
    args: Callable[[Arrays], list[Any]]
    grid: Callable[[Arrays], tuple[int, ...]]
    reference: Callable[[Arrays], Arrays]
    rtol: float = 1e-5
    atol: float = 1e-6
    num_warps: int = 4
    tags: tuple[str, ...] = field(default=())


NP = {
    "fp32": np.float32, "fp16": np.float16, "fp64": np.float64, "i32": np.int32, "i8": np.int8,
    "i64": np.int64, "u8": np.uint8, "i16": np.int16,
}  # fmt: skip


def vector_add(dtype: T.ScalarType = T.float32, block: int = 1024, n: int = 100_003) -> Case:
    def build() -> ModuleOp:
        k = KernelBuilder(
            "add_kernel",
            [
                pointer_arg("x", dtype),
                pointer_arg("y", dtype),
                pointer_arg("out", dtype),
                scalar_arg("n", T.int32),
            ],
        )
        a = k.arg
        offs = k.add(k.mul(k.pid(), k.c(block)), k.arange(block))
        mask = k.cmp(C.LT, offs, a["n"])
        x = k.load(k.add(a["x"], offs), mask)
        y = k.load(k.add(a["y"], offs), mask)
        k.store(k.add(a["out"], offs), k.add(x, y), mask)
        return k.finish()

    npt = NP[dtype.name]
    return Case(
        f"vector_add_{dtype.name}",
        build,
        lambda r: {"x": r.standard_normal(n).astype(npt), "y": r.standard_normal(n).astype(npt)},
        lambda i: {"out": np.empty(n, npt)},
        lambda i: ["x", "y", "out", n],
        lambda i: (-(-n // block),),
        lambda i: {"out": i["x"].astype(np.float64) + i["y"]},
        rtol=1e-3 if dtype.bits == 16 else 1e-6,
    )


def softmax(n_rows: int = 37, n_cols: int = 781, block: int = 1024, num_warps: int = 4) -> Case:
    def build() -> ModuleOp:
        k = KernelBuilder(
            "softmax_kernel",
            [
                pointer_arg("out", T.float32),
                pointer_arg("inp", T.float32),
                scalar_arg("in_stride", T.int32),
                scalar_arg("out_stride", T.int32),
                scalar_arg("n_cols", T.int32),
            ],
        )
        a = k.arg
        row = k.pid()
        cols = k.arange(block)
        mask = k.cmp(C.LT, cols, a["n_cols"])
        x = k.load(k.add(k.add(a["inp"], k.mul(row, a["in_stride"])), cols), mask, float("-inf"))
        z = k.sub(x, k.reduce(x, 0, K.MAX))
        num = k.math("exp", z)
        out = k.div(num, k.reduce(num, 0, K.ADD))
        k.store(k.add(k.add(a["out"], k.mul(row, a["out_stride"])), cols), out, mask)
        return k.finish()

    def ref(i: Arrays) -> Arrays:
        x = i["inp"].astype(np.float64)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return {"out": e / e.sum(axis=1, keepdims=True)}

    return Case(
        f"softmax_{n_cols}",
        build,
        lambda r: {"inp": r.standard_normal((n_rows, n_cols)).astype(np.float32)},
        lambda i: {"out": np.empty((n_rows, n_cols), np.float32)},
        lambda i: ["out", "inp", n_cols, n_cols, n_cols],
        lambda i: (n_rows,),
        ref,
        rtol=1e-4,
        atol=1e-6,
        num_warps=num_warps,
    )


def layer_norm(m: int = 19, n: int = 700, block: int = 256) -> Case:
    def build() -> ModuleOp:
        f32 = T.float32
        k = KernelBuilder(
            "layer_norm_fwd",
            [
                pointer_arg("X", f32),
                pointer_arg("Y", f32),
                pointer_arg("W", f32),
                pointer_arg("B", f32),
                pointer_arg("Mean", f32),
                pointer_arg("Rstd", f32),
                scalar_arg("stride", T.int32),
                scalar_arg("N", T.int32),
                scalar_arg("eps", f32),
            ],
        )
        a = k.arg
        row = k.pid()
        X = k.add(a["X"], k.mul(row, a["stride"]))
        Y = k.add(a["Y"], k.mul(row, a["stride"]))
        cols0 = k.arange(block)

        def sweep(body: Callable[[Any, Any, Any], Any], init: Any) -> Any:
            loop = k.b.for_(k.c(0), a["N"], k.c(block), [init])
            with k.b.at_end_of(loop.body):
                off, acc = loop.body.args
                cols = k.add(cols0, off)
                mask = k.cmp(C.LT, cols, a["N"])
                k.b.yield_([body(cols, mask, acc)])
            return loop.results[0]

        zeros = k.full((block,), 0.0)
        total = sweep(lambda c, m, acc: k.add(acc, k.load(k.add(X, c), m, 0.0)), zeros)
        nf = k.cast(a["N"], f32)
        mean = k.div(k.reduce(total, 0, K.ADD), nf)

        def var_body(c: Any, msk: Any, acc: Any) -> Any:
            d = k.where(msk, k.sub(k.load(k.add(X, c), msk, 0.0), mean), k.c(0.0, f32))
            return k.add(acc, k.mul(d, d))

        var = k.div(k.reduce(sweep(var_body, zeros), 0, K.ADD), nf)
        rstd = k.div(k.c(1.0, f32), k.math("sqrt", k.add(var, a["eps"])))
        k.store(k.add(a["Mean"], row), mean)
        k.store(k.add(a["Rstd"], row), rstd)
        loop = k.b.for_(k.c(0), a["N"], k.c(block), [])
        with k.b.at_end_of(loop.body):
            cols = k.add(cols0, loop.body.args[0])
            mask = k.cmp(C.LT, cols, a["N"])
            w = k.load(k.add(a["W"], cols), mask)
            bias = k.load(k.add(a["B"], cols), mask)
            x = k.load(k.add(X, cols), mask, 0.0)
            y = k.add(k.mul(k.mul(k.sub(x, mean), rstd), w), bias)
            k.store(k.add(Y, cols), y, mask)
            k.b.yield_([])
        return k.finish()

    def ref(i: Arrays) -> Arrays:
        x = i["X"].astype(np.float64)
        mu = x.mean(axis=1)
        var = ((x - mu[:, None]) ** 2).mean(axis=1)
        rstd = 1 / np.sqrt(var + 1e-5)
        return {"Y": (x - mu[:, None]) * rstd[:, None] * i["W"] + i["B"], "Mean": mu, "Rstd": rstd}

    return Case(
        "layer_norm_fwd",
        build,
        lambda r: {
            "X": r.standard_normal((m, n)).astype(np.float32),
            "W": r.random(n).astype(np.float32),
            "B": r.random(n).astype(np.float32),
        },
        lambda i: {
            "Y": np.empty((m, n), np.float32),
            "Mean": np.empty(m, np.float32),
            "Rstd": np.empty(m, np.float32),
        },
        lambda i: ["X", "Y", "W", "B", "Mean", "Rstd", n, n, 1e-5],
        lambda i: (m,),
        ref,
        rtol=1e-4,
        atol=1e-5,
    )


def matmul(
    m: int = 100,
    n: int = 72,
    kk: int = 80,
    bm: int = 32,
    bn: int = 32,
    bk: int = 16,
    dtype: T.ScalarType = T.float32,
    acc: T.ScalarType = T.float32,
) -> Case:
    """Tutorial 03's loop over K with masked loads and a pointer-tile loop carry."""

    def build() -> ModuleOp:
        k = KernelBuilder(
            f"matmul_{dtype.name}",
            [
                pointer_arg("a", dtype),
                pointer_arg("b", dtype),
                pointer_arg("c", acc),
                scalar_arg("M", T.int32),
                scalar_arg("N", T.int32),
                scalar_arg("K", T.int32),
                scalar_arg("stride_am", T.int32),
                scalar_arg("stride_bk", T.int32),
                scalar_arg("stride_cm", T.int32),
            ],
        )
        a = k.arg
        rm = k.bin(K.REM, k.add(k.mul(k.pid(0), k.c(bm)), k.arange(bm)), k.b.splat(a["M"], (bm,)))
        rn = k.bin(K.REM, k.add(k.mul(k.pid(1), k.c(bn)), k.arange(bn)), k.b.splat(a["N"], (bn,)))
        rk = k.arange(bk)
        a_ptrs = k.add(k.add(a["a"], k.mul(k.col(rm), a["stride_am"])), k.row(rk))
        b_ptrs = k.add(k.add(a["b"], k.mul(k.col(rk), a["stride_bk"])), k.row(rn))
        steps = k.div(k.add(a["K"], k.c(bk - 1)), k.c(bk))
        loop = k.b.for_(k.c(0), steps, k.c(1), [k.full((bm, bn), 0, acc), a_ptrs, b_ptrs])
        with k.b.at_end_of(loop.body):
            it, accv, ap, bp = loop.body.args
            left = k.sub(a["K"], k.mul(it, k.c(bk)))
            av = k.load(ap, k.cmp(C.LT, k.row(rk), left), 0)
            bv = k.load(bp, k.cmp(C.LT, k.col(rk), left), 0)
            accv = k.b.dot(av, bv, accv, input_precision="ieee")
            ap = k.add(ap, k.c(bk))
            bp = k.add(bp, k.mul(k.c(bk), a["stride_bk"]))
            k.b.yield_([accv, ap, bp])
        cm = k.add(k.mul(k.pid(0), k.c(bm)), k.arange(bm))
        cn = k.add(k.mul(k.pid(1), k.c(bn)), k.arange(bn))
        c_ptrs = k.add(k.add(a["c"], k.mul(k.col(cm), a["stride_cm"])), k.row(cn))
        mask = k.bin(K.AND, k.cmp(C.LT, k.col(cm), a["M"]), k.cmp(C.LT, k.row(cn), a["N"]))
        k.store(c_ptrs, loop.results[0], mask)
        return k.finish()

    npt, acct = NP[dtype.name], NP[acc.name]

    def inputs(r: np.random.Generator) -> Arrays:
        if dtype.is_floating():
            return {
                "a": r.standard_normal((m, kk)).astype(npt),
                "b": r.standard_normal((kk, n)).astype(npt),
            }
        return {
            "a": r.integers(-100, 100, (m, kk)).astype(npt),
            "b": r.integers(-100, 100, (kk, n)).astype(npt),
        }

    def ref(i: Arrays) -> Arrays:
        return {"c": i["a"].astype(np.float64) @ i["b"].astype(np.float64)}

    return Case(
        f"matmul_{dtype.name}_{acc.name}",
        build,
        inputs,
        lambda i: {"c": np.empty((m, n), acct)},
        lambda i: ["a", "b", "c", m, n, kk, kk, n, n],
        lambda i: (-(-m // bm), -(-n // bn)),
        ref,
        rtol=2e-2 if dtype.bits == 16 else 1e-5,
        atol=5e-2 if dtype.bits == 16 else 1e-4,
    )


def attention(z_h: int = 3, n_ctx: int = 128, d: int = 32, bm: int = 32, bn: int = 32) -> Case:
    """Tutorial 06's forward pass (non-causal, fp16 in, fp32 accumulate, online softmax)."""

    def build() -> ModuleOp:
        f16, f32 = T.float16, T.float32
        k = KernelBuilder(
            "attn_fwd",
            [
                pointer_arg("Q", f16),
                pointer_arg("Kt", f16),
                pointer_arg("V", f16),
                pointer_arg("Out", f16),
                scalar_arg("scale", f32),
                scalar_arg("n_ctx", T.int32),
            ],
        )
        a = k.arg
        base = k.mul(k.mul(k.pid(1), a["n_ctx"]), k.c(d))
        offs_m = k.add(k.mul(k.pid(0), k.c(bm)), k.arange(bm))
        offs_n, offs_d = k.arange(bn), k.arange(d)
        q = k.load(k.add(k.add(k.add(a["Q"], base), k.mul(k.col(offs_m), k.c(d))), k.row(offs_d)))
        init = [k.full((bm,), float("-inf")), k.full((bm,), 1.0), k.full((bm, d), 0.0)]
        loop = k.b.for_(k.c(0), a["n_ctx"], k.c(bn), init)
        with k.b.at_end_of(loop.body):
            start, m_i, l_i, acc = loop.body.args
            cols = k.add(offs_n, start)
            kt = k.load(
                k.add(k.add(k.add(a["Kt"], base), k.mul(k.row(cols), k.c(d))), k.col(offs_d))
            )
            qk = k.b.dot(q, kt, k.full((bm, bn), 0.0))
            scale = k.mul(a["scale"], k.c(1.44269504, f32))
            m_ij = k.bin(K.MAX, m_i, k.mul(k.reduce(qk, 1, K.MAX), scale))
            p = k.math("exp2", k.sub(k.mul(qk, scale), k.col(m_ij)))
            alpha = k.math("exp2", k.sub(m_i, m_ij))
            l_i = k.add(k.mul(l_i, alpha), k.reduce(p, 1, K.ADD))
            acc = k.mul(acc, k.col(alpha))
            v = k.load(k.add(k.add(k.add(a["V"], base), k.mul(k.col(cols), k.c(d))), k.row(offs_d)))
            acc = k.b.dot(k.cast(p, f16), v, acc)
            k.b.yield_([m_ij, l_i, acc])
        m_i, l_i, acc = loop.results
        out = k.cast(k.div(acc, k.col(l_i)), f16)
        k.store(
            k.add(k.add(k.add(a["Out"], base), k.mul(k.col(offs_m), k.c(d))), k.row(offs_d)), out
        )
        return k.finish()

    def ref(i: Arrays) -> Arrays:
        q, kk, v = (i[x].astype(np.float64) for x in ("Q", "Kt", "V"))
        s = q @ kk.transpose(0, 2, 1) * 0.5
        p = np.exp(s - s.max(-1, keepdims=True))
        return {"Out": (p / p.sum(-1, keepdims=True)) @ v}

    shape = (z_h, n_ctx, d)
    return Case(
        "attention_fwd",
        build,
        lambda r: {
            x: (r.standard_normal(shape) * 0.5).astype(np.float16) for x in ("Q", "Kt", "V")
        },
        lambda i: {"Out": np.empty(shape, np.float16)},
        lambda i: ["Q", "Kt", "V", "Out", 0.5, n_ctx],
        lambda i: (n_ctx // bm, z_h),
        ref,
        rtol=2e-2,
        atol=2e-2,
    )


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
    npt = NP[dtype.name]

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

    npt = NP[dtype.name]
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
    npt = NP[dtype.name]

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

    s, d = NP[src.name], NP[dst.name]
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


def all_cases() -> list[Case]:
    return [
        vector_add(),
        vector_add(T.float16),
        softmax(),
        softmax(64, 4096, 4096, 8),
        layer_norm(),
        matmul(),
        matmul(dtype=T.float16),
        matmul(dtype=T.float64, acc=T.float64),
        matmul(dtype=T.int8, acc=T.int32),
        attention(),
        reduce_2d(0),
        reduce_2d(1),
        reduce_2d(1, K.MAX),
        reduce_2d(0, K.MIN),
        reduce_2d(0, K.ADD, 64, 64, T.float16, 8),
        reduce_2d(1, K.MAX, 256, 16, T.int64, 8),
        reduce_2d(1, K.ADD, 8, 1024, T.float32, 16),
        reduce_2d(0, K.MAX, 512, 2, T.int8, 2),
        reduce_2d(1, K.ADD, 2, 8, T.float32, 1),
        masked_other(T.int8),
        masked_other(T.float16),
        masked_other(T.int64),
        atomic_minmax(),
        atomic_add_fp16(),
        scan_2d(1),
        scan_2d(0),
        scan_2d(1, reverse=True),
        *shape_ops(),
        elementwise("exp"),
        elementwise("log"),
        elementwise("sqrt"),
        elementwise("erf"),
        elementwise("sin", fast=True, low=-3, high=3),
        elementwise("exp", T.float64),
        elementwise("tanh", low=-3, high=3),
        elementwise("exp", T.float16, low=-2, high=2),
        elementwise("rsqrt"),
        elementwise("atan", T.float64),
        cast(T.float32, T.float16),
        cast(T.float32, T.int32),
        cast(T.int32, T.float32),
        cast(T.float16, T.float64),
        atomics(),
    ]


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
