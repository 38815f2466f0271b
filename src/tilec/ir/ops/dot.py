"""Matrix multiply-accumulate of tiles."""

from __future__ import annotations

import enum
from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ..types import shape_of
from ._check import require


class InputPrecision(enum.Enum):
    """How a dot of fp32 operands may round them (tl.dot's ``input_precision``)."""

    TF32 = "tf32"  # to tf32's 10-bit mantissa (tensor cores)
    TF32X3 = "tf32x3"  # three tf32 products: about fp32's accuracy on tensor cores
    IEEE = "ieee"  # not at all: fp32 products
    BF16 = "bf16"
    BF16X3 = "bf16x3"
    BF16X6 = "bf16x6"


class DotOp(Op):
    """``acc + a @ b`` for a [M, K], b [K, N], acc [M, N] (or batched with a leading dim).

    The result has ``acc``'s type. ``input_precision`` is tf32, tf32x3 or ieee for fp32 inputs
    (backends may compute more precisely than asked, never less)."""

    name = "dot"

    def __init__(
        self,
        a: Value,
        b: Value,
        acc: Value,
        loc: SourceLoc | None = None,
        input_precision: InputPrecision = InputPrecision.TF32,
        max_num_imprecise_acc: int | None = None,
    ):
        super().__init__([a, b, acc], [acc.type], loc)
        self.input_precision = input_precision
        self.max_num_imprecise_acc = max_num_imprecise_acc

    def attributes(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {"input_precision": self.input_precision.value}
        if self.max_num_imprecise_acc is not None:
            attrs["max_num_imprecise_acc"] = self.max_num_imprecise_acc
        return attrs

    def verify(self) -> None:
        a, b, acc = (shape_of(v.type) for v in self.operands)
        require(
            self, len(a) == len(b) == len(acc) and len(a) in (2, 3), f"dot of ranks {a}, {b}, {acc}"
        )
        require(
            self,
            a[-1] == b[-2]
            and acc[-2] == a[-2]
            and acc[-1] == b[-1]
            and a[:-2] == b[:-2] == acc[:-2],
            f"dot shapes {a} @ {b} → {acc} do not match",
        )
        require(
            self,
            isinstance(self.input_precision, InputPrecision),
            f"unknown input_precision {self.input_precision!r}",
        )
