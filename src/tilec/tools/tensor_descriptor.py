"""``TensorDescriptor``: Triton's host-side description of a tiled view of a tensor.

It records base, shape, strides (in elements), block shape and padding, validated as Triton
does (unit last stride, 16-byte aligned outer strides). Passed to a kernel, it arrives as the
descriptor ``tl.make_tensor_descriptor`` would build (see runtime/descriptor_args.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

_PADDINGS = ("zero", "nan")


def _element_size(base: Any) -> int:
    size = getattr(base, "itemsize", None)  # numpy arrays, and torch tensors >= 2.1
    if size is None and hasattr(base, "element_size"):
        size = base.element_size()
    if not isinstance(size, int):
        raise UsageError(f"cannot tell the element size of a {type(base).__name__}")
    return size


def _strides_in_elements(tensor: Any) -> list[int]:
    stride = getattr(tensor, "stride", None)
    if callable(stride):  # torch: strides in elements
        return [int(s) for s in stride()]
    size = _element_size(tensor)
    return [int(s) // size for s in tensor.strides]  # numpy: strides in bytes


@dataclass
class TensorDescriptor:
    """A ``block_shape`` tiled view of ``base`` with ``shape`` and ``strides`` (elements)."""

    base: Any
    shape: Sequence[int]
    strides: Sequence[int]
    block_shape: Sequence[int]
    padding: str = "zero"

    __tilec_tensor_descriptor__ = True

    def __post_init__(self) -> None:
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise UsageError(f"TensorDescriptor rank must be 1..5, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise UsageError("TensorDescriptor shape, strides and block_shape need equal lengths")
        if self.strides[-1] != 1:
            raise UsageError(f"TensorDescriptor last stride must be 1, got {self.strides[-1]}")
        size = _element_size(self.base)
        for s in self.strides[:-1]:
            if (s * size) % 16:
                raise UsageError(f"TensorDescriptor strides must be 16-byte aligned, got {s}")
        if self.padding not in _PADDINGS:
            raise UsageError(f"TensorDescriptor padding must be 'zero' or 'nan': {self.padding!r}")

    @staticmethod
    def from_tensor(
        tensor: Any, block_shape: Sequence[int], padding: str = "zero"
    ) -> TensorDescriptor:
        """Describe all of ``tensor`` (numpy array, torch tensor...) tiled by ``block_shape``."""
        return TensorDescriptor(
            tensor, list(tensor.shape), _strides_in_elements(tensor), list(block_shape), padding
        )
