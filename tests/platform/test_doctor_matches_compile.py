"""For every architecture in the support table, the doctor's verdict for a machine with that GPU
and this machine's ptxas equals what compiling a kernel offline with that ptxas does: the target,
PTX version and route it names are those of the artifact, and where it passes a tool over, the
compiler refuses that tool too. Runs against the ptxas the search finds and each one named in
TILEC_TEST_EXTRA_PTXAS (CI puts a CUDA 12 ptxas from the nvidia-cuda-nvcc-cu12 wheel there, so
both toolkit majors are swept)."""

from __future__ import annotations

import os
import re
import subprocess

import machines
import pytest
from kernels_for_sweep import add

from tilec.errors import PlatformError
from tilec.platform.matrix import Level, load_policy
from tilec.platform.probes import gather
from tilec.platform.select import select_backend
from tilec.platform.system import CommandResult, CudaDevice, System

ARCHS = [a for a in load_policy().architectures if a.level is not Level.UNSUPPORTED]


EXTRA = [p for p in os.environ.get("TILEC_TEST_EXTRA_PTXAS", "").split(os.pathsep) if p]


def _ptxas(which: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    if which != "found":
        monkeypatch.setenv("TILEC_PTXAS_PATH", which)
    tool = gather(System()).toolchain.ptxas
    if which != "found":
        assert tool.found and tool.path == which, f"TILEC_TEST_EXTRA_PTXAS: {which} is no ptxas"
    if not tool.found or not tool.version:
        pytest.skip("no ptxas on this machine")
    return tool.path, tool.version


@pytest.mark.parametrize("which", ["found", *EXTRA])
@pytest.mark.parametrize("arch", ARCHS, ids=lambda a: a.arch)
def test_doctor_route_is_the_compiled_route(arch, which, monkeypatch) -> None:
    path, version = _ptxas(which, monkeypatch)
    major, minor = (int(p) for p in arch.cc.split("."))
    # a driver new enough for the GPU and for this ptxas: only the toolchain decides
    sys = machines.linux_nvidia("580.65.06", 13000, CudaDevice("GPU", major, minor, 1 << 34))
    sys.files[path] = ""
    sys.environ["TILEC_PTXAS_PATH"] = path
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    sys.commands[(path, "--version")] = CommandResult(0, out)
    sel = select_backend(gather(sys))
    assert sel.backend == "cuda", sel.finding

    from tilec.backends.cuda import assemble, toolchain

    monkeypatch.setattr(toolchain, "nvjitlink_available", lambda: False)
    monkeypatch.setattr(toolchain, "ptxas_path", lambda: path)
    monkeypatch.setattr(toolchain, "ptxas_version", lambda: version)
    monkeypatch.setattr(assemble.toolchain, "driver_cuda_version", lambda: None)
    if sel.cubin_route == "driver-jit":  # the doctor passed ptxas over: so does the compiler,
        assert sel.finding is not None and "ptxas" in sel.finding.summary
        try:  # refusing where the tool itself rejects the target (CUDA 13 and pre-Turing),
            compiled = _compile(sel.arch)
        except PlatformError as exc:
            assert sel.arch in str(exc)
            return
        assert "cubin" not in compiled.asm  # or leaving the PTX to the driver (sm_110, CUDA 12)
    else:
        assert sel.cubin_route == "ptxas"
        compiled = _compile(sel.arch)
        assert isinstance(compiled.asm.get("cubin"), bytes)
    ptx = compiled.asm["ptx"]
    ptx = ptx if isinstance(ptx, str) else ptx.decode()
    assert re.search(r"\.target (\S+)", ptx).group(1) == sel.arch
    found = re.search(r"\.version (\d+)\.(\d+)", ptx)
    assert int(found.group(1)) * 10 + int(found.group(2)) == sel.ptx_version


def _compile(arch: str):
    import tilec
    from tilec import config

    # never from the cache: the tools are swapped inside this process, which the cache key
    # (taken once per process) does not see
    with config.override(cache_enabled=False):
        return tilec.compile(add, "*fp32:16, *fp32:16, i32, BLOCK=128", target=f"cuda:{arch}")


REJECTED = [a for a in load_policy().architectures if a.level is Level.UNSUPPORTED]


@pytest.mark.parametrize("arch", REJECTED, ids=lambda a: a.arch)
def test_what_the_doctor_rejects_the_compiler_refuses_for_the_same_reason(arch) -> None:
    from tilec.errors import TilecError

    major, minor = (int(p) for p in arch.cc.split("."))
    sys = machines.linux_nvidia("580.65.06", 13000, CudaDevice("GPU", major, minor, 1 << 34))
    report = select_backend(gather(sys))
    assert report.backend == "cpu" and report.finding is not None
    assert report.finding.check == "nvidia.compute_capability"
    reason = f"needs {load_policy().min_supported_cc} or newer"
    assert reason in report.finding.summary and arch.cc in report.finding.summary
    with pytest.raises(TilecError) as refused:
        _compile(arch.arch)
    message = str(refused.value)
    assert f"compute capability {arch.cc}" in message
    assert f"needs compute capability {load_policy().min_supported_cc} or newer" in message
