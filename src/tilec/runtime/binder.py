"""The per-kernel launch function: Python's own call machinery binds the launch arguments.

For each kernel we generate one function with the kernel's exact signature (defaults included,
named after the kernel so a wrong call reads naturally) that, in a single pass, describes every
argument (numpy arrays, torch tensors and small ints inline, other types through the cached
per-type describers), builds the specialization key, evaluates a callable grid, looks the
compiled kernel up and launches it. This is what keeps a warm launch near a microsecond.
"""

from __future__ import annotations

import inspect
import keyword
import re
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import config
from ..backends import dlpack_exchange, launcher
from ..backends.base import normalize_grid
from ..constexpr import is_constexpr_annotation
from ..errors import CompileError, TilecError, UsageError
from ..ir.types import ScalarType
from . import describers, numpy_struct
from .annotations import annotated_describer, annotated_scalar
from .arg_keys import FP32, I32, ONE

Launch = Callable[..., Any]


@dataclass(frozen=True)
class Parameter:
    """One kernel parameter (Triton's ``KernelParam``)."""

    name: str
    constexpr: bool
    do_not_specialize: bool
    default: Any = inspect.Parameter.empty
    num: int = -1  # position among the kernel's parameters (Triton's KernelParam.num)
    var_positional: bool = False  # ``*args``: the extra positional arguments, as one tuple
    # the scalar type an annotation fixes (``v: tl.float16``; annotations.py), else None
    annotated: ScalarType | None = None

    @property
    def is_constexpr(self) -> bool:
        return self.constexpr


class _Never:
    """Stands for numpy.ndarray / torch.Tensor when they are not imported: no value has it."""


