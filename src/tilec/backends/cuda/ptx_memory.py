"""Predicated global loads and stores as inline PTX (a helper of target_info.NvptxTarget).

A masked access is inline PTX with an ``@p`` predicate (the ``b`` constraint) so the vector stays
one instruction (``llvm.masked.load`` would scalarize it). The values travel as 32-bit words
(16-bit for vectors under 4 bytes); a masked-off load yields its ``other`` words.
"""

from __future__ import annotations

from llvmlite import ir

from . import intrinsics as intr
from .types import I8, I16, I32, type_bytes


def _words(nbytes: int) -> tuple[ir.IntType, int, str]:
    """How a ``nbytes`` vector travels through inline PTX: (word type, count, constraint)."""
    if nbytes >= 4:
        return I32, nbytes // 4, "r"
    return I16, 1, "h"  # one b16 register carries a 2-byte vector or (ld.b8) a single byte


def _pack(b: ir.IRBuilder, vals: list[ir.Value], mem_ty: ir.Type) -> list[ir.Value]:
    """Bit-pack element values into the words of :func:`_words`."""
    nbytes = len(vals) * type_bytes(mem_ty)
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
    return int(v.type.count) * type_bytes(v.type.element)


def _vector_words(b: ir.IRBuilder, v: ir.Value, word: ir.IntType) -> list[ir.Value]:
    n = _vector_bytes(v) * 8 // word.width
    if n == 1:
        return [b.bitcast(v, word)]
    words = b.bitcast(v, ir.VectorType(word, n))
    return [b.extract_element(words, ir.Constant(I32, i)) for i in range(n)]


def _unpack(b: ir.IRBuilder, words: list[ir.Value], mem_ty: ir.Type, n: int) -> list[ir.Value]:
    if n == 1 and type_bytes(mem_ty) == 1:
        return [b.trunc(words[0], I8)]
    vec = ir.Constant(ir.VectorType(words[0].type, len(words)), None)
    for i, w in enumerate(words):
        vec = b.insert_element(vec, w, ir.Constant(I32, i))
    elems = b.bitcast(vec, ir.VectorType(mem_ty, n))
    return [b.extract_element(elems, ir.Constant(I32, i)) for i in range(n)]


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
    nbytes = n * type_bytes(mem_ty)
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
    nbytes = len(vals) * type_bytes(mem_ty)
    word, count, con = _words(nbytes)
    words = _pack(b, vals, mem_ty)
    vec = f".v{count}" if count > 1 else ""
    kind = "b8" if nbytes == 1 else f"b{word.width}"
    ins = ", ".join(f"${i + 2}" for i in range(count))
    body = f"{{ {ins} }}" if count > 1 else ins
    text = f"@$1 st.global{modifier}{vec}.{kind} [ $0 + 0 ], {body};"
    intr.asm(b, ir.VoidType(), text, ",".join(["l", "b"] + [con] * count), [ptr, pred, *words])
