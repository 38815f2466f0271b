"""Run-time settings: the only module that reads TILEC_* (and the TRITON_* tilec honours)
environment variables.

``get()`` returns the active :class:`Config`; ``override(**changes)`` replaces fields for the
duration of a ``with`` block (tests and the API use it instead of mutating the environment).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _flag(env: Mapping[str, str], *names: str) -> bool:
    """Whether any of ``names`` is set to a true value (1, true, yes, on)."""
    return any(env.get(name, "").strip().lower() in _TRUE for name in names)


def _off(env: Mapping[str, str], *names: str) -> bool:
    """Whether any of ``names`` is set to a false value (0, false, no, off)."""
    return any(env.get(name, "").strip().lower() in _FALSE for name in names)


def _default_cache_dir(env: Mapping[str, str]) -> Path:
    if sys.platform == "win32":
        base = env.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "tilec" / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "tilec"
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tilec"


@dataclass(frozen=True)
class Config:
    """Every knob tilec reads from the environment, typed."""

    backend: str | None = None  # TILEC_BACKEND: "cpu" or "cuda" forces a backend
    # TILEC_CACHE_DIR, else TRITON_CACHE_DIR: the kernel and autotuning cache (default: the
    # platform's user cache folder, e.g. ~/.cache/tilec); `tilec cache info` shows it
    cache_dir: Path = Path(".")
    cache_enabled: bool = True  # TILEC_CACHE=0 disables the on-disk cache
    # TILEC_ALWAYS_COMPILE or TRITON_ALWAYS_COMPILE: compile even when the on-disk cache has
    # the kernel (the fresh result still replaces the cached one)
    always_compile: bool = False
    num_threads: int = 0  # TILEC_NUM_THREADS: CPU grid threads (0 = all cores)
    # TILEC_PRINT_AUTOTUNING or TRITON_PRINT_AUTOTUNING: print each autotuning's winner
    print_autotuning: bool = False
    # TILEC_DEBUG or TRITON_DEBUG: kernels compile in debug mode (bounds-checked memory
    # accesses, IR verified after every pass, assembly kept) unless @jit(debug=...) says
    debug: bool = False
    # TILEC_DUMP_DIR, or TRITON_KERNEL_DUMP=1 with TRITON_DUMP_DIR (default: a tilec-dump
    # folder beside the default cache): write every stage of every kernel there
    dump_dir: Path | None = None
    disable_launcher: bool = False  # TILEC_DISABLE_LAUNCHER: use the pure-Python launcher
    ptxas_path: str | None = None  # TILEC_PTXAS_PATH: the ptxas binary to assemble PTX with
    libcuda_path: str | None = None  # TILEC_LIBCUDA_PATH: the CUDA driver library to load
    libdevice_path: str | None = None  # TILEC_LIBDEVICE_PATH: the libdevice bitcode to link
    ptx_version: int | None = None  # TILEC_PTX_VERSION, e.g. 80 for PTX ISA 8.0
    interpret: bool = False  # TILEC_INTERPRET / TRITON_INTERPRET: accepted, runs the CPU backend
    # TILEC_EXPERIMENTAL: comma-separated features still being verified on hardware, off by
    # default ("cuda-pipelining": cp.async software pipelining of every load in a loop on sm_80+;
    # the operands of tl.dot are pipelined without it); part of the kernel cache key
    experimental: frozenset[str] = frozenset()
    # TILEC_AS_TRITON, lower-cased ("" unset): "1" makes `import triton` resolve to tilec in
    # processes started with it where no Triton is installed, "replace" over an installed one
    # too (set by tilec.install_as_triton() for child processes; the .pth start-up hook and
    # platform/triton_probe.py interpret it)
    as_triton: str = ""
    # TILEC_DISABLE_WGMMA, or Triton's DISABLE_MMA_V3: tensor-core dots on sm_90a use mma.sync,
    # not wgmma; part of the kernel cache key
    disable_mma_v3: bool = False
    # TILEC_DEFAULT_FP_FUSION, or Triton's TRITON_DEFAULT_FP_FUSION: whether a * b + c may run
    # as one fused multiply-add where a launch does not pass enable_fp_fusion (default on)
    default_fp_fusion: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        dump = env.get("TILEC_DUMP_DIR")
        if not dump and _flag(env, "TRITON_KERNEL_DUMP"):
            dump = env.get("TRITON_DUMP_DIR") or str(_default_cache_dir(env).parent / "tilec-dump")
        cache = env.get("TILEC_CACHE_DIR") or env.get("TRITON_CACHE_DIR")
        ptx = env.get("TILEC_PTX_VERSION", "").replace(".", "")
        threads = env.get("TILEC_NUM_THREADS", "0")
        return cls(
            backend=(env.get("TILEC_BACKEND") or "").strip().lower() or None,
            cache_dir=Path(cache).expanduser() if cache else _default_cache_dir(env),
            cache_enabled=not _off(env, "TILEC_CACHE"),
            always_compile=_flag(env, "TILEC_ALWAYS_COMPILE", "TRITON_ALWAYS_COMPILE"),
            num_threads=int(threads) if threads.isdigit() else 0,
            print_autotuning=_flag(env, "TILEC_PRINT_AUTOTUNING", "TRITON_PRINT_AUTOTUNING"),
            debug=_flag(env, "TILEC_DEBUG") or _flag(env, "TRITON_DEBUG"),
            dump_dir=Path(dump).expanduser() if dump else None,
            disable_launcher=_flag(env, "TILEC_DISABLE_LAUNCHER"),
            ptxas_path=env.get("TILEC_PTXAS_PATH") or None,
            libcuda_path=env.get("TILEC_LIBCUDA_PATH") or None,
            libdevice_path=env.get("TILEC_LIBDEVICE_PATH") or None,
            ptx_version=int(ptx) if ptx.isdigit() else None,
            interpret=_flag(env, "TILEC_INTERPRET") or _flag(env, "TRITON_INTERPRET"),
            experimental=frozenset(
                f.strip().lower() for f in env.get("TILEC_EXPERIMENTAL", "").split(",") if f.strip()
            ),
            as_triton=env.get("TILEC_AS_TRITON", "").strip().lower(),
            disable_mma_v3=_flag(env, "TILEC_DISABLE_WGMMA", "DISABLE_MMA_V3"),
            default_fp_fusion=not _off(env, "TILEC_DEFAULT_FP_FUSION", "TRITON_DEFAULT_FP_FUSION"),
        )


def child_environment(**overrides: str) -> dict[str, str]:
    """This process's environment with ``overrides``, for helper processes tilec starts."""
    env = dict(os.environ)
    env.update(overrides)
    return env


