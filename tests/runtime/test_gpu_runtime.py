"""The runtime on a real GPU (marked gpu): torch CUDA tensors pick the CUDA backend, warm
launches reuse the kernel, autotuning and do_bench time with CUDA events."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import UsageError


def _gpu() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU and torch"),
    pytest.mark.usefixtures("private_cache"),
]


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)  # fmt: skip


def _inputs(n):
    import torch

    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    return x, y, torch.full((n,), float("nan"), device="cuda")


@pytest.mark.parametrize("n", [1, 1000, 1 << 20])
def test_vector_add_on_cuda_tensors(n):
    x, y, out = _inputs(n)
    kernel = add_kernel[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=1024)
    assert kernel.metadata.target.kind == "cuda"
    expected = x.double().cpu().numpy() + y.double().cpu().numpy()
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-6)


def test_launch_options_and_num_warps():
    x, y, out = _inputs(4096)
    kernel = add_kernel[(4,)](x, y, out, 4096, BLOCK=1024, num_warps=8)
    assert kernel.metadata.options.num_warps == 8
    np.testing.assert_allclose(out.cpu().numpy(), (x + y).cpu().numpy(), rtol=1e-6)


def test_host_and_device_arrays_do_not_mix():
    x, y, out = _inputs(16)
    with pytest.raises(UsageError, match="different devices"):
        add_kernel[(1,)](x, y.cpu(), out, 16, BLOCK=16)


def test_driver_active_is_the_gpu():
    from tilec.runtime import driver

    driver.reset_active()
    try:
        target = driver.active.get_current_target()
        assert target.backend == "cuda" and isinstance(target.arch, int) and target.warp_size == 32
        props = driver.active.utils.get_device_properties(0)
        assert props["multiprocessor_count"] > 0
    finally:
        driver.reset_active()


def test_do_bench_with_cuda_events():
    x, y, out = _inputs(1 << 22)
    ms = tilec.testing.do_bench(lambda: add_kernel[(4096,)](x, y, out, 1 << 22, BLOCK=1024),
                                warmup=5, rep=20, device="cuda")  # fmt: skip
    assert 0 < ms < 10


def _repeat(x_ptr, out_ptr, n, BLOCK: tl.constexpr, REPEAT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    acc = tl.zeros([BLOCK], tl.float32)
    for _ in range(REPEAT):
        acc += tl.sqrt(x * x + 1.0)
    tl.store(out_ptr + offs, acc / REPEAT, mask=mask)


def test_autotune_picks_the_fastest_config_on_gpu():
    import torch

    configs = [tilec.Config({"BLOCK": 1024, "REPEAT": r}) for r in (512, 1)]
    kernel = tilec.autotune(configs=configs, key=["n"], warmup=5, rep=20)(tilec.jit(_repeat))
    n = 1 << 22
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    kernel[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, out, n)
    assert kernel.best_config.kwargs["REPEAT"] == 1, kernel.configs_timings
    expected = torch.sqrt(x.double() ** 2 + 1)
    torch.testing.assert_close(out.double(), expected, rtol=1e-5, atol=1e-5)


def test_do_bench_cudagraph_replays_the_launch():
    x, y, out = _inputs(1 << 20)
    ms = tilec.testing.do_bench_cudagraph(
        lambda: add_kernel[(1024,)](x, y, out, 1 << 20, BLOCK=1024), rep=10
    )
    assert 0 < ms < 5
    np.testing.assert_allclose(out.cpu().numpy(), (x + y).cpu().numpy(), rtol=1e-6)


def test_triton_host_code_runs_unchanged():
    import tilec as triton

    device = triton.runtime.driver.active.get_active_torch_device()
    import torch

    x = torch.rand(5000, device=device)
    y = torch.rand(5000, device=device)
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)  # noqa: E731
    add_kernel[grid](x, y, out, x.numel(), BLOCK=triton.next_power_of_2(700))
    triton.testing.assert_close(out, x + y, atol=1e-6, rtol=0)


@tilec.jit
def scale_blocks(src, dst, factor, BM: tl.constexpr, BN: tl.constexpr):
    om, on = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([om, on], src.load([om, on]) * factor)


def test_tensor_descriptor_arguments_on_the_gpu():
    import torch

    from tilec.tools.tensor_descriptor import TensorDescriptor

    x = torch.randn(48, 64, device="cuda")
    out = torch.full_like(x, float("nan"))
    scale_blocks[(3, 2)](TensorDescriptor.from_tensor(x, [16, 32]),
                         TensorDescriptor.from_tensor(out, [16, 32]), 2.0, BM=16, BN=32)  # fmt: skip
    np.testing.assert_allclose(out.cpu().numpy(), 2 * x.double().cpu().numpy(), rtol=1e-6)


@pytest.mark.parametrize("disabled", [False, True], ids=["native", "python"])
def test_launches_go_on_torchs_current_stream(disabled):
    """A launch inside ``torch.cuda.stream(s)`` queues behind s's earlier work: the kernel reads
    what s wrote after a long sleep. Launched on another stream it would read the old values."""
    import torch

    n = 4096
    x, y, out = _inputs(n)
    side = torch.cuda.Stream()
    with config.override(disable_launcher=disabled):
        add_kernel[(4,)](x, y, out, n, BLOCK=1024)  # compiled and warm before the timed part
        torch.cuda.synchronize()
        for _ in range(2):  # the second launch is a warm one
            with torch.cuda.stream(side):
                torch.cuda._sleep(20_000_000)  # tens of milliseconds of GPU time on side
                x.fill_(3.0)
                y.fill_(4.0)
                add_kernel[(4,)](x, y, out, n, BLOCK=1024)
                out_seen = out.clone()
                x.fill_(-1.0)
            side.synchronize()
            assert torch.all(out_seen == 7.0)
            out.fill_(float("nan"))


@pytest.mark.parametrize("grid", [(4,), [4], 4, [4, 1, 1]], ids=["tuple", "list", "int", "3d list"])
def test_every_grid_form_cold_and_warm(grid):
    n = 4096
    for _ in range(2):  # the second launch is a warm one, through the native path
        x, y, out = _inputs(n)
        add_kernel[grid](x, y, out, n, BLOCK=1024)
        expected = x.double().cpu().numpy() + y.double().cpu().numpy()
        np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-6)
