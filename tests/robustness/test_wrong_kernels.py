"""Every deliberately wrong kernel in bad_kernels.py and bad_python.py fails to compile with a TilecError subclass
that names the offending line (file:line:col and a caret) and says what is wrong; none of them
gets a bare Python exception out of tilec or takes the process down."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tilec
from tilec import errors as E

from . import bad_kernels, bad_python

MODULES = (bad_kernels, bad_python)

# kernel name -> (error class, a fragment of the message)
CASES: dict[str, tuple[type[E.TilecError], str]] = {
    "shape_mismatch": (E.TileTypeError, "shapes [16] and [32] cannot be broadcast"),
    "bitwise_on_float": (E.TileTypeError, "bitwise operators need integer operands"),
    "arange_runtime_end": (E.ConstexprError, "arange's end must be a compile-time constant"),
    "arange_not_power_of_2": (E.TileTypeError, "must be a power of 2, got 10"),
    "arange_float_end": (E.TileTypeError, "arange's end must be an int"),
    "arange_reversed": (E.TileTypeError, "must be greater than its start"),
    "arange_one_argument": (E.TileTypeError, "missing a required argument: 'end'"),
    "arange_too_many_arguments": (E.TileTypeError, "too many positional arguments"),
    "pointer_plus_pointer": (E.TileTypeError, "cannot add two pointers"),
    "pointer_times_int": (E.TileTypeError, "invalid operands of type *fp32 and i32"),
    "pointer_plus_float": (E.TileTypeError, "invalid operands of type *fp32 and fp32"),
    "negated_pointer": (E.TileTypeError, "cannot negate a pointer"),
    "store_pointer_as_value": (E.TileTypeError, "cannot cast *fp32 to fp32"),
    "store_through_int": (E.TileTypeError, "store needs a pointer"),
    "store_wider_value": (E.TileTypeError, "cannot be broadcast"),
    "store_mask_wrong_shape": (E.TileTypeError, "cannot broadcast shape [32] to [16]"),
    "store_string": (E.TileTypeError, "got str 'abc'"),
    "store_tuple": (E.TileTypeError, "got tuple"),
    "load_int": (E.TileTypeError, "load needs a pointer"),
    "load_float_literal": (E.TileTypeError, "load needs a pointer"),
    "load_none": (E.TileTypeError, "load needs a pointer or a tile of pointers, got None"),
    "load_other_wrong_shape": (E.TileTypeError, "shapes [16] and [32] cannot be broadcast together"),
    "dot_mismatched_inner": (E.TileTypeError, "dot shapes [16, 32] @ [16, 32] do not match"),
    "dot_of_vectors": (E.TileTypeError, "dot needs two 2-D or 3-D tiles"),
    "dot_mixed_dtypes": (E.TileTypeError, "dot operands must have the same dtype"),
    "dot_acc_wrong_shape": (E.TileTypeError, "dot's acc must be a [16, 16] fp32 tile"),
    "dot_int8_fp16_acc": (E.TileTypeError, "dot's acc must be a [16, 16] i32 tile"),
    "reduce_axis_too_big": (E.TileTypeError, "invalid axis 2: a tensor of rank 1 has axes -1..0"),
    "reduce_axis_too_negative": (E.TileTypeError, "invalid axis -3: a tensor of rank"),
    "reduce_axis_string": (E.TileTypeError, "axis must be an int"),
    "reduce_axis_runtime": (E.ConstexprError, "axis must be a compile-time constant"),
    "reduce_combine_not_callable": (E.TileTypeError, "not callable"),
    "cumsum_axis_too_big": (E.TileTypeError, "invalid axis 3: a tensor of rank"),
    "load_without_arguments": (E.TileTypeError, "missing a required argument: 'pointer'"),
    "store_without_value": (E.TileTypeError, "missing a required argument: 'value'"),
    "zeros_without_dtype": (E.TileTypeError, "missing a required argument: 'dtype'"),
    "zeros_string_dtype": (E.TileTypeError, "dtype must be a tl dtype"),
    "zeros_negative_shape": (E.TileTypeError, "not a power of 2"),
    "full_string_value": (E.CompileError, "could not convert string to float"),
    "program_id_axis_3": (E.TileTypeError, "program_id axis must be 0, 1, or 2 but got 3"),
    "program_id_runtime_axis": (E.ConstexprError, "axis must be a compile-time constant"),
    "unknown_keyword": (E.TileTypeError, "unexpected keyword argument 'bogus'"),
    "where_one_argument": (E.TileTypeError, "missing a required argument"),
    "exp_of_int": (E.TileTypeError, "exp needs floating-point operands"),
    "sqrt_of_pointer": (E.TileTypeError, "sqrt does not take *fp32"),
    "cast_to_string": (E.TileTypeError, "dtype must be a tl dtype"),
    "cast_float_to_pointer": (E.TileTypeError, "cannot cast fp32 to *fp32"),
    "bitcast_other_width": (E.TileTypeError, "cannot bitcast fp32 (32 bits) to i64"),
    "invert_float": (E.TileTypeError, "~ needs an integer operand"),
    "compare_pointer_with_float": (E.TileTypeError, "invalid operands"),
    "missing_tl_function": (E.CompileError, "no attribute 'no_such_function'"),
    "undefined_name": (E.CompileError, "name 'not_defined_anywhere' is not defined"),
    "integer_literal_too_big": (E.TileTypeError, "does not fit in 64 bits"),
    "integer_literal_huge": (E.TileTypeError, "constant of 100001 bits does not fit in 64 bits"),
    "reshape_to_other_size": (E.TileTypeError, "cannot reshape [16]"),
    "permute_repeated_dims": (E.TileTypeError, "are not a permutation"),
    "trans_of_vector": (E.TileTypeError, "needs a 2-D tile"),
    "expand_dims_bad_axis": (E.TileTypeError, "invalid axis 5: a tensor of rank"),
    "broadcast_to_incompatible": (E.TileTypeError, "cannot broadcast shape [4] to [8]"),
    "cat_different_shapes": (E.TileTypeError, "cat needs two tiles of the same type"),
    "join_different_shapes": (E.TileTypeError, "cannot be broadcast"),
    "atomic_on_int": (E.TileTypeError, "atomic_add needs a pointer"),
    "atomic_wrong_shape": (E.TileTypeError, "cannot be broadcast"),
    "if_on_tile": (E.TileTypeError, "condition of an if statement must be a scalar"),
    "while_on_tile": (E.TileTypeError, "condition of a while loop must be a scalar"),
    "range_over_tile": (E.TileTypeError, "range bounds must be scalars"),
    "range_with_float_step": (E.TileTypeError, "range bounds must be integers"),
    "range_with_zero_step": (E.TileTypeError, "step must not be zero"),
    "loop_changes_type": (E.TileTypeError, "loop-carried 'v' has type i32 before the loop"),
    "returns_a_value": (E.UnsupportedFeature, "kernels cannot return values"),
    "static_assert_fails": (E.CompileError, "static_assert failed: boom"),
    "static_assert_runtime": (E.ConstexprError, "static_assert needs a compile-time condition"),
    "constexpr_reassigned": (E.ConstexprError, "arange's end must be a compile-time constant"),
    "missing_tensor_attribute": (E.TileTypeError, "no attribute 'nonexistent_attr'"),
    "to_without_dtype": (E.TileTypeError, "missing a required argument: 'dtype'"),
    "call_a_tensor": (E.TileTypeError, "not callable"),
    "device_print_int_prefix": (E.TileTypeError, "prefix must be a string"),
    "max_contiguous_string": (E.ConstexprError, "must be compile-time ints"),
    "block_pointer_odd_block": (E.TileTypeError, "not a power of 2"),
    "block_pointer_rank_mismatch": (E.TileTypeError, "shape needs 1 values, got 2"),
    "fp8_arithmetic": (E.UnsupportedFeature, "fp8 dtypes"),
    "sort_bad_dim": (E.CompileError, "sort supports only the last dimension"),
    "clamp_shapes": (E.TileTypeError, "cannot be broadcast"),
    "try_statement": (E.UnsupportedSyntax, "try statements are not supported"),
    "with_statement": (E.UnsupportedSyntax, "with statements are not supported"),
    "lambda_expression": (E.UnsupportedSyntax, "lambda expressions are not supported"),
    "list_comprehension": (E.UnsupportedSyntax, "comprehensions in kernels iterate over tuples only"),
    "import_in_kernel": (E.UnsupportedSyntax, "import statements are not supported"),
    "slice_of_tile": (E.TileTypeError, "indexed only with None and ':'"),
    "int_index_of_tile": (E.TileTypeError, "indexed only with None and ':'"),
    "matmul_operator": (E.UnsupportedSyntax, "use tl.dot"),
    "power_operator": (E.UnsupportedSyntax, "operator Pow is not supported"),
    "in_operator": (E.UnsupportedSyntax, "operator In is not supported"),
    "assign_attribute": (E.UnsupportedSyntax, "can assign only to names"),
    "assign_item": (E.UnsupportedSyntax, "can assign only to names"),
    "unpack_a_tile": (E.TileTypeError, "cannot unpack"),
    "bool_of_tensor": (E.ConstexprError, "bool() needs compile-time values"),
    "int_of_tensor": (E.ConstexprError, "int() needs compile-time values"),
    "f_string_of_tensor": (E.ConstexprError, "f-strings can format only compile-time values"),
    "call_plain_function": (E.UnsupportedFeature, "calling the Python function plain_helper"),
    "call_numpy_on_tensor": (E.UnsupportedFeature, "calling the Python function exp"),
    "reduce_with_plain_combine": (E.UnsupportedFeature, "calling the Python function plain_comb"),
    "recursion": (E.UnsupportedSyntax, "recursive call to recurse"),
    "mutual_recursion": (E.UnsupportedSyntax, "recursive call to ping"),
    "jit_call_missing_argument": (E.TileTypeError, "missing a required argument: 'b'"),
    "jit_call_unknown_keyword": (E.TileTypeError, "unexpected keyword argument 'c'"),
    "unpack_too_many": (E.TileTypeError, "cannot unpack 2 values into 3 names"),
    "huge_arange": (E.TileTypeError, "has 16777216 elements, more than the maximum of 1048576"),
    "arange_past_int32": (E.TileTypeError, "arange's bounds must fit in int32"),
    "huge_zeros": (E.TileTypeError, "has 4294967296 elements, more than the maximum"),
    "huge_broadcast": (E.TileTypeError, "a tile of shape [2048, 2048] has 4194304 elements"),
    "huge_dot_result": (E.TileTypeError, "a tile of shape [2048, 2048]"),
    "huge_static_range": (E.UnsupportedFeature, "static loops unrolled into more than 16384"),
    "nested_static_ranges": (E.UnsupportedFeature, "static loops unrolled into more than 16384"),
}

_VALUES = {"n": 5, "BLOCK": 16}


def _launch(fn) -> None:  # type: ignore[no-untyped-def]
    args = []
    for name in inspect.signature(fn).parameters:
        if name in _VALUES:
            args.append(_VALUES[name])
        else:
            args.append(np.full(64, np.nan, np.float32))
    tilec.jit(fn)[(1,)](*args)


def _module_of(name: str):  # type: ignore[no-untyped-def]
    return next(m for m in MODULES if hasattr(m, name))


def _marked_lines(module) -> set[int]:  # type: ignore[no-untyped-def]
    lines, _ = inspect.findsource(module)
    return {i + 1 for i, text in enumerate(lines) if "# bad" in text}


def test_every_kernel_has_a_case() -> None:
    kernels = {
        n
        for m in MODULES
        for n, f in vars(m).items()
        if inspect.isfunction(f) and f.__module__ == m.__name__
    }
    helpers = {"plain_helper", "plain_combine"}
    assert kernels - helpers == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_wrong_kernel_is_a_located_tilec_error(name: str) -> None:
    cls, fragment = CASES[name]
    module = _module_of(name)
    fn = getattr(module, name)
    with pytest.raises(E.TilecError) as info:
        _launch(fn)
    err = info.value
    assert isinstance(err, cls), f"{type(err).__name__}: {err}"
    assert fragment in str(err)
    # file:line:col of the offending line, then the line itself and a caret under it
    assert isinstance(err, E.CompileError) and err.loc is not None
    assert err.loc.file == module.__file__
    text = str(err)
    assert text.startswith(f"{module.__file__}:{err.loc.line}:{err.loc.col + 1}: ")
    assert "^" in text.splitlines()[-1]
    marked = _marked_lines(module)
    assert err.loc.line in marked, f"reported at line {err.loc.line}: {text}"
    own = [ln for ln in _function_lines(fn) if ln in marked]
    if own:
        assert err.loc.line in own, text


def _function_lines(fn) -> range:  # type: ignore[no-untyped-def]
    source, first = inspect.getsourcelines(fn)
    return range(first, first + len(source))
