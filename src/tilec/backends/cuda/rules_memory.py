"""Loads and stores: 16-byte vector accesses where axis analysis allows, masks as predicates.

A masked access is inline PTX with an ``@p`` predicate (the ``b`` constraint) so the vector stays
one instruction (``llvm.masked.load`` would scalarize it); unmasked ones are plain LLVM vector
loads and stores. Elements replicated across threads are stored by their owner only.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir import ops as O
from ...ir.core import Op, Value
from ...ir.types import PointerType, TileType, element_of
from . import intrinsics as intr
from .lowering import Lowering, Rule
from .tile import Key, Tile
from .types import I1, I8, I16, I32, I64, memory_type
from .vector_access import vector_groups, vector_width

_CACHE = {
    "": "",
    ".ca": ".ca",
    ".cg": ".cg",
    ".cv": ".cv",
    ".cs": ".cs",
    ".wb": ".wb",
    ".wt": ".wt",
}


def _pointee(ptr: Value) -> PointerType:
    elem = element_of(ptr.type)
    assert isinstance(elem, PointerType)
    return elem


def _words(nbytes: int) -> tuple[ir.IntType, int, str]:
    """How a ``nbytes`` vector travels through inline PTX: (word type, count, constraint)."""
    if nbytes >= 4:
        return I32, nbytes // 4, "r"
    return I16, 1, "h"  # one b16 register carries a 2-byte vector or (ld.b8) a single byte


def _pack(b: ir.IRBuilder, vals: list[ir.Value], mem_ty: ir.Type) -> list[ir.Value]:
    """Bit-pack element values into the words of :func:`_words`."""
    nbytes = len(vals) * _type_bytes(mem_ty)
    word, count, _ = _words(nbytes)
    if nbytes == 1:
        return [b.zext(vals[0], I16)]
    whole = _whole_vectors(vals)
    if whole is not None and all(_vector_bytes(v) % (word.width // 8) == 0 for v in whole):
        return [w for v in whole for w in _vector_words(b, v, word)]
    vec_ty = ir.VectorType(mem_ty, len(vals))
    vec = ir.Constant(vec_ty, None)
    for i, v in enumerate(vals):
        vec = b.insert_element(vec, v, ir.Constant(I32, i))
    words = (
        b.bitcast(vec, ir.VectorType(word, count))
        if count > 1 or len(vals) > 1
        else b.bitcast(vec, ir.VectorType(word, 1))
    )
    return [b.extract_element(words, ir.Constant(I32, i)) for i in range(count)]


def _whole_vectors(vals: list[ir.Value]) -> list[ir.Value] | None:
    """The vectors ``vals`` are the elements of, in order (a layout conversion's vector loads),
    or None. Their words then go to the store as they are, with no shuffle of elements
    through a new vector for LLVM to untangle."""
    out: list[ir.Value] = []
    i = 0
    while i < len(vals):
        first = vals[i]
        if not isinstance(first, ir.ExtractElement):
            return None
        vec = first.operands[0]
        n = vec.type.count
        for j in range(n):
            x = vals[i + j] if i + j < len(vals) else None
            if not (
                isinstance(x, ir.ExtractElement)
                and x.operands[0] is vec
                and isinstance(x.operands[1], ir.Constant)
                and x.operands[1].constant == j
            ):
                return None
        out.append(vec)
        i += n
    return out


def _vector_bytes(v: ir.Value) -> int:
    return int(v.type.count) * _type_bytes(v.type.element)


def _vector_words(b: ir.IRBuilder, v: ir.Value, word: ir.IntType) -> list[ir.Value]:
    n = _vector_bytes(v) * 8 // word.width
    if n == 1:
        return [b.bitcast(v, word)]
    words = b.bitcast(v, ir.VectorType(word, n))
    return [b.extract_element(words, ir.Constant(I32, i)) for i in range(n)]


def _unpack(b: ir.IRBuilder, words: list[ir.Value], mem_ty: ir.Type, n: int) -> list[ir.Value]:
    if n == 1 and _type_bytes(mem_ty) == 1:
        return [b.trunc(words[0], I8)]
    vec = ir.Constant(ir.VectorType(words[0].type, len(words)), None)
    for i, w in enumerate(words):
        vec = b.insert_element(vec, w, ir.Constant(I32, i))
    elems = b.bitcast(vec, ir.VectorType(mem_ty, n))
    return [b.extract_element(elems, ir.Constant(I32, i)) for i in range(n)]


def _type_bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(t.width // 8, 1)
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(t)]


def _ptx_ld(nwords: int, word: ir.IntType, nbytes: int, modifier: str) -> str:
    vec = f".v{nwords}" if nwords > 1 else ""
    kind = "b8" if nbytes == 1 else f"b{word.width}"
    return f"ld{modifier}{vec}.{kind}"


def masked_load(
    b: ir.IRBuilder,
    ptr: ir.Value,
    pred: ir.Value,
    other: list[ir.Value],
    mem_ty: ir.Type,
    modifier: str,
) -> list[ir.Value]:
    n = len(other)
    nbytes = n * _type_bytes(mem_ty)
    word, count, con = _words(nbytes)
    other_words = _pack(b, other, mem_ty)
    outs = ", ".join(f"${i}" for i in range(count))
    movs = "".join(f"mov.b{word.width} ${i}, ${count + 2 + i}; " for i in range(count))
    text = f"{movs}@${count + 1} {_ptx_ld(count, word, nbytes, modifier)} {{ {outs} }}, [ ${count} + 0 ];"
    if count == 1:
        text = text.replace("{ $0 }", "$0")
    constraints = ",".join([f"={con}"] * count + ["l", "b"] + [con] * count)
    ret = ir.LiteralStructType([word] * count) if count > 1 else word
    res = intr.asm(b, ret, text, constraints, [ptr, pred, *other_words])
    words = [b.extract_value(res, i) for i in range(count)] if count > 1 else [res]
    return _unpack(b, words, mem_ty, n)


def masked_store(
    b: ir.IRBuilder,
    ptr: ir.Value,
    pred: ir.Value,
    vals: list[ir.Value],
    mem_ty: ir.Type,
    modifier: str = "",
) -> None:
    nbytes = len(vals) * _type_bytes(mem_ty)
    word, count, con = _words(nbytes)
    words = _pack(b, vals, mem_ty)
    vec = f".v{count}" if count > 1 else ""
    kind = "b8" if nbytes == 1 else f"b{word.width}"
    ins = ", ".join(f"${i + 2}" for i in range(count))
    body = f"{{ {ins} }}" if count > 1 else ins
    text = f"@$1 st.global{modifier}{vec}.{kind} [ $0 + 0 ], {body};"
    intr.asm(b, ir.VoidType(), text, ",".join(["l", "b"] + [con] * count), [ptr, pred, *words])


def _load(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.LoadOp)
    elem = _pointee(op.ptr).element
    mem_ty = _mem_type(elem)
    modifier = ".volatile.global" if op.volatile else ".global" + _CACHE.get(op.cache, "")
    if not isinstance(op.result.type, TileType):
        L.set(
            op.result,
            _load_one(
                L,
                L.scalar(op.ptr),
                _opt_scalar(L, op.mask),
                _opt_scalar(L, op.other),
                elem,
                mem_ty,
                modifier,
                1,
            )[0],
        )
        return
    layout, shape = L.want(op.result), op.result.type.shape
    groups = vector_groups(layout, shape, vector_width(L.axis, op.ptr, op.mask, layout, shape))
    ptrs = L.pointers(op.ptr, layout, [g[0] for g in groups])
    mask = L.value(op.mask, layout) if op.mask is not None else None
    other = L.value(op.other, layout) if op.other is not None else None
    regs: dict[Key, ir.Value] = {}
    for group in groups:
        pred = _reg(mask, group[0])
        others = [_reg(other, k) for k in group] if other is not None else None
        vals = _load_group(L, ptrs.regs[group[0]], pred, others, elem, mem_ty, modifier, len(group))
        regs.update(zip(group, vals))
    L.set(op.result, Tile(layout, shape, regs))


def _reg(x: ir.Value | Tile | None, key: Key) -> ir.Value | None:
    if x is None:
        return None
    return x.regs[key] if isinstance(x, Tile) else x


def _opt_scalar(L: Lowering, v: Value | None) -> ir.Value | None:
    return None if v is None else L.scalar(v)


def _mem_type(elem: object) -> ir.Type:
    if isinstance(elem, PointerType):
        return I64
    return memory_type(elem)  # type: ignore[arg-type]


def _to_register(b: ir.IRBuilder, v: ir.Value, elem: object) -> ir.Value:
    if isinstance(elem, PointerType):
        return b.inttoptr(v, ir.PointerType(addrspace=elem.address_space))
    if getattr(elem, "bits", 0) == 1:
        return b.trunc(v, I1)
    return v


def _to_memory(b: ir.IRBuilder, v: ir.Value, elem: object) -> ir.Value:
    if isinstance(elem, PointerType):
        return b.ptrtoint(v, I64)
    if getattr(elem, "bits", 0) == 1:
        return b.zext(v, I8)
    return v


def _load_one(
    L: Lowering,
    ptr: ir.Value,
    pred: ir.Value | None,
    other: ir.Value | None,
    elem: object,
    mem_ty: ir.Type,
    modifier: str,
    n: int,
) -> list[ir.Value]:
    return _load_group(
        L, ptr, pred, [other] if other is not None else None, elem, mem_ty, modifier, n
    )


def _load_group(
    L: Lowering,
    ptr: ir.Value,
    pred: ir.Value | None,
    others: list | None,
    elem: object,
    mem_ty: ir.Type,
    modifier: str,
    n: int,
) -> list[ir.Value]:
    b = L.b
    if pred is None and modifier == ".global":
        ty = ir.VectorType(mem_ty, n) if n > 1 else mem_ty
        loaded = b.load(ptr, typ=ty, align=n * _type_bytes(mem_ty))
        vals = (
            [b.extract_element(loaded, ir.Constant(I32, i)) for i in range(n)]
            if n > 1
            else [loaded]
        )
    else:
        if pred is None:
            pred = ir.Constant(I1, 1)
        zero = ir.Constant(mem_ty, 0 if isinstance(mem_ty, ir.IntType) else 0.0)
        mem_others = [_to_memory(b, o, elem) for o in others] if others is not None else [zero] * n
        vals = masked_load(b, ptr, pred, mem_others, mem_ty, modifier)
    return [_to_register(b, v, elem) for v in vals]


def _store(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.StoreOp)
    elem = _pointee(op.ptr).element
    mem_ty = _mem_type(elem)
    modifier = _CACHE.get(op.cache, "")
    if not isinstance(op.value.type, TileType):
        _store_scalar(L, op, elem, mem_ty, modifier)
        return
    layout = L.tile(op.ptr).layout
    shape = op.value.type.shape
    groups = vector_groups(layout, shape, vector_width(L.axis, op.ptr, op.mask, layout, shape))
    ptrs = L.pointers(op.ptr, layout, [g[0] for g in groups])
    vals = L.tile(op.value, layout)
    mask = L.value(op.mask, layout) if op.mask is not None else None
    owner = L.owner_mask(layout, shape)
    for group in groups:
        items = [_to_memory(L.b, vals.regs[k], elem) for k in group]
        pred = _reg(mask, group[0])
        if owner is not None:
            pred = owner if pred is None else L.b.and_(pred, owner)
        ptr = ptrs.regs[group[0]]
        if pred is None and not modifier:
            _plain_store(L.b, ptr, items, mem_ty)
        else:
            always = ir.Constant(I1, 1)
            masked_store(L.b, ptr, pred if pred is not None else always, items, mem_ty, modifier)


def _store_scalar(L: Lowering, op: O.StoreOp, elem: object, mem_ty: ir.Type, modifier: str) -> None:
    """A scalar store happens once, from thread 0."""
    pred = L.first_thread()
    if op.mask is not None:
        pred = L.b.and_(pred, L.scalar(op.mask))
    value = _to_memory(L.b, L.scalar(op.value), elem)
    masked_store(L.b, L.scalar(op.ptr), pred, [value], mem_ty, modifier)


def _plain_store(b: ir.IRBuilder, ptr: ir.Value, items: list[ir.Value], mem_ty: ir.Type) -> None:
    n = len(items)
    if n == 1:
        b.store(items[0], ptr, align=_type_bytes(mem_ty))
        return
    vec = ir.Constant(ir.VectorType(mem_ty, n), None)
    for i, v in enumerate(items):
        vec = b.insert_element(vec, v, ir.Constant(I32, i))
    b.store(vec, ptr, align=n * _type_bytes(mem_ty))


RULES: dict[type, Rule] = {O.LoadOp: _load, O.StoreOp: _store}
