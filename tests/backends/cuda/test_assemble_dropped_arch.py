"""An architecture the installed assembler dropped (sm_70 in CUDA 13) is a PlatformError naming
it, after falling back from nvJitLink to ptxas; never a raw nvJitLinkError."""

from __future__ import annotations

import pytest

from tilec.backends.cuda import assemble
from tilec.errors import PlatformError

PTX = ".version 8.0\n.target sm_70\n.address_size 64\n"


def _dropped(tool: str):
    def fail(*args: object) -> assemble.Assembled:
        raise assemble._ArchDropped(f"{tool} does not support sm_70")

    return fail


@pytest.fixture
def both_tools(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(assemble.toolchain, "nvjitlink_available", lambda: True)
    monkeypatch.setattr(assemble.toolchain, "ptxas_path", lambda: "/fake/ptxas")
    # the fake ptxas has no known version (ptxas_version is cached: a test that ran earlier in
    # this process may have recorded the installed ptxas's, which would refuse sm_70 up front)
    monkeypatch.setattr(assemble.toolchain, "ptxas_version", lambda: "")
    return monkeypatch


def test_both_tools_dropped_is_platform_error(both_tools: pytest.MonkeyPatch) -> None:
    both_tools.setattr(assemble, "with_nvjitlink", _dropped("nvJitLink"))
    both_tools.setattr(assemble, "with_ptxas", _dropped("ptxas"))
    with pytest.raises(PlatformError, match=r"sm_70.*nvJitLink.*ptxas.*TILEC_PTXAS_PATH"):
        assemble.assemble(PTX, "sm_70")


def test_nvjitlink_dropped_falls_back_to_ptxas(both_tools: pytest.MonkeyPatch) -> None:
    made = assemble.Assembled(b"cubin", 10, 0, "", "ptxas")
    both_tools.setattr(assemble, "with_nvjitlink", _dropped("nvJitLink"))
    both_tools.setattr(assemble, "with_ptxas", lambda ptx, arch, path: made)
    assert assemble.assemble(PTX, "sm_70") is made


def test_ptxas_that_cannot_run_is_platform_error() -> None:
    with pytest.raises(PlatformError, match="could not run"):
        assemble.with_ptxas(PTX, "sm_70", "/nonexistent/ptxas")


def test_installed_nvjitlink_13_rejects_sm70_cleanly() -> None:
    nvjitlink = pytest.importorskip("cuda.bindings.nvjitlink")
    try:
        major = nvjitlink.version()[0]
    except Exception:
        pytest.skip("no nvJitLink library")
    if major < 13:
        pytest.skip("this nvJitLink still supports sm_70")
    with pytest.raises(assemble._ArchDropped, match="sm_70"):
        assemble.with_nvjitlink(PTX, "sm_70")
