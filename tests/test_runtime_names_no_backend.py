"""The runtime never names a backend: it reaches every backend through backends/base.py's
protocol and backends/registry.py. Read statically (ast), so a new reference cannot creep in.

What the runtime may spell: the memory spaces array protocols report (runtime/memory.py, the
one place), and the names of Triton's and torch's own API (``__cuda_array_interface__``,
``tensor.is_cuda``, ``do_bench_cudagraph`` ...).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tilec"
RUNTIME = SRC / "runtime"
# the backend packages (a backend is a folder under backends/, llvm the layer they share)
BACKEND_PACKAGES = sorted(
    p.name for p in (SRC / "backends").iterdir() if (p / "__init__.py").exists()
)
BUILT_IN = ("cpu", "cuda")
MEMORY_MODULE = RUNTIME / "memory.py"
# identifiers of Triton's, torch's, DLPack's and the CUDA array interface's own API
FOREIGN_API = {
    "__cuda_array_interface__", "is_cuda", "is_cpu", "cpu", "use_cuda_graph",
    "do_bench_cudagraph", "KDL_CPU", "KDL_CUDA", "KDL_CUDA_HOST", "KDL_CUDA_MANAGED",
    "CUDA_MEMORY",
}  # fmt: skip
BACKEND_WORD = re.compile(r"cpu|cuda", re.IGNORECASE)
MODULES = sorted(RUNTIME.rglob("*.py"))


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _imported(path: Path, node: ast.ImportFrom | ast.Import) -> list[str]:
    """Absolute dotted names an import statement reaches."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    package = list(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    base = package[: len(package) - node.level + 1] if node.level else []
    module = [*base, *(node.module.split(".") if node.module else [])]
    return [".".join([*module, a.name]) for a in node.names] + [".".join(module)]


def _problems(path: Path, text: str | None = None) -> list[str]:
    """What ``path`` (or ``text`` read as if it were at ``path``) does against the rules."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(SRC)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name in _imported(path, node):
                parts = name.split(".")
                if parts[:2] == ["tilec", "backends"] and parts[2:3] in (
                    [b] for b in BACKEND_PACKAGES
                ):
                    found.append(f"{where}: imports the backend package {name}")
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        for name in names:
            if BACKEND_WORD.search(name) and name not in FOREIGN_API:
                found.append(f"{where}: identifier {name!r} names a backend")
            if name == "CDLL":
                found.append(f"{where}: loads a native library (a driver's business)")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
            named = text in BUILT_IN or any(text.startswith(f"{b}:") for b in BUILT_IN)
            if named and path != MEMORY_MODULE:
                found.append(f"{where}: string {text!r} names a backend")
            if re.search(r"libcuda|nvcuda", text):
                found.append(f"{where}: string {text!r} names the CUDA driver library")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_runtime_module_names_no_backend(path: Path) -> None:
    assert _problems(path) == []


def test_the_check_catches_what_it_forbids() -> None:
    """Each rule fires on a module that breaks it (the check itself can fail)."""
    samples = {
        "from ..backends.cpu.launch import CpuLauncher": "backend package",
        "from ..backends import cuda": "backend package",
        "class CudaThing: pass": "identifier",
        "kind = 'cuda'": "names a backend",
        "target = 'cuda:sm_90a'": "names a backend",
        "lib = 'libcuda.so.1'": "driver library",
        "import ctypes\nctypes.CDLL(None)": "native library",
    }
    for source, message in samples.items():
        problems = _problems(RUNTIME / "probe.py", source)
        assert any(message in p for p in problems), (source, problems)
