"""``@tilec.jit``: JITFunction and ``kernel[grid](*args, **meta)``.

A warm launch is one call of the kernel's generated launch function (binder.py: specialization
key, launch values and grid in one pass; the native dispatcher runs the same in C), one dict
lookup in the compiled-kernel table and the backend kernel's ``launch`` (one native call). A
miss compiles there (kernel_table.py).
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, overload

from .. import config as _config
from ..backends import registry
from ..errors import LaunchArgumentError, TilecError, UnsupportedFeature, UsageError
from ..source_text import def_text, recover_exec_source, with_text
from . import checked_kernel, describers, fingerprint, specialize
from .binder import make_launch
from .global_guard import GlobalGuard
from .kernel import LaunchedKernel
from .kernel_repr import KernelRepr
from .kernel_table import KernelTable
from .launch_options import compile_options
from .native_dispatcher import native_dispatcher
from .parameters import MISSING, launch_refusal, parameters_of
from .reinterpret import TensorWrapper, reinterpret, type_canonicalisation_dict  # noqa: F401

__all__ = ["JITFunction", "compile_options", "jit"]


class _KernelBase:
    """JITFunction's base without the native launcher: ``kernel[grid]`` in Python."""

    def __getitem__(self, grid: Any) -> Callable[..., LaunchedKernel]:
        return self._getitem_slow(grid)  # type: ignore[attr-defined,no-any-return]

    def _set_dispatcher(self, dispatcher: Any) -> None:
        """Only the native base subscripts through a dispatcher; here ``_bind`` serves."""


def _kernel_base() -> type:
    """The native launcher's KernelBase (``kernel[grid]`` in C) when it is built."""
    try:
        # optional: the native extension may be missing (a build without a C compiler)
        from .. import _launcher  # type: ignore[attr-defined]
    except ImportError:
        return _KernelBase
    return getattr(_launcher, "KernelBase", _KernelBase)  # type: ignore[no-any-return]


class JITFunction(_kernel_base(), KernelTable):  # type: ignore[misc]
    """A kernel: compiled per specialization on first launch, launched with ``kernel[grid]``."""

    __tilec_jit__ = True

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        do_not_specialize: Sequence[str | int] = (),
        debug: bool | None = None,
        noinline: bool = False,
        backend: str | None = None,
        repr: Callable[[Any], str] | None = None,
    ) -> None:
        if backend is not None:
            registry.check_name(backend)
        self.params = parameters_of(fn, do_not_specialize)
        self._launch_refusal = launch_refusal(fn)  # e.g. a helper with *args
        self.fn = fn
        if fn.__code__.co_filename.startswith("<"):  # decorated inside exec(text)?
            recover_exec_source(fn)
        self.__name__: str = fn.__name__
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]
        self.arg_names = [p.name for p in self.params]
        self.constexprs = [i for i, p in enumerate(self.params) if p.constexpr]
        self.do_not_specialize = [i for i, p in enumerate(self.params) if p.do_not_specialize]
        self.debug = debug
        self.noinline = noinline
        self.backend = backend
        self._launch_fn: Callable[..., LaunchedKernel] | None = None
        self._bind: Callable[[Any], Callable[..., LaunchedKernel]] | None = None
        _LIVE.add(self)
        self._tables: dict[_config.Config, dict[Any, LaunchedKernel]] = {}
        self._kernels: dict[Any, LaunchedKernel] = {}
        self._cfg: Any = None
        self._cache_key: str | None = None
        # Triton's map of the globals and closure values the kernel reads, (name, id(scope))
        # -> (value, scope), filled with the fingerprint; the module globals among them are
        # checked before every launch
        self.used_global_vals: dict[tuple[str, int], tuple[Any, Any]] = {}
        self._guard: GlobalGuard | None = None
        self.disk_cacheable = True
        # parameters some compiled specialization writes through: the launch function
        # refuses read-only numpy arrays for them (regenerated when this grows)
        self._written: frozenset[str] = frozenset()
        self._checked_kernels = False  # some launch compiled a bounds-checked kernel
        # Triton's attributes hosts read (Inductor clears and restores them around pickling)
        self.__globals__: dict[str, Any] | None = fn.__globals__
        # Triton's hook naming a compiled specialization (hosts call it, and may replace it)
        self.repr: Callable[[Any], str] = KernelRepr(fn.__name__, repr)
        self._hash_lock: Any = threading.RLock()

    # ------------------------------------------------------------------ Triton's surface
    @property
    def cache_key(self) -> str:
        """Fingerprint of the source and everything it uses (computed once, at the first
        launch, which also records the globals it reads)."""
        if self._cache_key is None:
            deps = fingerprint.scan(self.fn)
            self.used_global_vals = deps.used_global_vals
            self._guard = GlobalGuard(self.__name__, deps) if deps.globals_read else None
            self.disk_cacheable = deps.stable
            self._cache_key = deps.key
        return self._cache_key

    @property
    def src(self) -> str:
        """Triton's ``src``: the dedented text from ``def`` on, without decorators."""
        return def_text(self.fn)

    def _unsafe_update_src(self, new_src: str) -> None:
        """Triton's hook: compile ``new_src`` (one ``def``, same parameters) from now on. As in
        Triton, kernels that call this one keep their fingerprint until their own changes."""
        self.fn = with_text(self.fn, new_src)
        self._cache_key = None
        self._tables.clear()
        self._kernels = {}
        self._rebuild_launch()

    def __repr__(self) -> str:
        return f"JITFunction({self.fn.__module__}:{self.fn.__qualname__})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise UsageError(
            f"{self.__name__} is a @jit kernel: launch it with {self.__name__}[grid](...) "
            "or call it from inside another kernel"
        )

    def _getitem_slow(self, grid: Any) -> Callable[..., LaunchedKernel]:
        """``kernel[grid]`` before the native dispatcher is set (or without one)."""
        return (self._bind or self._make_bind())(grid)

    def _make_launch(self) -> Callable[..., LaunchedKernel]:
        if self._launch_refusal is not None:
            raise UnsupportedFeature(self._launch_refusal)
        self._switch_config()
        self.cache_key  # noqa: B018 - the globals it reads decide whether launches check them
        launch = make_launch(self, self.fn.__name__, self.params)
        if checked_kernel.debug_mode(self):  # bounds checks need the argument objects
            launch = checked_kernel.checked_launch(launch)
        self._launch_fn = launch
        return launch

    def _make_bind(self) -> Callable[[Any], Callable[..., LaunchedKernel]]:
        """``grid -> launcher``: the native dispatcher's (warm launches in C), else a partial
        of the generated launch function."""
        launch = self._launch_fn or self._make_launch()
        # a bounds-checked kernel launches from Python, never from the native dispatcher
        checked = self._checked_kernels or checked_kernel.debug_mode(self)
        dispatcher = None if checked else native_dispatcher(self, launch, self.params)
        if dispatcher is None:
            self._bind = functools.partial(functools.partial, launch)
        else:
            self._bind = dispatcher.bind
            self._set_dispatcher(dispatcher)
        return self._bind

    def _reset_bind(self) -> None:
        self._bind = None
        self._set_dispatcher(None)

    def _rebuild_launch(self) -> None:
        """Generate the launch function and dispatcher again at the next launch."""
        self._launch_fn = None
        self._reset_bind()

    def warmup(self, *args: Any, grid: Any = (1,), **kwargs: Any) -> LaunchedKernel:
        """Compile (and load) for these arguments without running."""
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    # ------------------------------------------------------------------ launch
    def run(self, *args: Any, grid: Any, warmup: bool = False, **kwargs: Any) -> LaunchedKernel:
        """Triton's ``run``: launch (or, with ``warmup=True``, only compile) for these arguments."""
        launch = self._launch_fn or self._make_launch()
        if warmup:
            kwargs["warmup"] = True
        return launch(grid, *args, **kwargs)

    def _argument_error(self, exc: TilecError, arguments: dict[str, Any]) -> TilecError:
        """Re-describe the arguments one by one to name the one that failed."""
        missing = [n for n in self.arg_names if arguments[n] is MISSING]
        if missing:
            names = ", ".join(repr(n) for n in missing)
            return LaunchArgumentError(f"{self.__name__}() missing argument(s) {names}")
        try:
            specialize.specialize_keys(
                self.arg_names,
                [arguments[n] for n in self.arg_names],
                [p.constexpr for p in self.params],
                [p.do_not_specialize for p in self.params],
                [p.annotated for p in self.params],
            )
        except TilecError as named:
            return type(named)(f"{self.__name__}: {named}")
        return type(exc)(f"{self.__name__}: {exc}")


