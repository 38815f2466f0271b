"""The cache key covers the tools outside tilec that built a kernel (for CUDA: the assemblers, the
driver's CUDA version, libdevice). A kernel cached as PTX only while no assembler was found, or
assembled by another ptxas, is compiled again once they change, and its metadata (``n_regs``,
``n_spills``) is the new tool's."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.backends import registry
from tilec.backends.cuda import toolchain
from tilec.backends.target import CompileOptions, Target
from tilec.runtime import compiler, specialize


@tilec.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3.0, mask=offs < n)


SIGNATURE = "*fp32:16, i32, BLOCK=256"


@pytest.fixture
def fresh_tools():
    """The toolchain as found now, before and after the test (its answers are cached)."""
    registry.toolchain_key.cache_clear()
    yield
    registry.toolchain_key.cache_clear()


def _no_assembler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "nvjitlink_available", lambda: False)
    monkeypatch.setattr(toolchain, "ptxas_path", lambda: None)
    registry.toolchain_key.cache_clear()


def test_the_cuda_key_changes_with_the_assembler(monkeypatch, fresh_tools):
    _, specs = specialize.specialize(["x_ptr", "n", "BLOCK"], [np.zeros(4, np.float32), 4, 256],
                                     [False, False, True])  # fmt: skip
    where = (Target("cuda", "sm_90"), CompileOptions())
    before = compiler.cache_key(scale, specs, *where)
    assert compiler.cache_key(scale, specs, *where) == before
    monkeypatch.setattr(toolchain, "nvjitlink_available", lambda: True)
    monkeypatch.setattr(toolchain, "nvjitlink_version", lambda: "13.7")
    registry.toolchain_key.cache_clear()
    newer = compiler.cache_key(scale, specs, *where)
    assert newer != before
    monkeypatch.setattr(toolchain, "nvjitlink_version", lambda: "13.8")
    registry.toolchain_key.cache_clear()
    assert compiler.cache_key(scale, specs, *where) not in (before, newer)
    # the CPU's kernels depend on nothing outside tilec and llvmlite
    assert registry.toolchain_key("cpu") == ""


def test_the_cpu_key_ignores_the_cuda_tools(monkeypatch, fresh_tools):
    _, specs = specialize.specialize(["x_ptr", "n", "BLOCK"], [np.zeros(4, np.float32), 4, 256],
                                     [False, False, True])  # fmt: skip
    where = (Target("cpu", "fake"), CompileOptions())
    before = compiler.cache_key(scale, specs, *where)
    _no_assembler(monkeypatch)
    assert compiler.cache_key(scale, specs, *where) == before


@pytest.mark.skipif(
    not toolchain.assemblers(), reason="needs a PTX assembler (ptxas or nvJitLink)"
)
def test_a_ptx_only_entry_is_not_reused_once_an_assembler_is_found(
    monkeypatch, tmp_path, fresh_tools
):
    target = Target("cuda", "sm_80")
    with tilec.config.override(cache_dir=tmp_path / "cache"):
        _no_assembler(monkeypatch)
        bare = tilec.compile(scale, SIGNATURE, target=target)
        assert "cubin" not in bare.asm and bare.metadata.n_regs == 0
        monkeypatch.undo()
        registry.toolchain_key.cache_clear()
        assembled = tilec.compile(scale, SIGNATURE, target=target)
    assert isinstance(assembled.asm.get("cubin"), bytes)
    assert assembled.metadata.n_regs > 0
