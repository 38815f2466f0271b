"""The fingerprint of tilec's own compiler: a hash of its source files, part of every cache key.

The version string misses local edits and development installs, so a kernel compiled by an
older compiler could be loaded after an upgrade or an edit. Hashing the .py files of the
packages that decide what code is generated (about 0.5 MB) costs ~2 ms, once per process.
"""

from __future__ import annotations

import functools
import hashlib
import os

# Subpackages of tilec whose code decides what a kernel compiles to (platform: the CUDA
# toolchain search picks libdevice and the assembler).
COMPILER_PACKAGES = ("language", "frontend", "ir", "passes", "backends", "platform")
# Modules outside them that shape the compiled artifact: the runtime's pipeline, ArgSpecs (and
# the key parts and describers they come from), written-parameter analysis kept in its metadata,
# and the kernel source text the frontend parses.
COMPILER_MODULES = (
    "runtime/arg_keys.py",
    "runtime/compiler.py",
    "runtime/describers.py",
    "runtime/specialize.py",
    "runtime/written_params.py",
    "source_text.py",
)


def _sources(root: str) -> list[str]:
    """The compiler's .py files under tilec's folder ``root``, relative and sorted."""
    found = [m for m in COMPILER_MODULES if os.path.isfile(os.path.join(root, m))]
    for package in COMPILER_PACKAGES:
        for folder, subfolders, files in os.walk(os.path.join(root, package)):
            subfolders[:] = [d for d in subfolders if d != "__pycache__"]
            relative = os.path.relpath(folder, root)
            found += [os.path.join(relative, f) for f in files if f.endswith(".py")]
    return sorted(p.replace(os.sep, "/") for p in found)


def fingerprint_of(root: str) -> str:
    """SHA-256 (hex) over the names and contents of the compiler's source files in ``root``."""
    h = hashlib.sha256()
    for relative in _sources(root):
        try:
            with open(os.path.join(root, relative), "rb") as f:
                data = f.read()
        except OSError as exc:  # unreadable: its name and the error still count
            data = f"unreadable: {type(exc).__name__}".encode()
        h.update(f"{relative}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


@functools.cache
def compiler_fingerprint() -> str:
    """The fingerprint of the tilec this process runs (computed once)."""
    return fingerprint_of(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
