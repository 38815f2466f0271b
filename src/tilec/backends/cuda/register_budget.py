"""Refuse, before any code is generated, a tile that one thread cannot hold.

The CUDA lowering unrolls a tile into one LLVM value per register, so code size and compile time
grow with the elements each thread holds. A thread has at most 255 registers; a single tile
needing more than :data:`MAX_TILE_REGISTERS` 32-bit registers per thread would spill most of
itself to local memory, and ptxas takes minutes over such code (a vector add of 512 fp32 elements
per thread: 35 s; ``BLOCK=2**20``: no result after 13 minutes). Such a kernel is refused at once,
naming the source line and the remedy.
"""

from __future__ import annotations

from ...errors import CompileError
from ...ir import ops as O
from ...ir.core import Value
from ...ir.types import PointerType, TileType, element_of
from .layout import elements_per_thread
from .layout_assign import LayoutPlan
from .types import byte_size

# twice the register file: tiles up to this size still compile in seconds (spilling if they
# must); beyond it compile time is dominated by spill code nobody wants to run
MAX_TILE_REGISTERS = 512


def registers_per_thread(plan: LayoutPlan, v: Value) -> int:
    """32-bit registers one thread needs for tile ``v`` in its planned layout."""
    assert isinstance(v.type, TileType)
    elem = element_of(v.type)
    words = 2 if isinstance(elem, PointerType) else max(1, byte_size(elem) // 4)
    return elements_per_thread(plan[v], v.type.shape) * words


def check(func: O.FuncOp, plan: LayoutPlan) -> None:
    """Raise CompileError at the first op whose tile result exceeds the budget."""
    threads = plan.num_warps * plan.warp_size
    for op in func.walk():
        for result in op.results:
            if not isinstance(result.type, TileType):
                continue
            need = registers_per_thread(plan, result)
            if need > MAX_TILE_REGISTERS:
                shape = "x".join(map(str, result.type.shape))
                raise CompileError(
                    f"a tile of shape [{shape}] needs about {need} registers per thread with "
                    f"num_warps={plan.num_warps} ({threads} threads); the CUDA backend allows "
                    f"{MAX_TILE_REGISTERS} per tile (a thread has 255). Use a smaller block "
                    "size or more warps, or loop over the block in chunks",
                    op.loc,
                )
