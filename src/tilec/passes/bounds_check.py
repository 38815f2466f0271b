"""Bounds-checked mode: every memory access is checked against its argument's memory extent.

A fixed-point walk finds, for every pointer value, the pointer parameters it may derive from
(through addptr, splat, broadcast, select, the shape ops and the values loops and ifs carry;
block pointers are plain pointer arithmetic by then). The pass appends hidden parameters — a
``lo, hi`` byte-address pair per pointer parameter, the error record and, for compare-and-swap,
a scratch word of the record — and puts a BoundsCheckOp before each access, whose result
becomes the access's mask, so an access never touches memory outside its extent. Pointers
loaded from memory or made from integers have no known origin and are not checked.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..ir import ops as O
from ..ir.argspec import ArgKind, ArgSpec, pointer_arg, scalar_arg
from ..ir.bounds import BOUNDS_CODE, AccessKind, BoundsInfo, BoundsSite
from ..ir.core import Op, Value
from ..ir.types import PointerType, ScalarType, element_of, int64, shape_of

_UNKNOWN = -1  # an origin outside the kernel's pointer parameters


_ACCESS = (O.LoadOp, O.StoreOp, O.AtomicRMWOp, O.AtomicCASOp)


def _is_pointer(v: Value) -> bool:
    return isinstance(element_of(v.type), PointerType)


def _terminator_values(op: Op, region: int) -> list[Value]:
    term = op.regions[region].entry.terminator
    if term is None:
        return []
    return term.operands[1:] if isinstance(term, O.ConditionOp) else term.operands


def _flows(op: Op) -> Iterator[tuple[Value, Sequence[Value] | None]]:
    """(value, the values it may take its pointer from, or None for an unknown origin)."""
    if isinstance(op, O.ForOp):
        carried = _terminator_values(op, 0)
        for i, init in enumerate(op.init_args):
            sources = [init, *carried[i : i + 1]]
            yield op.body.args[i + 1], sources
            yield op.results[i], sources
    elif isinstance(op, O.WhileOp):
        forwarded, carried = _terminator_values(op, 0), _terminator_values(op, 1)
        for i, init in enumerate(op.operands):
            yield op.before.args[i], [init, *carried[i : i + 1]]
            yield op.after.args[i], forwarded[i : i + 1]
            yield op.results[i], forwarded[i : i + 1]
    elif isinstance(op, O.IfOp):
        then, other = _terminator_values(op, 0), _terminator_values(op, 1)
        for i, r in enumerate(op.results):
            yield r, [*then[i : i + 1], *other[i : i + 1]]
    elif isinstance(op, _ACCESS):
        for r in op.results:
            yield r, None  # a pointer read from memory
    else:
        pointers = [v for v in op.operands if _is_pointer(v)]
        for r in op.results:
            yield r, pointers or None


def origins(func: O.FuncOp) -> dict[Value, frozenset[int]]:
    """For each pointer value, the positions (among ``func.args``) of the parameters it may
    derive from; ``-1`` stands for an origin outside them."""
    table: dict[Value, frozenset[int]] = {
        a: frozenset({i}) for i, a in enumerate(func.args) if _is_pointer(a)
    }
    unknown = frozenset({_UNKNOWN})
    changed = True
    while changed:  # unions only grow, over a finite set: this ends
        changed = False
        for op in func.walk():
            for target, sources in _flows(op):
                if not _is_pointer(target):
                    continue
                new = (
                    unknown
                    if sources is None
                    else frozenset().union(*(table.get(s, frozenset()) for s in sources))
                )
                old = table.get(target, frozenset())
                if not new <= old:
                    table[target] = old | new
                    changed = True
    return table


def _kind(op: Op) -> AccessKind:
    if isinstance(op, O.LoadOp):
        return AccessKind.LOAD
    return AccessKind.STORE if isinstance(op, O.StoreOp) else AccessKind.ATOMIC


def _mask_of(op: Op) -> Value | None:
    return op.mask if isinstance(op, (O.LoadOp, O.StoreOp, O.AtomicRMWOp)) else None


def _set_mask(op: Op, mask: Value) -> None:
    """Make ``mask`` the access's mask (adding one where it had none)."""
    if isinstance(op, O.LoadOp):
        other = [op.other] if op.other is not None else []
        op.operands = [op.ptr, mask, *other]
        op.has_mask = True
    else:
        op.operands = [*op.operands[:2], mask]