class _Missing:
    """The default of a parameter a launch did not pass. Describing it fails (no describer
    takes it; unhashable, so not a constexpr either), so a missing argument costs the warm
    path nothing and becomes a UsageError naming it rather than Python's TypeError."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()
# the parameters a launch binds one argument each (``*args`` takes the rest as a tuple)
_PLAIN = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY)


def read_only_error(name: str) -> UsageError:
    return UsageError(
        f"argument {name!r} is a read-only array, but the kernel writes through it "
        "(stores or atomics); pass a writable copy"
    )


def is_read_only(value: Any) -> bool:
    """True for a numpy array (or an ``__array_interface__`` object) that may not be written."""
    flags = getattr(value, "flags", None)
    if flags is not None and getattr(flags, "writeable", True) is False:
        return True
    iface = getattr(value, "__array_interface__", None)
    data = iface.get("data") if isinstance(iface, dict) else None
    return isinstance(data, tuple) and len(data) == 2 and data[1] is True


_STEP = re.compile(r"\[(\d+)\]|\.(\w+)")


def split_leaf(name: str) -> tuple[str, tuple[int | str, ...]]:
    """A written parameter's name as its parameter and the steps into it: ``"x"`` is
    ``("x", ())``, a tuple argument's leaf ``"x[1][0]"`` is ``("x", (1, 0))``, a descriptor's
    base array ``"x[0].base"`` is ``("x", (0, "base"))``."""
    top = re.match(r"\w*", name)
    head = top.group(0) if top else ""
    steps = tuple(
        int(m.group(1)) if m.group(1) is not None else m.group(2)
        for m in _STEP.finditer(name, len(head))
    )
    return head, steps


def _render(name: str, path: Sequence[int | str]) -> str:
    return name + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)


def read_only_leaf(value: Any, paths: Sequence[tuple[int | str, ...]], name: str) -> None:
    """Refuse a read-only array at one of ``paths`` inside the argument ``value`` (paths a
    specialization with another structure wrote are skipped)."""
    for path in paths:
        leaf = value
        try:
            for step in path:
                leaf = getattr(leaf, step) if isinstance(step, str) else leaf[step]
        except (IndexError, KeyError, TypeError, AttributeError):
            continue
        if is_read_only(leaf):
            raise read_only_error(_render(name, path))


def evaluate_grid(grid: Any, meta: Mapping[str, Any]) -> tuple[int, int, int]:
    """A grid that is not a tuple (a callable of the meta-parameters, a list, an int) as the
    three checked dimensions the kernels launch with."""
    if callable(grid):
        grid = grid(meta)
    return normalize_grid(grid)


def _signature_source(params: Sequence[Parameter]) -> str:
    parts = ["_tilec_grid"]
    for i, p in enumerate(params):
        parts.append(f"*{p.name}" if p.var_positional else f"{p.name}=_tilec_defaults[{i}]")
    return ", ".join([*parts, "**_tilec_options"])


# Generated names all start with ``_tilec`` and parameter names may not, so they never clash.
def _describe_lines(
    i: int, p: Parameter, written: bool = False, leaves: Sequence[tuple[int | str, ...]] = ()
) -> list[str]:
    a, k, v = p.name, f"_tilec_k{i}", f"_tilec_v{i}"
    # only for arrays the kernel writes through: a read-only one would crash the process
    check = [f"    if not {a}.flags.writeable: raise _tilec_ro({a!r})"] if written else []
    if leaves:  # arrays inside a tuple argument the kernel writes through
        return [f"_tilec_rol({a}, {tuple(leaves)!r}, {a!r})", *_describe_lines(i, p)]
    if p.constexpr:
        return [f"{k} = {a} if {a}.__class__ is int else _tilec_ck({a}); {v} = {a}"]
    if p.annotated is not None:
        return [f"{k}, {v} = _tilec_ann[{i}]({a})"]
    if p.do_not_specialize:
        return [f"{k}, {v} = _tilec_uns({a})"]
    # is_cpu first: host tensors are the common case; one on neither device (meta...) is refused
    table = f"_tilec_tkh if {a}.is_cpu else _tilec_tkc if {a}.is_cuda else _tilec_tdev({a})"
    keys = f"({table}).get({a}.dtype) or _tilec_tkeys({a})"
    return [
        f"_tilec_c = {a}.__class__",
        "if _tilec_c is _tilec_np:",
        f"    {v} = _tilec_mem[(_tilec_id({a}) + _tilec_npoff) >> 3]",
        f"    {k} = (_tilec_npk.get({a}.dtype) or _tilec_npkeys({a}))[not {v} & 15]",
        *check,
        "elif _tilec_c is _tilec_pt:",
        f"    {v} = {a}.data_ptr()",
        f"    {k} = ({keys})[not {v} & 15]",
        f"elif _tilec_c is int and -0x80000000 <= {a} < 0x80000000:",
        f"    {v} = {a}; {k} = 1 if {a} == 1 else (2 if {a} & 15 else 3)",
        "elif _tilec_c is float:",
        f"    {v} = {a}; {k} = {FP32}",
        "else:",
        f"    {k}, {v} = (_tilec_D.get(_tilec_c) or _tilec_r(_tilec_c))({a})",
    ]


_FACTORY_ARGS = (
    "_tilec_jit, _tilec_cfg, _tilec_D, _tilec_r, _tilec_uns, _tilec_ck, _tilec_defaults, "
    "_tilec_eval, _tilec_np, _tilec_npoff, _tilec_npk, _tilec_npkeys, _tilec_pt, _tilec_tkh, "
    "_tilec_tkc, _tilec_tkeys, _tilec_mem, _tilec_id, _tilec_Error, _tilec_ro, _tilec_tdev, "
    "_tilec_rol, _tilec_ann"
)


def generate_source(
    name: str,
    params: Sequence[Parameter],
    written: Collection[str] = frozenset(),
    guarded: bool = False,
) -> str:
    """The Python source of the launch-function factory (separate so tests can read it);
    ``written`` names the parameters a compiled specialization writes through; ``guarded``:
    the kernel read module globals, checked before each launch (global_guard.py)."""
    n = len(params)
    keys = "(" + "".join(f"_tilec_k{i}, " for i in range(n)) + ")"
    values = "(" + "".join(f"_tilec_v{i}, " for i in range(n)) + ")"
    names = "".join(f"{p.name!r}: {p.name}, " for p in params)
    leaves: dict[str, list[tuple[int | str, ...]]] = {}
    for n in written:
        top, path = split_leaf(n)
        if path:
            leaves.setdefault(top, []).append(path)
    body = [
        line
        for i, p in enumerate(params)
        for line in _describe_lines(
            i, p, p.name in written, sorted(leaves.get(p.name, ()), key=str)
        )
    ]
    body = body or ["pass"]  # a kernel without parameters describes nothing
    lines = [
        f"def _tilec_factory({_FACTORY_ARGS}):",
        f"  def {name}({_signature_source(params)}):",
        "    if _tilec_cfg._active is not _tilec_jit._cfg:",
        "      _tilec_jit._switch_config()",
        *(["    _tilec_jit._guard.check()"] if guarded else []),
        "    try:",
        *[f"      {line}" for line in body],
        "    except _tilec_Error as _tilec_exc:",
        f"      raise _tilec_jit._argument_error(_tilec_exc, {{{names}}}) from None",
        "    if _tilec_grid.__class__ is not tuple:",
        f"      _tilec_grid = _tilec_eval(_tilec_grid, {{{names}**_tilec_options}})",
        "    if _tilec_options:",
        f"      return _tilec_jit._launch_with_options({keys}, {values}, _tilec_grid,"
        f" _tilec_options, {{{names}}})",
        f"    _tilec_kernel = _tilec_jit._kernels.get({keys})",
        "    if _tilec_kernel is None:",
        f"      _tilec_kernel = _tilec_jit._compile({keys}, _tilec_options, {{{names}}})",
        f"    _tilec_kernel.launch(_tilec_grid, {values[1:-1]})",
        "    return _tilec_kernel",
        f"  return {name}",
    ]
    return "\n".join(lines) + "\n"


def make_launch(jit: Any, name: str, params: Sequence[Parameter]) -> Launch:
    """Compile the launch function of ``jit`` (a JITFunction) with these parameters.

    Generated at the first launch, so the numpy / torch fast paths see the modules the
    program imported; values of any other type take the generic per-type describers.
    """
    for p in params:
        if not p.name.isidentifier() or keyword.iskeyword(p.name) or p.name.startswith("_tilec"):
            raise UsageError(f"kernel parameter name {p.name!r} cannot be used")
    if not name.isidentifier() or keyword.iskeyword(name):
        name = "kernel"
    namespace: dict[str, Any] = {}
    source = generate_source(name, params, jit._written, jit._guard is not None)
    exec(compile(source, f"<tilec launch {name}>", "exec"), namespace)
    fast_np = numpy_struct.fast_path()
    torch = sys.modules.get("torch")
    launch = namespace["_tilec_factory"](
        jit,
        config,
        describers.DESCRIBERS,
        describers.describer,
        describers.describe_unspecialized,
        describers.constexpr_key,
        _defaults(params),
        evaluate_grid,
        fast_np[0] if fast_np else _Never,
        fast_np[1] if fast_np else 0,
        describers.NUMPY_KEYS,
        describers.numpy_keys,
        getattr(torch, "Tensor", _Never),
        describers.TORCH_HOST_KEYS,
        describers.TORCH_DEVICE_KEYS,
        describers.torch_keys,
        numpy_struct.memory_words() if fast_np else None,
        id,
        TilecError,
        read_only_error,
        describers.torch_device_error,
        read_only_leaf,
        annotated_describers(params),
    )
    launch.__qualname__ = name  # Python's own binding errors read "kernel() got ..."
    return launch  # type: ignore[no-any-return]


def native_dispatcher(jit: Any, launch: Launch, params: Sequence[Parameter]) -> Any:
    """The native launcher's Dispatcher running the warm path of ``launch`` (the generated
    function above, which it falls back to) in C; None without the native launcher."""
    native = launcher.native_module()
    if native is None or any(p.var_positional for p in params):  # it binds a fixed count
        return None
    if any(p.annotated is not None for p in params):  # it knows no per-parameter describers
        return None
    if any(split_leaf(n)[1] for n in jit._written):
        return None  # it does not look inside tuples for read-only arrays: the Python path does
    fast_np = numpy_struct.fast_path()
    layout = numpy_struct.layout() if fast_np else numpy_struct.NumpyLayout(0, 0)
    torch = sys.modules.get("torch")
    kinds = b"".join(_native_kind(p, jit._written) for p in params)
    return native.Dispatcher(
        jit,
        config,
        launch,
        tuple(p.name for p in params),
        _defaults(params),
        MISSING,
        kinds,
        fast_np[0] if fast_np else None,
        fast_np[1] if fast_np else 0,
        layout.flags,
        layout.descr,
        describers.NUMPY_KEYS,
        getattr(torch, "Tensor", None),
        describers.TORCH_HOST_KEYS,
        describers.TORCH_DEVICE_KEYS,
        _torch_getters(torch),
        _torch_exchange(torch),
        describers.DESCRIBERS,
        describers.constexpr_key,
        describers.describe_unspecialized,
        (ONE, I32, I32 + 1, FP32),
        jit._guard.watch if jit._guard is not None else None,
    )


def _torch_getters(torch: Any) -> tuple[Any, Any] | None:
    """The descriptors ``tensor.dtype`` and ``tensor.is_cuda`` resolve to, found as attribute
    lookup finds them; the dispatcher calls them directly when they are data descriptors."""
    if torch is None:
        return None
    try:
        return (
            inspect.getattr_static(torch.Tensor, "dtype"),
            inspect.getattr_static(torch.Tensor, "is_cuda"),
        )
    except AttributeError:
        return None


def _torch_exchange(torch: Any) -> tuple[Any, dict[int, Any]] | None:
    """torch's DLPack exchange capsule and dtype table (see dlpack_exchange), when it has one."""
    exchange = dlpack_exchange.torch_exchange(torch) if torch is not None else None
    return (exchange.capsule, exchange.dtypes) if exchange is not None else None


