"""The test suite runs with only the `test` extra installed (the README's test command on a fresh
machine, and cibuildwheel's wheel tests): no test module may import torch unconditionally."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
MODULES = sorted(TESTS.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(TESTS)))
def test_no_module_level_torch_import(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:  # module level only: imports inside tests or try blocks are fine
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        assert not any(n == "torch" or n.startswith("torch.") for n in names), (
            f'{path.relative_to(TESTS)}:{node.lineno} imports torch; use pytest.importorskip("torch")'
        )
