"""A float16 <-> bfloat16 bitcast compared with a zero that only LLVM's own folding reveals
(``(2 & arange(0, 2)) == x.to(bf16, bitcast=True)``; two kernels found by the CUDA-vs-CPU fuzzer,
as found) compiles for CUDA. LLVM 22 folds ``fcmp oeq (bitcast half to bfloat), 0`` with a constant of the wrong type and
aborts the process, so the compiles run in a child process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src"

PROGRAM = textwrap.dedent(
    """
    import tilec
    import tilec.language as tl
    from tilec.backends.target import Target

    @tilec.jit
    def folded_zero(in0, out, n0, n_out, C0: tl.constexpr):  # seed 103 #7946
        pid = tl.program_id(0)
        o0 = pid * 16 + tl.arange(0, 8)[:, None] * 2 + tl.arange(0, 2)[None, :]
        x0 = tl.load(in0 + o0)
        v2 = C0 & tl.broadcast_to(tl.arange(0, 2)[None, :], (8, 2))  # 2 & {0, 1}: all zero
        v5 = v2 == x0.to(tl.bfloat16, bitcast=True)
        v9 = v5 < -x0.to(tl.int8)
        _, v11 = tl.split(tl.broadcast_to(v9, (8, 2)))
        tl.store(out + pid * 8 + tl.arange(0, 8), v11)

    @tilec.jit
    def folded_false(in0, out, n0, n_out):  # seed 101 #5036
        pid = tl.program_id(0)
        o0 = pid * 2 + tl.arange(0, 2)
        v3 = tl.ceil(tl.load(in0 + o0).to(tl.float16)).to(tl.bfloat16, bitcast=True)
        v5 = tl.broadcast_to(tl.full((1,), -128, tl.int64), (2,))
        v7 = v3 != (v5 < v5)
        tl.store(out + o0, tl.ceil(v7.to(tl.bfloat16)))

    for arch in ("sm_80", "sm_90a"):
        where = Target("cuda", arch)
        tilec.compile(folded_zero, "*fp16, *i1, i32, i32, C0=2", target=where)
        tilec.compile(folded_false, "*i32, *bf16, i32, i32", target=where)
    print("compiled")
    """
)


def test_compiles_without_aborting(tmp_path: Path) -> None:
    script = tmp_path / "kernels.py"
    script.write_text(PROGRAM)
    env = {"PYTHONPATH": str(SRC), "TILEC_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, **env})  # fmt: skip
    assert proc.returncode == 0 and "compiled" in proc.stdout, proc.stderr[-2000:]
