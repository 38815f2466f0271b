"""Host ``TensorDescriptor`` kernel arguments, compiled through a generated wrapper kernel.

A descriptor argument stands for a base pointer, a shape and strides. For a kernel taking one,
we generate (once per specialization) a wrapper @jit function whose parameters are those
pieces, which rebuilds the descriptor with ``tl.make_tensor_descriptor`` and calls the kernel
(inlined by the frontend). At launch, ``DescriptorKernel`` flattens each descriptor into the
wrapper's runtime values. The wrapper's source is compiled in memory and registered in
``linecache`` under a name of its own (where the frontend reads kernel text, as for IPython
cells), and names the kernel by its fingerprint, so its cache key is stable; nothing is
written to disk (a read-only cache directory is no obstacle).
"""

from __future__ import annotations

import hashlib
import linecache
from collections.abc import Sequence
from typing import Any

from ..errors import UnsupportedFeature
from . import describers
from .arg_keys import I64, DescriptorKey
from .kernel import LaunchedKernel

_KERNELS: dict[str, Any] = {}  # fingerprint -> the JITFunction a wrapper calls


def flatten(d: Any) -> tuple[int, ...]:
    """The wrapper's runtime values for one descriptor: base address, shape, outer strides."""
    address = describers.describe(d.base)[1]
    return (address, *(int(s) for s in d.shape), *(int(s) for s in list(d.strides)[:-1]))


def original_name(name: str) -> str:
    """A wrapper parameter's name as the kernel names it: ``d__base`` is ``d.base`` (what the
    launch checks for a read-only array when the kernel writes through it)."""
    return name[: -len("__base")] + ".base" if name.endswith("__base") else name


def original(fingerprint: str) -> Any:
    """The kernel a generated wrapper calls (registered before the wrapper is compiled)."""
    return _KERNELS[fingerprint]


def _expanded_names(name: str, rank: int) -> list[str]:
    shape = [f"{name}__shape{i}" for i in range(rank)]
    return [f"{name}__base", *shape, *(f"{name}__stride{i}" for i in range(rank - 1))]


def _wrapper_source(jit: Any, keys: Sequence[Any]) -> str:
    params, body = [], []
    for p, key in zip(jit.params, keys):
        if type(key) is DescriptorKey:
            names = _expanded_names(p.name, key.rank)
            params += names
            shape = ", ".join(names[1 : 1 + key.rank])
            strides = ", ".join([*names[1 + key.rank :], "1"])
            body.append(
                f"    {p.name} = tl.make_tensor_descriptor({names[0]}, [{shape}], [{strides}], "
                f"{list(key.block_shape)!r}, {key.padding!r})"
            )
        else:
            params.append(f"{p.name}: tl.constexpr" if p.constexpr else p.name)
    call = ", ".join(p.name for p in jit.params)
    return "\n".join([
        "import tilec.language as tl",
        "from tilec.runtime.descriptor_args import original",
        "",
        f"_tilec_kernel = original({jit.cache_key!r})",
        "",
        "",
        f"def {jit.fn.__name__}({', '.join(params)}):",
        *body,
        f"    _tilec_kernel({call})",
        "",
    ])  # fmt: skip


def _load_wrapper(source: str, name: str) -> Any:
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    filename = f"<tilec descriptor wrapper {name} {digest}>"
    # no modification time: linecache.checkcache keeps the entry (there is no file to check)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {"__name__": f"tilec_descriptor_wrapper_{digest}"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def wrapper_keys(jit: Any, keys: Sequence[Any]) -> tuple[Any, ...]:
    """The wrapper's key parts: a descriptor becomes its base key and i64 shape/stride keys."""
    out: list[Any] = []
    for key in keys:
        if type(key) is DescriptorKey:
            out += [key.base, *[I64] * (2 * key.rank - 1)]
        else:
            out.append(key)
    return tuple(out)


def wrapper_for(jit: Any, keys: Sequence[Any]) -> Any:
    """The wrapper for ``jit`` (a JITFunction) called with these key parts: a JITFunction too."""
    _KERNELS[jit.cache_key] = jit
    fn = _load_wrapper(_wrapper_source(jit, keys), jit.fn.__name__)
    return type(jit)(fn, debug=jit.debug, backend=jit.backend)


class DescriptorKernel(LaunchedKernel):
    """Flattens descriptor arguments, then launches the compiled wrapper."""

    def __init__(self, inner: LaunchedKernel, positions: Sequence[int]) -> None:
        super().__init__(inner.compiled, inner.loaded, None, inner.params)
        self.inner = inner
        self.positions = frozenset(positions)

    @property
    def metadata(self) -> Any:
        return self.inner.metadata

    def __getitem__(self, grid: Any) -> Any:
        raise UnsupportedFeature(
            f"{self.name}: launching the compiled kernel of a kernel with tensor descriptor "
            "arguments directly; launch it through its @jit function"
        )

    def launch(self, grid: Any, *values: Any) -> None:
        flat: list[Any] = []
        for i, v in enumerate(values):
            if i in self.positions:
                flat += flatten(v)
            else:
                flat.append(v)
        self.inner.launch(grid, *flat)
