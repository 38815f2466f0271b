"""Kernels that are legal but odd: degenerate or extreme shapes, every dtype in unusual places,
division by zero, huge shifts, atomics on narrow floats, nested loops with pipelining hints.
Each must compile for every backend and target, or fail with a TilecError; never abort LLVM.
``SIGNATURES`` gives each kernel's argument types as ``tilec.compile`` reads them."""

import tilec
import tilec.language as tl
from tilec.language.extra import libdevice


@tilec.jit
def dot_tiny(a, c):
    i = tl.arange(0, 2)
    x = tl.load(a + i[:, None] * 2 + i[None, :])
    tl.store(c + i[:, None] * 2 + i[None, :], tl.dot(x, x))


@tilec.jit
def dot_row_times_column(a, c):
    k = tl.arange(0, 16)
    row = tl.load(a + k)[None, :]
    col = tl.load(a + k)[:, None]
    tl.store(c + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :], tl.dot(row, col))


@tilec.jit
def dot_batched(a, c):
    b = tl.arange(0, 2)[:, None, None] * 256
    r = tl.arange(0, 16)[None, :, None] * 16
    k = tl.arange(0, 16)[None, None, :]
    x = tl.load(a + b + r + k)
    tl.store(c + b + r + k, tl.dot(x, x))


@tilec.jit
def dot_fp64(a, c):
    i = tl.arange(0, 16)
    x = tl.load(a + i[:, None] * 16 + i[None, :])
    tl.store(c + i[:, None] * 16 + i[None, :], tl.dot(x, x, input_precision="ieee"))


@tilec.jit
def dot_int8(a, c):
    i = tl.arange(0, 32)
    x = tl.load(a + i[:, None] * 32 + i[None, :])
    acc = tl.zeros((32, 32), tl.int32)
    tl.store(c + i[:, None] * 32 + i[None, :], tl.dot(x, x, acc=acc))


@tilec.jit
def dot_fp16_result(a, c, K_STEPS: tl.constexpr):
    i = tl.arange(0, 64)
    acc = tl.zeros((64, 64), tl.float16)
    for k in tl.range(0, K_STEPS, num_stages=4):
        x = tl.load(a + k * 4096 + i[:, None] * 64 + i[None, :])
        acc = tl.dot(x, x, acc=acc, out_dtype=tl.float16)
    tl.store(c + i[:, None] * 64 + i[None, :], acc)


@tilec.jit
def division_by_zero(x, out, d):
    i = tl.arange(0, 128)
    v = tl.load(x + i)
    f = v.to(tl.float32)
    q = v // 0 + v % 0 + v // d + v % d
    tl.store(out + i, q.to(tl.float32) + f / 0.0 + f % 0.0)


@tilec.jit
def shifts_past_width(x, out, s):
    i = tl.arange(0, 128)
    v = tl.load(x + i)
    tl.store(out + i, (v << 100) + (v >> 40) + (v << s) + (v >> -s))


@tilec.jit
def one_element_tiles(x, out):
    i = tl.arange(0, 1)
    v = tl.load(x + i)
    r = tl.sum(v, axis=0) + tl.max(v[:, None], axis=1) + tl.cumsum(v, 0)
    tl.store(out + i, r + tl.argmax(v, 0).to(tl.float32))


@tilec.jit
def rank_ten(x, out):
    v = tl.load(x + tl.arange(0, 1024))
    w = tl.reshape(v, (2, 2, 2, 2, 2, 2, 2, 2, 2, 2))
    tl.store(out, tl.sum(tl.reshape(w * 2.0, (1024,)), 0))


@tilec.jit
def largest_tile(x, out, n):
    i = tl.arange(0, 65536)
    m = i < n
    tl.store(out + i, tl.load(x + i, mask=m) * 2.0, mask=m)


@tilec.jit
def narrow_float_atomics(h, b, d, i64, u32):
    i = tl.arange(0, 64)
    tl.atomic_add(h + i % 4, tl.full((64,), 1.0, tl.float16))
    tl.atomic_add(b + i % 4, tl.full((64,), 1.0, tl.bfloat16))
    tl.atomic_max(d + i % 4, i.to(tl.float64))
    tl.atomic_cas(i64, 0, 5)
    tl.atomic_xchg(u32 + i, i.to(tl.uint32), mask=i < 3)
    tl.atomic_min(i64 + i % 2, -i.to(tl.int64), sem="relaxed", scope="cta")


@tilec.jit
def narrow_float_math(h, b, d):
    i = tl.arange(0, 128)
    x, y, z = tl.load(h + i), tl.load(b + i), tl.load(d + i)
    tl.store(h + i, tl.exp(x) + tl.sqrt(x) + tl.sin(x) + tl.log2(x) + tl.erf(x))
    tl.store(b + i, tl.exp2(y) + tl.rsqrt(y) + tl.cos(y) + tl.floor(y) + tl.sigmoid(y))
    tl.store(d + i, tl.exp(z) + tl.log(z) + tl.erf(z) + libdevice.tanh(z) + libdevice.pow(z, z))


@tilec.jit
def odd_casts(f64, bf, i8, u64, out):
    i = tl.arange(0, 64)
    a = tl.load(f64 + i).to(tl.float16).to(tl.bfloat16)
    b = tl.load(bf + i).to(tl.int8).to(tl.uint64).to(tl.float16)
    c = tl.load(i8 + i).to(tl.int1).to(tl.bfloat16)
    d = tl.load(u64 + i).to(tl.float16).to(tl.uint8)
    e = tl.load(f64 + i).to(tl.int64, bitcast=True).to(tl.float32)
    tl.store(out + i, a.to(tl.float32) + b.to(tl.float32) + c.to(tl.float32) + d + e)