def annotated_describers(params: Sequence[Parameter]) -> tuple[describers.Describer | None, ...]:
    """Each parameter's describer for the type its annotation fixes, None where it has none."""
    return tuple(
        None
        if p.annotated is None
        else annotated_describer(p.name, p.annotated, not p.do_not_specialize)
        for p in params
    )


def _defaults(params: Sequence[Parameter]) -> tuple[Any, ...]:
    """Each parameter's default, MISSING where it has none."""
    return tuple(MISSING if p.default is inspect.Parameter.empty else p.default for p in params)


def _native_kind(p: Parameter, written: Collection[str]) -> bytes:
    """How the native dispatcher describes a parameter: constexpr, do_not_specialize, an
    array the kernel writes (a read-only numpy array goes to the Python path), or other."""
    if p.constexpr:
        return b"c"
    if p.do_not_specialize:
        return b"u"
    return b"w" if p.name in written else b"n"


def check_specializable(params: Sequence[Parameter]) -> None:
    """Triton's rule, checked when a kernel compiles: a tl.constexpr parameter is specialized
    on its value, so it cannot also be listed in do_not_specialize."""
    for p in params:
        if p.constexpr and p.do_not_specialize:
            raise CompileError(
                f"{p.name} marked as constexpr and listed in do_not_specialize: a compile-time "
                "parameter is always specialized on its value"
            )


