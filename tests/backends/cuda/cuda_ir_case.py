"""A conformance Case: a tile IR kernel with inputs, a grid and a float64 numpy reference.

A Case's ``args`` lists the runtime parameters in order: names of arrays in ``inputs`` /
``outputs`` (passed as device pointers) or plain scalars.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tilec.ir.ops import ModuleOp

Arrays = dict[str, np.ndarray]


@dataclass
class Case:
    name: str
    build: Callable[[], ModuleOp]
    inputs: Callable[[np.random.Generator], Arrays]
    outputs: Callable[[Arrays], Arrays]  # empty (NaN-poisoned on the device) output arrays
    args: Callable[[Arrays], list[Any]]
    grid: Callable[[Arrays], tuple[int, ...]]
    reference: Callable[[Arrays], Arrays]
    rtol: float = 1e-5
    atol: float = 1e-6
    num_warps: int = 4
    tags: tuple[str, ...] = field(default=())


NP = {
    "fp32": np.float32, "fp16": np.float16, "fp64": np.float64, "i32": np.int32, "i8": np.int8,
    "i64": np.int64, "u8": np.uint8, "i16": np.int16,
}  # fmt: skip
