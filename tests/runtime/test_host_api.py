"""Triton's host API under tilec: cdiv, next_power_of_2, testing, driver.active, set_allocator."""

from __future__ import annotations

import time

import numpy as np
import pytest

import tilec
from tilec import config
from tilec.errors import UnsupportedFeature, UsageError
from tilec.runtime import driver

torch = pytest.importorskip("torch")  # wheel tests and bare installs have no torch


@pytest.mark.parametrize(("n", "p"), [(0, 1), (1, 1), (2, 2), (3, 4), (17, 32), (1024, 1024)])
def test_next_power_of_2(n, p):
    assert tilec.next_power_of_2(n) == p


def test_cdiv():
    assert [tilec.cdiv(n, 4) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


def test_do_bench_on_the_host_clock():
    ms = tilec.testing.do_bench(lambda: time.sleep(0.001), warmup=2, rep=20, device="cpu")
    assert 0.9 < ms < 20
    lo, mid, hi = tilec.testing.do_bench(
        lambda: None, warmup=1, rep=2, quantiles=[0.2, 0.5, 0.8], device="cpu"
    )
    assert 0 <= lo <= mid <= hi
    with pytest.raises(UsageError, match="return_mode"):
        tilec.testing.do_bench(lambda: None, warmup=1, rep=1, return_mode="p99", device="cpu")


def test_do_bench_cudagraph_needs_a_gpu():
    driver.set_active(driver.ActiveDriver("cpu"))
    try:
        with pytest.raises(UnsupportedFeature, match="CUDA"):
            tilec.testing.do_bench_cudagraph(lambda: None)
    finally:
        driver.reset_active()


def test_assert_close():
    a = np.random.default_rng().standard_normal(64).astype(np.float32)
    tilec.testing.assert_close(a, a.astype(np.float64) + 1e-3)
    tilec.testing.assert_close(torch.from_numpy(a).bfloat16(), a, atol=0.05)
    with pytest.raises(AssertionError):
        tilec.testing.assert_close(a, a + 1)


def test_perf_report_prints_a_table_and_writes_csv(tmp_path, capsys):
    bench = tilec.testing.Benchmark(
        x_names=["n"], x_vals=[1, 2], line_arg="impl", line_vals=["a", "b"],
        line_names=["A", "B"], plot_name="demo", args={"scale": 10},
    )  # fmt: skip

    @tilec.testing.perf_report(bench)
    def measure(n, impl, scale):
        return n * scale if impl == "a" else (n, n - 1, n + 1)

    rows = measure.run(print_data=True, save_path=str(tmp_path), return_df=True)
    out = capsys.readouterr().out
    assert "demo:" in out and "A" in out
    assert (tmp_path / "demo.csv").read_text().startswith("n,A,A-min")
    first = rows[0] if isinstance(rows, list) else rows.iloc[0]
    assert first["A"] == 10 and first["B-max"] == 2


def test_driver_active_on_the_cpu():
    with config.override(backend="cpu"):
        driver.reset_active()
        try:
            active = driver.active
            assert active.get_current_device() == 0
            assert active.get_active_torch_device() == torch.device("cpu")
            props = active.utils.get_device_properties(0)
            assert props["multiprocessor_count"] >= 1
            assert tilec.runtime.driver.active is active
        finally:
            driver.reset_active()


def test_set_allocator():
    from tilec.runtime import allocator

    calls = []
    tilec.set_allocator(lambda size, align, stream: calls.append((size, align)) or bytearray(size))
    try:
        assert len(allocator.allocate(64, 16, 0)) == 64 and calls == [(64, 16)]
    finally:
        tilec.set_allocator(None)
    with pytest.raises(UsageError, match="set_allocator"):
        allocator.allocate(64, 16, 0)
    with pytest.raises(UsageError):
        tilec.set_allocator(42)


def test_tensor_descriptor_validation():
    from tilec.tools.tensor_descriptor import TensorDescriptor

    a = np.zeros((16, 32), np.float32)
    d = TensorDescriptor.from_tensor(a, [8, 8])
    assert (list(d.shape), list(d.strides)) == ([16, 32], [32, 1])
    t = TensorDescriptor.from_tensor(torch.zeros(8, 16), [4, 4])
    assert list(t.strides) == [16, 1]
    with pytest.raises(UsageError, match="last stride"):
        TensorDescriptor.from_tensor(a.T, [8, 8])
    with pytest.raises(UsageError, match="16-byte"):
        TensorDescriptor.from_tensor(np.zeros((4, 3), np.float32), [2, 2])


def test_triton_style_names_resolve_in_a_fresh_process():
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import tilec as triton\n"
        "t = triton.runtime.driver.active.get_current_target()\n"
        "assert t.backend == 'cpu' and t.warp_size == 1, t\n"
        "assert triton.runtime.JITFunction is triton.JITFunction\n"
        "assert triton.runtime.Config is triton.Config\n"
        "from tilec.runtime.jit import JITFunction\n"
        "print('ok')\n"
    )
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": str(src), "TILEC_BACKEND": "cpu"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "ok", out.stderr


def test_cpu_driver_benchmark_cache_helpers():
    cpu = driver.ActiveDriver("cpu")
    cache = cpu.get_empty_cache_for_benchmark()
    cache[:8] = 7
    cpu.clear_cache(cache)
    assert cache.nbytes >= 32 << 20 and not cache[:8].any()


def test_perf_report_plots_with_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    pytest.importorskip("matplotlib")
    bench = tilec.testing.Benchmark(
        x_names=["n"], x_vals=[1, 2, 4], line_arg="impl", line_vals=["a"], line_names=["A"],
        plot_name="plotted", xlabel="n", ylabel="ms", styles=[("blue", "-")],
    )  # fmt: skip
    tilec.testing.perf_report(bench)(lambda n, impl: n * 2.0).run(save_path=str(tmp_path))
    assert (tmp_path / "plotted.png").stat().st_size > 0


def test_defining_kernels_loads_no_backend(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    module = tmp_path / "defs.py"
    module.write_text(
        "import sys\nimport tilec\nimport tilec.language as tl\n\n\n@tilec.jit\n"
        "def k(x_ptr, BLOCK: tl.constexpr):\n    pass\n\n\n"
        "print(','.join(m for m in ('llvmlite', 'numpy', 'torch', 'cuda') if m in sys.modules))\n"
    )
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
