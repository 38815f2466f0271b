"""``triton.compiler.compiler``: Triton's ahead-of-time entry points over tilec's pipeline.

``compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget(...), options={...})``
turns Triton's textual signature into tilec ArgSpecs and calls the same compiler (and disk cache)
a ``kernel[grid]`` launch uses; the result, a ``CompiledKernel``, wraps tilec's loaded kernel
with Triton's attributes and its launcher calling convention (``run``). It pickles without its
native handles, which ``_init_handles`` loads again.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping
from typing import Any

from .... import config
from ...._version import __version__
from ....backends import registry
from ....errors import TilecError, UnsupportedFeature, UsageError
from ....ir.argspec import ArgKind, ArgSpec, constexpr_arg
from ....runtime import compile_api
from ....runtime import compiler as runtime_compiler
from ....runtime.compiler_fingerprint import compiler_fingerprint
from ....runtime.driver import GPUTarget
from ....runtime.kernel import loaded_kernel
from ....runtime.launch_options import check_for_backend, compile_options
from ....runtime.parameters import check_specializable
from ...pickling import register
from ...triton.backends.compiler import BaseBackend, CpuBackend, CudaBackend
from ...triton.runtime.driver import driver
from .launcher import Runner

__all__ = ["ASTSource", "CompiledKernel", "compile", "make_backend", "triton_key"]

_DIVISIBILITY = "tt.divisibility"


def _index(fn: Any, key: Any) -> int:
    """A constexpr / attribute key (a name, an index or Triton's ``(index,)`` path) as an index."""
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, str):
        if key not in fn.arg_names:
            raise UsageError(f"{fn.__name__} has no parameter {key!r}")
        return fn.arg_names.index(key)  # type: ignore[no-any-return]
    if isinstance(key, int) and 0 <= key < len(fn.arg_names):
        return key
    raise UnsupportedFeature(f"{fn.__name__}: argument path {key!r} (tuple arguments)")


class ASTSource:
    """A kernel with its textual signature, constexpr values and argument attributes."""

    ext = "ttir"

    def __init__(
        self,
        fn: Any,
        signature: Mapping[Any, str],
        constexprs: Mapping[Any, Any] | None = None,
        attrs: Mapping[Any, Any] | None = None,
    ) -> None:
        if not getattr(fn, "__tilec_jit__", False):
            raise UsageError(f"ASTSource expects a @jit kernel, got {type(fn).__name__}")
        self.fn = fn
        self.name = fn.__name__
        self.signature = {fn.arg_names[_index(fn, k)]: v for k, v in signature.items()}
        self.constants = {_index(fn, k): v for k, v in (constexprs or {}).items()}
        self.attrs = {_index(fn, k): v for k, v in (attrs or {}).items()}

    def arg_specs(self) -> tuple[ArgSpec, ...]:
        """One tilec ArgSpec per parameter: constants (any parameter may be given one, as
        Inductor gives ``xnumel=1``) are folded; the rest follow the signature."""
        specs = []
        for i, name in enumerate(self.fn.arg_names):
            if i in self.constants:
                value = self.constants[i]
                specs.append(
                    ArgSpec(name, ArgKind.NONE) if value is None else constexpr_arg(name, value)
                )
                continue
            text = self.signature.get(name)
            if text is None or text == "constexpr":
                raise UsageError(f"{self.name}: no type and no constant for parameter {name!r}")
            aligned = any(a[0] == _DIVISIBILITY and a[1] == 16 for a in self.attrs.get(i, ()))
            specs.append(compile_api._type_spec(name, text + (":16" if aligned else "")))
        return tuple(specs)

    def hash(self) -> str:
        return f"{self.fn.cache_key}-{self.arg_specs()!r}"


def triton_key() -> str:
    """What identifies this compiler in a host's cache keys (Triton: version + sources)."""
    return f"tilec {__version__} {compiler_fingerprint()} llvmlite {runtime_compiler._llvmlite_version()}"


def make_backend(target: GPUTarget) -> BaseBackend:
    for cls in (CpuBackend, CudaBackend):
        if cls.supports_target(target):
            return cls(target)
    raise UsageError(f"tilec has no backend for {target} (it compiles for cpu and cuda)")


def _gpu_usable() -> bool:
    """Whether a CUDA GPU answers here (else a CUDA target is compiled for offline)."""
    try:
        return bool(registry.get("cuda").driver.is_available())
    except TilecError:
        return False


