"""``triton.knobs``: Triton's settings objects, backed by tilec's one configuration.

Each knob tilec honours reads and writes a field of :mod:`tilec.config` (``knobs.cache.dir`` is
``config.get().cache_dir``); ``scope()`` restores the configuration on exit. A knob Triton has
and tilec does not act on is refused with :class:`~tilec.errors.UnsupportedName` naming it,
never accepted and silently ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from . import config as _config
from .errors import UnsupportedName

# Triton mirrors assignments into os.environ when this is set; tilec keeps its settings in
# config, which child processes receive through config.child_environment.
propagate_env = False


@dataclass(frozen=True)
class Knob:
    """One knob: the environment variable Triton names it by and the config field behind it."""

    key: str
    field: str
    to_config: Callable[[Any], Any] = lambda v: v
    from_config: Callable[[Any], Any] = lambda v: v

    def __set_name__(self, owner: type, name: str) -> None:
        object.__setattr__(self, "name", name)

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return self.from_config(getattr(_config.get(), self.field))

    def __set__(self, obj: Any, value: Any) -> None:
        _config.update(**{self.field: self.to_config(value)})


def _path(value: Any) -> Path:
    return Path(value).expanduser()


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


class base_knobs:
    """A group of knobs (``knobs.cache``, ``knobs.runtime``...)."""

    group: ClassVar[str] = ""
    knob_descriptors: ClassVar[dict[str, Knob]] = {}

    def __init_subclass__(cls) -> None:
        cls.knob_descriptors = {n: v for n, v in vars(cls).items() if isinstance(v, Knob)}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise _unsupported(f"{self.group}.{name}", self.knob_descriptors)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self.knob_descriptors:
            raise _unsupported(f"{self.group}.{name}", self.knob_descriptors)
        super().__setattr__(name, value)

    def copy(self) -> base_knobs:
        """Another view of the same settings (tilec keeps one configuration per process)."""
        return type(self)()

    def reset(self) -> base_knobs:
        """Every knob of this group back to its value from the environment."""
        fresh = _config.Config.from_env()
        _config.update(**{k.field: getattr(fresh, k.field) for k in self.knob_descriptors.values()})
        return self

    @contextlib.contextmanager
    def scope(self) -> Iterator[base_knobs]:
        """Assignments inside the block are undone at its end."""
        with _config.override():
            yield self


def _unsupported(name: str, honoured: dict[str, Knob]) -> UnsupportedName:
    known = ", ".join(sorted(honoured)) or "none"
    return UnsupportedName(
        f"triton.knobs.{name} is not supported by tilec (this group's knobs it honours: {known})"
    )


class cache_knobs(base_knobs):
    group = "cache"
    dir = Knob("TRITON_CACHE_DIR", "cache_dir", _path, str)


class compilation_knobs(base_knobs):
    group = "compilation"
    always_compile = Knob("TRITON_ALWAYS_COMPILE", "always_compile", bool)


class autotuning_knobs(base_knobs):
    group = "autotuning"
    print = Knob("TRITON_PRINT_AUTOTUNING", "print_autotuning", bool)


class runtime_knobs(base_knobs):
    group = "runtime"
    interpret = Knob("TRITON_INTERPRET", "interpret", bool)
    debug = Knob("TRITON_DEBUG", "debug", bool)


class nvidia_knobs(base_knobs):
    group = "nvidia"
    libdevice_path = Knob("TRITON_LIBDEVICE_PATH", "libdevice_path", _opt_str)
    libcuda_path = Knob("TRITON_LIBCUDA_PATH", "libcuda_path", _opt_str)


class language_knobs(base_knobs):
    group = "language"
    default_fp_fusion = Knob("TRITON_DEFAULT_FP_FUSION", "default_fp_fusion", bool)


cache = cache_knobs()
compilation = compilation_knobs()
autotuning = autotuning_knobs()
runtime = runtime_knobs()
nvidia = nvidia_knobs()
language = language_knobs()

_GROUPS = ("cache", "compilation", "autotuning", "runtime", "nvidia", "language")


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise UnsupportedName(
        f"triton.knobs.{name} is not supported by tilec (the groups it honours: "
        f"{', '.join(_GROUPS)})"
    )
