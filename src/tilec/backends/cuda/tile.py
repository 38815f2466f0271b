"""The values the CUDA lowering passes between rules: a distributed Tile and its register keys.

A leaf module (layouts and llvmlite only), so the pieces of the lowering that build tiles
(contiguous_pointers, conversion, rematerialize, the pipeliner) need not import the Lowering that
calls them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias, Union

from llvmlite import ir

from .layout import Layout

Key = tuple[int, ...]


@dataclass
class Tile:
    """A distributed tile: this thread's registers, keyed by per-dimension register index."""

    layout: Layout
    shape: tuple[int, ...]
    regs: dict[Key, ir.Value]

    def map(self, fn: Callable[[ir.Value], ir.Value]) -> Tile:
        return Tile(self.layout, self.shape, {k: fn(v) for k, v in self.regs.items()})


Lowered: TypeAlias = Union[ir.Value, Tile]  # noqa: UP007
