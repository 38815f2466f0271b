"""The compiled-kernel table of a JITFunction: one kernel per specialization, compiled on a miss.

A table per configuration (any field may change what a launch compiles to); a key is the
arguments' key parts, with the launch options in call order when any were given. A miss turns the key into ArgSpecs, picks the backend from the
arguments' device, compiles through the disk cache, loads the result and notes the parameters
the kernel writes (the next launch function refuses read-only arrays for them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import config as _config
from ..backends import registry
from ..backends.target import Target
from ..errors import LaunchError, UsageError
from ..ir.argspec import leaves
from . import checked_kernel, compiler, descriptor_args, kernel, specialize
from .global_guard import GlobalGuard
from .kernel import LaunchedKernel
from .kernel_repr import specialization_proxy, symbol_name
from .launch_options import check_for_backend, compile_options, hashable_options
from .parameters import Parameter, check_specializable
from .read_only import is_read_only, read_only_error, read_only_leaf, split_leaf
from .tuple_args import TupleKernel, tuple_positions

_TARGETS: dict[str, Target] = {}


def _target(kind: str, backend: Any) -> Target:
    target = _TARGETS.get(kind)
    if target is None:
        target = _TARGETS[kind] = backend.driver.current_target()
    return target


class KernelTable:
    """JITFunction's compiled kernels: the lookups and the compile on a miss (a mixin; the
    generated launch function and the native dispatcher call these methods and read
    ``_kernels`` and ``_cfg`` on the kernel itself)."""

    __slots__ = ()

    # set by JITFunction.__init__
    __name__: str
    params: tuple[Parameter, ...]
    arg_names: list[str]
    backend: str | None
    debug: bool | None
    repr: Callable[[Any], str]
    _tables: dict[_config.Config, dict[Any, LaunchedKernel]]
    _kernels: dict[Any, LaunchedKernel]
    _cfg: Any
    _guard: GlobalGuard | None
    _written: frozenset[str]
    _checked_kernels: bool
    _launch_fn: Callable[..., LaunchedKernel] | None

    if TYPE_CHECKING:

        @property
        def cache_key(self) -> str: ...

        def _reset_bind(self) -> None: ...

    def _launch_with_options(
        self,
        key: tuple[Any, ...],
        values: tuple[Any, ...],
        grid: Any,
        options: dict[str, Any],
        arguments: dict[str, Any] | None = None,
    ) -> LaunchedKernel:
        """The launch path when keywords beyond the parameters (``num_warps``...) were given."""
        if self._guard is not None:
            self._guard.check()
        warmup = options.pop("warmup", False)
        # keyed by the keywords in call order (no sort on the warm path); a new order finds
        # the kernel under the sorted, canonical key before compiling
        full_key: Any = (key, tuple(options.items())) if options else key
        try:
            kernel = self._kernels.get(full_key)
        except TypeError:  # a value such as extern_libs={...}: key it by its hashable form
            options = hashable_options(options)
            full_key = (key, tuple(options.items()))
            kernel = self._kernels.get(full_key)
        if kernel is None:
            canonical = (key, tuple(sorted(options.items()))) if options else key
            kernel = self._kernels.get(canonical) or self._compile(canonical, options, arguments)
            self._kernels[full_key] = kernel
        if warmup:
            return kernel
        launch_checked = getattr(kernel, "launch_checked", None)
        if launch_checked is not None:
            launch_checked(grid, values, arguments)
        else:
            kernel.launch(grid, *values)
        return kernel

    def _switch_config(self) -> None:
        """Keep one kernel table per configuration: any field may change what a launch
        compiles to or how it runs (a new field too), and the disk cache reloads a kernel
        for a configuration that differs only in others (print_autotuning...) cheaply."""
        cfg = _config.get()
        if self._cfg is not None and cfg.debug != self._cfg.debug:
            self._launch_fn = None  # debug mode launches through its own function
        self._cfg = cfg
        self._reset_bind()  # the launcher kind may differ under the new configuration
        self._kernels = self._tables.setdefault(cfg, {})

    def _compile(
        self, key: Any, options: dict[str, Any], arguments: dict[str, Any] | None = None
    ) -> LaunchedKernel:
        """Compile and load the kernel for a specialization key (a miss in the table);
        ``arguments`` (by name) are checked against what the kernel writes."""
        self.cache_key  # noqa: B018 - the fingerprint records the globals compiled in
        if self._guard is not None:  # never compile a new value under the old fingerprint
            self._guard.check()
        if not options and checked_kernel.debug_mode(self):
            # reached by the one launch whose configuration switch turned debug mode on
            debug_key = (key, (("debug", True),))
            checked = self._kernels.get(debug_key) or self._compile(
                debug_key, {"debug": True}, arguments
            )
            return checked_kernel.BoundLaunch(checked, arguments or {})  # type: ignore[return-value]
        arg_keys = key[0] if options else key
        positions = [i for i, k in enumerate(arg_keys) if type(k) is descriptor_args.DescriptorKey]
        if positions:
            wrapper = descriptor_args.wrapper_for(self, arg_keys)
            inner = wrapper._build(descriptor_args.wrapper_keys(self, arg_keys), options)
            kernel: LaunchedKernel = descriptor_args.DescriptorKernel(inner, positions)
        else:
            kernel = self._build(arg_keys, options)
        self._kernels[key] = kernel
        self._note_writes(kernel.metadata.writes, arguments or {})
        return kernel

    def _note_writes(self, writes: Sequence[str], arguments: dict[str, Any]) -> None:
        """Remember the parameters a kernel writes (the next launch function checks them) and
        refuse a read-only array among this launch's arguments."""
        writes = [descriptor_args.original_name(n) for n in writes]
        written = self._written | {n for n in writes if split_leaf(n)[0] in self.arg_names}
        if written != self._written:
            self._written = frozenset(written)
            self._launch_fn = None
            self._reset_bind()
        for name in written:
            top, path = split_leaf(name)
            if top not in arguments:
                continue
            try:
                if path:  # an array inside a tuple argument
                    read_only_leaf(arguments[top], [path], top)
                elif is_read_only(arguments[top]):
                    raise read_only_error(name)
            except UsageError as exc:
                raise UsageError(f"{self.__name__}: {exc}") from None

    def _build(self, arg_keys: tuple[Any, ...], options: dict[str, Any]) -> LaunchedKernel:
        check_specializable(self.params)
        specs = tuple(
            specialize.spec_from_key(p.name, k, p.constexpr) for p, k in zip(self.params, arg_keys)
        )
        forced = self.backend or registry.forced()
        try:
            device = specialize.choose_device(self.arg_names, arg_keys, forced)
        except UsageError as exc:
            raise UsageError(f"{self.__name__}: {exc}") from None
        device = device or registry.default()
        opts = compile_options(options, self.debug)
        check_for_backend(opts, device)
        backend = registry.get(device)
        name = self.repr(specialization_proxy(specs))
        name = None if name == self.__name__ else symbol_name(name)
        compiled = compiler.compile(self, specs, _target(device, backend), opts, name=name)
        built = kernel.build(backend, compiled, leaves(specs))  # a tuple passes its leaves
        if compiled.metadata.bounds is not None and not self._checked_kernels:
            self._checked_kernels = True
            self._reset_bind()
        if len(compiled.metadata.params) != len(built._pick):
            raise LaunchError(
                f"{self.__name__}: compiled kernel takes {len(compiled.metadata.params)} "
                f"arguments, the specialization passes {len(built._pick)}"
            )
        return TupleKernel(built, specs) if tuple_positions(specs) else built
