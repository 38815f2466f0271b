"""A warm-cache first call in a fresh process loads the kernel with the CPU driver only: the
compiler's modules (lowering, loop nests, the pass pipeline) are never imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
COMPILER_MODULES = (
    "tilec.backends.cpu.compiler",
    "tilec.backends.cpu.program",
    "tilec.backends.cpu.lower",
    "tilec.backends.cpu.nest",
    "tilec.backends.cpu.rules",
    "tilec.passes",
)
PROGRAM = """
import json, sys
import numpy as np
import tilec
import tilec.language as tl

@tilec.jit
def double(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

x = np.random.default_rng().standard_normal(100).astype(np.float32)
want = x.astype(np.float64) * 2
double[(2,)](x, 100, BLOCK=64)
loaded = [m for m in sys.modules if m.startswith(("tilec.backends.cpu.", "tilec.passes"))]
print(json.dumps({"ok": bool(np.allclose(x, want)), "modules": sorted(loaded)}))
"""


def _run(script: Path, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SRC), "TILEC_CACHE_DIR": str(cache)}
    env.pop("TILEC_BACKEND", None)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_cache_hit_imports_only_the_driver(tmp_path):
    script = tmp_path / "warm_load_kernel.py"
    script.write_text(PROGRAM)
    cold = _run(script, tmp_path / "cache")
    assert cold["ok"] and "tilec.backends.cpu.compiler" in cold["modules"]
    warm = _run(script, tmp_path / "cache")
    assert warm["ok"] and "tilec.backends.cpu.driver" in warm["modules"]
    compiler_side = [m for m in warm["modules"] if m.startswith(COMPILER_MODULES)]
    assert compiler_side == []
