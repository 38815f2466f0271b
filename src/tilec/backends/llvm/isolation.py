"""Run LLVM code generation in a reusable child process (see codegen_worker.py).

One child serves every compile of this process, one request at a time. When it dies (an LLVM
assertion aborted it), the compile is retried once without the loop vectorizer, where the known
assertions live; if that dies too, the kernel fails with a LoweringError carrying LLVM's message.
Without a usable Python executable the work runs in-process.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

from ... import config
from ...errors import LoweringError
from . import codegen_worker, forksafe

_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "codegen_worker.py")
# run_path keeps the worker's folder off sys.path (its types.py would shadow the stdlib's)
_LAUNCH = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


@dataclass(frozen=True)
class Codegen:
    """Optimized LLVM IR text, the object file, and (when asked) assembly text."""

    llir: str
    obj: bytes
    asm: str | None


class _Crashed(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class _NoChild(Exception):
    """The child never became ready (no usable Python here): generate in-process."""


class _Child:
    def __init__(self) -> None:
        if not _exit_hook:
            _exit_hook.append(atexit.register(shutdown))
        self.ready = False
        self.owner = os.getpid()  # a forked copy of this process must not share the pipes
        env = config.child_environment(PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, _WORKER],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )  # fmt: skip

    def ask(self, request: tuple[Any, ...]) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if not self.ready:  # the child says "ready" once it has loaded LLVM
            try:
                hello = codegen_worker._read(self.proc.stdout)
            except OSError:
                hello = None
            if hello != ("ready",):
                self._death()
                raise _NoChild
            self.ready = True
        try:
            codegen_worker._write(self.proc.stdin, request)
            reply = codegen_worker._read(self.proc.stdout)
        except (BrokenPipeError, OSError):
            reply = None
        if reply is None:
            raise _Crashed(self._death())
        return reply

    def _death(self) -> str:
        try:
            self.proc.kill()
            _, err = self.proc.communicate(timeout=10)
        except (OSError, subprocess.SubprocessError, ValueError):
            err = b""
        self.close()
        lines = err.decode("utf-8", "replace").strip().splitlines()
        return "\n".join(lines[-5:]) or f"the code generator exited with {self.proc.returncode}"

    def close(self) -> None:
        if self.owner != os.getpid():
            self.forget()
            return
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.SubprocessError):
            self.proc.kill()
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self.proc.wait(timeout=5)  # reaped, so nothing is left running at exit
        self._close_pipes()

    def forget(self) -> None:
        """In a forked copy of the owner: close this copy's ends of the pipes and never wait
        for the child, which belongs to the owner (Popen would warn it is still running)."""
        self._close_pipes()
        self.proc.returncode = 0

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


_lock = threading.Lock()
_child: _Child | None = None
_exit_hook: list[object] = []  # the atexit registration, made with the first child
_unavailable = False  # no child could be started here: generate in-process


def _usable_python() -> bool:
    if _unavailable or not sys.executable or not os.path.exists(sys.executable):
        return False
    return os.path.exists(_WORKER)


def prestart() -> None:
    """Start the child now, so loading LLVM there overlaps this process's lowering."""
    global _child
    forksafe.register(_lock)
    with _lock:
        if (_child is None or _child.owner != os.getpid()) and _usable_python():
            if _child is not None:
                _child.forget()
            try:
                _child = _Child()
            except OSError:
                _mark_unavailable()


def _mark_unavailable() -> None:
    global _unavailable, _child
    _unavailable = True  # e.g. sys.executable is not a Python interpreter (embedded)
    _child = None


def _ask(request: tuple[Any, ...]) -> Any:
    """The child's reply; None when there is no child (then the caller works in-process)."""
    global _child
    try:
        stale = _child is not None and (
            _child.owner != os.getpid() or _child.proc.poll() is not None
        )
        if _child is not None and stale:
            _child.close()
        if _child is None or stale:
            _child = _Child()
        return _child.ask(request)
    except (_NoChild, OSError):
        _mark_unavailable()
        return None
    except _Crashed:
        _child = None
        raise


def generate(
    ir_text: str,
    triple: str,
    cpu: str,
    features: str,
    level: int = 3,
    emit_asm: bool = False,
    run_passes: bool = True,
    isolate: bool = True,
) -> Codegen:
    """Optimize and emit ``ir_text`` for the target; never takes the process down."""
    request = (ir_text, triple, cpu, features, level, True, emit_asm, run_passes)
    if not (isolate and _usable_python()):
        return _checked(codegen_worker_reply(*request), ir_text)
    forksafe.register(_lock)
    with _lock:
        try:
            reply = _ask(request)
            if reply is None:
                return _checked(codegen_worker_reply(*request), ir_text)
        except _Crashed:
            try:
                plain = (*request[:5], False, *request[6:])
                reply = _ask(plain) or codegen_worker_reply(*plain)
            except _Crashed as again:
                raise LoweringError(
                    f"LLVM aborted while generating code:\n{again.message}", ir=ir_text
                ) from None
    return _checked(reply, ir_text)


def codegen_worker_reply(*request: Any) -> tuple[Any, ...]:
    try:
        return ("ok", *codegen_worker.generate(*request))
    except Exception as exc:
        return ("error", f"{type(exc).__name__}: {exc}")


def _checked(reply: tuple[Any, ...], ir_text: str = "") -> Codegen:
    if reply[0] != "ok":
        raise LoweringError(f"LLVM rejected the generated IR: {reply[1]}", ir=ir_text or None)
    return Codegen(reply[1], reply[2], reply[3])


def shutdown() -> None:
    """Stop the child (it also exits on its own when this process closes its stdin)."""
    global _child
    # at exit another thread may still be compiling: wait a while, never forever
    locked = _lock.acquire(timeout=30)
    try:
        if _child is not None:
            _child.close()
            _child = None
    finally:
        if locked:
            _lock.release()
