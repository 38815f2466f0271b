"""Which additions the compiler fuses with a product (``enable_fp_fusion``, Triton's default and
tilec's: src/tilec/passes/fuse_multiply_add.py), so that the reference rounds ``a * b + c``
once where the kernel does.

The pass runs on the IR after CSE, constant folding and canonicalization: an fp32/fp64 product
is fused into an addition or subtraction that is its only use, in the same block, with no cast
or broadcast between them. Here the DAG is keyed by structure as CSE would merge it, products
of constants are folded, a product by 1 is no product, and every other consumer (a cast, a
broadcast, a loop, the store) is a use that keeps the product rounded.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .dtypes import DType
from .numerics import round_float
from .program import Node, dropped_loop, walk
from .reference_ops import _fma

_FOLDED = ("bin", "cmp", "cast", "where", "broadcast_to", "expand_dims", "reshape")


def fused_sides(root: Node) -> dict[int, int]:
    """``id(addition) -> operand index`` of the product each fused addition absorbs."""
    keys: dict[int, object] = {}
    const: dict[int, bool] = {}
    for n in walk(root):
        if dropped_loop(n):  # its value is the init
            keys[id(n)], const[id(n)] = keys[id(n.args[0])], const[id(n.args[0])]
            continue
        keys[id(n)] = _key(n, keys)
        folds = n.op in _FOLDED and not (n.op == "cast" and n.attr[2:])  # rtz is not folded
        const[id(n)] = n.is_literal or n.op == "full" or (
            (folds or (n.op == "unary" and n.attr[0] == "neg"))
            and bool(n.args) and all(const[id(a)] for a in n.args)
        )  # fmt: skip
    uses: dict[object, set[object]] = {keys[id(root)]: {"store"}}
    for n in walk(root):
        if dropped_loop(n):
            continue
        for slot, a in enumerate(n.args):
            if not a.is_literal:
                uses.setdefault(keys[id(a)], set()).add(_use(n, slot, a, keys))
    fused: dict[int, int] = {}
    for n in walk(root):
        if not _is_addition(n):
            continue
        for side, a in enumerate(n.args):
            a = product_of(a)
            if (_is_product(a, const) and _direct(n, a)
                    and uses.get(keys[id(a)]) == {(keys[id(n)], side)}):  # fmt: skip
                fused[id(n)] = side
                break
    return fused


def product_of(n: Node) -> Node:
    """``n``, or the value an empty loop passes through."""
    while dropped_loop(n):
        n = n.args[0]
    return n


def _key(n: Node, keys: dict[int, object]) -> object:
    leaf = (n.op, n.attr, n.dtype.name, n.shape)
    return (*leaf, tuple(keys.get(id(a), ("lit", a.attr, a.dtype.name)) for a in n.args))


def _is_addition(n: Node) -> bool:
    return n.op == "bin" and n.attr[0] in ("+", "-") and n.dtype in (D.F32, D.F64)


def _is_product(n: Node, const: dict[int, bool]) -> bool:
    if n.op != "bin" or n.attr[0] != "*" or n.dtype not in (D.F32, D.F64) or const[id(n)]:
        return False
    one = [a for a in n.args if (a.is_literal or a.op == "full") and a.attr[-1] == 1]
    return not one  # x * 1 is x


def _direct(user: Node, a: Node) -> bool:
    """``a`` reaches ``user`` as it is: its type is the computation type, its shape the user's."""
    return a.dtype == user.dtype and a.shape == user.shape


def _use(n: Node, slot: int, a: Node, keys: dict[int, object]) -> object:
    if _is_addition(n) and _direct(n, a):
        return (keys[id(n)], slot)
    if n.op in ("bin", "cmp", "where", "minmax") and not _direct(n, a):
        return ("convert", n.dtype.name, n.shape)  # a cast or a broadcast uses it
    return (keys[id(n)], slot)


def fma(x: np.ndarray, y: np.ndarray, c: np.ndarray, t: DType) -> np.ndarray:
    """``x * y + c`` rounded once to ``t`` (fp32 or fp64 values in their NumPy types)."""
    a, b, s = (v.astype(np.float64) for v in (x, y, c))
    if t == D.F64:
        return _fma(a, b, s)
    with np.errstate(all="ignore"):
        p = a * b  # exact: two 24-bit significands
        hi = p + s
        bb = hi - p
        lo = (p - (hi - bb)) + (s - bb)  # hi + lo == p + s exactly (TwoSum)
    lo = np.where(np.isfinite(hi), lo, 0.0)
    # rounded to odd in fp64, the exact sum then rounds once more to fp32 correctly
    even = (hi.view(np.int64) & 1) == 0
    hi = np.where((lo != 0) & even, np.nextafter(hi, np.where(lo > 0, np.inf, -np.inf)), hi)
    return round_float(hi, t)
