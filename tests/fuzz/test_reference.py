"""The fuzzer's reference is itself checked: one-rounding float conversions agree with NumPy
where NumPy rounds once, bf16 rounds to nearest even, integers wrap, C division truncates, and
every generated kernel is well-shaped. None of these compile a kernel."""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .check import consistent
from .draw import RandomDraw
from .gen import generate
from .numerics import as_ints, round_float, round_int, ulps, wrap
from .reference import _int_binary


def test_round_float_matches_numpy_for_fp16_and_fp32() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10000) * 10.0 ** rng.uniform(-9, 9, 10000)
    x = np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, 65519.99, 65520.0, 2.0**-25, 3 * 2.0**-26]])
    with np.errstate(over="ignore"):
        assert np.array_equal(round_float(x, D.F16), x.astype(np.float16))
        assert np.array_equal(round_float(x, D.F32), x.astype(np.float32))


def test_bf16_rounds_to_nearest_even() -> None:
    one = 1.0
    tie_down = one + 2.0**-8  # halfway between 1 and 1 + 2**-7: the even neighbour is 1
    tie_up = one + 3 * 2.0**-8  # halfway between 1 + 2**-7 and 1 + 2**-6: rounds up
    got = round_float(np.array([tie_down, tie_up, 3.4e38, -1e-45]), D.BF16)
    assert got.tolist() == [1.0, 1.0 + 2.0**-6, np.inf, -0.0]


def test_large_integers_round_once() -> None:
    # 2**53 + 1 through float64 would round to 2**53 first, then tie to even in fp32
    v = np.array([2**60 + 2**36 + 1, -(2**63)], dtype=object)
    assert round_int(v, D.F32).tolist() == [float(2**60 + 2**37), -(2.0**63)]


def test_integers_wrap_divide_and_shift_as_documented() -> None:
    assert wrap(np.array([128, -129, 2**40 + 5], dtype=object), D.I8).tolist() == [-128, 127, 5]
    a = np.array([-7, 7, -128, 5], dtype=np.int8)
    b = np.array([2, -2, -1, 0], dtype=np.int8)
    q, undefined = _int_binary("//", a, b, D.I8, np.zeros(4, bool), True)
    r, _ = _int_binary("%", a, b, D.I8, np.zeros(4, bool), True)
    # truncation; then the documented edge cases: INT_MIN // -1 wraps, x // 0 is all ones
    assert q.tolist() == [-3, -3, -128, -1] and r.tolist() == [-1, 1, 0, 5]
    assert not undefined.any()
    s, _ = _int_binary("<<", a, np.array([1, 8, -1, 7], np.int8), D.I8, np.zeros(4, bool), True)
    assert s.tolist() == [-14, 0, 0, -128]
    # int8 >> uint8 computes in uint8 but shifts arithmetically, as Triton does
    u = np.array([0x80, 0x80, 0x7F, 0xFF], dtype=np.uint8)
    n = np.array([1, 9, 1, 200], dtype=np.uint8)
    sa, _ = _int_binary(">>", u, n, D.U8, np.zeros(4, bool), True)
    sl, _ = _int_binary(">>", u, n, D.U8, np.zeros(4, bool), False)
    assert sa.tolist() == [0xC0, 0xFF, 0x3F, 0xFF] and sl.tolist() == [0x40, 0, 0x3F, 0]
    assert as_ints(np.array([2**64 - 1], np.uint64)).tolist() == [2**64 - 1]


def test_float_to_int_saturates_and_nan_is_zero() -> None:
    from .convert import convert

    x = np.array([np.nan, 1e10, -1e10, -np.inf, -0.5, 3.9], np.float32)
    assert convert(x, D.F32, D.I8)[0].tolist() == [0, 127, -128, -128, 0, 3]
    assert convert(x, D.F32, D.U8)[0].tolist() == [0, 255, 0, 0, 0, 3]


def test_ulps_count_across_zero_and_to_infinity() -> None:
    one_up = np.nextafter(np.float32(1), np.float32(2))
    assert ulps(np.array([one_up]), np.array([np.float32(1)]), D.F32).tolist() == [1]
    assert ulps(np.array([np.float32(np.inf)]), np.array([np.finfo(np.float32).max]), D.F32)[0] == 1
    assert ulps(np.array([np.float32(-0.0)]), np.array([np.float32(0.0)]), D.F32)[0] == 0


def test_generated_kernels_are_well_shaped() -> None:
    for seed in range(100):
        assert consistent(generate(RandomDraw(seed))), seed


