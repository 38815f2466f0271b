"""Compile one specialization of a kernel: frontend → passes → backend, through the disk cache.

``compile(fn, specs, target, options)`` is the whole pipeline; the cache key covers the
kernel's source fingerprint (with its @jit callees and constant globals), the ArgSpecs, the
target, the options, the tilec + llvmlite (LLVM) versions and a hash of tilec's compiler
sources (so an upgrade or a local edit never loads a stale kernel). Every stage is written to
``config.dump_dir`` when it is set.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .. import config
from .._version import __version__
from ..backends import registry
from ..backends.artifacts import CompiledKernel, Stage
from ..backends.target import CompileOptions, Target
from ..errors import CacheError
from ..ir.argspec import ArgSpec
from ..ir.ops.func import ModuleOp
from ..ir.printer import print_ir
from .cache import KernelCache
from .compiler_fingerprint import compiler_fingerprint
from .fingerprint import fingerprint
from .written_params import module_written_params

_SUFFIX = {"tir": "tir", "llir": "ll", "asm": "s", "obj": "o", "ptx": "ptx", "cubin": "cubin"}


def _python_function(fn: Any) -> Callable[..., Any]:
    return fn.fn if getattr(fn, "__tilec_jit__", False) else fn


def _llvmlite_version() -> str:
    # lazy: defining a kernel loads no backend, llvmlite included (tests/runtime/test_host_api.py)
    import llvmlite

    return str(llvmlite.__version__)


def source_key(fn: Any) -> str:
    """The kernel's source fingerprint (cached on a JITFunction as ``cache_key``)."""
    cached = getattr(fn, "cache_key", None)
    return cached if isinstance(cached, str) else fingerprint(_python_function(fn))


def _jit_values(value: Any) -> Iterator[Any]:
    """The @jit functions among compile-time argument values (in tuples and lists too): their
    source is not in the kernel's fingerprint, which covers what the kernel reads itself."""
    if getattr(value, "__tilec_jit__", False) and not getattr(value, "__tilec_library__", False):
        yield value  # (tl's library functions are in the compiler fingerprint)
    elif isinstance(value, ArgSpec):
        yield from _jit_values(value.value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _jit_values(v)


def cache_key(
    fn: Any,
    specs: Sequence[ArgSpec],
    target: Target,
    options: CompileOptions,
    name: str | None = None,
) -> str:
    """The content address of one compiled specialization (``name``: the kernel's symbol when
    its ``repr`` hook names it otherwise than the function)."""
    parts = [
        f"tilec {__version__}",
        f"compiler {compiler_fingerprint()}",
        f"llvmlite {_llvmlite_version()}",
        f"python {sys.version_info[0]}.{sys.version_info[1]}",
        f"source {source_key(fn)}",
        f"specs {[repr(s) for s in specs]}",
        f"jit values {[source_key(j) for s in specs for j in _jit_values(s)]}",
        f"target {target!r}",
        f"toolchain {registry.toolchain_key(target.kind)}",
        f"options {options!r}",
        f"experimental {sorted(config.get().experimental)}",
        f"disable_mma_v3 {config.get().disable_mma_v3}",
        *([f"name {name}"] if name is not None else []),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def build_ir(
    fn: Any, specs: Sequence[ArgSpec], *, name: str | None = None, debug: bool = False
) -> ModuleOp:
    """Frontend and the pass pipeline: the optimized tile IR of one specialization."""
    # the compiler half (frontend, passes) is imported on a cache miss only: a warm load of a
    # cached kernel never pays for it (tests/runtime/test_warm_load_imports.py)
    from .. import frontend
    from ..passes import pipeline  # (the same)

    module = frontend.build_module(_python_function(fn), specs, name=name)
    pipeline.optimize(module, debug=debug)
    return module


def _compile_uncached(
    fn: Any,
    specs: Sequence[ArgSpec],
    target: Target,
    options: CompileOptions,
    name: str | None = None,
) -> CompiledKernel:
    module = build_ir(fn, specs, name=name, debug=options.debug or config.get().debug)
    if options.enable_fp_fusion and isinstance(module, ModuleOp):
        from ..passes import fuse_multiply_add  # the compiler half: on a cache miss only

        fuse_multiply_add.run(module)  # a*b + c rounded once, the same on every backend
    # before the backend, which may rewrite the module (a test's stand-in module has no IR)
    writes = module_written_params(module) if isinstance(module, ModuleOp) else ()
    bounds = None
    if options.debug and isinstance(module, ModuleOp):
        from ..passes import bounds_check  # the compiler half: on a cache miss only

        bounds = bounds_check.instrument(module)
    compiled = registry.get(target.kind).compiler.compile(module, target, options)
    meta = dataclasses.replace(compiled.metadata, writes=writes)
    if bounds is not None:  # the hidden parameters are the launcher's business, not the user's
        meta = dataclasses.replace(meta, params=meta.params[: bounds.user_params], bounds=bounds)
    compiled.metadata = meta
    if Stage.TIR.value not in compiled.asm:
        compiled.asm[Stage.TIR.value] = print_ir(module)
    return compiled


def dump(compiled: CompiledKernel, key: str, root: Path) -> Path:
    """Write every stage of ``compiled`` under ``root/<name>-<key prefix>/``."""
    folder = root / f"{compiled.metadata.name}-{key[:12]}"
    folder.mkdir(parents=True, exist_ok=True)
    for stage, artifact in compiled.asm.items():
        path = folder / f"{compiled.metadata.name}.{_SUFFIX.get(stage, stage)}"
        if isinstance(artifact, bytes):
            path.write_bytes(artifact)
        else:
            path.write_text(artifact, encoding="utf-8")
    return folder


def _cached(cache: KernelCache | None, key: str) -> CompiledKernel | None:
    if cache is None:
        return None
    try:
        return cache.get(key)
    except CacheError as exc:  # an unreadable cache is a miss, not a failure
        warnings.warn(f"tilec: {exc}", RuntimeWarning, stacklevel=3)
        return None


def compile(
    fn: Any,
    specs: Sequence[ArgSpec],
    target: Target,
    options: CompileOptions | None = None,
    *,
    use_cache: bool | None = None,
    name: str | None = None,
) -> CompiledKernel:
    """Compile ``fn`` (a @jit function or its Python function) for ``specs`` on ``target``;
    ``name`` (a valid symbol) names the kernel instead of the function's own name."""
    options = options or CompileOptions()
    cfg = config.get()
    use_cache = cfg.cache_enabled if use_cache is None else use_cache
    # a kernel reading an object with no stable text must not meet another process's entry
    use_cache = use_cache and getattr(fn, "disk_cacheable", True)
    key = cache_key(fn, specs, target, options, name)
    cache = KernelCache(cfg.cache_dir) if use_cache else None
    # always_compile (TRITON_ALWAYS_COMPILE) skips the lookup; the fresh result is still stored
    compiled = None if cfg.always_compile else _cached(cache, key)
    if compiled is None:
        compiled = _compile_uncached(fn, specs, target, options, name)
        if cache is not None:
            try:
                cache.put(key, compiled, specs)
            except CacheError as exc:  # the cache only saves time: warn and go on
                warnings.warn(f"tilec: {exc}", RuntimeWarning, stacklevel=2)
    if cfg.dump_dir is not None:
        try:
            dump(compiled, key, cfg.dump_dir)
        except OSError as exc:  # dumps are for debugging: never fail the launch over one
            warnings.warn(
                f"tilec: cannot write TILEC_DUMP_DIR={cfg.dump_dir}: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
    return compiled
