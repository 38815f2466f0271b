# ruff: noqa: B007, E731, F401, F841, RUF059, SIM105
"""More deliberately wrong kernels (see bad_kernels.py): Python that kernels may not use, calls
that cannot be inlined, and sizes past the compiler's limits. The reported line ends with
``# bad``."""

import numpy as np

import tilec
import tilec.language as tl

# --- unsupported Python -------------------------------------------------------------------


def try_statement(x, out):
    try:  # bad
        tl.store(out, 1.0)
    except Exception:
        pass


def with_statement(x, out):
    with open("f"):  # bad
        pass


def lambda_expression(x, out):
    f = lambda v: v  # bad
    tl.store(out, f(1.0))


def list_comprehension(x, out):
    a = [i for i in range(3)]  # bad
    tl.store(out, 1.0)


def import_in_kernel(x, out):
    import math  # bad

    tl.store(out, 1.0)


def slice_of_tile(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out + tl.arange(0, 8), v[0:8])  # bad


def int_index_of_tile(x, out):
    tl.store(out, tl.load(x + tl.arange(0, 16))[3])  # bad


def matmul_operator(x, out):
    a = tl.zeros((16, 16), tl.float32)
    tl.store(out, tl.sum(tl.sum(a @ a, 1), 0))  # bad


def power_operator(x, out):
    tl.store(out, tl.load(x) ** 2)  # bad


def in_operator(x, out):
    v = tl.arange(0, 16)
    tl.store(out + v, 1.0, mask=v in (1, 2))  # bad


def assign_attribute(x, out):
    v = tl.load(x)
    v.shape = 3  # bad


def assign_item(x, out):
    v = tl.zeros((16,), tl.float32)
    v[0] = 1.0  # bad


def unpack_a_tile(x, out):
    a, b = tl.arange(0, 16)  # bad
    tl.store(out, a)


def bool_of_tensor(x, out):
    if bool(tl.arange(0, 16)):  # bad
        tl.store(out, 1.0)


def int_of_tensor(x, out):
    offs = tl.arange(0, int(tl.program_id(0)))  # bad
    tl.store(out + offs, 1.0)


def f_string_of_tensor(x, out):
    s = f"{x}"  # bad
    tl.store(out, 1.0)


# --- calls --------------------------------------------------------------------------------


def plain_helper(v):
    return v * 2


def call_plain_function(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out + tl.arange(0, 16), plain_helper(v))  # bad


def call_numpy_on_tensor(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out + tl.arange(0, 16), np.exp(v))  # bad


def plain_combine(a, b):
    return a + b


def reduce_with_plain_combine(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out, tl.reduce(v, 0, plain_combine))  # bad


@tilec.jit
def recurse(v, depth):
    return recurse(v + 1, depth)  # bad


def recursion(x, out):
    tl.store(out, recurse(tl.load(x), 3))


@tilec.jit
def ping(v):
    return pong(v)  # bad


@tilec.jit
def pong(v):
    return ping(v)  # bad


def mutual_recursion(x, out):
    tl.store(out, ping(tl.load(x)))


@tilec.jit
def add_two(a, b):
    return a + b


def jit_call_missing_argument(x, out):
    tl.store(out, add_two(tl.load(x)))  # bad


def jit_call_unknown_keyword(x, out):
    tl.store(out, add_two(tl.load(x), 1.0, c=1))  # bad


@tilec.jit
def pair(a):
    return a, a


def unpack_too_many(x, out):
    a, b, c = pair(tl.load(x))  # bad
    tl.store(out, a)


# --- sizes --------------------------------------------------------------------------------


def huge_arange(x, out):
    offs = tl.arange(0, 2**24)  # bad
    tl.store(out + offs, tl.load(x + offs), mask=offs < 16)


def arange_past_int32(x, out):
    offs = tl.arange(0, 2**40)  # bad
    tl.store(out + offs, 1.0, mask=offs < 16)


def huge_zeros(x, out):
    z = tl.zeros((2**16, 2**16), tl.float32)  # bad
    tl.store(out, tl.sum(tl.sum(z, 1), 0))


def huge_broadcast(x, out):
    a = tl.arange(0, 2048)
    grid = a[:, None] + a[None, :]  # bad
    tl.store(out, tl.sum(tl.sum(grid, 1), 0).to(tl.float32))


def huge_dot_result(x, out):
    a = tl.zeros((2048, 16), tl.float32)
    b = tl.zeros((16, 2048), tl.float32)
    c = tl.dot(a, b)  # bad
    tl.store(out, tl.sum(tl.sum(c, 1), 0))


def huge_static_range(x, out):
    for i in tl.static_range(10**9):  # bad
        tl.store(out, 1.0)


def nested_static_ranges(x, out):
    for i in tl.static_range(1024):
        for j in tl.static_range(1024):  # bad
            tl.store(out, 1.0)