@tilec.jit
def integer_corners(x, out):
    i = tl.arange(0, 64)
    v = tl.load(x + i)
    r = tl.umulhi(v.to(tl.uint32), v.to(tl.uint32)).to(tl.int64) + tl.abs(v) + (-v) % 7
    tl.store(out + i, r + tl.cdiv(v, 3) + tl.minimum(v, -(2**63)) + tl.maximum(v, 2**63 - 1))


@tilec.jit
def masks_of_every_kind(x, out, n):
    i = tl.arange(0, 64)
    v = tl.load(x + i, mask=(i > 3) and (i < n), other=0.0)
    tl.store(out + i, v, mask=0 < i < n)
    tl.store(out + i, v, mask=(i < n).to(tl.int8))
    tl.store(out, tl.sum(v, 0), mask=n > 5)


@tilec.jit
def asserts_and_prints(x, out, n):
    i = tl.arange(0, 16)
    v = tl.load(x + i)
    tl.device_assert(v == v, "no NaN")
    tl.device_assert(n >= 0)
    tl.device_print("v", v, n, i)
    tl.static_print("compiling", n)
    tl.store(out + i, v)


@tilec.jit
def sorts_of_small_types(b, i8, out):
    i = tl.arange(0, 32)
    x = tl.load(i8 + i)
    s = tl.sort(x) + tl.sort(x, descending=True) + tl.topk(x, 4).sum()
    flags = tl.load(b + i)
    tl.store(out + i, s.to(tl.float32) + tl.cumsum(flags.to(tl.int32), 0).to(tl.float32))


@tilec.jit
def randomness(out, seed, offset):
    i = tl.arange(0, 256)
    r = tl.rand(seed, offset + i) + tl.randn(seed, i) + tl.randint(seed, i).to(tl.float32)
    tl.store(out + i, r)


@tilec.jit
def loops_with_hints(x, out, n):
    acc = tl.zeros((32,), tl.float32)
    for i in tl.range(0, n, 1, num_stages=5, loop_unroll_factor=0, flatten=True):
        for j in tl.range(i, n, 7, num_stages=1):
            acc += tl.load(x + j + tl.arange(0, 32))
    k = 0
    while k < n:
        acc = acc * 0.5
        k += 3
    for s in tl.static_range(4):
        acc += s
    tl.store(out + tl.arange(0, 32), acc)


@tilec.jit
def empty_kernel(x):
    pass


@tilec.jit
def three_d_grid(out):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    pid += tl.program_id(2) * tl.num_programs(0) * tl.num_programs(1)
    tl.store(out + pid, pid.to(tl.float32))


@tilec.jit
def shape_shuffles(x, out):
    v = tl.load(x + tl.arange(0, 64))
    w = tl.reshape(v, (4, 4, 4))
    a, b = tl.split(tl.permute(tl.join(w, w), (1, 0, 2, 3)))
    f = tl.flip(tl.interleave(tl.ravel(a), tl.ravel(b)), 0)
    g = tl.gather(f, tl.arange(0, 128) % 3, 0)
    tl.store(out + tl.arange(0, 128), g + tl.histogram(tl.arange(0, 128) % 8, 128).to(tl.float32))


@tilec.jit
def where_scalar_condition(x, out, n):
    i = tl.arange(0, 32)
    tl.store(out + i, tl.where(n > 3, tl.load(x + i), -1.0) + tl.where(i < n, 1.0, 0.0))


P16 = "*fp16:16"
SIGNATURES = {
    "dot_tiny": "*fp32:16, *fp32:16",
    "dot_row_times_column": "*fp32:16, *fp32:16",
    "dot_batched": "*fp16:16, *fp32:16",
    "dot_fp64": "*fp64:16, *fp64:16",
    "dot_int8": "*i8:16, *i32:16",
    "dot_fp16_result": f"{P16}, {P16}, K_STEPS=3",
    "division_by_zero": "*i32:16, *fp32:16, i32",
    "shifts_past_width": "*i64:16, *i64:16, i32",
    "one_element_tiles": "*fp32, *fp32",
    "rank_ten": "*fp32:16, *fp32",
    "largest_tile": "*fp32:16, *fp32:16, i32",
    "narrow_float_atomics": "*fp16:16, *bf16:16, *fp64:16, *i64:16, *u32:16",
    "narrow_float_math": f"{P16}, *bf16:16, *fp64:16",
    "odd_casts": "*fp64:16, *bf16:16, *i8:16, *u64:16, *fp32:16",
    "integer_corners": "*i64:16, *i64:16",
    "masks_of_every_kind": "*fp32:16, *fp32:16, i32",
    "asserts_and_prints": "*fp32:16, *fp32:16, i32",
    "sorts_of_small_types": "*i1:16, *i8:16, *fp32:16",
    "randomness": "*fp32:16, i64, i32",
    "loops_with_hints": "*fp32:16, *fp32:16, i32",
    "empty_kernel": "*fp32",
    "three_d_grid": "*fp32:16",
    "shape_shuffles": "*fp32:16, *fp32:16",
    "where_scalar_condition": "*fp32:16, *fp32:16, i32",
}
