"""Every tutorial under docs/tutorials runs on the CPU, passes its float64 check and writes its
benchmark table: each in a fresh process, as a reader runs it, at the ``--quick`` sizes and
with numpy arrays (``--numpy``: no torch import, which would cost seconds per tutorial)."""

from __future__ import annotations

import csv
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parents[2] / "docs" / "tutorials"
SCRIPTS = sorted(p for p in TUTORIALS.glob("[0-9][0-9]_*.py"))


def test_the_learning_path_is_complete():
    topics = [
        "vector_add",
        "fused_softmax",
        "matmul",
        "low_memory_dropout",
        "layer_norm",
        "fused_attention",
        "libdevice",
        "grouped_gemm",
        "persistent_matmul",
    ]
    names = [p.stem for p in SCRIPTS]
    assert len(names) == len(topics)
    for name, topic in zip(names, topics):
        assert topic in name, names


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("tutorial-cache")


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_tutorial_runs_and_checks(script, cache_dir, tmp_path):
    env = {**os.environ, "TILEC_CACHE_DIR": str(cache_dir), "MPLBACKEND": "Agg"}
    env.pop("TILEC_BACKEND", None)
    args = ["--quick", "--numpy", "--device", "cpu", "--seed", "7", "--save-path", str(tmp_path)]
    proc = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "check passed" in proc.stdout, proc.stdout
    tables = list(tmp_path.glob("*-cpu.csv"))
    assert len(tables) == 1, proc.stdout
    with open(tables[0], newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {"tilec", "numpy"} <= set(rows[0]), rows
    assert all(float(r["tilec"]) > 0 for r in rows)
    if importlib.util.find_spec("matplotlib") is not None:
        assert tables[0].with_suffix(".png").stat().st_size > 0


def test_a_wrong_result_fails_the_check(tmp_path):
    """The check is not a formality: a kernel that drops an element makes the script fail."""
    broken = tmp_path / "01_broken.py"
    source = (TUTORIALS / "01_vector_add.py").read_text()
    # the mask keeps the kernel from storing the last element
    source = source.replace("inside = idx < n\n", "inside = idx < n - 1\n", 1)
    assert "idx < n - 1" in source
    broken.write_text(source)
    env = {**os.environ, "TILEC_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(TUTORIALS)}
    proc = subprocess.run(
        [sys.executable, str(broken), "--quick", "--numpy", "--no-bench"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode != 0
    assert "differ from the float64 reference" in proc.stderr
    assert "check passed" not in proc.stdout


def _cuda_ready() -> bool:
    """A CUDA driver tilec can use (checked first: it is cheap), and torch that sees the GPU."""
    try:
        from tilec.backends.cuda.driver import CudaDriver

        if not CudaDriver().is_available():
            return False
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # no cuda-bindings, no driver, no torch: the GPU cases skip
        return False


@pytest.mark.gpu
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_tutorial_runs_on_the_gpu(script, tmp_path):
    """The same scripts with torch CUDA tensors (and Triton's line when Triton is installed)."""
    if not _cuda_ready():
        pytest.skip("needs an NVIDIA GPU and torch")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    args = ["--quick", "--device", "cuda", "--seed", "7", "--save-path", str(tmp_path)]
    proc = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "check passed" in proc.stdout, proc.stdout
    assert list(tmp_path.glob("*-cuda.csv")), proc.stdout
    print(proc.stdout)  # the check and the benchmark table (pytest -rP shows them)
