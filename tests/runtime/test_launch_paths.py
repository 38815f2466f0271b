"""Launch paths on the real CPU backend: torch CPU tensors, do_not_specialize, forced backends,
stage dumps, concurrent launches from threads, and the warm-launch cost."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import UsageError

torch = pytest.importorskip("torch")  # wheel tests and bare installs have no torch


pytestmark = pytest.mark.usefixtures("private_cache")


def _scale(x_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * a, mask=mask)


def _grid(meta):
    return (tilec.cdiv(meta["n"], meta["BLOCK"]),)


def test_torch_cpu_tensors_and_int_scalars():
    kernel = tilec.jit(_scale)
    x = torch.randn(300, dtype=torch.float64)
    out = torch.full_like(x, float("nan"))
    kernel[_grid](x, out, 3, 300, BLOCK=64)
    np.testing.assert_allclose(out.numpy(), 3 * x.numpy(), rtol=1e-12)
    assert kernel.warmup(x, out, 3, 300, BLOCK=64).params[2].type == tl.int32


def test_do_not_specialize_compiles_once_for_any_value():
    kernel = tilec.jit(do_not_specialize=["n"])(_scale)
    x = np.random.default_rng().standard_normal(64).astype(np.float32)
    for n in (1, 16, 17, 64):
        out = np.full(64, np.nan, np.float32)
        kernel[_grid](x, out, 2.0, n, BLOCK=16)
        np.testing.assert_allclose(out[:n], 2 * x[:n].astype(np.float64), rtol=1e-6)
        assert np.isnan(out[n:]).all()
    assert len(kernel._kernels) == 1


def test_forced_backend_must_agree_with_the_arguments():
    kernel = tilec.jit(backend="cuda")(_scale)
    x = np.zeros(16, np.float32)
    with pytest.raises(UsageError, match="'cuda' backend was requested"):
        kernel[(1,)](x, x, 1.0, 16, BLOCK=16)
    with config.override(backend="cuda"), pytest.raises(UsageError, match="x_ptr, out_ptr"):
        tilec.jit(_scale)[(1,)](x, x, 1.0, 16, BLOCK=16)
    with pytest.raises(UsageError, match="backend must be"):
        tilec.jit(backend="tpu")(_scale)


def test_dump_dir_receives_every_stage(tmp_path):
    x = np.zeros(16, np.float32)
    with config.override(dump_dir=tmp_path / "dump"):
        tilec.jit(_scale)[(1,)](x, x, 1.0, 16, BLOCK=16)
    (folder,) = (tmp_path / "dump").iterdir()
    suffixes = {p.suffix for p in folder.iterdir()}
    assert {".tir", ".ll", ".o"} <= suffixes


def test_launches_from_many_threads_do_not_mix_arguments():
    kernel = tilec.jit(_scale)
    rng = np.random.default_rng()
    xs = [rng.standard_normal(256).astype(np.float32) for _ in range(8)]
    outs = [np.full(256, np.nan, np.float32) for _ in range(8)]
    errors = []

    def worker(i):
        try:
            for _ in range(50):
                kernel[_grid](xs[i], outs[i], float(i + 1), 256, BLOCK=32)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(8):
        np.testing.assert_allclose(outs[i], (i + 1) * xs[i].astype(np.float64), rtol=1e-6)


def test_warm_launch_is_cheap(monkeypatch):
    # a warm launch stays on the fast path: no compile, no new launch function or binding
    # (checked structurally, not timed: ~2 µs here, but a loaded machine must not fail it)
    kernel = tilec.jit(_scale)
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    for _ in range(2):  # the first compiles, the second binds the fast path
        kernel[(1,)](x, out, 1.0, 64, BLOCK=64)

    def fell_off(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a warm launch left the fast path")

    for slow in ("_compile", "_make_launch", "_make_bind"):
        monkeypatch.setattr(kernel, slow, fell_off)
    for i in range(1000):
        out[:] = np.nan
        kernel[(1,)](x, out, float(i % 3), 64, BLOCK=64)
        np.testing.assert_array_equal(out, x * (i % 3))


def test_python_fallback_launcher_gives_the_same_results():
    kernel = tilec.jit(_scale)
    x = np.random.default_rng().standard_normal(1000).astype(np.float32)
    outs = []
    for disabled in (False, True):
        out = np.full(1000, np.nan, np.float32)
        with config.override(disable_launcher=disabled):
            kernel[_grid](x, out, 1.5, 1000, BLOCK=64)
        outs.append(out)
    assert len(kernel._tables) == 2  # one kernel table per launcher
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[1], 1.5 * x.astype(np.float64), rtol=1e-6)
