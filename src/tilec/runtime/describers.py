"""From one Python launch argument to its ``(key_part, value)``, with Triton's specialization.

Each argument is described by a function chosen once per Python type (``describer``): the key
part (arg_keys.py) carries everything the compiler may assume, ``value`` is what the launch
packs. A tuple's launch value is the flat tuple of its leaves' values. The generated launch
function (binder.py) and the native dispatcher inline the common cases and share these tables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import IntegerOverflowError, TilecError, UsageError
from . import dlpack, dtypes, numpy_struct
from .annotations import AnnotatedKey, annotated_keys
from .arg_keys import (
    BOOL,
    DESCRIPTOR_KEYS,
    FP32,
    I32,
    I64,
    ONE,
    U64,
    ConstexprKey,
    DescriptorKey,
    PointerKey,
    TupleKey,
    pointer_keys,
)
from .memory import CUDA_MEMORY, HOST_MEMORY, KNOWN
from .reinterpret import element_type

Describer = Callable[[Any], tuple[Any, Any]]


# ---------------------------------------------------------------------------- scalars


def _describe_int(v: int) -> tuple[int, int]:
    if v == 1:
        return ONE, v
    if -0x8000_0000 <= v < 0x8000_0000:
        code = I32
    elif -0x8000_0000_0000_0000 <= v < 0x8000_0000_0000_0000:
        code = I64
    elif 0 <= v < 0x1_0000_0000_0000_0000:
        code = U64
    else:
        raise IntegerOverflowError(f"integer {v} does not fit in 64 bits")
    return code + (v % 16 == 0), v


def _describe_int_subclass(v: int) -> tuple[int, int]:
    return _describe_int(int(v))


def _describe_bool(v: bool) -> tuple[int, int]:
    return BOOL, int(v)


def _describe_float(v: float) -> tuple[int, float]:
    return FP32, float(v)


def _describe_none(v: None) -> tuple[None, None]:
    return None, None


def _describe_numpy_scalar(v: Any) -> tuple[Any, Any]:
    item = v.item()
    return describer(type(item))(item)


# ---------------------------------------------------------------------------- arrays

NUMPY_KEYS: dict[Any, tuple[PointerKey, PointerKey]] = {}


def numpy_keys(a: Any) -> tuple[PointerKey, PointerKey]:
    if not a.dtype.isnative:
        raise UsageError(f"array of byte-swapped dtype {a.dtype.str}: convert it to native order")
    pair = pointer_keys(HOST_MEMORY, dtypes.from_dtype(a.dtype))
    NUMPY_KEYS[a.dtype] = pair
    return pair


def _describe_numpy(a: Any) -> tuple[PointerKey, int]:
    offset = numpy_struct.data_offset(a)
    if offset > 0:
        p = numpy_struct.read_address(id(a) + offset).value
    else:
        p = a.__array_interface__["data"][0]
    pair = NUMPY_KEYS.get(a.dtype) or numpy_keys(a)
    return pair[not p & 15], p


# torch dtype -> key pair, one table for host tensors and one for CUDA tensors
TORCH_HOST_KEYS: dict[Any, tuple[PointerKey, PointerKey]] = {}
TORCH_DEVICE_KEYS: dict[Any, tuple[PointerKey, PointerKey]] = {}


def torch_device_error(
    t: Any, device: str | None = None
) -> dict[Any, tuple[PointerKey, PointerKey]]:
    """Raise the UsageError for a tensor on neither the CPU nor a CUDA GPU (the type says it
    returns a key table, as the launch code uses it in the place of one)."""
    device = device or str(getattr(getattr(t, "device", None), "type", "?"))
    if device == "meta":
        raise UsageError(
            "a 'meta' tensor has a shape and a dtype but no data; pass a tensor with storage"
        )
    raise UsageError(
        f"a tensor on the {device!r} device: tilec kernels run on the CPU and on CUDA GPUs; "
        "move it with .cpu() or .cuda()"
    )


def torch_keys(t: Any) -> tuple[PointerKey, PointerKey]:
    if not t.is_cpu and not t.is_cuda:
        torch_device_error(t)
    on_device = bool(t.is_cuda)
    memory = CUDA_MEMORY if on_device else HOST_MEMORY
    pair = pointer_keys(memory, dtypes.from_dtype(t.dtype))
    (TORCH_DEVICE_KEYS if on_device else TORCH_HOST_KEYS)[t.dtype] = pair
    return pair


def _describe_torch(t: Any) -> tuple[PointerKey, int]:
    """torch.Tensor by duck typing: ``data_ptr()``, ``dtype``, ``is_cuda`` (never imports torch)."""
    p = t.data_ptr()
    table = TORCH_HOST_KEYS if t.is_cpu else TORCH_DEVICE_KEYS if t.is_cuda else None
    if table is None:  # (an empty table is a table)
        table = torch_device_error(t)
    pair = table.get(t.dtype) or torch_keys(t)
    return pair[not p & 15], p


def _describe_data_ptr(t: Any) -> tuple[PointerKey, int]:
    """Other objects with ``data_ptr()`` and ``dtype`` (device from ``.device.type``)."""
    p = int(t.data_ptr())
    where = getattr(t, "device", None)  # torch-like (.type) or a string such as "cuda:0"
    device = str(getattr(where, "type", where if isinstance(where, str) else HOST_MEMORY))
    device = device.split(":")[0]
    if device not in KNOWN:
        torch_device_error(t, device)
    return pointer_keys(device, dtypes.from_dtype(t.dtype))[not p & 15], p


def _describe_device_array(a: Any) -> tuple[PointerKey, int]:
    iface = a.__cuda_array_interface__
    p = int(iface["data"][0])
    return pointer_keys(CUDA_MEMORY, dtypes.from_typestr(iface["typestr"]))[not p & 15], p


def _describe_host_array(a: Any) -> tuple[PointerKey, int]:
    iface = a.__array_interface__
    p = int(iface["data"][0])
    return pointer_keys(HOST_MEMORY, dtypes.from_typestr(iface["typestr"]))[not p & 15], p


def _describe_dlpack(a: Any) -> tuple[PointerKey, int]:
    v = dlpack.view(a)
    return pointer_keys(v.device, v.dtype)[not v.address & 15], v.address


def _describe_reinterpreted(w: Any) -> tuple[PointerKey, int]:
    """``triton.reinterpret(base, dtype)``: the base array's memory as a pointer to ``dtype``."""
    key, p = describe(w.base)
    if type(key) is not PointerKey:
        raise UsageError(f"reinterpret: the base must be an array, got {type(w.base).__name__}")
    return pointer_keys(key.device, element_type(w))[key.aligned], p


