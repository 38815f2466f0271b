"""Matrix multiply-accumulate of tiles."""

from __future__ import annotations

from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ..types import shape_of
from ._check import require


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
        input_precision: str = "tf32",
        max_num_imprecise_acc: int | None = None,
    ):
        super().__init__([a, b, acc], [acc.type], loc)
        self.input_precision = input_precision
        self.max_num_imprecise_acc = max_num_imprecise_acc

    def attributes(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {"input_precision": self.input_precision}
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
            self.input_precision in ("tf32", "tf32x3", "ieee", "bf16", "bf16x3", "bf16x6"),
            f"unknown input_precision {self.input_precision!r}",
        )
