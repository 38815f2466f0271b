"""Every scenario of notes/platform.md §7 that applies to tilec: detected, with its remedy.

Scenarios 9, 10, 12, 13 and 15 (C compiler, Python.h, MSVC runtime, per-compiler caches) do not
apply: tilec compiles with llvmlite and needs no C toolchain. 11 and 27 are covered by the
install matrix (Windows and aarch64 wheels exist); 25 (fp8 on old GPUs) is a compile-time check.
"""

from __future__ import annotations

import machines
import pytest
from fake_system import FakeSystem, py

from tilec.platform.checks import run_checks
from tilec.platform.finding import Status
from tilec.platform.probes import gather
from tilec.platform.select import select_backend
from tilec.platform.system import CudaDevice, DriverQuery

GIB = 1 << 30


def _finding(sys: FakeSystem, check: str):
    found = {f.check: f for f in run_checks(gather(sys))}
    assert check in found, sorted(found)
    return found[check]


def _remedy(finding) -> str:
    return finding.remedy


def test_2_driver_too_old_for_a_blackwell_gpu() -> None:
    b200 = CudaDevice("NVIDIA B200", 10, 0, 180 * GIB)
    f = _finding(
        machines.cu12_wheels(machines.linux_nvidia("550.90.07", 12040, b200)), "nvidia.driver_gpu"
    )
    assert (f.status, f.scenario) == (Status.FAIL, 2)
    assert "needs an R570 driver (CUDA 12.8)" in f.summary
    assert "R570 branch or newer (CUDA 12.8): ≥ 570.26." in _remedy(f)


def test_4_cuda13_toolchain_on_a_cuda12_driver() -> None:
    a100 = CudaDevice("NVIDIA A100-SXM4-80GB", 8, 0, 80 * GIB)
    sys = machines.cu13_wheels(machines.linux_nvidia("570.133.20", 12080, a100))
    f = _finding(sys, "nvidia.cuda_major")
    assert (f.status, f.scenario) == (Status.WARN, 4)
    assert "≥ 580.65.06" in f.summary
    assert f.remediation.commands == (
        "pip uninstall -y nvidia-nvjitlink nvidia-cuda-nvcc nvidia-nvvm",
        machines.CU12_LINE,
    )
    sel = select_backend(gather(sys))
    assert (sel.backend, sel.cubin_route, sel.ptx_version) == ("cuda", "driver-jit", 70)


def test_5_gpu_newer_than_tilec_knows() -> None:
    future = CudaDevice("NVIDIA Future", 13, 0, 0)
    f = _finding(
        machines.cu13_wheels(machines.linux_nvidia("600.10", 13020, future)), "nvidia.arch_known"
    )
    assert (f.status, f.scenario) == (Status.FAIL, 5)
    # a wheel install: no package index serves tilec, so the remedy builds the current source
    assert f.remediation.commands == (
        "git clone https://github.com/tilec/tilec",
        'pip install --upgrade "./tilec"',
    )


def test_6_libcuda_not_loadable_on_linux() -> None:
    sys = machines.ubuntu_h100_580()
    del sys.libcuda["libcuda.so.1"]
    f = _finding(sys, "nvidia.libcuda")
    assert (f.status, f.scenario) == (Status.FAIL, 6)
    assert "sudo ldconfig" in _remedy(f) and "TILEC_LIBCUDA_PATH" in _remedy(f)
    assert select_backend(gather(sys)).backend == "cpu"


def test_7_wsl2_without_libcuda_anywhere() -> None:
    sys = machines.wsl2_rtx4090_566()
    sys.libcuda.clear()
    f = _finding(sys, "nvidia.libcuda")
    assert (f.status, f.scenario) == (Status.FAIL, 7)
    assert "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH" in _remedy(f)


def test_17_cpu_only_host_is_fine() -> None:
    facts = gather(FakeSystem())
    assert all(f.status in (Status.OK, Status.SKIP) for f in run_checks(facts))
    assert select_backend(facts).backend == "cpu"


