"""The native launcher's Dispatcher for a kernel: the warm path of the launch function, in C.

It binds the arguments, describes numpy arrays, torch tensors (through torch's DLPack exchange
table when it has one) and small ints itself, shares the Python describers' key tables for the
key parts, and falls back to the generated launch function (binder.py) for everything else.
Kernels it cannot serve (``*args``, annotated scalars, written arrays inside tuples) get None.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Collection, Sequence
from typing import Any

from .. import config
from ..backends import dlpack_exchange, launcher
from . import describers, numpy_struct
from .arg_keys import FP32, I32, ONE
from .parameters import MISSING, Parameter, defaults
from .read_only import split_leaf


def native_dispatcher(jit: Any, launch: Callable[..., Any], params: Sequence[Parameter]) -> Any:
    """The native launcher's Dispatcher running the warm path of ``launch`` (the generated
    launch function, which it falls back to) in C; None without the native launcher."""
    native = launcher.native_module()
    if native is None or any(p.var_positional for p in params):  # it binds a fixed count
        return None
    if any(p.annotated is not None for p in params):  # it knows no per-parameter describers
        return None
    if any(split_leaf(n)[1] for n in jit._written):
        return None  # it does not look inside tuples for read-only arrays: the Python path does
    fast_np = numpy_struct.fast_path()
    layout = numpy_struct.layout() if fast_np else numpy_struct.NumpyLayout(0, 0)
    torch = sys.modules.get("torch")
    kinds = b"".join(_native_kind(p, jit._written) for p in params)
    return native.Dispatcher(
        jit,
        config,
        launch,
        tuple(p.name for p in params),
        defaults(params),
        MISSING,
        kinds,
        fast_np[0] if fast_np else None,
        fast_np[1] if fast_np else 0,
        layout.flags,
        layout.descr,
        describers.NUMPY_KEYS,
        getattr(torch, "Tensor", None),
        describers.TORCH_HOST_KEYS,
        describers.TORCH_DEVICE_KEYS,
        _torch_getters(torch),
        _torch_exchange(torch),
        describers.DESCRIBERS,
        describers.constexpr_key,
        describers.describe_unspecialized,
        (ONE, I32, I32 + 1, FP32),
        jit._guard.watch if jit._guard is not None else None,
    )


def _torch_getters(torch: Any) -> tuple[Any, Any] | None:
    """The descriptors ``tensor.dtype`` and ``tensor.is_cuda`` resolve to, found as attribute
    lookup finds them; the dispatcher calls them directly when they are data descriptors."""
    if torch is None:
        return None
    try:
        return (
            inspect.getattr_static(torch.Tensor, "dtype"),
            inspect.getattr_static(torch.Tensor, "is_cuda"),
        )
    except AttributeError:
        return None


def _torch_exchange(torch: Any) -> tuple[Any, dict[int, Any]] | None:
    """torch's DLPack exchange capsule and dtype table (see dlpack_exchange), when it has one."""
    exchange = dlpack_exchange.torch_exchange(torch) if torch is not None else None
    return (exchange.capsule, exchange.dtypes) if exchange is not None else None


def _native_kind(p: Parameter, written: Collection[str]) -> bytes:
    """How the native dispatcher describes a parameter: constexpr, do_not_specialize, an
    array the kernel writes (a read-only numpy array goes to the Python path), or other."""
    if p.constexpr:
        return b"c"
    if p.do_not_specialize:
        return b"u"
    return b"w" if p.name in written else b"n"
