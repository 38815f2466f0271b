# ruff: noqa: B007, F821
"""Deliberately wrong kernels. The line each one must be reported at ends with ``# bad``.

Parameters named ``x`` and ``out`` are fp32 arrays, ``n`` an int, and ``BLOCK`` a constexpr 16
when the test launches them; everything else is wrong on purpose.
"""

import tilec.language as tl


def shape_mismatch(x, out):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(out + a, a + b)  # bad


def bitwise_on_float(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out + tl.arange(0, 16), v & 1)  # bad


def arange_runtime_end(x, out, n):
    offs = tl.arange(0, n)  # bad
    tl.store(out + offs, tl.load(x + offs))


def arange_not_power_of_2(x, out):
    offs = tl.arange(0, 10)  # bad
    tl.store(out + offs, tl.load(x + offs))


def arange_float_end(x, out):
    offs = tl.arange(0, 16.0)  # bad
    tl.store(out + offs, tl.load(x + offs))


def arange_reversed(x, out):
    offs = tl.arange(16, 0)  # bad
    tl.store(out + offs, tl.load(x + offs))


def arange_one_argument(x, out):
    offs = tl.arange(16)  # bad
    tl.store(out + offs, tl.load(x + offs))


def arange_too_many_arguments(x, out):
    offs = tl.arange(0, 16, 1, 2)  # bad
    tl.store(out + offs, tl.load(x + offs))


def pointer_plus_pointer(x, out):
    p = x + out  # bad
    tl.store(out, tl.load(p))


def pointer_times_int(x, out):
    p = x * 2  # bad
    tl.store(out, tl.load(p))


def pointer_plus_float(x, out):
    tl.store(out, tl.load(x + 1.5))  # bad


def negated_pointer(x, out):
    tl.store(out, tl.load(-x))  # bad


def store_pointer_as_value(x, out):
    tl.store(out, x)  # bad


def store_through_int(x, out, n):
    tl.store(n, 1.0)  # bad


def store_wider_value(x, out):
    offs = tl.arange(0, 16)
    tl.store(out + offs, tl.zeros((32,), tl.float32))  # bad


def store_mask_wrong_shape(x, out):
    offs = tl.arange(0, 16)
    tl.store(out + offs, tl.load(x + offs), mask=tl.arange(0, 32) < 3)  # bad


def store_string(x, out):
    tl.store(out, "abc")  # bad


def store_tuple(x, out):
    tl.store(out, (1.0, 2.0))  # bad


def load_int(x, out, n):
    tl.store(out, tl.load(n))  # bad


def load_float_literal(x, out):
    tl.store(out, tl.load(1.5))  # bad


def load_none(x, out):
    tl.store(out, tl.load(None))  # bad


def load_other_wrong_shape(x, out):
    offs = tl.arange(0, 16)
    v = tl.load(x + offs, mask=offs < 3, other=tl.zeros((32,), tl.float32))  # bad
    tl.store(out + offs, v)


def dot_mismatched_inner(x, out):
    a = tl.zeros((16, 32), tl.float32)
    c = tl.dot(a, a)  # bad
    tl.store(out, tl.sum(tl.sum(c, 1), 0))


def dot_of_vectors(x, out):
    a = tl.zeros((16,), tl.float32)
    tl.store(out, tl.dot(a, a))  # bad


def dot_mixed_dtypes(x, out):
    a = tl.zeros((16, 16), tl.float32)
    c = tl.dot(a, tl.zeros((16, 16), tl.int8))  # bad
    tl.store(out, tl.sum(tl.sum(c, 1), 0))


def dot_acc_wrong_shape(x, out):
    a = tl.zeros((16, 16), tl.float32)
    c = tl.dot(a, a, acc=tl.zeros((32, 16), tl.float32))  # bad
    tl.store(out, tl.sum(tl.sum(c, 1), 0))


def dot_int8_fp16_acc(x, out):
    a = tl.zeros((16, 16), tl.int8)
    c = tl.dot(a, a, acc=tl.zeros((16, 16), tl.float16))  # bad
    tl.store(out, tl.sum(tl.sum(c, 1), 0))


def reduce_axis_too_big(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out, tl.sum(v, axis=2))  # bad


def reduce_axis_too_negative(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out, tl.max(v, axis=-3))  # bad


def reduce_axis_string(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out, tl.sum(v, axis="0"))  # bad


def reduce_axis_runtime(x, out, n):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out, tl.sum(v, axis=n))  # bad


def reduce_combine_not_callable(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out, tl.reduce(v, 0, 42))  # bad


def cumsum_axis_too_big(x, out):
    v = tl.zeros((4,), tl.float32)
    tl.store(out, tl.sum(tl.cumsum(v, axis=3), 0))  # bad


def load_without_arguments(x, out):
    tl.store(out, tl.load())  # bad


def store_without_value(x, out):
    tl.store(out)  # bad


def zeros_without_dtype(x, out):
    tl.store(out + tl.arange(0, 16), tl.zeros((16,)))  # bad


def zeros_string_dtype(x, out):
    tl.store(out + tl.arange(0, 16), tl.zeros((16,), "float"))  # bad


def zeros_negative_shape(x, out):
    z = tl.zeros((-16,), tl.float32)  # bad
    tl.store(out, tl.sum(z, 0))


def full_string_value(x, out):
    tl.store(out + tl.arange(0, 16), tl.full((16,), "abc", tl.float32))  # bad


def program_id_axis_3(x, out):
    tl.store(out, tl.program_id(3).to(tl.float32))  # bad


def program_id_runtime_axis(x, out, n):
    tl.store(out, tl.program_id(n).to(tl.float32))  # bad


def unknown_keyword(x, out):
    tl.store(out, tl.load(x, bogus=1))  # bad


