"""``import triton`` under ``tilec.install_as_triton()``: tilec's public API under Triton's name.

Names resolve to tilec's objects (``triton.jit is tilec.jit``); ``triton.runtime``,
``triton.compiler`` and ``triton.backends`` are this package's adapters. ``__version__`` is the
Triton release whose host API this layer follows, with tilec's version as the local part.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..._version import __version__ as _tilec_version
from .. import alias

__version__ = f"3.6.0+tilec.{_tilec_version}"
__tilec_as_triton__ = True


# names whose Triton meaning differs from tilec's top-level one
_TRITON_NAMES = {"compile": "compiler", "CompiledKernel": "compiler", "ASTSource": "compiler"}
# names Triton binds from triton.language.core (triton.X -> tl.core.Y)
_CORE_NAMES = {"must_use_result": "must_use_result", "aggregate": "_aggregate"}


def __getattr__(name: str) -> Any:
    if name in _TRITON_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_TRITON_NAMES[name]}"), name)
    if name in _CORE_NAMES:
        from ...language import core

        return getattr(core, _CORE_NAMES[name])
    if f"triton.{name}" in alias.ADAPTERS:
        return importlib.import_module(f"{__name__}.{name}")
    import tilec

    try:
        return getattr(tilec, name)
    except AttributeError:
        raise AttributeError(f"module 'triton' (tilec) has no attribute {name!r}") from None


def __dir__() -> list[str]:
    import tilec

    return sorted({*globals(), *dir(tilec), *_CORE_NAMES})
