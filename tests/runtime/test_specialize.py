"""Triton's specialization rules: key parts and ArgSpecs from Python values."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.errors import UsageError
from tilec.ir import types as ir
from tilec.ir.argspec import ArgKind, leaves
from tilec.runtime import describers as D
from tilec.runtime import specialize as S

torch = pytest.importorskip("torch")  # wheel tests and bare installs have no torch


def _spec(value, constexpr=False, nospec=False):
    return S.specialize(["a"], [value], [constexpr], [nospec])[1][0]


@pytest.mark.parametrize(
    ("value", "dtype", "div16", "one"),
    [
        (1, ir.int32, False, True),
        (7, ir.int32, False, False),
        (32, ir.int32, True, False),
        (-16, ir.int32, True, False),
        (2**31 - 1, ir.int32, False, False),
        (2**31, ir.int64, True, False),
        (-(2**31) - 1, ir.int64, False, False),
        (2**63, ir.uint64, True, False),
        (True, ir.int1, False, False),
        (2.5, ir.float32, False, False),
    ],
)
def test_scalar_rules(value, dtype, div16, one):
    spec = _spec(value)
    assert spec.kind is ArgKind.SCALAR
    assert (spec.type, spec.divisible_by_16, spec.equals_one) == (dtype, div16, one)


def test_integer_beyond_64_bits_is_rejected():
    with pytest.raises(UsageError, match=r"argument 'a'.*64 bits"):
        _spec(2**64)


def test_do_not_specialize_keeps_only_the_type():
    assert _spec(1, nospec=True) == _spec(7)
    assert not _spec(32, nospec=True).divisible_by_16
    assert _spec(2**40, nospec=True).type == ir.int64
    arr = np.zeros(64, np.float32)
    assert not _spec(arr, nospec=True).divisible_by_16


def test_constexpr_by_value_and_type():
    assert _spec(128, constexpr=True).value == 128
    assert D.constexpr_key(1) != D.constexpr_key(True)
    assert _spec(ir.float16, constexpr=True).value is ir.float16
    with pytest.raises(UsageError, match="hashable"):
        _spec([1, 2], constexpr=True)


def test_none_is_folded():
    assert _spec(None).kind is ArgKind.NONE


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (np.float32, ir.float32),
        (np.float16, ir.float16),
        (np.float64, ir.float64),
        (np.int8, ir.int8),
        (np.uint16, ir.uint16),
        (np.int64, ir.int64),
        (np.bool_, ir.int1),
    ],
)
def test_numpy_arrays(dtype, expected):
    a = np.zeros(64, dtype)
    spec = _spec(a)
    assert spec.kind is ArgKind.POINTER and spec.type == ir.PointerType(expected)
    key, address = D.describe(a)
    assert address == a.ctypes.data and key.device == "cpu"


def test_alignment_follows_the_address():
    a = np.zeros(64, np.float32)
    assert _spec(a).divisible_by_16 == (a.ctypes.data % 16 == 0)
    assert not _spec(a[1:]).divisible_by_16  # 4 bytes further
    _, address = D.describe(a[1:])
    assert address == a.ctypes.data + 4


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [(torch.float32, ir.float32), (torch.bfloat16, ir.bfloat16), (torch.int32, ir.int32),
     (torch.bool, ir.int1), (torch.float16, ir.float16)],
)  # fmt: skip
def test_torch_tensors_by_duck_typing(dtype, expected):
    t = torch.zeros(32, dtype=dtype)
    spec = _spec(t)
    assert spec.type == ir.PointerType(expected)
    key, address = D.describe(t)
    assert address == t.data_ptr() and key.device == "cpu"


class _HostArray:
    def __init__(self, base):
        self.base = base
        self.__array_interface__ = base.__array_interface__


class _CudaArray:
    __cuda_array_interface__ = {"data": (0x7F00_0000_0010, False), "typestr": "<f2",
                                "shape": (4,), "version": 3}  # fmt: skip


def test_array_interfaces():
    base = np.zeros(8, np.int16)
    assert _spec(_HostArray(base)).type == ir.PointerType(ir.int16)
    key, address = D.describe(_CudaArray())
    assert (key.device, key.element, key.aligned, address) == (
        "cuda",
        ir.float16,
        True,
        0x7F00_0000_0010,
    )


class _DLPackOnly:
    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, **kwargs):
        return self.tensor.__dlpack__()

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_dlpack_only_objects():
    t = torch.arange(8, dtype=torch.bfloat16)[2:]
    key, address = D.describe(_DLPackOnly(t))
    assert address == t.data_ptr() and key.element == ir.bfloat16 and key.device == "cpu"


def test_unsupported_types_are_named():
    with pytest.raises(UsageError, match=r"argument 'a'.*str"):
        _spec("hello")
    with pytest.raises(UsageError, match="complex"):
        _spec(np.zeros(4, np.complex64))


def test_tensor_descriptor_key_carries_base_block_and_padding():
    from tilec.runtime.arg_keys import DescriptorKey
    from tilec.tools.tensor_descriptor import TensorDescriptor

    a = np.zeros((16, 16), np.float32)
    key, value = D.describe(TensorDescriptor.from_tensor(a, [8, 8]))
    assert type(key) is DescriptorKey and value.base is a
    assert (key.base.element, key.block_shape, key.padding) == (ir.float32, (8, 8), "zero")
    assert D.describe(TensorDescriptor.from_tensor(np.ones((32, 8), np.float32), [8, 8]))[0] is key
    # (at the top level descriptor_args wraps it; inside a tuple the kernel rebuilds it)
    spec = S.spec_from_key("d", key, False)
    assert spec.kind is ArgKind.DESCRIPTOR and spec.value[:2] == ((8, 8), "zero")
    names = [e.name for e in leaves([spec])]
    assert names == ["d.base", "d.shape[0]", "d.shape[1]", "d.strides[0]"]


def test_mixed_devices_name_the_arguments():
    keys = [D.describe(np.zeros(4, np.float32))[0], D.describe(_CudaArray())[0], D.describe(3)[0]]
    with pytest.raises(UsageError, match="cpu: x; cuda: y"):
        S.choose_device(["x", "y", "n"], keys, None)


def test_forced_backend_must_match_the_arrays():
    keys = [D.describe(np.zeros(4, np.float32))[0]]
    assert S.choose_device(["x"], keys, "cpu") == "cpu"
    with pytest.raises(UsageError, match=r"'cuda' backend was requested.*x"):
        S.choose_device(["x"], keys, "cuda")
    assert S.choose_device(["n"], [D.describe(3)[0]], "cuda") == "cuda"
    assert S.choose_device(["n"], [D.describe(3)[0]], None) is None


def test_byte_swapped_numpy_arrays_are_rejected():
    with pytest.raises(UsageError, match="byte-swapped"):
        _spec(np.zeros(4, ">f4"))
