"""Launch keywords that are not kernel parameters: ``num_warps=8``, ``extern_libs={...}`` ...

Three kinds: CompileOptions fields; Triton options tilec hands to the backend in
``CompileOptions.extra`` (part of the cache key; ``extern_libs`` feeds the CUDA backend its
libdevice, the CPU uses the host's math library); and other targets' options (AMD's
``waves_per_eu`` ...) that Triton's tutorials pass on a non-NVIDIA backend, accepted and
ignored. Any other name is rejected, which catches typos.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from .. import config
from ..backends import registry
from ..backends.target import CompileOptions
from ..errors import UnsupportedFeature, UsageError

OPTION_FIELDS = frozenset(f.name for f in fields(CompileOptions)) - {"extra"}
# Triton options handed to the backend in ``CompileOptions.extra``.
EXTRA_OPTIONS = frozenset(
    {"launch_cooperative_grid", "launch_pdl", "sanitize_overflow", "extern_libs"}
)
# Triton's known options of targets (or compiler features) tilec does not have: they change
# nothing tilec generates, so they are dropped before the cache key is made.
IGNORED_OPTIONS = frozenset({
    # AMD (HIPOptions)
    "waves_per_eu", "matrix_instr_nonkdim", "kpack", "allow_flush_denorm",
    "instruction_sched_variant", "schedule_hint", "buffer_ops",
    # NVIDIA options tilec chooses itself or has no counterpart for
    "cluster_dims", "ptx_options", "ir_override", "instrumentation_mode", "warp_size",
    "max_num_imprecise_acc_default", "num_buffers_warp_spec", "num_consumer_groups",
    "reg_dec_producer", "reg_inc_consumer",
})  # fmt: skip


def _hashable(name: str, value: Any) -> Any:
    """A launch option's value as a key part: mappings become sorted item tuples."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _hashable(name, v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(name, v) for v in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    try:
        hash(value)
    except TypeError:
        raise UsageError(f"launch option {name}={value!r} is not a hashable value") from None
    return value


def hashable_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with every value usable in a dict key (called only when one is not)."""
    return {k: _hashable(k, v) for k, v in options.items()}


def compile_options(options: dict[str, Any], debug: bool | None) -> CompileOptions:
    """CompileOptions from launch keywords (``num_warps=8`` ...), rejecting unknown names."""
    known = {k: v for k, v in options.items() if k in OPTION_FIELDS}
    extra = {k: _hashable(k, v) for k, v in options.items() if k in EXTRA_OPTIONS}
    unknown = set(options) - set(known) - set(extra) - IGNORED_OPTIONS
    if unknown:
        raise UsageError(
            f"unknown keyword argument(s) {', '.join(sorted(unknown))}: neither kernel "
            f"parameters nor launch options ({', '.join(sorted(OPTION_FIELDS | EXTRA_OPTIONS))}"
            "; other targets' Triton options are accepted and ignored)"
        )
    if "extern_libs" in extra:
        extra["extern_libs"] = _extern_libs(extra["extern_libs"])
    if "debug" not in known:
        known["debug"] = bool(debug) if debug is not None else config.get().debug
    if "enable_fp_fusion" not in known:
        known["enable_fp_fusion"] = config.get().default_fp_fusion
    return CompileOptions(**known, extra=tuple(sorted(extra.items())))


def _extern_libs(value: Any) -> tuple[tuple[str, str], ...]:
    """``extern_libs`` as sorted (name, path) pairs."""
    if value is None:
        return ()
    if not (isinstance(value, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in value)):
        raise UsageError(f"extern_libs must map library names to paths, got {value!r}")
    return tuple((str(name), str(path)) for name, path in value)


def check_for_backend(options: CompileOptions, device: str) -> None:
    """The options a backend limits: ``num_warps`` (registry.Entry.max_num_warps) and
    ``extern_libs``."""
    limit = registry.max_num_warps(device)
    if limit is not None and options.num_warps > limit:
        raise UsageError(
            f"num_warps={options.num_warps}: the {device} backend launches at most {limit} "
            "warps per program"
        )
    check_extern_libs(options, device)


def check_extern_libs(options: CompileOptions, device: str) -> None:
    """On a backend that links external libraries, every named one must be known and exist;
    elsewhere they are ignored (registry.Entry.extern_libraries)."""
    libs = dict(options.extra).get("extern_libs", ())
    known = registry.extern_libraries(device)
    if known is None:
        return
    for name, path in libs:  # type: ignore[attr-defined]
        if name not in known:
            raise UnsupportedFeature(
                f"extern_libs: the {device} backend links only {', '.join(sorted(known))}, "
                f"not {name!r}"
            )
        if not os.path.isfile(path):
            raise UsageError(f"extern_libs: {name} file {path!r} does not exist")
