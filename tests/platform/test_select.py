"""select_backend: PTX ISA within driver, LLVM and linker limits; route; install line; require=."""

from __future__ import annotations

import machines
import pytest
from fake_system import FakeSystem

from tilec.platform.finding import Status
from tilec.platform.probes import gather
from tilec.platform.select import NOTHING_TO_INSTALL, select_backend
from tilec.platform.system import CommandResult, CudaDevice

GIB = 1 << 30
H100 = CudaDevice("NVIDIA H100 80GB HBM3", 9, 0, 80 * GIB)


def test_ptx_is_capped_by_the_driver_even_with_a_newer_linker() -> None:
    sel = select_backend(
        gather(machines.cu12_wheels(machines.linux_nvidia("550.90.07", 12040, H100)))
    )
    assert (sel.backend, sel.arch, sel.ptx_version, sel.cubin_route) == (
        "cuda",
        "sm_90a",
        80,
        "nvjitlink",
    )


def test_ptx_is_capped_by_the_linker_on_a_newer_driver() -> None:
    sel = select_backend(
        gather(machines.cu12_wheels(machines.linux_nvidia("580.65.06", 13000, H100)))
    )
    assert (sel.ptx_version, sel.cubin_route, sel.install) == (
        80,
        "nvjitlink",
        machines.CU13_LINE,
    )


def test_ptxas_is_used_when_nvjitlink_is_missing() -> None:
    sys = machines.cu13_wheels(machines.linux_nvidia("580.65.06", 13000, H100))
    del sys.files[f"{machines.SITE}/nvidia/cu13/lib/libnvJitLink.so.13"]
    sel = select_backend(gather(sys))
    assert (sel.cubin_route, sel.ptx_version) == ("ptxas", 80)


def test_no_toolchain_falls_back_to_the_driver_jit_with_a_warning() -> None:
    sel = select_backend(gather(machines.linux_nvidia("580.65.06", 13000, H100)))
    assert (sel.backend, sel.cubin_route, sel.ptx_version) == ("cuda", "driver-jit", 80)
    assert sel.finding is not None and sel.finding.status is Status.WARN
    assert machines.CU13_LINE in sel.finding.remedy


def test_volta_cannot_use_cuda13_tools_and_installs_cuda12() -> None:
    v100 = CudaDevice("Tesla V100-SXM2-32GB", 7, 0, 32 * GIB)
    sel = select_backend(
        gather(machines.cu13_wheels(machines.linux_nvidia("580.65.06", 13000, v100)))
    )
    assert (sel.arch, sel.cubin_route, sel.install) == (
        "sm_70",
        "driver-jit",
        machines.CU12_LINE,
    )


def test_install_line_from_driver_branch_when_libcuda_cannot_say() -> None:
    sys = machines.ubuntu_h100_580()
    del sys.libcuda["libcuda.so.1"]
    sys.nvml = None
    sys.files["/usr/bin/nvidia-smi"] = ""
    sys.environ["PATH"] = "/usr/bin"
    answer = "NVIDIA H100 80GB HBM3, 81559, 580.65.06, 9.0\n"
    sys.commands[("/usr/bin/nvidia-smi",)] = CommandResult(0, answer)
    sel = select_backend(gather(sys))
    assert (sel.backend, sel.install) == ("cpu", machines.CU13_LINE)


def test_cpu_selection_carries_host_cpu_and_features() -> None:
    sel = select_backend(gather(FakeSystem()))
    assert (sel.backend, sel.arch, sel.features, sel.install) == (
        "cpu",
        "znver4",
        ("avx2", "fma"),
        NOTHING_TO_INSTALL,
    )
    assert sel.works and sel.finding is None


@pytest.mark.parametrize("require", ["cuda", "cpu"])
def test_require_reports_whether_that_backend_works(require: str) -> None:
    sel = select_backend(gather(machines.linux_gtx1080()), require=require)
    assert sel.backend == require
    assert sel.works is (require == "cpu")
    if require == "cuda":
        assert sel.finding is not None and sel.finding.check == "nvidia.compute_capability"
        assert "Volta-or-newer" in sel.finding.remedy


def test_runtime_error_message_comes_from_the_same_finding_as_the_doctor() -> None:
    from tilec.platform.checks import run_checks

    facts = gather(machines.linux_driver_470())
    sel = select_backend(facts, require="cuda")
    doctor_finding = next(f for f in run_checks(facts) if f.check == "nvidia.driver")
    assert sel.finding.summary == doctor_finding.summary
    assert sel.finding.remedy == doctor_finding.remedy


def test_cu12_nvjitlink_beside_cu13_is_chosen_for_a_cuda12_driver() -> None:
    sys = machines.cu12_wheels(
        machines.cu13_wheels(machines.linux_nvidia("570.133.20", 12080, H100))
    )
    facts = gather(sys)
    assert facts.toolchain.nvjitlink.path.endswith("libnvJitLink.so.12")
    sel = select_backend(facts)
    assert (sel.cubin_route, sel.ptx_version, sel.install) == (
        "nvjitlink",
        80,
        machines.CU12_LINE,
    )