def _tilec_target(target: GPUTarget | None) -> Any:
    """Triton's GPUTarget as tilec's Target: this host, or a CUDA architecture by number."""
    if target is None:
        target = driver.active.get_current_target()
    if target.backend == "cpu":
        return compile_api.parse_target("cpu")
    if target.backend == "cuda":
        # this GPU's own target when the architecture is its own (sm_90a rather than sm_90)
        current = compile_api.parse_target("cuda") if _gpu_usable() else None
        digits = "".join(ch for ch in str(getattr(current, "arch", "")) if ch.isdigit())
        if current is not None and str(target.arch) in (str(current.arch), digits):
            return current
        arch = str(target.arch)
        return compile_api.parse_target(f"cuda:{arch if arch.startswith('sm_') else 'sm_' + arch}")
    raise UsageError(f"tilec has no backend {target.backend!r} (it compiles for cpu and cuda)")


# Triton's metadata fields a host reads (tilec's values, or Triton's defaults where tilec has
# no such concept); a namedtuple as in Triton, so hosts may ``_asdict()`` it
TritonMetadata = namedtuple(
    "TritonMetadata",
    ["name", "hash", "target", "num_warps", "num_stages", "num_ctas", "cluster_dims", "shared",
     "debug", "launch_pdl", "launch_cooperative_grid", "backend_name"],
)  # fmt: skip


def compile(  # Triton's name
    src: Any, target: GPUTarget | None = None, options: dict[str, Any] | None = None, **_: Any
) -> CompiledKernel:
    """Compile ``src`` (an ASTSource) for ``target`` with Triton's options dict. A @jit kernel
    and a signature (``compile(kernel, "*fp32, i32", target=...)``) is tilec's own form."""
    if getattr(src, "__tilec_jit__", False):
        return compile_api.compile(src, target, **_)  # type: ignore[arg-type,return-value]
    if not isinstance(src, ASTSource):
        raise UnsupportedFeature(f"triton.compile of {type(src).__name__} (only ASTSource)")
    register()  # hosts send the binary, and its kernel, between processes
    check_specializable(src.fn.params)
    chosen = _tilec_target(target)
    given = dict(options or {})
    # Triton's debug keeps device asserts; tilec's also checks every memory access, which
    # hosts such as Inductor ask for by default: it follows tilec's own debug setting instead
    given.pop("debug", None)
    opts = compile_options(given, src.fn.debug)
    check_for_backend(opts, chosen.kind)
    specs = src.arg_specs()
    key = runtime_compiler.cache_key(src.fn, specs, chosen, opts)
    compiled = runtime_compiler.compile(src.fn, specs, chosen, opts)
    return CompiledKernel(src, compiled, specs, key)


class CompiledKernel:
    """Triton's compiled kernel over tilec's: ``run`` is the launcher hosts call."""

    # Triton's hooks from before knobs.runtime held them
    launch_enter_hook: Callable[..., Any] | None = None
    launch_exit_hook: Callable[..., Any] | None = None

    def __init__(self, src: ASTSource, compiled: Any, specs: tuple[ArgSpec, ...], key: str):
        meta = compiled.metadata
        opts = meta.options
        self.src = src
        self.hash = key
        self.name = meta.name
        self.asm = compiled.asm
        self.compiled = compiled  # tilec's artifacts: plain, picklable data
        self.specs = specs
        self.n_regs = meta.n_regs
        self.n_spills = meta.n_spills
        self.shared = meta.shared
        backend = "cuda" if meta.target.kind == "cuda" else "cpu"
        self.metadata = TritonMetadata(
            meta.name, key, meta.target, opts.num_warps, opts.num_stages, opts.num_ctas,
            (1, 1, 1), meta.shared, opts.debug, False, False, backend,
        )  # fmt: skip
        self.packed_metadata = self.metadata
        # the native handles: what hosts drop before pickling and _init_handles loads again
        self.module: Any = None
        self.function: Any = None
        self.run: Callable[..., None] | None = None  # loaded by _init_handles, as in Triton

    def _init_handles(self) -> None:
        """Load the code (first, or again after unpickling) and make ``run``."""
        if self.function is not None and self.run is not None:
            return
        compiled = self.compiled
        backend = registry.get(compiled.metadata.target.kind)
        self.module = backend.driver.load(compiled)
        self.function = loaded_kernel(backend, compiled, self.module, self.specs)
        self.run = Runner(self.function, self._load_for_threads).run

    def _load_for_threads(self, threads: int) -> Any:
        """The kernel loaded again to run its grid on ``threads`` threads."""
        backend = registry.get(self.compiled.metadata.target.kind)
        with config.override(num_threads=threads):
            return loaded_kernel(backend, self.compiled, self.module, self.specs)

    def launch_metadata(self, grid: Any, stream: Any, *args: Any) -> dict[str, Any]:
        """What launch hooks receive (Triton: a LazyDict with name, grid, stream)."""
        return {"name": self.name, "grid": grid, "stream": stream}

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        self._init_handles()
        return self.function[grid]  # type: ignore[no-any-return]

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "module": None, "function": None, "run": None}

    def __repr__(self) -> str:
        return f"<triton.compiler.CompiledKernel (tilec) {self.name}>"
