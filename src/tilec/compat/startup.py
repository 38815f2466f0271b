"""Interpreter start-up half of ``install_as_triton``: run by ``tilec_as_triton.pth``.

The .pth line checks ``TILEC_AS_TRITON`` itself and imports this module only when it is set,
so an interpreter that did not opt in pays one dictionary lookup. This is the one place outside
config.py that reads the environment: importing config (and tilec) in every Python process at
start-up would cost every user of the environment, opted in or not.
"""

from __future__ import annotations

import os
import sys


def run() -> None:
    """Install the ``triton`` hook when ``TILEC_AS_TRITON`` asks for it; never raises."""
    value = os.environ.get("TILEC_AS_TRITON", "").strip().lower()
    if value in ("", "0", "false", "off", "no"):
        return
    try:
        from . import alias, install

        if value not in (install.ENV_ON, install.ENV_REPLACE, "true", "on", "yes"):
            print(
                f"tilec: ignoring TILEC_AS_TRITON={value!r} (use 1, or replace to shadow an "
                "installed Triton)",
                file=sys.stderr,
            )
            return
        real = install.installed_triton()
        if real is not None and value != install.ENV_REPLACE:
            print(
                f"tilec: TILEC_AS_TRITON={value} but a Triton is installed ({real}): using it. "
                "Set TILEC_AS_TRITON=replace to choose tilec over it",
                file=sys.stderr,
            )
            return
        alias.install_hook()
    except Exception as exc:  # a start-up hook must never stop the interpreter
        print(f"tilec: TILEC_AS_TRITON hook failed: {exc!r}", file=sys.stderr)
