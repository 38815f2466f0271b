"""Pickling of @jit kernels, as Triton hosts need: Inductor's compile workers send the kernel
(with its Python function dropped) back to the parent with the compiled binaries.

A kernel pickles as its Python function (by reference, or None where the host cleared it) and
the facts that describe its parameters; one without a function comes back as a description
that answers ``params``, ``arg_names`` and ``src`` but cannot compile. Registered with copyreg
when ``triton`` is first imported through the alias.
"""

from __future__ import annotations

import copyreg
import threading
from typing import Any

# attributes a kernel without its Python function still answers with
_DESCRIPTION = ("params", "arg_names", "constexprs", "do_not_specialize", "debug", "noinline",
                "backend", "__name__", "__qualname__", "__module__", "__doc__", "_cache_key")  # fmt: skip


def _state(kernel: Any) -> dict[str, Any]:
    state = {name: getattr(kernel, name, None) for name in _DESCRIPTION}
    state["repr"] = getattr(kernel, "repr", None)
    state["src_text"] = kernel.src if kernel.fn is not None else getattr(kernel, "_src_text", None)
    state["fn"] = kernel.fn
    return state


def rebuild(cls: type, state: dict[str, Any]) -> Any:
    """The inverse of ``reduce``: a working kernel when the function came along."""
    fn = state["fn"]
    if fn is not None:
        kernel = cls(
            fn,
            do_not_specialize=[p.name for p in state["params"] if p.do_not_specialize],
            debug=state["debug"],
            noinline=state["noinline"],
            backend=state["backend"],
        )
    else:
        kernel = cls.__new__(cls)
        for name in _DESCRIPTION:
            setattr(kernel, name, state[name])
        kernel.fn = None
        kernel.__globals__ = None
        kernel.used_global_vals = {}
        kernel._src_text = state["src_text"]
    if state["repr"] is not None:
        kernel.repr = state["repr"]
    kernel._hash_lock = threading.RLock()
    return kernel


def reduce(kernel: Any) -> tuple[Any, ...]:
    return rebuild, (type(kernel), _state(kernel))


def register() -> None:
    """Teach pickle (and copy) @jit kernels."""
    from ..runtime.jit import JITFunction

    copyreg.pickle(JITFunction, reduce)
