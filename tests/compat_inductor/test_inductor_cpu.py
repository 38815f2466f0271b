"""torch.compile with ``cpu_backend="triton"`` after ``tilec.install_as_triton()``: small graphs
match eager, in the compiling process and through Inductor's compile-worker pool, on a PATH with
no C or C++ compiler (Inductor's CPU-triton path needs none; its C++ backend does).

Each run is a fresh interpreter (graphs.py) with private Inductor and tilec caches, so every
kernel compiles cold. Longer runs: ``python tests/compat_inductor/graphs.py [--threads N]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

GRAPHS = Path(__file__).with_name("graphs.py")
COMPILERS = ("cc", "gcc", "c++", "g++", "clang", "clang++", "cl")


def _without_compilers(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds only the Python interpreter and no CC/CXX."""
    bin_dir = tmp_path / "bin"
    if not bin_dir.exists():
        bin_dir.mkdir()
        (bin_dir / "python").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "CXX", "TILEC_AS_TRITON")}
    env["PATH"] = str(bin_dir)
    return env


def _run_graphs(
    tmp_path: Path, names: list[str], threads: int = 1, device: str = "cpu"
) -> dict[str, dict]:
    env = {k: v for k, v in os.environ.items() if k != "TILEC_AS_TRITON"}
    if device == "cpu":  # CUDA's assembler (ptxas) may be on PATH: only the CPU run strips it
        env = _without_compilers(tmp_path)
        probe = f"import shutil; print([c for c in {COMPILERS!r} if shutil.which(c)])"
        found = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True
        )
        assert found.stdout.strip() == "[]", found.stdout  # the premise: no compiler reachable
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path / "inductor")
    env["TILEC_CACHE_DIR"] = str(tmp_path / "tilec")
    result = subprocess.run(
        [sys.executable, str(GRAPHS), *names, "--threads", str(threads), "--device", device],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    by_name = {line["graph"]: line for line in lines}
    assert set(by_name) == set(names), result.stdout + result.stderr[-4000:]
    return by_name


def _pth_installed() -> bool:
    return any((p / "tilec_as_triton.pth").is_file() for p in map(Path, sys.path))


def _assert_match(results: dict[str, dict]) -> None:
    for name, line in results.items():
        assert "error" not in line, f"{name}: {line['error']}"
        assert line["max_rel_error"] < 1e-4, line


@pytest.mark.slow
def test_graphs_match_eager_without_a_c_compiler(tmp_path):
    _assert_match(
        _run_graphs(tmp_path, ["pointwise", "reduction", "softmax", "mlp", "block", "dynamic"])
    )


@pytest.mark.slow
def test_compile_worker_pool_cold_and_warm(tmp_path):
    """Two worker processes compile the kernels: they import triton through TILEC_AS_TRITON
    and send the kernels back pickled; a second process starts from the warm caches."""
    from tilec.compat.install import installed_triton  # noqa: F401 - the module must import

    if not _pth_installed():
        pytest.skip("tilec_as_triton.pth is not in site-packages (installed with tilec's wheel)")
    _assert_match(_run_graphs(tmp_path, ["layer_norm", "softmax"], threads=2))
    # again with the caches warm: Inductor's FX-graph cache and tilec's kernel cache
    assert any((tmp_path / "tilec").iterdir())
    _assert_match(_run_graphs(tmp_path, ["layer_norm", "softmax"], threads=2))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_graphs_on_cuda_with_tilec_over_the_installed_triton(tmp_path):
    """The same graphs on the GPU: Inductor's default CUDA backend, tilec chosen explicitly
    over the Triton installed with torch (replace_installed=True), workers included."""
    names = ["pointwise", "reduction", "softmax", "layer_norm", "mlp", "dynamic"]
    # without the start-up hook the workers would import the installed Triton
    threads = 2 if _pth_installed() else 1
    _assert_match(_run_graphs(tmp_path, names, threads=threads, device="cuda"))
    assert any((tmp_path / "tilec").rglob("*.tck"))  # tilec compiled them
