"""Run in a separate process by the cache tests: launch a kernel on the fake backend (or hammer
one cache key) and print what happened as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tilec
from runtime import fake_backend
from tilec import config
from tilec.backends.artifacts import CompiledKernel, KernelMetadata
from tilec.backends.target import CompileOptions, Target
from tilec.runtime.cache import KernelCache


def scale(x_ptr, n, FACTOR: tilec.language.constexpr):
    pass


def _program(args, pid, grid):
    x, n = args
    for i in range(n):
        fake_backend.f32(x, i).value *= 2.0


def launch(cache_dir: str) -> dict:
    mp = pytest.MonkeyPatch()
    fake_backend.install(mp)
    fake_backend.PROGRAMS["scale"] = _program
    x = np.arange(16, dtype=np.float32)
    with config.override(cache_dir=Path(cache_dir), backend=fake_backend.NAME):
        tilec.jit(scale)[(1,)](x, 16, FACTOR=2)
    return {"compiles": fake_backend.STATS.compiles, "ok": bool((x == 2 * np.arange(16)).all())}


def hammer(cache_dir: str, worker: int, rounds: int) -> dict:
    """Write and read one key over and over; count entries that were not whole."""
    cache = KernelCache(Path(cache_dir))
    target = Target("cpu", "fake")
    torn = 0
    for r in range(rounds):
        tag = f"{worker}-{r}"
        text = tag * (400_000 // len(tag))  # ~400 KB, so writes take a while
        meta = KernelMetadata(tag, tag, target, CompileOptions(), ())
        cache.put("shared-key", CompiledKernel(meta, {"llir": text}))
        got = cache.get("shared-key")
        if got is not None:
            name = got.metadata.name
            if got.asm["llir"] != name * (400_000 // len(name)):
                torn += 1
        else:
            torn += 1  # a whole entry was just written: absence means a reader saw garbage
    return {"torn": torn}


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "launch":
        print(json.dumps(launch(sys.argv[2])))
    else:
        print(json.dumps(hammer(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
