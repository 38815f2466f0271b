"""Conformance kernels in the shapes of Triton's tutorials (vector add, softmax, layer norm,
matmul, attention), written as tile IR; ``all_cases()`` lists them with the feature kernels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cuda_ir_case import NP, Arrays, Case
from cuda_ir_dsl import C, K, KernelBuilder
from cuda_ir_features import (
    atomic_add_fp16,
    atomic_minmax,
    atomics,
    cast,
    elementwise,
    masked_other,
    reduce_2d,
    scan_2d,
    shape_ops,
)

from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg
from tilec.ir.ops import InputPrecision, ModuleOp


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

    npt = NP[str(dtype)]
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
            accv = k.b.dot(av, bv, accv, input_precision=InputPrecision.IEEE)
            ap = k.add(ap, k.c(bk))
            bp = k.add(bp, k.mul(k.c(bk), a["stride_bk"]))
            k.b.yield_([accv, ap, bp])
        cm = k.add(k.mul(k.pid(0), k.c(bm)), k.arange(bm))
        cn = k.add(k.mul(k.pid(1), k.c(bn)), k.arange(bn))
        c_ptrs = k.add(k.add(a["c"], k.mul(k.col(cm), a["stride_cm"])), k.row(cn))
        mask = k.bin(K.AND, k.cmp(C.LT, k.col(cm), a["M"]), k.cmp(C.LT, k.row(cn), a["N"]))
        k.store(c_ptrs, loop.results[0], mask)
        return k.finish()

    npt, acct = NP[str(dtype)], NP[str(acc)]

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
