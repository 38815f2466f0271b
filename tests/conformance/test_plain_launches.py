"""Every conformance kernel launched plainly (``kernel[grid](...)``, no do_bench, no autotune) on
torch CPU tensors, as the tutorials' host code does, and checked against torch in float64."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilec

from . import kernels
from .philox import triton_randint4x, triton_uniform

torch = pytest.importorskip("torch")
F = torch.nn.functional


def nan_tensor(*shape, dtype=torch.float32):
    return torch.full(shape, math.nan, dtype=dtype)


def run_add():
    x, y = torch.randn(3001), torch.randn(3001)
    out = nan_tensor(3001)
    kernels.add(x, y, out)
    torch.testing.assert_close(out, (x.double() + y.double()).float(), rtol=0, atol=0)


def run_softmax():
    x = torch.randn(45, 211) * 4
    out = nan_tensor(45, 211)
    kernels.softmax(x, out, num_programs=6)
    torch.testing.assert_close(out.double(), torch.softmax(x.double(), 1), rtol=2e-6, atol=1e-7)


def run_matmul():
    a, b = torch.randn(66, 40).half(), torch.randn(40, 35).half()
    c = nan_tensor(66, 35, dtype=torch.float16)
    kernels.matmul(a, b, c, "leaky_relu")
    ref = F.leaky_relu(a.double() @ b.double(), 0.01)
    torch.testing.assert_close(c.double(), ref, rtol=2e-3, atol=4e-3)


def run_dropout():
    x, keep = torch.randn(900), torch.rand(900) > 0.2
    out = nan_tensor(900)
    kernels.dropout(x, keep, out, 0.2)
    ref = torch.where(keep, x.double() / (1 - np.float32(0.2).item()), 0.0)
    torch.testing.assert_close(out.double(), ref, rtol=1e-6, atol=0)


def run_seeded_dropout():
    x, seed = torch.rand(900) + 1, int(torch.randint(0, 2**31, ()).item())
    out = nan_tensor(900)
    kernels.seeded_dropout(x, out, 0.25, seed)
    keep = triton_uniform(triton_randint4x(seed, range(900), wide=False)[:, 0]) > np.float32(0.25)
    assert torch.equal(out != 0, torch.from_numpy(keep))


def run_philox():
    seed = int(torch.randint(0, 2**31, ()).item())
    ints, uniform = torch.zeros(200, 4, dtype=torch.int32), nan_tensor(200)
    kernels.philox(ints, uniform, seed, first_offset=11)
    ref = triton_randint4x(seed, range(11, 211), wide=False)
    np.testing.assert_array_equal(ints.numpy().view(np.uint32), ref)
    np.testing.assert_array_equal(uniform.numpy(), triton_uniform(ref[:, 0]))


def layer_norm_inputs(m, n):
    x = torch.randn(m, n) * 2 + 1
    w, b = torch.randn(n), torch.randn(n)
    y, mean, rstd = nan_tensor(m, n), nan_tensor(m), nan_tensor(m)
    kernels.layer_norm_forward(x, w, b, y, mean, rstd, 1e-5, block_size=32)
    return x, w, b, y, mean, rstd


def run_layer_norm_fwd():
    x, w, b, y, _, _ = layer_norm_inputs(17, 90)
    ref = F.layer_norm(x.double(), (90,), w.double(), b.double(), 1e-5)
    torch.testing.assert_close(y.double(), ref, rtol=1e-4, atol=1e-4)


def run_layer_norm_bwd():
    m, n, groups = 50, 61, 4
    x, w, b, _, mean, rstd = layer_norm_inputs(m, n)
    dy = torch.randn(m, n)
    dx, dw, db = nan_tensor(m, n), nan_tensor(n), nan_tensor(n)
    scratch = (
        torch.zeros(2 * groups, dtype=torch.int32),
        torch.zeros(groups, n),
        torch.zeros(groups, n),
    )
    kernels.layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db, scratch, groups)
    # torch autograd in float64 is the reference for all three gradients.
    x64, w64, b64 = (t.double().requires_grad_() for t in (x, w, b))
    F.layer_norm(x64, (n,), w64, b64, 1e-5).backward(dy.double())
    for got, want in ((dx, x64.grad), (dw, w64.grad), (db, b64.grad)):
        torch.testing.assert_close(got.double(), want, rtol=1e-4, atol=1e-4)


def run_attention():
    for causal in (False, True):
        q, k, v = (torch.randn(2, 2, 37, 16).half() for _ in range(3))
        out, m = nan_tensor(2, 2, 37, 16, dtype=torch.float16), nan_tensor(2, 2, 37)
        kernels.attention(q, k, v, out, m, causal, 0.25)
        ref = F.scaled_dot_product_attention(
            q.double(), k.double(), v.double(), is_causal=causal, scale=0.25
        )
        torch.testing.assert_close(out.double(), ref, rtol=3e-3, atol=3e-3)


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
}


def test_every_kernel_has_a_plain_launch():
    launched = {
        name
        for name, obj in vars(kernels).items()
        if isinstance(obj, tilec.JITFunction) and name.endswith("_kernel")
    }
    assert launched == set(PLAIN_RUNS)


@pytest.mark.parametrize(
    "run", sorted(set(PLAIN_RUNS.values()), key=lambda f: f.__name__), ids=lambda f: f.__name__
)
def test_plain_launch_on_torch_tensors(run):
    run()
