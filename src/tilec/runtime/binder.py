"""The per-kernel launch function: Python's own call machinery binds the launch arguments.

For each kernel we generate one function with the kernel's exact signature (defaults included,
named after the kernel so a wrong call reads naturally) that, in a single pass, describes every
argument (numpy arrays, torch tensors and small ints inline, other types through the cached
per-type describers), builds the specialization key, evaluates a callable grid, looks the
compiled kernel up and launches it. This is what keeps a warm launch near a microsecond.
"""

from __future__ import annotations

import keyword
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from .. import config
from ..backends.base import normalize_grid
from ..errors import TilecError, UsageError
from . import describers, numpy_struct
from .annotations import annotated_describer
from .arg_keys import FP32
from .parameters import Parameter, defaults
from .read_only import read_only_error, read_only_leaf, split_leaf

Launch = Callable[..., Any]


class _Never:
    """Stands for numpy.ndarray / torch.Tensor when they are not imported: no value has it."""


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
        defaults(params),
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


def annotated_describers(params: Sequence[Parameter]) -> tuple[describers.Describer | None, ...]:
    """Each parameter's describer for the type its annotation fixes, None where it has none."""
    return tuple(
        None
        if p.annotated is None
        else annotated_describer(p.name, p.annotated, not p.do_not_specialize)
        for p in params
    )
