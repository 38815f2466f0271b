"""The Autotuner behind ``@tilec.autotune``: time each config once per key, launch the best.

Tuning keys are the values of the ``key`` arguments plus the dtypes of the array arguments
(Triton's rule). Results persist as JSON under ``<cache_dir>/autotune/`` keyed by the kernel's
source fingerprint, the tuning key, the config list and the device, so a new process reuses
them without timing again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import config as _config
from ..errors import CompileError, LaunchError, TilecError, UsageError
from . import describers, driver, specialize
from .autotune import Config, KernelInterface, _base_jit, _restore, _snapshot, _zero
from .cache import _atomic_write
from .testing import do_bench as _do_bench
from .testing import do_bench_cudagraph

_NONE: Any = object()
_DTYPE_NAMES: dict[Any, str] = {}


def _dtype_name(dtype: Any) -> str:
    """``str(dtype)``, remembered per dtype: numpy's costs ~2.5 µs on every launch."""
    name = _DTYPE_NAMES[dtype] = str(dtype)
    return name


class Autotuner(KernelInterface):
    def __init__(
        self,
        fn: Any,
        configs: Sequence[Config],
        key: Sequence[str],
        prune_configs_by: dict[str, Any] | None = None,
        reset_to_zero: Sequence[str] | None = None,
        restore_value: Sequence[str] | None = None,
        warmup: float | None = None,
        rep: float | None = None,
        do_bench: Callable[..., Any] | None = None,
        cache_results: bool = True,
    ) -> None:
        self.fn = fn
        self.base = _base_jit(fn)
        self.base_fn = self.base  # Triton's name for the innermost @jit kernel
        self.arg_names = self.base.arg_names
        self.configs = list(configs) or [Config({})]
        self._tuned_names = frozenset(k for c in self.configs for k in c.kwargs)
        self.keys = list(key)
        for name in [*self.keys, *(reset_to_zero or ()), *(restore_value or ())]:
            if name not in self.arg_names:
                raise UsageError(f"autotune: {name!r} is not a parameter of {self.base.__name__}")
        self._key_at = [(self.arg_names.index(k), k) for k in self.keys]
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.reset_to_zero = list(reset_to_zero or ())
        self.restore_value = list(restore_value or ())
        self.num_warmups = 25 if warmup is None else warmup
        self.num_reps = 100 if rep is None else rep
        self.user_do_bench = do_bench
        self.cache_results = cache_results
        self.cache: dict[Any, Config] = {}
        self.best_config: Config | None = None
        self.configs_timings: dict[Config, float] | None = None
        self.bench_time = 0.0
        # Triton's tuning hooks: pre_hook(args) before and post_hook(args, exception) after
        # every timed run.
        self.pre_hook: Callable[..., Any] | None = None
        self.post_hook: Callable[..., Any] | None = None
        self.__name__ = self.base.__name__
        self.__doc__ = self.base.__doc__

    # ------------------------------------------------------------------ launch
    def run(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        warmup = False
        if kwargs:
            warmup = bool(kwargs.pop("warmup", False))
            conflicts = self._tuned_names.intersection(kwargs)
            if conflicts:
                raise UsageError(
                    f"{self.__name__}: {sorted(conflicts)} are both passed and tuned by "
                    "autotune; remove them from the call or from the configs"
                )
        key = self._tuning_key(args, kwargs)
        config = self.cache.get(key)
        if config is None:
            named = self._named(args, kwargs)
            config = self._load(key, named)
            if config is None:
                config = self._tune(key, args, grid, kwargs, named)
                for name in self.reset_to_zero:  # the real run starts from zeros too
                    _zero(named[name])
            self.cache[key] = config
        self.best_config = config
        tuned = config.all_kwargs()
        if config.pre_hook is not None:
            config.pre_hook({**self._named(args, kwargs), **tuned})
        full = {**kwargs, **tuned} if kwargs else tuned
        if warmup:
            full["warmup"] = True
        return self.fn[grid](*args, **full)  # the wrapped kernel's own (native) launch path

    def _tuning_key(self, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Triton's key: the ``key`` arguments' values, then the dtype (as text) of every
        argument that has one, positional arguments first."""
        n = len(args)
        parts = [args[i] if i < n else kwargs.get(name) for i, name in self._key_at]
        names = _DTYPE_NAMES
        for values in (args[: len(self.arg_names)], kwargs.values()):
            for v in values:
                dt = getattr(v, "dtype", _NONE)
                if dt is not _NONE:
                    try:
                        parts.append(names.get(dt) or _dtype_name(dt))
                    except TypeError:  # an unhashable dtype-like object
                        parts.append(str(dt))
        key = tuple(parts)
        try:
            hash(key)
        except TypeError:
            key = (repr(key),)
        return key

    # ------------------------------------------------------------------ tuning
    def prune_configs(self, kwargs: dict[str, Any], nargs: dict[str, Any]) -> list[Config]:
        """The configs left to time, as Triton prunes them: ``early_config_prune(configs,
        nargs, **kwargs)`` with the positional arguments by name and the launch's keyword
        arguments, then the ``top_k`` best by ``perf_model``."""
        named = {**nargs, **kwargs}
        configs = list(self.configs)
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(configs, nargs, **kwargs))
        if self.perf_model is not None:
            top_k = self.top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            if len(configs) > top_k:
                est = {c: self.perf_model(**named, **c.all_kwargs()) for c in configs}
                configs = sorted(configs, key=lambda c: est[c])[: int(top_k)]
        if not configs:
            raise UsageError(f"{self.__name__}: every autotune config was pruned")
        return configs

    def _device(self, named: dict[str, Any]) -> str:
        keys, names = [], []
        for name, value in named.items():
            try:
                keys.append(describers.describe(value)[0])
                names.append(name)
            except TilecError:
                continue  # constexprs and the like say nothing about the device
        forced = self.base.backend or _config.get().backend
        device = specialize.choose_device(names, keys, forced)
        if device is None:
            device = driver.active.backend
        return str(device)

    def _bench(self, config: Config, args: Sequence[Any], grid: Any,
               kwargs: dict[str, Any], named: dict[str, Any], device: str) -> float:  # fmt: skip
        current = {**kwargs, **config.all_kwargs()}
        full = {**named, **config.all_kwargs()}
        saved = {n: _snapshot(named[n]) for n in self.restore_value}

        def call() -> None:
            if config.pre_hook is not None:
                config.pre_hook(full)
            for name in self.reset_to_zero:
                _zero(named[name])
            if self.pre_hook is not None:
                self.pre_hook(full)
            try:
                self.fn.run(*args, grid=grid, **current)
            except Exception as exc:
                if self.post_hook is not None:
                    self.post_hook(full, exception=exc)
                raise
            if self.post_hook is not None:
                self.post_hook(full, exception=None)
            for name, value in saved.items():
                _restore(named[name], value)

        if self.user_do_bench is not None:
            result = self.user_do_bench(call, quantiles=(0.5, 0.2, 0.8))
        else:
            result = _do_bench(call, self.num_warmups, self.num_reps, quantiles=(0.5, 0.2, 0.8),
                              device=device)  # fmt: skip
        return float(result[0] if isinstance(result, (list, tuple)) else result)

    def _tune(self, key: tuple[Any, ...], args: Sequence[Any], grid: Any,
              kwargs: dict[str, Any], named: dict[str, Any]) -> Config:  # fmt: skip
        start = time.perf_counter()
        device = self._device(named)
        timings: dict[Config, float] = {}
        errors: list[TilecError] = []
        for config in self.prune_configs(kwargs, dict(zip(self.arg_names, args))):
            try:
                timings[config] = self._bench(config, args, grid, kwargs, named, device)
            except (CompileError, LaunchError) as exc:  # a config that cannot run loses
                timings[config] = math.inf
                errors.append(exc)
        best = min(timings, key=lambda c: timings[c])
        if math.isinf(timings[best]):
            raise errors[0]
        self.configs_timings = timings
        self.bench_time = time.perf_counter() - start
        if _config.get().print_autotuning:
            print(
                f"Autotuning kernel {self.__name__} with config {key} finished after "
                f"{self.bench_time:.2f}s; best config selected: {best}; "
                f"its time: {timings[best]:.4f} ms",
                file=sys.stderr,
            )
        self._save(key, named, best, timings)
        return best

    # ------------------------------------------------------------------ memory on disk
    def _path(self, key: tuple[Any, ...], named: dict[str, Any]) -> Path | None:
        cfg = _config.get()
        if not (self.cache_results and cfg.cache_enabled):
            return None
        text = "\n".join([
            self.base.cache_key, repr(key), *(str(c) for c in self.configs), self._device(named),
        ])  # fmt: skip
        return cfg.cache_dir / "autotune" / f"{hashlib.sha256(text.encode()).hexdigest()}.json"

    def _load(self, key: tuple[Any, ...], named: dict[str, Any]) -> Config | None:
        path = self._path(key, named)
        try:
            stored = json.loads(path.read_text()) if path is not None else None
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict):
            return None
        index = stored.get("index")
        if not isinstance(index, int) or not 0 <= index < len(self.configs):
            return None
        config = self.configs[index]
        return config if str(config) == stored.get("config") else None

    def _save(self, key: tuple[Any, ...], named: dict[str, Any], best: Config,
              timings: dict[Config, float]) -> None:  # fmt: skip
        path = self._path(key, named)
        if path is None:
            return
        record = {
            "kernel": self.__name__,
            "key": repr(key),
            "index": self.configs.index(best),
            "config": str(best),
            "timings_ms": {str(c): t for c, t in timings.items() if math.isfinite(t)},
        }
        # remembering is an optimization: the tuned config is used even if the write fails
        with contextlib.suppress(OSError):
            _atomic_write(path, json.dumps(record, indent=1).encode())


def autotune(
    configs: Sequence[Config],
    key: Sequence[str],
    prune_configs_by: dict[str, Any] | None = None,
    reset_to_zero: Sequence[str] | None = None,
    restore_value: Sequence[str] | None = None,
    pre_hook: Callable[..., Any] | None = None,
    post_hook: Callable[..., Any] | None = None,
    warmup: float | None = None,
    rep: float | None = None,
    use_cuda_graph: bool = False,
    do_bench: Callable[..., Any] | None = None,
    cache_results: bool = True,
) -> Callable[[Any], Autotuner]:
    """``@tilec.autotune(configs=[tilec.Config({...}), ...], key=["n"])`` above ``@tilec.jit``."""
    if use_cuda_graph and do_bench is None:

        def do_bench(fn: Callable[[], Any], quantiles: Any = None) -> Any:
            return do_bench_cudagraph(fn, quantiles=quantiles)

    bad = [c for c in configs if not isinstance(c, Config)]
    if bad or not configs:
        raise UsageError(
            "tilec.autotune(configs=...) needs a non-empty list of tilec.Config, got "
            + (f"{type(bad[0]).__name__} {bad[0]!r}" if bad else "an empty list")
        )

    def decorator(fn: Any) -> Autotuner:
        tuner = Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value,
                          warmup, rep, do_bench, cache_results)  # fmt: skip
        tuner.pre_hook, tuner.post_hook = pre_hook, post_hook
        return tuner

    return decorator
