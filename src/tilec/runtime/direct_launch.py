"""``compiled[grid](*args)``: launch a compiled kernel with all of its Python arguments.

This is Triton's CompiledKernel call (on the object ``JITFunction.warmup`` returns): every
parameter is passed, constexprs included. Each argument is described as at a JIT launch and
must fit the specialization the kernel was compiled for (equal constexprs, arrays of the same
element type and device, 16-byte aligned where the kernel assumed it, integers of a width and
with the facts it assumed); what fits is remembered per key part, so a repeated launch costs
one describe and one dict lookup per argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..backends.artifacts import KernelMetadata
from ..errors import TilecError, UsageError
from ..ir import types as ir
from ..ir.argspec import ArgKind, ArgSpec
from . import describers, specialize
from .arg_keys import PointerKey

# the types a compiled scalar parameter accepts values of (by the value's key type); a float
# parameter takes Python ints too, as Triton's launcher converts them; a parameter whose
# annotation fixed a narrower type (annotations.py) takes what that launch took, the launcher
# checking the range
_NUMBERS = (ir.float32, ir.int32, ir.int64)
_WIDER = {
    ir.int32: (ir.int32,),
    ir.int64: (ir.int32, ir.int64),
    ir.uint64: (ir.uint64,),
    ir.float32: _NUMBERS,
    **{t: _NUMBERS for t in (ir.float16, ir.bfloat16, ir.float64)},
    **{t: (ir.int32, ir.int64) for t in (ir.int8, ir.int16, ir.uint8, ir.uint16, ir.uint32)},
}


def _mismatch(spec: ArgSpec, key: Any, device: str) -> str | None:
    """Why an argument with key part ``key`` cannot be passed for ``spec``, or None if it fits."""
    compiled = f"the kernel was compiled for {spec}"
    if spec.kind is ArgKind.CONSTEXPR:
        same = key == describers.constexpr_key(spec.value)
        return None if same else compiled
    if spec.kind is ArgKind.NONE:
        return None if key is None else compiled
    if spec.kind is ArgKind.POINTER:
        if type(key) is not PointerKey:
            return compiled
        assert isinstance(spec.type, ir.PointerType)
        if key.device != device:
            return f"{compiled} on {device}, the array lives on {key.device}"
        aligned = key.aligned or not spec.divisible_by_16
        return None if key.element == spec.type.element and aligned else compiled
    if type(key) is not int:
        return compiled
    given = specialize.spec_from_key(spec.name, key, False)
    if spec.equals_one:
        return None if given.equals_one else compiled
    if spec.divisible_by_16 and not given.divisible_by_16:
        return compiled
    if spec.type in _WIDER:
        return None if given.type in _WIDER[spec.type] else compiled
    return None if given.type == spec.type else compiled


def _short(arg: Any) -> str:
    if isinstance(arg, (int, float, bool, str, type(None))):
        return repr(arg)
    return f"<{type(arg).__module__}.{type(arg).__qualname__}>"


class Launchable(Protocol):
    """What a direct launch needs of a loaded kernel (kernel.py's LaunchedKernel); a
    bounds-checked one also has ``launch_checked``, which is given the argument objects."""

    @property
    def name(self) -> str: ...
    @property
    def params(self) -> Sequence[ArgSpec]: ...
    @property
    def metadata(self) -> KernelMetadata: ...
    def launch(self, grid: Any, *values: Any) -> None: ...


class DirectLaunch:
    """The callable ``compiled[grid]`` returns (one per kernel, remembering what fits)."""

    def __init__(self, kernel: Launchable) -> None:
        self.kernel = kernel
        self.params: Sequence[ArgSpec] = kernel.params
        self.device = kernel.metadata.target.kind
        self._fits: list[dict[Any, str | None]] = [{} for _ in self.params]

    def __call__(self, grid: Any, args: tuple[Any, ...]) -> None:
        if len(args) != len(self.params):
            raise UsageError(
                f"{self.kernel.name}: the compiled kernel takes {len(self.params)} arguments "
                f"(constexprs included: {', '.join(p.name for p in self.params)}), "
                f"got {len(args)}"
            )
        values = []
        for spec, fits, arg in zip(self.params, self._fits, args):
            try:
                if spec.kind is ArgKind.CONSTEXPR:
                    key, value = describers.constexpr_key(arg), arg
                else:
                    key, value = describers.describe(arg)
            except TilecError as exc:
                raise type(exc)(f"{self.kernel.name}: argument {spec.name!r}: {exc}") from None
            if key not in fits:
                fits[key] = _mismatch(spec, key, self.device)
            reason = fits[key]
            if reason is not None:
                raise UsageError(
                    f"{self.kernel.name}: argument {spec.name}={_short(arg)} does not fit the "
                    f"compiled kernel ({reason}); launch through the @jit function to "
                    "compile another specialization"
                )
            values.append(value)
        launch_checked = getattr(self.kernel, "launch_checked", None)
        if launch_checked is not None:  # debug mode finds each argument's extent
            launch_checked(grid, values, {p.name: a for p, a in zip(self.params, args)})
            return
        self.kernel.launch(grid, *values)
