"""A kernel first launched before ``import torch`` gets torch's fast path once a tensor comes:
its launch function and native dispatcher are rebuilt (checked in a fresh process, where
torch is not imported yet)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tilec, tilec.language as tl

    @tilec.jit
    def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    double[(1,)](x, out, 8, BLOCK=8)
    double[(1,)](x, out, 8, BLOCK=8)
    before = "torch" in sys.modules
    import torch

    t, o = torch.arange(8.0), torch.zeros(8)
    for _ in range(3):
        double[(1,)](t, o, 8, BLOCK=8)
    cells = [c.cell_contents for c in double._launch_fn.__closure__ or ()]
    print(json.dumps({
        "torch_before": before,
        "fast_path": any(c is torch.Tensor for c in cells),
        "ok": o.tolist() == (2 * t).tolist() and out.tolist() == (2 * x).tolist(),
    }))
    """
)


def test_launch_code_built_before_torch_gets_its_fast_path(tmp_path):
    script = tmp_path / "late_torch.py"
    script.write_text(CHILD)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env={**__import__("os").environ, "TILEC_CACHE_DIR": str(tmp_path)},
                         timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result == {"torch_before": False, "fast_path": True, "ok": True}