def parameters_of(
    fn: Callable[..., Any], do_not_specialize: Sequence[str | int] = ()
) -> tuple[Parameter, ...]:
    """The kernel's parameters with their constexpr and do_not_specialize flags."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        raise UsageError(f"tilec.jit needs a Python function, got {fn!r}") from None
    if not inspect.isfunction(fn):
        raise UsageError(f"tilec.jit needs a Python function, got {type(fn).__name__} {fn!r}")
    names = list(sig.parameters)
    nospec = {names[d] if isinstance(d, int) else d for d in do_not_specialize}
    unknown = nospec - set(names)
    if unknown:
        raise UsageError(f"do_not_specialize names unknown parameters: {sorted(unknown)}")
    result: list[Parameter] = []
    for p in sig.parameters.values():
        if p.kind not in (*_PLAIN, p.VAR_POSITIONAL):
            continue  # only @jit helpers may have them (launch_refusal)
        cx = is_constexpr_annotation(p.annotation)
        star = p.kind is p.VAR_POSITIONAL  # a launch passes them as one tuple argument
        nospec_p = p.name in nospec  # with constexpr too: refused when it compiles
        fixed = None if cx or star else annotated_scalar(p.annotation)
        result.append(Parameter(p.name, cx, nospec_p, p.default, len(result), star, fixed))
    return tuple(result)


def launch_refusal(fn: Callable[..., Any]) -> str | None:
    """Why ``fn`` can be called from kernels but not launched (None when it can be): a launch
    binds plain parameters only, while an inlined @jit helper binds any Python signature."""
    params = inspect.signature(fn).parameters.values()
    odd = [p for p in params if p.kind not in (*_PLAIN, p.VAR_POSITIONAL)]
    if not odd:
        return None
    return (
        f"launching kernel {fn.__name__} with **kwargs or keyword-only parameters "
        f"({', '.join(repr(p.name) for p in odd)}); call it from another kernel, or give "
        "the kernel plain parameters"
    )
