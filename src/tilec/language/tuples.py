"""``tl.tuple`` and ``tl.tuple_type``: Triton's tuple value and its type, over Python tuples.

Kernel code holds tuples as Python tuples (their Tensors flatten through ``if`` and loops), so
``tl.tuple(values)`` builds a Python tuple and ``isinstance(x, tl.tuple)`` is true for every
tuple. ``t.type`` in a kernel is the ``tuple_type`` of the element types, a compile-time number
counting as the tensor it becomes (``int32``, ``int64``, ``fp32``, ``int1``).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any


class _TupleMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, builtins.tuple)

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or issubclass(sub, builtins.tuple)

    def __call__(cls, args: Iterable[Any] = (), type: Any = None) -> builtins.tuple[Any, ...]:  # type: ignore[override]
        """``tl.tuple(values)``: the values as a tuple (``type`` is Triton's, not needed here)."""
        return builtins.tuple(args)


class tuple(metaclass=_TupleMeta):  # Triton's name, shadowing the builtin here
    """Triton's ``tl.tuple``: every Python tuple is one."""

    __tilec_takes_kernel_values__ = True  # called in kernels with tensors among its values
