"""From the key parts of one call to the kernel's ArgSpecs and the backend that runs it.

A launch describes each argument (describers.py) into a key part (arg_keys.py) that carries
everything the compiler may assume (Triton's rules: ints equal to 1 or divisible by 16,
i32/i64/u64 by value, 16-byte pointer alignment, the array's device and dtype). The key parts
are all the specialization needs: ``spec_from_key`` turns them into ArgSpecs, ``choose_device``
picks the backend from the arrays' memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..backends import registry
from ..errors import TilecError, UnsupportedFeature, UsageError
from ..ir import types as ir
from ..ir.argspec import ArgKind, ArgSpec, constexpr_arg, descriptor_arg, tuple_arg
from .annotations import AnnotatedKey, annotated_describer
from .arg_keys import (
    BOOL,
    FP32,
    I32,
    I64,
    ONE,
    U64,
    ConstexprKey,
    DescriptorKey,
    PointerKey,
    TupleKey,
    leaf_keys,
)
from .describers import constexpr_key, describe, describe_unspecialized

_INT_TYPES = {I32: ir.int32, I64: ir.int64, U64: ir.uint64}


def spec_from_key(name: str, key: Any, constexpr: bool) -> ArgSpec:
    """The ArgSpec that a key part stands for."""
    if constexpr:
        value = key if type(key) is int else key[1]
        return constexpr_arg(name, value)
    if key is None:
        return ArgSpec(name, ArgKind.NONE)
    if type(key) is ConstexprKey:
        return spec_from_key(name, key[0], True)
    if type(key) is TupleKey:
        elements = [spec_from_key(f"{name}[{i}]", k, False) for i, k in enumerate(key[1:])]
        return tuple_arg(name, key[0], elements)
    if type(key) is DescriptorKey:  # inside a tuple (at the top, descriptor_args wraps it)
        sizes = [f"{name}.shape[{i}]" for i in range(key.rank)]
        sizes += [f"{name}.strides[{i}]" for i in range(key.rank - 1)]
        base = spec_from_key(f"{name}.base", key.base, False)
        elements = [base, *(ArgSpec(n, ArgKind.SCALAR, ir.int64) for n in sizes)]
        return descriptor_arg(name, key.block_shape, key.padding, elements)
    if type(key) is PointerKey:
        return ArgSpec(name, ArgKind.POINTER, ir.PointerType(key.element), key.aligned)
    if type(key) is AnnotatedKey:
        return ArgSpec(name, ArgKind.SCALAR, key.type, divisible_by_16=key.divisible_by_16)
    if not isinstance(key, int):
        raise UnsupportedFeature(f"argument {name!r} has no single ArgSpec ({key!r})")
    if key == ONE:
        return ArgSpec(name, ArgKind.SCALAR, ir.int32, equals_one=True)
    if key == BOOL:
        return ArgSpec(name, ArgKind.SCALAR, ir.int1)
    if key == FP32:
        return ArgSpec(name, ArgKind.SCALAR, ir.float32)
    return ArgSpec(name, ArgKind.SCALAR, _INT_TYPES[key & ~1], divisible_by_16=bool(key & 1))


def devices_of(names: Sequence[str], keys: Sequence[Any]) -> dict[str, list[str]]:
    """Device kind -> names of the array arguments on it."""
    found: dict[str, list[str]] = {}
    for name, key in [leaf for n, k in zip(names, keys) for leaf in leaf_keys(n, k)]:
        if type(key) is PointerKey:
            found.setdefault(key.device, []).append(name)
    return found


def choose_device(names: Sequence[str], keys: Sequence[Any], forced: str | None) -> str | None:
    """The backend for the device the arguments live on; ``None`` when no array says
    (scalars only).

    ``forced`` (TILEC_BACKEND or an explicit ``backend=``) must read the arrays' memory:
    a host kernel cannot read device memory, nor a device kernel host memory.
    """
    found = devices_of(names, keys)
    if len(found) > 1:
        where = "; ".join(f"{dev}: {', '.join(args)}" for dev, args in sorted(found.items()))
        raise UsageError(f"kernel arguments live on different devices ({where})")
    device = next(iter(found), None)
    if forced is not None and device is not None and registry.memory(forced) != device:
        args = ", ".join(found[device])
        raise UsageError(
            f"the {forced!r} backend was requested but arguments {args} live on {device!r}"
        )
    return forced or (registry.for_memory(device) if device is not None else None)


def specialize_keys(
    names: Sequence[str],
    values: Sequence[Any],
    constexprs: Sequence[bool],
    do_not_specialize: Sequence[bool] | None = None,
    annotated: Sequence[ir.ScalarType | None] | None = None,
) -> tuple[Any, ...]:
    """The key parts of one call, naming the argument that cannot be described; ``annotated``:
    the type each parameter's annotation fixes, or None (annotations.py)."""
    nospec = do_not_specialize or [False] * len(names)
    fixed = annotated or [None] * len(names)
    keys = []
    for name, value, cx, ns, t in zip(names, values, constexprs, nospec, fixed):
        try:
            if cx:
                keys.append(constexpr_key(value))
            elif t is not None:
                keys.append(annotated_describer(name, t, not ns)(value)[0])
            else:
                keys.append((describe_unspecialized if ns else describe)(value)[0])
        except TilecError as exc:
            raise type(exc)(f"argument {name!r}: {exc}") from None
    return tuple(keys)


def specialize(
    names: Sequence[str],
    values: Sequence[Any],
    constexprs: Sequence[bool],
    do_not_specialize: Sequence[bool] | None = None,
) -> tuple[tuple[Any, ...], tuple[ArgSpec, ...]]:
    """The key and ArgSpecs of one call (the slow, whole-signature form used off the warm path)."""
    keys = specialize_keys(names, values, constexprs, do_not_specialize)
    specs = tuple(spec_from_key(n, k, c) for n, k, c in zip(names, keys, constexprs))
    return keys, specs
