"""Probes read the right signals from a (fake) machine and never raise."""

from __future__ import annotations

import machines
import pytest
from fake_system import FakeSystem, py

from tilec.platform import probes
from tilec.platform.system import CommandResult
from tilec.platform.toolchain import find_libdevice, find_ptxas, libcuda_candidates, toolchain


@pytest.mark.parametrize(
    ("osrelease", "env", "files", "kind"),
    [
        ("5.15.167.4-microsoft-standard-WSL2", {}, {}, 2),
        ("4.4.0-19041-Microsoft", {}, {}, 1),
        ("6.6.36-custom", {"WSL_DISTRO_NAME": "Ubuntu", "WSL_INTEROP": "/run/WSL/1"}, {}, 2),
        ("6.6.36-custom", {}, {"/proc/sys/fs/binfmt_misc/WSLInterop": "", "/dev/dxg": ""}, 2),
        ("4.4.0-custom", {"WSL_DISTRO_NAME": "Ubuntu"}, {}, 1),
        ("6.8.0-45-generic", {}, {}, 0),
    ],
)
def test_wsl_kind_combines_kernel_name_environment_and_files(osrelease, env, files, kind) -> None:
    assert probes.wsl_kind(FakeSystem(environ=env, files=files), osrelease) == kind


@pytest.mark.parametrize(
    ("files", "env", "kind"),
    [
        ({"/.dockerenv": ""}, {}, "docker"),
        ({"/run/.containerenv": ""}, {}, "podman"),
        ({}, {"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, "kubernetes"),
        ({"/proc/1/cgroup": "12:pids:/kubepods/besteffort/pod1\n"}, {}, "kubernetes"),
        ({"/proc/1/cgroup": "0::/init.scope\n"}, {}, ""),
    ],
)
def test_container_markers(files, env, kind) -> None:
    assert probes.container_kind(FakeSystem(files=files, environ=env)) == kind


def test_driver_version_from_proc_when_sysfs_is_missing() -> None:
    facts = probes.gather(machines.linux_driver_470())
    assert (facts.nvidia.driver_version, facts.nvidia.driver_source) == ("470.256.02", "proc")
    assert facts.nvidia.cuda_version == 11040
    assert facts.nvidia.gpus[0].compute_capability == "7.5"


def test_nvidia_smi_without_compute_cap_field_falls_back_to_the_old_query() -> None:
    sys = FakeSystem(
        files={"/dev/nvidiactl": "", "/usr/bin/nvidia-smi": ""}, environ={"PATH": "/usr/bin"}
    )
    smi = "/usr/bin/nvidia-smi"
    new = "--query-gpu=name,memory.total,driver_version,compute_cap"
    sys.commands[(smi, new)] = CommandResult(2, "", 'Field "compute_cap" is not a valid field')
    sys.commands[(smi,)] = CommandResult(0, "Tesla K80, 11441, 470.82.01\n")
    facts = probes.gather(sys)
    assert facts.nvidia.driver_version == "470.82.01"
    assert facts.nvidia.driver_source == "nvidia-smi"
    assert [(g.name, g.compute_capability, g.memory_mib) for g in facts.nvidia.gpus] == [
        ("Tesla K80", "", 11441)
    ]


def test_gpu_on_the_pci_bus_without_a_driver_is_still_reported() -> None:
    dev = "/sys/bus/pci/devices/0000:01:00.0"
    sys = FakeSystem(
        files={
            f"{dev}/vendor": "0x10de\n",
            f"{dev}/class": "0x030200\n",
            f"{dev}/device": "0x2330\n",
        }
    )
    facts = probes.gather(sys)
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA GPU (PCI 0x2330)"]
    assert facts.nvidia.gpus[0].compute_capability == ""


@pytest.mark.parametrize(
    ("encoded", "name"),
    [(90402, "gfx942"), (110000, "gfx1100"), (100300, "gfx1030"), (90010, "gfx90a")],
)
def test_kfd_gfx_target_version_to_gfx_name(encoded: int, name: str) -> None:
    assert probes._gfx_name(encoded) == name


def test_amd_gpus_from_kfd_topology_skip_cpu_nodes() -> None:
    facts = probes.gather(machines.linux_amd_mi300_radeon())
    assert [(g.vendor, g.arch) for g in facts.other_gpus] == [("amd", "gfx942"), ("amd", "gfx1100")]
    assert facts.rocm == "/opt/rocm (6.2.0-66)"
    assert facts.hsa_override_gfx_version == "11.0.0"


def test_intel_gpu_from_pci_class_and_vendor() -> None:
    dev = "/sys/bus/pci/devices/0000:00:02.0"
    sys = FakeSystem(
        files={
            f"{dev}/vendor": "0x8086\n",
            f"{dev}/class": "0x030000\n",
            f"{dev}/device": "0x56a0\n",
        }
    )
    assert [(g.vendor, g.name) for g in probes.gather(sys).other_gpus] == [
        ("intel", "Intel GPU (PCI 0x56a0)")
    ]


@pytest.mark.parametrize(
    ("interp", "files", "env", "kind"),
    [
        (py(prefix="/opt/conda"), {"/opt/conda/conda-meta/history": ""}, {}, "conda"),
        (py(prefix="/venv"), {}, {}, "venv"),
        (py(prefix="/usr", base_prefix="/usr", executable="/usr/bin/python3"), {}, {}, "system"),
        (
            py(prefix="C:/py", base_prefix="C:/py", executable="C:/py/python.exe"),
            {"C:/py/python312._pth": ""},
            {},
            "embedded",
        ),
        (
            py(
                prefix="C:/W",
                base_prefix="C:/W",
                executable="C:/Users/me/AppData/Local/Microsoft/WindowsApps/python.exe",
            ),
            {},
            {},
            "msstore",
        ),
    ],
)
def test_python_environment_kind(interp, files, env, kind) -> None:
    assert probes.python_facts(FakeSystem(interp=interp, files=files, environ=env)).env_kind == kind


def test_explicit_ptxas_path_wins_over_pip_wheels() -> None:
    sys = machines.cu13_wheels(FakeSystem(environ={"TILEC_PTXAS_PATH": "/opt/cuda-13.1/bin/ptxas"}))
    sys.files["/opt/cuda-13.1/bin/ptxas"] = ""
    sys.commands[("/opt/cuda-13.1/bin/ptxas", "--version")] = CommandResult(
        0, "Cuda compilation tools, release 13.1, V13.1.80\n"
    )
    tool = find_ptxas(sys)
    assert (tool.path, tool.found_via, tool.version) == (
        "/opt/cuda-13.1/bin/ptxas",
        "TILEC_PTXAS_PATH",
        "13.1.80",
    )


def test_cuda_home_toolkit_found_with_its_version_json() -> None:
    root = "/usr/local/cuda-12.4"
    sys = FakeSystem(
        environ={"CUDA_HOME": root},
        files={
            f"{root}/nvvm/libdevice/libdevice.10.bc": "",
            f"{root}/version.json": '{"cuda": {"version": "12.4.1"}}',
        },
    )
    tool = find_libdevice(sys)
    assert (tool.found_via, tool.version) == ("CUDA_HOME", "12.4.1")


def test_nothing_found_reports_why() -> None:
    tools = toolchain(FakeSystem())
    assert not tools.ptxas.found and tools.ptxas.error == "not found"
    assert not tools.libcuda.found and "libcuda.so.1" in tools.libcuda.error


def test_system_cuda_on_ld_library_path_shadows_pip_nvjitlink() -> None:
    sys = machines.cu12_wheels(
        FakeSystem(environ={"LD_LIBRARY_PATH": "/usr/local/cuda-12.4/lib64:/opt/x"})
    )
    sys.files["/usr/local/cuda-12.4/lib64/libnvJitLink.so.12"] = ""
    assert toolchain(sys).shadowing == ("/usr/local/cuda-12.4/lib64",)


def test_libcuda_search_tries_the_override_then_loader_then_wsl() -> None:
    wsl = machines.wsl2_rtx4090_566()
    wsl.environ["TILEC_LIBCUDA_PATH"] = "/custom"
    tried = [p for _, p in libcuda_candidates(wsl)]
    assert tried == ["/custom/libcuda.so.1", "libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"]


def test_a_crashing_probe_becomes_a_probe_error_not_an_exception() -> None:
    class Broken(FakeSystem):
        def llvm(self):
            raise RuntimeError("llvmlite exploded")

    facts = probes.gather(Broken())
    assert facts.probe_errors == ("cpu: RuntimeError: llvmlite exploded",)
    assert facts.cpu.name == ""


def test_real_machine_facts_name_the_host_cpu() -> None:
    import llvmlite.binding as llvm

    facts = probes.gather_facts()
    assert facts.cpu.name == llvm.get_host_cpu_name()
    assert facts.cpu.cores >= 1
    assert facts.probe_errors == ()


def test_toolkit_libdevice_without_version_json_takes_its_ptxas_version() -> None:
    root = "/usr/local/cuda"
    sys = FakeSystem(
        environ={"CUDA_HOME": root},
        files={f"{root}/bin/ptxas": "", f"{root}/nvvm/libdevice/libdevice.10.bc": ""},
    )
    sys.commands[(f"{root}/bin/ptxas", "--version")] = CommandResult(
        0, "Cuda compilation tools, release 13.0, V13.0.88\n"
    )
    facts = probes.gather(sys)
    assert (facts.toolchain.libdevice.found_via, facts.toolchain.libdevice.version) == (
        "CUDA_HOME",
        "13.0.88",
    )


@pytest.mark.parametrize(
    ("files", "cores"),
    [
        ({"/sys/fs/cgroup/cpu.max": "250000 100000\n"}, 3),
        ({"/sys/fs/cgroup/cpu.max": "max 100000\n"}, 0),
        (
            {
                "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "200000\n",
                "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
            },
            2,
        ),
        (
            {
                "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n",
                "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
            },
            0,
        ),
        ({}, 0),
    ],
)
def test_cgroup_cpu_quota(files: dict, cores: int) -> None:
    facts = probes.gather(FakeSystem(files=files))
    assert facts.cpu.quota_cores == cores
    assert facts.cpu.cores_text == (f"16 cores, {cores} by cgroup quota" if cores else "16 cores")