_active: Config | None = None


def get() -> Config:
    """The active configuration (read from the environment on first use)."""
    global _active
    if _active is None:
        _active = Config.from_env()
    return _active


def reload() -> Config:
    """Re-read the environment (after a test changed it)."""
    global _active
    _active = Config.from_env()
    return _active


def update(**changes: object) -> Config:
    """Replace fields of the active configuration until the next update, reload or the end of
    an enclosing ``override`` block (``triton.knobs`` assignments land here)."""
    global _active
    names = {f.name for f in fields(Config)}
    unknown = set(changes) - names
    if unknown:
        raise TypeError(f"unknown config field(s): {', '.join(sorted(unknown))}")
    _active = replace(get(), **changes)  # type: ignore[arg-type]
    return _active


@contextlib.contextmanager
def override(**changes: object) -> Iterator[Config]:
    """Temporarily replace fields of the active configuration.

    The change is process-wide: every thread sees it while the block runs, and the exit
    restores the configuration that was active at entry. Overrides made from several threads
    at once must therefore nest (exit in the reverse order of entry), or an exit restores a
    configuration another thread had replaced."""
    global _active
    names = {f.name for f in fields(Config)}
    unknown = set(changes) - names
    if unknown:
        raise TypeError(f"unknown config field(s): {', '.join(sorted(unknown))}")
    previous = get()
    _active = replace(previous, **changes)  # type: ignore[arg-type]
    try:
        yield _active
    finally:
        _active = previous
