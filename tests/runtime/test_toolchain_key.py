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
    monkeypatch.setattr(toolchain, "identity", lambda: "no assembler")
    registry.toolchain_key.cache_clear()


def _specs():  # type: ignore[no-untyped-def]
    _, specs = specialize.specialize(["x_ptr", "n", "BLOCK"], [np.zeros(4, np.float32), 4, 256],
                                     [False, False, True])  # fmt: skip
    return specs


def test_the_cuda_key_changes_with_the_assembler_files(monkeypatch, tmp_path, fresh_tools):
    """Installing, replacing or removing a ptxas changes the key (here the TILEC_PTXAS_PATH one;
    pip's, the toolkit's and PATH's are stamped the same way)."""
    where = (Target("cuda", "sm_90"), CompileOptions())
    tool = tmp_path / "ptxas"
    monkeypatch.setenv("TILEC_PTXAS_PATH", str(tool))
    keys = [compiler.cache_key(scale, _specs(), *where)]
    assert compiler.cache_key(scale, _specs(), *where) == keys[0]  # once per process
    for change in (lambda: tool.write_text("v1"), lambda: tool.write_text("v1.1"), tool.unlink):
        change()
        registry.toolchain_key.cache_clear()
        keys.append(compiler.cache_key(scale, _specs(), *where))
    assert len(set(keys)) == 3 and keys[-1] == keys[0]  # removed: as before it was installed
    # the CPU's kernels depend on nothing outside tilec and llvmlite
    assert registry.toolchain_key("cpu") == ""


def test_the_cpu_key_ignores_the_cuda_tools(monkeypatch, fresh_tools):
    where = (Target("cpu", "fake"), CompileOptions())
    before = compiler.cache_key(scale, _specs(), *where)
    _no_assembler(monkeypatch)
    assert compiler.cache_key(scale, _specs(), *where) == before


@pytest.mark.skipif(not toolchain.assemblers(), reason="needs a PTX assembler (ptxas or nvJitLink)")
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