@pytest.mark.parametrize(("glibc", "musl"), [("2.17", False), ("", True)])
def test_19_glibc_older_than_the_wheels_or_musl(glibc: str, musl: bool) -> None:
    sys = FakeSystem(glibc=glibc)
    if musl:
        sys.files["/lib/ld-musl-x86_64.so.1"] = ""
    f = _finding(sys, "system.glibc")
    assert (f.status, f.scenario) == (Status.FAIL, 19)
    assert "manylinux_2_28" in _remedy(f)


def test_20_system_cuda_shadows_pip_nvjitlink() -> None:
    sys = machines.wsl2_rtx4090_566()
    sys.environ["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.4/lib64"
    sys.files["/usr/local/cuda-12.4/lib64/libnvJitLink.so.12.4.127"] = ""
    f = _finding(sys, "nvidia.shadowing")
    assert (f.status, f.scenario) == (Status.WARN, 20)
    assert "grep -vxF -e /usr/local/cuda-12.4/lib64" in _remedy(f)


def test_21_32_bit_python() -> None:
    f = _finding(FakeSystem(interp=py(bits=32)), "python.bits")
    assert (f.status, f.scenario) == (Status.FAIL, 21)


@pytest.mark.parametrize(("version", "status"), [("3.9.18", Status.FAIL), ("3.15.0", Status.WARN)])
def test_22_python_outside_the_supported_range(version: str, status: Status) -> None:
    f = _finding(FakeSystem(interp=py(version=version)), "python.version")
    assert (f.status, f.scenario) == (status, 22)
    assert "3.10" in _remedy(f)


def test_23_nixos_driver_location() -> None:
    sys = machines.ubuntu_h100_580()
    del sys.libcuda["libcuda.so.1"]
    sys.files["/etc/NIXOS"] = ""
    assert "/run/opengl-driver/lib" in _remedy(_finding(sys, "nvidia.libcuda"))


def test_26_unwritable_cache() -> None:
    sys = FakeSystem(unwritable={"/home/me/.cache/tilec": "[Errno 13] Permission denied"})
    f = _finding(sys, "tilec.cache")
    assert (f.status, f.scenario) == (Status.WARN, 26)
    assert "TILEC_CACHE_DIR" in _remedy(f)


def test_cuda_visible_devices_hiding_every_gpu() -> None:
    sys = machines.ubuntu_h100_580()
    sys.environ["CUDA_VISIBLE_DEVICES"] = ""
    sys.libcuda["libcuda.so.1"] = DriverQuery(
        "libcuda.so.1", True, "cuInit failed: CUDA_ERROR_NO_DEVICE (100)", 13000
    )
    assert "unset CUDA_VISIBLE_DEVICES" in _remedy(_finding(sys, "nvidia.libcuda"))


def test_native_launcher_missing_is_a_warning_with_the_reason() -> None:
    f = _finding(
        FakeSystem(launcher_error="ImportError: undefined symbol: PyFoo"), "tilec.launcher"
    )
    assert f.status is Status.WARN
    assert "undefined symbol" in f.details[0]


def test_a_crashing_check_becomes_a_fail_finding_and_the_rest_still_run() -> None:
    def broken(facts, policy):
        raise ZeroDivisionError("boom")

    from tilec.platform.checks import CHECKS

    findings = run_checks(gather(FakeSystem()), checks=(broken, *CHECKS))
    assert (
        findings[0].status is Status.FAIL
        and "broken crashed: ZeroDivisionError" in findings[0].summary
    )
    assert len(findings) > 5


def test_llvmlite_older_than_required() -> None:
    from tilec.platform.facts import LLVMFacts
    from tilec.platform.system import HostCPU

    sys = FakeSystem(
        llvm_=(
            LLVMFacts("0.44.0", "15.0.7", ("nvptx64", "x86-64")),
            HostCPU("znver3", (), "x86_64"),
        )
    )
    f = _finding(sys, "cpu.llvmlite")
    assert f.status is Status.FAIL and "older than tilec needs (llvmlite ≥ 0.50)" in f.summary
    assert 'pip install --force-reinstall "llvmlite>=0.50"' in _remedy(f)


def test_x64_python_emulated_on_windows_on_arm() -> None:
    sys = machines.windows11_rtx3060()
    sys.native_machine = "ARM64"
    f = _finding(sys, "system.emulation")
    assert f.status is Status.WARN and "emulated on ARM64 Windows" in f.summary
    assert "ARM64 build of Python" in _remedy(f)
