"""Every conformance kernel launched plainly (``kernel[grid](...)``, no do_bench, no autotune) on
torch tensors, as the tutorials' host code does, and checked against torch in float64: on CPU
tensors here, and on CUDA tensors where a GPU is present (marked gpu; issue #6)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilec

from . import kernels
from .philox import triton_randint4x, triton_uniform

torch = pytest.importorskip("torch")
F = torch.nn.functional


def nan_tensor(device, *shape, dtype=torch.float32):
    return torch.full(shape, math.nan, dtype=dtype, device=device)


def randn(device, *shape):
    return torch.randn(*shape, device=device)


def close(got, want, rtol, atol):
    torch.testing.assert_close(got.double(), want.double(), rtol=rtol, atol=atol)


def run_add(dev):
    x, y = randn(dev, 3001), randn(dev, 3001)
    out = nan_tensor(dev, 3001)
    kernels.add(x, y, out)
    close(out, (x.double() + y.double()).float(), 0, 0)


def run_softmax(dev):
    x = randn(dev, 45, 211) * 4
    out = nan_tensor(dev, 45, 211)
    kernels.softmax(x, out, num_programs=6)
    close(out, torch.softmax(x.double(), 1), 1e-5, 1e-7)


def run_matmul(dev):
    a, b = randn(dev, 66, 40).half(), randn(dev, 40, 35).half()
    c = nan_tensor(dev, 66, 35, dtype=torch.float16)
    kernels.matmul(a, b, c, "leaky_relu")
    close(c, F.leaky_relu(a.double() @ b.double(), 0.01), 2e-3, 4e-3)


def run_dropout(dev):
    x, keep = randn(dev, 900), torch.rand(900, device=dev) > 0.2
    out = nan_tensor(dev, 900)
    kernels.dropout(x, keep, out, 0.2)
    close(out, torch.where(keep, x.double() / (1 - np.float32(0.2).item()), 0.0), 1e-6, 0)


def run_seeded_dropout(dev):
    x, seed = torch.rand(900, device=dev) + 1, int(torch.randint(0, 2**31, ()).item())
    out = nan_tensor(dev, 900)
    kernels.seeded_dropout(x, out, 0.25, seed)
    keep = triton_uniform(triton_randint4x(seed, range(900), wide=False)[:, 0]) > np.float32(0.25)
    np.testing.assert_array_equal((out != 0).cpu().numpy(), keep)


def run_philox(dev):
    seed = int(torch.randint(0, 2**31, ()).item())
    ints = torch.zeros(200, 4, dtype=torch.int32, device=dev)
    uniform = nan_tensor(dev, 200)
    kernels.philox(ints, uniform, seed, first_offset=11)
    ref = triton_randint4x(seed, range(11, 211), wide=False)
    np.testing.assert_array_equal(ints.cpu().numpy().view(np.uint32), ref)
    np.testing.assert_array_equal(uniform.cpu().numpy(), triton_uniform(ref[:, 0]))


def layer_norm_inputs(dev, m, n):
    x = randn(dev, m, n) * 2 + 1
    w, b = randn(dev, n), randn(dev, n)
    y, mean, rstd = nan_tensor(dev, m, n), nan_tensor(dev, m), nan_tensor(dev, m)
    kernels.layer_norm_forward(x, w, b, y, mean, rstd, 1e-5, block_size=32)
    return x, w, b, y, mean, rstd


def run_layer_norm_fwd(dev):
    x, w, b, y, _, _ = layer_norm_inputs(dev, 17, 90)
    close(y, F.layer_norm(x.double(), (90,), w.double(), b.double(), 1e-5), 1e-4, 1e-4)


def run_layer_norm_bwd(dev):
    m, n, groups = 50, 61, 4
    x, w, b, _, mean, rstd = layer_norm_inputs(dev, m, n)
    dy = randn(dev, m, n)
    dx, dw, db = nan_tensor(dev, m, n), nan_tensor(dev, n), nan_tensor(dev, n)
    locks = torch.zeros(2 * groups, dtype=torch.int32, device=dev)
    scratch = (locks, torch.zeros(groups, n, device=dev), torch.zeros(groups, n, device=dev))
    kernels.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db, scratch, groups)
    # torch autograd in float64 is the reference for all three gradients.
    x64, w64, b64 = (t.double().requires_grad_() for t in (x, w, b))
    F.layer_norm(x64, (n,), w64, b64, 1e-5).backward(dy.double())
    for got, want in ((dx, x64.grad), (dw, w64.grad), (db, b64.grad)):
        close(got, want, 1e-4, 1e-4)


def run_attention(dev):
    for causal in (False, True):
        q, k, v = (randn(dev, 2, 2, 37, 16).half() for _ in range(3))
        out, m = nan_tensor(dev, 2, 2, 37, 16, dtype=torch.float16), nan_tensor(dev, 2, 2, 37)
        kernels.attention(q, k, v, out, m, causal, 0.25)
        ref = F.scaled_dot_product_attention(
            q.double(), k.double(), v.double(), is_causal=causal, scale=0.25
        )
        close(out, ref, 3e-3, 3e-3)


def run_attention_block_ptr(dev):
    q, k, v = (randn(dev, 1, 3, 29, 16) for _ in range(3))
    out = nan_tensor(dev, 1, 3, 29, 16)
    kernels.attention_block_ptr(q, k, v, out, True, 0.3)
    ref = F.scaled_dot_product_attention(
        q.double(), k.double(), v.double(), is_causal=True, scale=0.3
    )
    close(out, ref, 2e-3, 2e-3)  # loose enough for tf32 dots on a GPU


def run_asin(dev):
    x = torch.rand(700, device=dev) * 2 - 1
    out = nan_tensor(dev, 700)
    kernels.asin(x, out)
    close(out, torch.asin(x.double()), 1e-6, 1e-7)


def run_persistent_matmul(dev):
    a, b = randn(dev, 50, 33), randn(dev, 33, 70)
    c = nan_tensor(dev, 50, 70)
    kernels.persistent_matmul(a, b, c, num_sms=4)
    close(c, a.double() @ b.double(), 1e-2, 2e-2)  # tf32 dots on a GPU: ~1e-3 of |a||b| per term


PLAIN_RUNS = {
    "add_kernel": run_add,
    "softmax_kernel": run_softmax,
    "matmul_kernel": run_matmul,
    "dropout_kernel": run_dropout,
    "seeded_dropout_kernel": run_seeded_dropout,
    "philox_kernel": run_philox,
    "layer_norm_fwd_kernel": run_layer_norm_fwd,
    "layer_norm_bwd_dx_kernel": run_layer_norm_bwd,
    "layer_norm_bwd_dwdb_kernel": run_layer_norm_bwd,
    "attn_fwd_kernel": run_attention,
    "attn_fwd_block_ptr_kernel": run_attention_block_ptr,
    "asin_kernel": run_asin,
    "persistent_matmul_kernel": run_persistent_matmul,
}
RUNS = sorted(set(PLAIN_RUNS.values()), key=lambda f: f.__name__)


def test_every_kernel_has_a_plain_launch():
    launched = {
        name
        for name, obj in vars(kernels).items()
        if isinstance(obj, tilec.JITFunction) and name.endswith("_kernel")
    }
    assert launched == set(PLAIN_RUNS)


@pytest.mark.parametrize("run", RUNS, ids=lambda f: f.__name__)
def test_plain_launch_on_cpu_tensors(run):
    run("cpu")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and torch CUDA")
@pytest.mark.parametrize("run", RUNS, ids=lambda f: f.__name__)
def test_plain_launch_on_cuda_tensors(run):
    run("cuda")
    torch.cuda.synchronize()
