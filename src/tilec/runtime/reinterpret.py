"""``reinterpret(tensor, dtype)``: pass an array to a kernel as a pointer to another element type.

Triton's way to hand a kernel unsigned or fp8 data that the host library has no dtype for (an
int16 torch tensor read as ``tl.uint16``): a ``TensorWrapper`` carries the base array and the tl
dtype (a torch or numpy dtype is taken as the tl dtype of the same name), and the launcher describes it as the base array's memory with that element type. The
native launcher does not know the wrapper, so it goes through the Python describer
(describers.py), as every type unknown to the native one does.
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..ir import types as ir
from . import dtypes

__all__ = ["TensorWrapper", "reinterpret", "type_canonicalisation_dict"]


class TensorWrapper:
    """An array viewed with another element type; the memory is ``base``'s."""

    __tilec_reinterpreted__ = True

    def __init__(self, base: Any, dtype: Any) -> None:
        if not isinstance(dtype, ir.ScalarType):  # a host library's dtype, as Triton takes it
            try:
                if isinstance(dtype, str):
                    raise UsageError("a name is not a dtype")
                dtype = dtypes.from_dtype(dtype)
            except UsageError:
                raise UsageError(
                    "reinterpret: dtype must be a tl dtype such as tl.uint8 (or a torch or "
                    f"numpy dtype of a type tl has), got {dtype!r}"
                ) from None
        self.base = base
        self.dtype = dtype
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", None)
        self.shape = base.shape

    def data_ptr(self) -> int:
        return int(self.base.data_ptr())

    def stride(self, *args: Any) -> Any:
        return self.base.stride(*args)

    def element_size(self) -> int:
        return int(self.base.element_size())

    def numel(self) -> int:
        return int(self.base.numel())

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"

    def cpu(self) -> TensorWrapper:
        return TensorWrapper(self.base.cpu(), self.dtype)

    def to(self, device: Any) -> TensorWrapper:
        return TensorWrapper(self.base.to(device), self.dtype)

    def clone(self) -> TensorWrapper:
        return TensorWrapper(self.base.clone(), self.dtype)

    def copy_(self, other: TensorWrapper) -> None:
        self.base.copy_(other.base)

    def new_empty(self, sizes: Any) -> TensorWrapper:
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)


def reinterpret(tensor: Any, dtype: Any) -> Any:
    """``tensor`` seen as an array of ``dtype``; reinterpreting a wrapper back to its base's
    dtype returns the base itself."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"cannot reinterpret a {type(tensor).__qualname__}: it has no data_ptr()")


def element_type(wrapper: TensorWrapper) -> ir.ScalarType:
    """The element type the kernel sees (fp8 pointers too: the frontend loads and stores their
    bits, and tl casts decode them)."""
    dtype: ir.ScalarType = wrapper.dtype
    return dtype


def _canonical_names() -> dict[str, str]:
    """Every spelling of a dtype (``"float32"``, ``"float"``, ``"fp32"``) -> the short name
    Triton's signatures use (``"fp32"``; integers ``"i32"``/``"u8"``, booleans ``"u1"``)."""
    names = {lang: short for short, lang in ir.LANGUAGE_NAMES.items()}
    names.update({short: short for short in ir.LANGUAGE_NAMES})
    names.update(
        {"bool": "i1", "uint1": "i1", "half": "fp16", "float": "fp32", "double": "fp64",
         "int": "i32", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
         "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16"}
    )  # fmt: skip
    # Triton spells booleans unsigned
    return {k: "u1" if v == "i1" else v for k, v in names.items()} | {"u1": "u1"}


type_canonicalisation_dict: dict[str, str] = _canonical_names()
