"""The cache key follows tilec's own compiler sources: an edit or an upgrade never loads a
kernel compiled by another compiler, and the hash is cheap."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

import tilec
import tilec.language as tl
from tilec.backends.target import CompileOptions, Target
from tilec.runtime import compiler, compiler_fingerprint, specialize

TILEC = Path(tilec.__file__).parent


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "tilec"
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")
    for package in ("backends", "ir"):
        shutil.copytree(TILEC / package, root / package, ignore=ignore)
    (root / "runtime").mkdir()
    for module in ("compiler.py", "jit.py"):
        shutil.copyfile(TILEC / "runtime" / module, root / "runtime" / module)
    return root


def test_an_edit_in_the_compiler_changes_it(tmp_path):
    root = _copy(tmp_path)
    base = compiler_fingerprint.fingerprint_of(str(root))
    assert compiler_fingerprint.fingerprint_of(str(root)) == base
    target = root / "backends" / "target.py"
    target.write_text(target.read_text() + "\n# a local edit\n")
    edited = compiler_fingerprint.fingerprint_of(str(root))
    assert edited != base
    (root / "ir" / "new_pass_helper.py").write_text("X = 1\n")
    assert compiler_fingerprint.fingerprint_of(str(root)) not in (base, edited)


def test_bytecode_and_launch_code_do_not(tmp_path):
    root = _copy(tmp_path)
    base = compiler_fingerprint.fingerprint_of(str(root))
    (root / "ir" / "__pycache__").mkdir()
    (root / "ir" / "__pycache__" / "types.cpython-311.pyc").write_bytes(b"\x00")
    jit = root / "runtime" / "jit.py"
    jit.write_text(jit.read_text() + "\n# launch path only\n")
    assert compiler_fingerprint.fingerprint_of(str(root)) == base


def test_it_is_part_of_the_cache_key(monkeypatch):
    @tilec.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

    _, specs = specialize.specialize(["x_ptr", "BLOCK"], [np.zeros(16, np.float32), 16],
                                     [False, True])  # fmt: skip
    where = (Target("cpu", "fake"), CompileOptions())
    before = compiler.cache_key(k, specs, *where)
    assert compiler.cache_key(k, specs, *where) == before
    monkeypatch.setattr(compiler, "compiler_fingerprint", lambda: "another compiler")
    assert compiler.cache_key(k, specs, *where) != before


def test_computed_once_and_cheaply(monkeypatch):
    # cheap by construction: one pass over the compiler's .py files (well under 2 MB), once
    # per process; counted, not timed, so a loaded machine cannot fail it
    compiler_fingerprint.compiler_fingerprint.cache_clear()
    read = []
    real = compiler_fingerprint.fingerprint_of
    monkeypatch.setattr(
        compiler_fingerprint, "fingerprint_of", lambda root: read.append(root) or real(root)
    )
    first = compiler_fingerprint.compiler_fingerprint()
    assert compiler_fingerprint.compiler_fingerprint() is first and len(read) == 1
    root = read[0]
    size = sum(os.path.getsize(os.path.join(root, f)) for f in compiler_fingerprint._sources(root))
    assert len(first) == 64 and size < 2_000_000
    compiler_fingerprint.compiler_fingerprint.cache_clear()
