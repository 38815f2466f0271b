"""The package's dependency direction (design.md): no module imports a layer above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tilec"

# layer -> tilec subpackages/modules it must never import
FORBIDDEN = {
    "ir": {"language", "frontend", "passes", "backends", "runtime", "platform", "cli", "config"},
    "passes": {"language", "frontend", "backends", "runtime", "platform", "cli"},
    "platform": {
        "language",
        "frontend",
        "ir",
        "passes",
        "backends",
        "runtime",
        "cli",
        "config",
        "errors",
        "source",
    },
    "backends": {"language", "frontend", "runtime", "cli"},
    "frontend": {"backends", "runtime", "passes", "cli"},
    "language": {"backends", "runtime", "passes", "cli"},
    "runtime": {"cli"},
}


def _imports(path: Path) -> set[str]:
    """Top-level tilec names (``ir``, ``runtime`` ...) that a module imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(SRC).parts
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "tilec" and len(parts) > 1:
                    found.add(parts[1])
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] == "tilec":
                    found.update([parts[1]] if len(parts) > 1 else [a.name for a in node.names])
            else:
                base = list(rel[:-1])[: len(rel) - node.level]
                target = base + (node.module.split(".") if node.module else [])
                if target:
                    found.add(target[0])
                else:
                    found.update(a.name for a in node.names)
    return found


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_back_edges(path: Path) -> None:
    layer = path.relative_to(SRC).parts[0]
    forbidden = FORBIDDEN.get(layer, set())
    bad = _imports(path) & forbidden
    assert not bad, f"{path.relative_to(SRC)} ({layer}) imports {sorted(bad)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_runtime_and_compiler_never_import_torch(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        assert not any(n == "torch" or n.startswith("torch.") for n in names), (
            f"{path.relative_to(SRC)} imports torch; use array protocols / DLPack"
        )


def test_importing_tilec_loads_no_backend() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tilec; "
        "heavy = [m for m in ('llvmlite', 'cuda', 'torch', 'numpy') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import tilec loaded: {out.stdout.strip()}"
