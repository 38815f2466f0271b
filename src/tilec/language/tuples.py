"""``tl.tuple`` and ``tl.tuple_type``: Triton's tuple value and its type, over Python tuples.

Kernel code holds tuples as Python tuples (their Tensors flatten through ``if`` and loops), so
``tl.tuple(values)`` builds a Python tuple and ``isinstance(x, tl.tuple)`` is true for every
tuple. ``t.type`` in a kernel is the ``tuple_type`` of the element types, a compile-time number
counting as the tensor it becomes (``int32``, ``int64``, ``fp32``, ``int1``).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, init=False)
class tuple_type:
    """The type of a tuple: its element types, and its field names for a named tuple."""

    types: builtins.tuple[Any, ...]
    fields: builtins.tuple[str, ...] | None

    def __init__(self, types: Iterable[Any], fields: Iterable[str] | None = None) -> None:
        object.__setattr__(self, "types", builtins.tuple(types))
        object.__setattr__(self, "fields", None if fields is None else builtins.tuple(fields))

    @property
    def name(self) -> str:
        if self.fields is None:
            return "[" + ",".join(str(t) for t in self.types) + "]"
        return "[" + ",".join(f"{k}:{t}" for k, t in zip(self.fields, self.types)) + "]"

    def __str__(self) -> str:
        return self.name

    def __iter__(self) -> Iterator[Any]:
        return iter(self.types)

    def __getitem__(self, index: int) -> Any:
        return self.types[index]

    def __len__(self) -> int:
        return len(self.types)


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
