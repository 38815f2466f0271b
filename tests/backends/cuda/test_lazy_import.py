"""Importing the CUDA backend package loads neither llvmlite nor the CUDA driver bindings."""

from __future__ import annotations

import subprocess
import sys


def test_package_import_is_lazy() -> None:
    code = (
        "import sys, tilec.backends.cuda as c; "
        "print(','.join(m for m in ('llvmlite', 'cuda.bindings', 'torch') if m in sys.modules)); "
        "print(c.CudaCompiler.__name__, c.CudaDriver.__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    first, second = out.splitlines()
    assert first == ""
    assert second == "CudaCompiler CudaDriver"