def where_one_argument(x, out):
    tl.store(out, tl.where(x))  # bad


def exp_of_int(x, out):
    tl.store(out, tl.exp(tl.program_id(0)))  # bad


def sqrt_of_pointer(x, out):
    tl.store(out, tl.sqrt(x))  # bad


def cast_to_string(x, out):
    tl.store(out, tl.load(x).to("fp32"))  # bad


def cast_float_to_pointer(x, out):
    v = tl.load(x)
    tl.store(v.to(tl.pointer_type(tl.float32)), 1.0)  # bad


def bitcast_other_width(x, out):
    tl.store(out, tl.load(x).to(tl.int64, bitcast=True).to(tl.float32))  # bad


def invert_float(x, out):
    tl.store(out, ~tl.load(x))  # bad


def compare_pointer_with_float(x, out):
    tl.store(out, tl.where(x < 1.5, 1.0, 2.0))  # bad


def missing_tl_function(x, out):
    tl.store(out, tl.no_such_function(1))  # bad


def undefined_name(x, out):
    tl.store(out, not_defined_anywhere)  # bad


def integer_literal_too_big(x, out):
    v = tl.program_id(0) + 2**100  # bad
    tl.store(out, v.to(tl.float32))


def integer_literal_huge(x, out):
    tl.store(out, tl.program_id(0) + (1 << 100000))  # bad


def reshape_to_other_size(x, out):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out + tl.arange(0, 16), tl.reshape(v, (4, 8)))  # bad


def permute_repeated_dims(x, out):
    v = tl.zeros((4, 4), tl.float32)
    tl.store(out, tl.sum(tl.sum(tl.permute(v, (0, 0)), 0), 0))  # bad


def trans_of_vector(x, out):
    tl.store(out + tl.arange(0, 4), tl.trans(tl.zeros((4,), tl.float32)))  # bad


def expand_dims_bad_axis(x, out):
    tl.store(out, tl.sum(tl.expand_dims(tl.zeros((4,), tl.float32), 5), 0))  # bad


def broadcast_to_incompatible(x, out):
    v = tl.zeros((4,), tl.float32)
    tl.store(out + tl.arange(0, 8), tl.broadcast_to(v, (8,)))  # bad


def cat_different_shapes(x, out):
    a = tl.zeros((4,), tl.float32)
    tl.store(out, tl.sum(tl.cat(a, tl.zeros((8, 2), tl.float32)), 0))  # bad


def join_different_shapes(x, out):
    a = tl.zeros((4,), tl.float32)
    tl.store(out, tl.sum(tl.sum(tl.join(a, tl.zeros((8,), tl.float32)), 1), 0))  # bad


def atomic_on_int(x, out, n):
    tl.atomic_add(n, 1)  # bad


def atomic_wrong_shape(x, out):
    tl.atomic_add(out + tl.arange(0, 16), tl.zeros((32,), tl.float32))  # bad


def if_on_tile(x, out):
    v = tl.load(x + tl.arange(0, 16))
    if v > 0:  # bad
        tl.store(out, 1.0)


def while_on_tile(x, out):
    v = tl.load(x + tl.arange(0, 16))
    while v > 0:  # bad
        v = v - 1


def range_over_tile(x, out):
    for i in range(tl.arange(0, 16)):  # bad
        tl.store(out, 1.0)


def range_with_float_step(x, out):
    for i in range(0, 10, 0.5):  # bad
        tl.store(out, 1.0)


def range_with_zero_step(x, out):
    for i in range(0, 10, 0):  # bad
        tl.store(out, 1.0)


def loop_changes_type(x, out, n):
    v = 0
    for i in range(n):  # bad
        v = tl.zeros((16,), tl.float32)
    tl.store(out, v)


def returns_a_value(x, out):  # bad
    return 1


def static_assert_fails(x, out):
    tl.static_assert(1 == 2, "boom")  # bad


def static_assert_runtime(x, out, n):
    tl.static_assert(n == 2)  # bad


def constexpr_reassigned(x, out, BLOCK: tl.constexpr):
    BLOCK = tl.program_id(0)
    tl.store(out + tl.arange(0, BLOCK), 1.0)  # bad


def missing_tensor_attribute(x, out):
    tl.store(out, tl.load(x).nonexistent_attr)  # bad


def to_without_dtype(x, out):
    tl.store(out, tl.load(x).to())  # bad


def call_a_tensor(x, out):
    tl.store(out, tl.load(x)(1))  # bad


def device_print_int_prefix(x, out):
    tl.device_print(1, 2)  # bad


def max_contiguous_string(x, out):
    v = tl.max_contiguous(tl.arange(0, 16), "a")  # bad
    tl.store(out + v, 1.0)


def block_pointer_odd_block(x, out):
    p = tl.make_block_ptr(x, (16,), (1,), (0,), (10,), (0,))  # bad
    tl.store(out + tl.arange(0, 16), tl.load(p))


def block_pointer_rank_mismatch(x, out):
    p = tl.make_block_ptr(x, (16, 16), (1,), (0,), (16,), (0,))  # bad
    tl.store(out + tl.arange(0, 16), tl.load(p))


def fp8_arithmetic(x, out):
    v = tl.load(x).to(tl.float8e4nv)
    tl.store(out, (v + v).to(tl.float32))  # bad


def sort_bad_dim(x, out):
    v = tl.zeros((4, 4), tl.float32)
    tl.store(out, tl.sum(tl.sum(tl.sort(v, dim=5), 1), 0))  # bad


def clamp_shapes(x, out):
    v = tl.zeros((4,), tl.float32)
    tl.store(out + tl.arange(0, 4), tl.clamp(v, tl.zeros((8,), tl.float32), 1.0))  # bad
