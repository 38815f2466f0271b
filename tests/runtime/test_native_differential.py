"""Random launches, each made warm through the native dispatcher and through the Python path
(TILEC_DISABLE_LAUNCHER): the same results, or the same error, for every mix of argument
types, argument passing, launch options and grid form, on numpy arrays, torch CPU tensors
and (marked gpu) torch CUDA tensors."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config

from .conftest import NEEDS_NATIVE

pytestmark = [NEEDS_NATIVE, pytest.mark.usefixtures("native_launcher")]


@tilec.jit
def scaled(x_ptr, out_ptr, a, n, flag, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) * a
    if flag:
        v = v + 1
    tl.store(out_ptr + offs, v, mask=mask)


SCALARS = [0, 1, 2, 16, -3, 2**31 + 5, 2.5, -0.5, True, np.float32(1.5), np.int64(3), 1e39]
DTYPES = ["float32", "float64", "int32"]


def _array(rng, dtype, n, kind):
    data = (rng.standard_normal(n) * 8).astype(dtype)
    if kind == "numpy":
        return data
    import torch

    tensor = torch.from_numpy(data)
    return tensor.cuda() if kind == "cuda" else tensor


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _grid(kind, n, block):
    count = -(-n // block)
    return {
        "tuple": (count,),
        "list": [count],
        "int": count,
        "callable": lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),),
    }[kind]


def _launch(args, kwargs, grid, out):
    try:
        scaled[grid](*args, **kwargs)
        scaled[grid](*args, **kwargs)  # warm
    except Exception as exc:  # compared between the two paths
        return ("error", type(exc).__name__, str(exc))
    return ("ok", np.array(out.cpu().numpy() if hasattr(out, "cpu") else out, copy=True))


CUDA = pytest.mark.skipif(not _has_cuda(), reason="needs an NVIDIA GPU and torch")
KINDS = [
    *[pytest.param("numpy", seed, id=f"numpy-{seed}") for seed in range(3)],
    *[pytest.param("torch", seed, id=f"torch-{seed}") for seed in range(3)],
    *[pytest.param("cuda", seed, id=f"cuda-{seed}", marks=[pytest.mark.gpu, CUDA])
      for seed in range(3)],
]  # fmt: skip


@pytest.mark.parametrize(("kind", "seed"), KINDS)
def test_native_and_python_paths_agree(kind, seed):
    if kind != "numpy":
        pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    for _ in range(25):
        n = int(rng.choice([1, 16, 37, 200]))
        block = int(rng.choice([16, 64]))
        dtype = str(rng.choice(DTYPES))
        a = SCALARS[int(rng.integers(len(SCALARS)))]
        flag = bool(rng.integers(2))
        grid_kind = str(rng.choice(["tuple", "list", "int", "callable"]))
        by_keyword = bool(rng.integers(2))
        options = [{}, {"num_warps": 2}, {"num_warps": 1, "num_stages": 2}][int(rng.integers(3))]
        x = _array(rng, dtype, n, kind)
        outcomes = []
        for disabled in (False, True):
            out = _array(rng, dtype, n, kind)
            out[:] = 0
            if by_keyword:
                args, kwargs = (x,), dict(out_ptr=out, n=n, a=a, flag=flag, BLOCK=block, **options)
            else:
                args, kwargs = (x, out, a, n, flag), dict(BLOCK=block, **options)
            with config.override(disable_launcher=disabled):
                outcomes.append(_launch(args, kwargs, _grid(grid_kind, n, block), out))
        native, python = outcomes
        seen.add(native[0] if native[0] == "ok" else native[1])
        case = (
            f"n={n} block={block} {dtype} a={a!r} flag={flag} {grid_kind} kw={by_keyword} "
            f"options={options}"
        )
        assert native[0] == python[0], (case, native, python)
        if native[0] == "ok":
            np.testing.assert_array_equal(native[1], python[1], err_msg=case)
        else:
            assert native[1:] == python[1:], case
    assert "ok" in seen  # most draws launch; the others must fail alike