def _unsupported(a: Any) -> tuple[Any, Any]:
    raise UsageError(
        f"cannot pass a {type(a).__module__}.{type(a).__qualname__} to a kernel: expected an "
        "int, float, bool, None or an array (data_ptr(), __array_interface__, "
        "__cuda_array_interface__ or __dlpack__)"
    )


# ---------------------------------------------------------------------------- descriptors


def describe_descriptor(d: Any) -> tuple[DescriptorKey, Any]:
    """The describer of TensorDescriptor values (descriptor_args.py compiles them)."""
    base_key, _ = describe(d.base)
    if type(base_key) is not PointerKey:
        raise UsageError(f"a TensorDescriptor's base must be an array, not {type(d.base).__name__}")
    block = tuple(int(b) for b in d.block_shape)
    ident = (base_key, block, str(d.padding))
    key = DESCRIPTOR_KEYS.get(ident)
    if key is None:
        key = DESCRIPTOR_KEYS[ident] = DescriptorKey(base_key, block, str(d.padding))
    return key, d


# ---------------------------------------------------------------------------- tuples, constexprs


def _describe_constexpr(v: Any) -> tuple[ConstexprKey, Any]:
    return ConstexprKey((constexpr_key(v),)), v


def _describe_tuple(t: tuple[Any, ...]) -> tuple[TupleKey, tuple[Any, ...]]:
    """A tuple's key and its launch values: one per leaf, nested tuples flattened in order."""
    keys: list[Any] = [type(t)]
    values: list[Any] = []
    for i, item in enumerate(t):
        try:
            key, value = describe(item)
        except TilecError as exc:
            raise type(exc)(f"element [{i}]: {exc}") from None
        keys.append(key)
        if type(key) is TupleKey:
            values += value
        elif type(key) is DescriptorKey:  # its base address, shape and outer strides
            base = describe(value.base)[1]
            values += (base, *map(int, value.shape), *map(int, list(value.strides)[:-1]))
        else:
            values.append(value)
    return TupleKey(keys), tuple(values)


