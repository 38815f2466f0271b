"""Interpreter start-up half of ``install_as_triton``: run by ``tilec_as_triton.pth``.

The .pth line tests ``TILEC_AS_TRITON`` itself and imports this module only when it is set, so
an interpreter that did not opt in pays one dictionary lookup and imports nothing of tilec. An
opted-in one reads the value through config.py, as all of tilec does, and interprets it as
``tilec doctor`` does (platform/triton_probe.py's ``Request``).
"""

from __future__ import annotations

import sys


def run() -> None:
    """Install the ``triton`` hook when ``TILEC_AS_TRITON`` asks for it; never raises."""
    try:
        from .. import config
        from ..platform.triton_probe import Request
        from . import alias, install

        value = config.get().as_triton
        request = Request.of(value)
        if request is Request.OFF:
            return
        if request is Request.INVALID:
            print(
                f"tilec: ignoring TILEC_AS_TRITON={value!r} (use 1, or replace to shadow an "
                "installed Triton)",
                file=sys.stderr,
            )
            return
        real = install.installed_triton()
        if real is not None and request is not Request.REPLACE:
            print(
                f"tilec: TILEC_AS_TRITON={value} but a Triton is installed ({real}): using it. "
                "Set TILEC_AS_TRITON=replace to choose tilec over it",
                file=sys.stderr,
            )
            return
        alias.install_hook()
    except Exception as exc:  # a start-up hook must never stop the interpreter
        print(f"tilec: TILEC_AS_TRITON hook failed: {exc!r}", file=sys.stderr)