def test_argmax_skips_nan_as_documented() -> None:
    from .reference_ops import _arg_extreme

    x = np.array([[np.nan, 6, 8], [np.nan, np.nan, np.nan], [np.nan, -np.inf, 1]], np.float32)
    assert _arg_extreme(x, True).tolist() == [2, 0, 2]
    assert _arg_extreme(x, False).tolist() == [1, 0, 1]


def test_generator_reaches_dots_loops_and_atomic_results() -> None:
    from .program import walk

    seen: set[str] = set()
    for seed in range(400):
        case = generate(RandomDraw(seed))
        k = case.kernel
        seen |= {n.op for n in walk(k.root)} | {k.store, "returns_old" * k.returns_old}
        seen |= {f"dot:{n.dtype.name}" for n in walk(k.root) if n.op == "dot"}
        seen |= {f"loop:{n.attr[2]}" for n in walk(k.root) if n.op == "loop"}
    want = {"dot:int32", "dot:float32", "dot:float64", "loop:0", "loop:1", "loop:2",
            "atomic_cas", "returns_old"}  # fmt: skip
    assert want <= seen, want - seen


def test_int8_dot_and_carried_loop_reference() -> None:
    from .program import Case, Input, Kernel, Node
    from .reference import Evaluator

    a = Node("load", (), D.I8, (2, 3), (0,))
    b = Node("load", (), D.I8, (3, 2), (1,))
    dot = Node("dot", (a, b), D.I32, (2, 2))
    loop = Node(
        "loop", (dot, Node("lit", (), D.I32, (), (3,))), D.I32, (2, 2), ("*", (0, 3, 1), 1, "")
    )
    inputs = (Input(D.I8, (2, 3), False, None), Input(D.I8, (3, 2), False, None))
    case = Case(Kernel(inputs, loop, D.I32, "store", False, 1, (), ()), 0, (6, 6, 4), 0)
    x = np.array([-128, 127, 1, 2, 3, 4], np.int8)
    y = np.array([-128, 1, 2, 3, 4, 5], np.int8)
    got, undefined = Evaluator(case, [x, y], 0).run()
    want = (x.reshape(2, 3).astype(np.int64) @ y.reshape(3, 2).astype(np.int64)) * 9  # trips 0, 2
    assert got.tolist() == want.tolist() and not undefined.any()


def test_fused_multiply_add_rounds_once_where_the_compiler_fuses() -> None:
    from .fusion import fma, fused_sides
    from .program import Node

    # 1 + 2**-11 + 2**-24 + 2**-60 is above the tie: through fp64 it would round to the tie,
    # then to even (1 + 2**-11); once, it rounds up
    a = np.array([1 + 2.0**-12], np.float32)
    assert fma(a, a, np.array([2.0**-60], np.float32), D.F32)[0] == np.float32(1 + 2**-11 + 2**-23)
    x, y = (Node("load", (), D.F32, (4,), (k,)) for k in (0, 1))
    z = Node("load", (), D.F64, (4,), (2,))
    mul = Node("bin", (x, y), D.F32, (4,), ("*",))
    add = Node("bin", (y, mul), D.F32, (4,), ("-",))
    assert fused_sides(add) == {id(add): 1}
    twice = Node("bin", (add, mul), D.F32, (4,), ("+",))  # the product has two uses
    assert fused_sides(twice) == {}
    assert fused_sides(Node("bin", (mul, z), D.F64, (4,), ("+",))) == {}  # a cast between
    by_one = Node("bin", (x, Node("lit", (), D.F32, (), (1.0,))), D.F32, (4,), ("*",))
    assert fused_sides(Node("bin", (by_one, y), D.F32, (4,), ("+",))) == {}


def test_layouts_place_transposed_and_reversed_tiles() -> None:
    from .program import Layout

    assert Layout().offsets((2, 3)).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert Layout((1, 0)).offsets((2, 3)).tolist() == [[0, 2, 4], [1, 3, 5]]
    assert Layout((), (1,)).offsets((2, 3)).tolist() == [[2, 1, 0], [5, 4, 3]]


def test_rtz_rounds_toward_zero_and_stays_finite() -> None:
    x = np.array([1 + 2.0**-10 * 1.9, -(1 + 2.0**-10 * 1.9), 70000.0, -np.inf, 2.0**-26, np.nan])
    got = round_float(x, D.F16, "rtz")
    assert got[:5].tolist() == [1 + 2.0**-10, -(1 + 2.0**-10), 65504.0, -np.inf, 0.0]
    assert np.isnan(got[5])
    assert round_float(np.array([3.4e38]), D.BF16, "rtz").tolist() == [float.fromhex("0x1.fep127")]