_LIVE: weakref.WeakSet[JITFunction] = weakref.WeakSet()


def _rebuild_launches() -> None:
    """torch was imported after some kernels built their launch code: give them its fast path."""
    for jit_function in list(_LIVE):
        jit_function._rebuild_launch()


describers.TORCH_SEEN_HOOKS.append(_rebuild_launches)


@overload
def jit(fn: Callable[..., Any]) -> JITFunction: ...
@overload
def jit(
    fn: None = None,
    *,
    do_not_specialize: Sequence[str | int] = (),
    debug: bool | None = None,
    noinline: bool = False,
    backend: str | None = None,
    **ignored: Any,
) -> Callable[[Callable[..., Any]], JITFunction]: ...


def jit(
    fn: Callable[..., Any] | None = None,
    *,
    do_not_specialize: Sequence[str | int] = (),
    debug: bool | None = None,
    noinline: bool = False,
    backend: str | None = None,
    **ignored: Any,
) -> JITFunction | Callable[[Callable[..., Any]], JITFunction]:
    """Decorate a kernel: ``@tilec.jit`` or ``@tilec.jit(do_not_specialize=["n"], debug=True)``.

    ``backend=`` (a registered backend's name) pins the backend; Triton's ``repr(specialization)``
    names each compiled specialization (its ``.name``); ``launch_metadata`` and
    ``do_not_specialize_on_alignment`` (host-side profiling hooks) are accepted and ignored.
    """
    allowed = {"repr", "launch_metadata", "do_not_specialize_on_alignment", "version"}
    unknown = set(ignored) - allowed
    if unknown:
        raise UsageError(f"jit() got unknown keyword argument(s) {sorted(unknown)}")

    def decorator(f: Callable[..., Any]) -> JITFunction:
        return JITFunction(
            f,
            do_not_specialize=do_not_specialize,
            debug=debug,
            noinline=noinline,
            backend=backend,
            repr=ignored.get("repr"),
        )

    return decorator(fn) if fn is not None else decorator
