"""cp.async: asynchronous global → shared copies of 4, 8 or 16 bytes, and their groups.

The spellings are the LLVM 22 intrinsics notes/nvptx.md lists as selecting on sm_80 and newer
(nvptx.py allows them from sm_80 on only). The ``.s`` forms take a source size: 0 copies
nothing from global memory and zero-fills the destination, which is how masked-off lanes are
skipped without touching their (possibly invalid) addresses. 16-byte copies bypass L1 (``.cg``);
smaller ones must go through it (``.ca``), the only form PTX has for them.
"""

from __future__ import annotations

from llvmlite import ir

from . import intrinsics as intr
from .types import GLOBAL_PTR, I32, SHARED_PTR, VOID

MIN_ARCH = 80
SIZES = (4, 8, 16)


def _copy_name(nbytes: int) -> str:
    if nbytes == 16:
        return "llvm.nvvm.cp.async.cg.shared.global.16.s"
    assert nbytes in SIZES, nbytes
    return f"llvm.nvvm.cp.async.ca.shared.global.{nbytes}.s"


def copy(b: ir.IRBuilder, dst: ir.Value, src: ir.Value, nbytes: int, pred: ir.Value) -> None:
    """Copy ``nbytes`` from ``src`` (global) to ``dst`` (shared) when ``pred``, else write
    ``nbytes`` zeros to ``dst`` without reading ``src``."""
    fn = intr.declare(b, _copy_name(nbytes), VOID, [SHARED_PTR, GLOBAL_PTR, I32])
    size = b.select(pred, ir.Constant(I32, nbytes), ir.Constant(I32, 0))
    b.call(fn, [dst, src, size])


def commit_group(b: ir.IRBuilder) -> None:
    b.call(intr.declare(b, "llvm.nvvm.cp.async.commit.group", VOID, []), [])


def wait_group(b: ir.IRBuilder, pending: int) -> None:
    """Wait until at most ``pending`` of this thread's most recent groups are still in flight;
    the copies of every older group are then complete and visible to this thread."""
    fn = intr.declare(b, "llvm.nvvm.cp.async.wait.group", VOID, [I32])
    b.call(fn, [ir.Constant(I32, pending)])


def wait_all(b: ir.IRBuilder) -> None:
    b.call(intr.declare(b, "llvm.nvvm.cp.async.wait.all", VOID, []), [])