class _Instrumenter:
    def __init__(self, func: O.FuncOp) -> None:
        self.func = func
        self.table = origins(func)
        self.params = [i for i, s in enumerate(func.specs) if s.kind is ArgKind.POINTER]
        self.sites: list[BoundsSite] = []
        self.checks: list[tuple[Op, O.BoundsCheckOp, tuple[int, ...]]] = []
        self.record = Value(PointerType(int64), None, -1)  # replaced by the real parameter
        self.scratch_types: list[ScalarType] = []

    def plan(self) -> None:
        for op in list(self.func.walk()):
            if not isinstance(op, _ACCESS):
                continue
            ptr = op.operands[0]
            found = self.table.get(ptr, frozenset())
            if not found or _UNKNOWN in found:
                continue
            candidates = tuple(sorted(self.params.index(i) for i in found))
            pointee = element_of(ptr.type)
            assert isinstance(pointee, PointerType) and isinstance(pointee.element, ScalarType)
            elem = pointee.element
            site = BoundsSite(_kind(op), op.loc, candidates, str(elem), elem.itemsize)
            check = O.BoundsCheckOp(
                ptr, self.record, [], _mask_of(op), BOUNDS_CODE + len(self.sites),
                elem.itemsize, op.loc,
            )  # fmt: skip
            self.sites.append(site)
            self.checks.append((op, check, candidates))
            if isinstance(op, O.AtomicCASOp) and elem not in self.scratch_types:
                self.scratch_types.append(elem)

    def apply(self) -> BoundsInfo:
        func = self.func
        user = len(func.specs)
        names = [func.specs[i].name for i in self.params]
        extents: list[tuple[Value, Value]] = []
        specs: list[ArgSpec] = []
        for name in names:
            pair = []
            for end in ("lo", "hi"):
                spec = scalar_arg(f"_bounds_{end}_{name}", int64)
                pair.append(func.body.add_arg(int64, spec.name))
                specs.append(spec)
            extents.append((pair[0], pair[1]))
        record_spec = pointer_arg("_bounds_record", int64, aligned=False)  # 8-byte aligned
        record = func.body.add_arg(PointerType(int64), record_spec.name)
        specs.append(record_spec)
        scratch: dict[ScalarType, Value] = {}
        for elem in self.scratch_types:
            spec = pointer_arg(f"_bounds_scratch_{elem}", elem, aligned=False)
            scratch[elem] = func.body.add_arg(PointerType(elem), spec.name)
            specs.append(spec)
        func.specs = (*func.specs, *specs)
        for op, check, candidates in self.checks:
            flat = [v for c in candidates for v in extents[c]]
            mask = check.mask
            check.operands = [check.ptr, record, *flat, *([mask] if mask is not None else [])]
            check.n_extents = len(candidates)
            _insert_before(op, check)
            if isinstance(op, O.AtomicCASOp):
                _redirect(op, check, scratch)
            else:
                _set_mask(op, check.result)
        return BoundsInfo(user, tuple(names), tuple(self.sites), len(self.scratch_types))


def _insert_before(op: Op, new: Op) -> None:
    block = op.parent
    assert block is not None
    block.insert(block.ops.index(op), new)


def _redirect(op: O.AtomicCASOp, check: O.BoundsCheckOp, scratch: dict[ScalarType, Value]) -> None:
    """Compare-and-swap has no mask: out-of-bounds lanes swap the record's scratch word."""
    ptr = op.operands[0]
    pointee = element_of(ptr.type)
    assert isinstance(pointee, PointerType) and isinstance(pointee.element, ScalarType)
    safe = scratch[pointee.element]
    shape = shape_of(ptr.type)
    if shape:
        splat = O.SplatOp(safe, shape, op.loc)
        _insert_before(op, splat)
        safe = splat.result
    select = O.SelectOp(check.result, ptr, safe, op.loc)
    _insert_before(op, select)
    op.operands[0] = select.result


def instrument(module: O.ModuleOp) -> BoundsInfo | None:
    """Add the checks to the module's kernel; None (and no change) when it has no access
    whose pointer comes from a parameter."""
    funcs = module.functions
    if len(funcs) != 1:
        return None
    inst = _Instrumenter(funcs[0])
    inst.plan()
    if not inst.checks:
        return None
    return inst.apply()
