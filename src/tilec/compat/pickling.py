"""Pickling of @jit kernels, as Triton hosts need: Inductor's compile workers send the kernel
(with its Python function dropped) back to the parent with the compiled binaries.

A kernel that its module's global name still finds pickles as that reference, as a function
does. Any other (one whose Python function the host cleared, one made inside a function) pickles
as the facts describing its parameters and comes back as a description that answers
``params``, ``arg_names`` and ``src`` but cannot compile. Registered with copyreg
when ``triton`` is first imported through the alias.
"""

from __future__ import annotations

import copyreg
import importlib
import threading
from typing import Any

from ..runtime.jit import JITFunction

# attributes a kernel without its Python function still answers with
_DESCRIPTION = ("params", "arg_names", "constexprs", "do_not_specialize", "debug", "noinline",
                "backend", "__name__", "__qualname__", "__module__", "__doc__", "_cache_key")  # fmt: skip


def _state(kernel: Any) -> dict[str, Any]:
    state = {name: getattr(kernel, name, None) for name in _DESCRIPTION}
    state["repr"] = getattr(kernel, "repr", None)
    state["src_text"] = kernel.src if kernel.fn is not None else getattr(kernel, "_src_text", None)
    return state


def describe(cls: Any, state: dict[str, Any]) -> Any:
    """The inverse of ``reduce`` for a kernel pickled as its description."""
    kernel = cls.__new__(cls)
    for name in _DESCRIPTION:
        setattr(kernel, name, state[name])
    kernel.fn = None
    kernel.__globals__ = None
    kernel.used_global_vals = {}
    kernel._src_text = state["src_text"]
    kernel.repr = state["repr"]
    kernel._hash_lock = threading.RLock()
    return kernel


def lookup(module: str, qualname: str) -> Any:
    """The inverse of ``reduce`` for a kernel pickled by reference."""
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _by_reference(kernel: Any) -> tuple[str, str] | None:
    module, qualname = getattr(kernel, "__module__", None), getattr(kernel, "__qualname__", None)
    if kernel.fn is None or not module or not qualname or "<locals>" in qualname:
        return None
    try:
        return (module, qualname) if lookup(module, qualname) is kernel else None
    except (ImportError, AttributeError):
        return None


def reduce(kernel: Any) -> tuple[Any, ...]:
    reference = _by_reference(kernel)
    if reference is not None:
        return lookup, reference
    return describe, (type(kernel), _state(kernel))


def register() -> None:
    """Teach pickle (and copy) @jit kernels."""
    copyreg.pickle(JITFunction, reduce)