def _unspecialized_key(key: Any) -> Any:
    """A key part with its value facts dropped (``do_not_specialize``): the type remains."""
    if type(key) is int:
        return I32 if key == ONE else key & ~1
    if type(key) is PointerKey and key.aligned:
        return pointer_keys(key.device, key.element)[0]
    if type(key) is AnnotatedKey:
        return annotated_keys(key.type)[0]
    if type(key) is TupleKey:
        return TupleKey([key[0], *map(_unspecialized_key, key[1:])])
    return key


# ---------------------------------------------------------------------------- by type


def _resolve(t: type) -> Describer:
    """Choose the describer for a Python type (run once per type)."""
    if issubclass(t, bool):
        return _describe_bool
    if issubclass(t, int):
        return _describe_int_subclass
    if issubclass(t, float):
        return _describe_float
    if issubclass(t, tuple):  # named tuples and torch.Size too
        return _describe_tuple
    if t.__name__ == "constexpr" or getattr(t, "__tilec_jit__", False):
        return _describe_constexpr
    if getattr(t, "__tilec_reinterpreted__", False):
        return _describe_reinterpreted
    if getattr(t, "__tilec_tensor_descriptor__", False):
        return describe_descriptor
    module = t.__module__.split(".")[0]
    if module == "numpy":
        if t.__name__ == "ndarray":
            return _describe_numpy
        if hasattr(t, "item") and not hasattr(t, "__len__"):
            return _describe_numpy_scalar
    if hasattr(t, "data_ptr") and hasattr(t, "dtype"):
        return _describe_torch if module == "torch" else _describe_data_ptr
    for attr, fn in _PROTOCOLS:
        if hasattr(t, attr):
            return fn
    return _describe_by_instance


_PROTOCOLS: tuple[tuple[str, Describer], ...] = (
    ("__cuda_array_interface__", _describe_device_array),
    ("__array_interface__", _describe_host_array),
    ("__dlpack__", _describe_dlpack),
)


def _describe_by_instance(a: Any) -> tuple[Any, Any]:
    """Types that set the array protocols per instance rather than on the class."""
    for attr, fn in _PROTOCOLS:
        if hasattr(a, attr):
            return fn(a)
    return _unsupported(a)


DESCRIBERS: dict[type, Describer] = {
    int: _describe_int,
    bool: _describe_bool,
    float: _describe_float,
    type(None): _describe_none,
    tuple: _describe_tuple,
}


# Called when torch.Tensor's describer is first resolved, which happens when launch code built
# before torch was imported meets a tensor: that code lacks torch's fast path and is rebuilt.
TORCH_SEEN_HOOKS: list[Callable[[], None]] = []


def describer(t: type) -> Describer:
    """The describer of Python type ``t`` (cached)."""
    fn = DESCRIBERS.get(t)
    if fn is None:
        fn = DESCRIBERS[t] = _resolve(t)
        if t.__module__ == "torch" and t.__name__ == "Tensor":
            for hook in TORCH_SEEN_HOOKS:
                hook()
    return fn


def describe(value: Any) -> tuple[Any, Any]:
    """``(key_part, value)`` of one argument, with Triton's specialization."""
    return (DESCRIBERS.get(type(value)) or describer(type(value)))(value)


def describe_unspecialized(value: Any) -> tuple[Any, Any]:
    """``describe`` for ``do_not_specialize`` parameters: type only, no value facts."""
    key, v = describe(value)
    return _unspecialized_key(key), v


def _user_jit(value: Any) -> bool:
    """A @jit function of the user's (tl's own library functions are keyed by the compiler
    fingerprint)."""
    t = type(value)
    return bool(getattr(t, "__tilec_jit__", False) and not getattr(t, "__tilec_library__", False))


def constexpr_key(value: Any) -> Any:
    """The key part of a constexpr value: the value, tagged by type so ``1`` and ``True`` differ
    and by its float bits so ``-0.0`` and ``0.0`` do."""
    value = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value
    if _user_jit(value):  # a @jit function: its source too, as Triton keys it (a changed one
        return (type(value), value, value.cache_key)  # is compiled again)
    try:
        hash(value)
    except TypeError:
        raise UsageError(f"constexpr value {value!r} is not hashable") from None
    return value if type(value) is int else (type(value), value, _float_bits(value))


def _float_bits(value: Any) -> Any:
    """What tells apart values that compare equal yet compile differently: a float's bits
    (``-0.0 == 0.0``), in a tuple item by item with each item's type; None for the rest."""
    if isinstance(value, float) or getattr(getattr(value, "dtype", None), "kind", "") == "f":
        return float(value).hex()
    if isinstance(value, tuple):
        return tuple((type(v), _float_bits(v)) for v in value)
    return None
