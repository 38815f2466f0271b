"""Tutorial 05's host side: the forward and backward kernels inside a torch.autograd.Function,
driven by ``y.backward(dy)`` on tensors that require grad, against torch's own layer norm."""

from __future__ import annotations

import pytest

import tilec as triton

from . import kernels

torch = pytest.importorskip("torch")
F = torch.nn.functional


class TileLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        rows = x.reshape(-1, x.shape[-1])
        m, n = rows.shape
        y = torch.empty_like(rows)
        mean = torch.empty(m, dtype=torch.float32, device=x.device)
        rstd = torch.empty(m, dtype=torch.float32, device=x.device)
        block = min(65536 // x.element_size(), triton.next_power_of_2(n))
        kernels.layer_norm_forward(rows, weight, bias, y, mean, rstd, eps, block_size=block)
        ctx.save_for_backward(rows, weight, mean, rstd)
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        rows, weight, mean, rstd = ctx.saved_tensors
        m, n = rows.shape
        groups = min(16, m)  # rows share 16 spin-locked partial dW/dB rows, as the tutorial
        locks = torch.zeros(2 * groups, dtype=torch.int32, device=rows.device)
        partial = [torch.zeros(groups, n, dtype=rows.dtype, device=rows.device) for _ in "wb"]
        dx = torch.empty_like(rows)
        dw, db = torch.empty_like(weight), torch.empty_like(weight)
        dy_rows = dy.reshape(-1, n).contiguous()
        kernels.layer_norm_backward(
            dy_rows, rows, weight, mean, rstd, dx, dw, db, (locks, *partial), groups
        )
        return dx.reshape(dy.shape), None, dw, db, None


def test_layer_norm_autograd_matches_torch():
    shape, eps = (3, 70, 48), 1e-5
    x = (torch.randn(shape) * 3 + 1).requires_grad_()
    w = torch.randn(shape[-1]).requires_grad_()
    b = torch.randn(shape[-1]).requires_grad_()
    dy = torch.randn(shape)
    y = TileLayerNorm.apply(x, shape[-1:], w, b, eps)
    y.backward(dy)
    grads = [t.grad.clone() for t in (x, w, b)]

    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, b))
    ref = F.layer_norm(x64, shape[-1:], w64, b64, eps)
    ref.backward(dy.double())
    torch.testing.assert_close(y.detach().double(), ref.detach(), rtol=1e-4, atol=1e-4)
    for got, want in zip(grads, (x64.grad, w64.grad, b64.grad), strict=True):
        torch.testing.assert_close(got.double(), want, rtol=1e-4, atol=2e-4)
