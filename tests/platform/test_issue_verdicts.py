"""Verdicts the doctor used to get wrong: each machine is a FakeSystem fixture; the test asserts
the verdict, the remedy command, and, where the runtime decides too, that both say the same."""

from __future__ import annotations

import machines
from fake_system import FakeSystem, py

from tilec.platform.checks import run_checks
from tilec.platform.finding import Status
from tilec.platform.probes import gather
from tilec.platform.select import select_backend
from tilec.platform.system import CudaDevice, DriverQuery

GIB = 1 << 30
PCI = "/sys/bus/pci/devices/0000:01:00.0"


def _findings(sys: FakeSystem) -> dict:
    return {f.check: f for f in run_checks(gather(sys))}


def _jetson(l4t: str, cuda: int, gpu: CudaDevice) -> FakeSystem:
    sys = machines.linux_nvidia("", cuda, gpu)
    sys.uname_ = ("Linux", "5.15.148-tegra", "aarch64")
    del sys.files["/sys/module/nvidia/version"], sys.files["/proc/driver/nvidia/version"]
    major, _, rev = l4t.partition(".")
    sys.files["/etc/nv_tegra_release"] = (
        f"# R{major} (release), REVISION: {rev}, GCID: 1, BOARD: generic\n"
    )
    return sys


def test_jetson_xavier_is_known_to_both_and_its_driver_remedy_is_jetpack() -> None:
    from tilec.backends.cuda import ptx_version
    from tilec.backends.cuda.driver import arch_name

    xavier = CudaDevice("Xavier", 7, 2, 16 * GIB)
    found = _findings(_jetson("35.5.0", 11040, xavier))
    f = found["nvidia.driver"]
    assert f.status is Status.FAIL and "CUDA 11.4" in f.summary
    # Xavier's last JetPack (5.x) has CUDA 11.4: no driver upgrade helps, and ubuntu-drivers never
    assert "No JetPack release brings a CUDA 12.0 driver" in f.remedy
    assert f.remediation.commands == ()
    assert (arch_name(7, 2), ptx_version.choose("sm_72")) == ("sm_72", 70)  # no "does not know"


def test_jetson_orin_on_jetpack5_is_told_jetpack6() -> None:
    orin = CudaDevice("Orin", 8, 7, 32 * GIB)
    f = _findings(_jetson("35.5.0", 11040, orin))["nvidia.driver"]
    assert "JetPack 6.x (L4T R36, CUDA 12.6)" in f.remedy
    assert f.remediation.commands[-1] == "sudo apt update && sudo apt install nvidia-jetpack"


def test_jetson_thor_with_jetpack7_compiles_for_sm110() -> None:
    thor = CudaDevice("NVIDIA Thor", 11, 0, 128 * GIB)
    sel = select_backend(gather(machines.cu13_wheels(_jetson("38.2.0", 13000, thor))))
    assert (sel.backend, sel.arch, sel.ptx_version, sel.cubin_route) == (
        "cuda", "sm_110", 90, "nvjitlink"
    )  # fmt: skip


def test_b300_needs_cuda_12_9_r575() -> None:
    b300 = CudaDevice("NVIDIA B300 SXM6 AC", 10, 3, 270 * GIB)
    f = _findings(machines.cu12_wheels(machines.linux_nvidia("570.133.20", 12080, b300)))[
        "nvidia.driver_gpu"
    ]
    assert "needs an R575 driver (CUDA 12.9)" in f.summary
    assert "≥ 575.51.03" in f.remedy and "sudo ubuntu-drivers install" in f.remedy


def test_gb10_needs_r580_and_then_targets_sm121() -> None:
    gb10 = CudaDevice("NVIDIA GB10", 12, 1, 120 * GIB)
    f = _findings(machines.cu12_wheels(machines.linux_nvidia("575.64.03", 12090, gb10)))[
        "nvidia.driver_gpu"
    ]
    assert "R580" in f.summary and "≥ 580.65.06" in f.remedy
    sel = select_backend(
        gather(machines.cu13_wheels(machines.linux_nvidia("580.95.05", 13000, gb10)))
    )
    assert (sel.arch, sel.ptx_version, sel.cubin_route) == ("sm_121", 88, "nvjitlink")


def test_rtx5090_on_driver_550_is_told_the_r570_floor_per_os() -> None:
    gpu = CudaDevice("NVIDIA GeForce RTX 5090", 12, 0, 32 * GIB)
    f = _findings(machines.cu12_wheels(machines.linux_nvidia("550.144.03", 12040, gpu)))[
        "nvidia.driver_gpu"
    ]
    assert "≥ 570.26." in f.remedy and "525.60.13" not in f.remedy
    win = machines.windows11_rtx3060()
    win.libcuda["nvcuda.dll"] = DriverQuery("nvcuda.dll", True, "", 12040, devices=(gpu,))
    win.nvml = DriverQuery("nvml.dll", True, "", 12040, "552.22", (gpu,))
    assert "≥ 570.65." in _findings(win)["nvidia.driver_gpu"].remedy


def test_nvjitlink13_output_is_not_handed_to_an_r570_driver() -> None:
    h100 = CudaDevice("NVIDIA H100 80GB HBM3", 9, 0, 80 * GIB)
    sys = machines.cu13_wheels(machines.linux_nvidia("570.133.20", 12080, h100))
    sel = select_backend(gather(sys))
    assert (sel.cubin_route, sel.ptx_version) == ("driver-jit", 80)
    assert "need an R580 driver" in sel.finding.summary


def test_volta_on_a_driver_past_r580_is_refused() -> None:
    v100 = CudaDevice("Tesla V100-SXM2-32GB", 7, 0, 32 * GIB)
    f = _findings(machines.cu12_wheels(machines.linux_nvidia("590.44.01", 13010, v100)))[
        "nvidia.driver_gpu"
    ]
    assert "R580 is the last branch" in f.summary and "R580" in f.remedy


def test_kernel_module_loaded_but_libcuda_unusable_is_not_driver_not_loaded() -> None:
    sys = machines.ubuntu_h100_580()
    sys.libcuda.clear()
    sys.nvml = None
    sys.files.update(
        {f"{PCI}/vendor": "0x10de\n", f"{PCI}/class": "0x030200\n", f"{PCI}/device": "0x2330\n"}
    )
    found = _findings(sys)
    assert "nvidia.driver_loaded" not in found
    f = found["nvidia.libcuda"]
    assert "kernel module 580.65.06 is loaded (from sysfs)" in f.summary
    assert "sudo ldconfig" in f.remedy


def test_nouveau_loaded_gets_the_blacklist_remedy() -> None:
    sys = FakeSystem(files={"/etc/os-release": machines.UBUNTU, "/sys/module/nouveau/refcnt": "1\n",
                            f"{PCI}/vendor": "0x10de\n", f"{PCI}/class": "0x030000\n", f"{PCI}/device": "0x2684\n"})  # fmt: skip
    f = _findings(sys)["nvidia.nouveau"]
    assert f.status is Status.FAIL
    assert "blacklist nouveau" in f.remedy and "sudo update-initramfs -u" in f.remedy


def test_linux_driver_inside_wsl2_is_named_by_path() -> None:
    sys = machines.wsl2_rtx4090_566()
    gpu = CudaDevice("NVIDIA GeForce RTX 4090", 8, 9, 24 * GIB)
    lib = "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
    error = "cuInit failed: CUDA_ERROR_NO_DEVICE (100)"
    sys.libcuda["libcuda.so.1"] = DriverQuery("libcuda.so.1", True, error, 12080, resolved=lib)
    assert gpu.cc_major == 8  # the GPU stays visible through NVML
    f = _findings(sys)["nvidia.wsl_linux_driver"]
    assert lib in f.summary and f"dpkg -S {lib}" in f.remedy
    assert "apt-get remove --purge" in f.remedy


def _two_gpus(first: CudaDevice, second: CudaDevice, visible: str | None = None) -> FakeSystem:
    sys = machines.cu12_wheels(machines.linux_nvidia("570.133.20", 12080, first))
    sys.libcuda["libcuda.so.1"] = DriverQuery(
        "libcuda.so.1", True, "", 12080, devices=(first, second)
    )
    if visible is not None:
        sys.environ["CUDA_VISIBLE_DEVICES"] = visible
    return sys


GTX1080 = CudaDevice("NVIDIA GeForce GTX 1080", 6, 1, 8 * GIB)
RTX4090 = CudaDevice("NVIDIA GeForce RTX 4090", 8, 9, 24 * GIB)


def test_first_gpu_unusable_second_usable_names_cuda_visible_devices() -> None:
    sys = _two_gpus(GTX1080, RTX4090)
    sel = select_backend(gather(sys), require="cuda")
    assert not sel.works and sel.finding.check == "nvidia.devices"
    assert "export CUDA_VISIBLE_DEVICES=1" in sel.finding.remedy
    visible = _two_gpus(GTX1080, RTX4090, visible="2,3")
    assert "export CUDA_VISIBLE_DEVICES=3" in _findings(visible)["nvidia.devices"].remedy


def test_second_gpu_unusable_is_a_warning_with_the_selection() -> None:
    f = _findings(_two_gpus(RTX4090, GTX1080))["nvidia.devices"]
    assert f.status is Status.WARN and "GPU 1 (NVIDIA GeForce GTX 1080)" in f.summary
    assert "export CUDA_VISIBLE_DEVICES=0" in f.remedy


def test_empty_cuda_visible_devices_is_explained() -> None:
    sys = machines.ubuntu_h100_580()
    sys.environ["CUDA_VISIBLE_DEVICES"] = ""
    sys.libcuda["libcuda.so.1"] = DriverQuery(
        "libcuda.so.1", True, "cuInit failed: CUDA_ERROR_NO_DEVICE (100)", 13000
    )
    f = _findings(sys)["nvidia.libcuda"]
    assert 'CUDA_VISIBLE_DEVICES="" hides every GPU' in f.summary
    assert "unset CUDA_VISIBLE_DEVICES" in f.remedy


def test_free_threaded_python_gets_a_finding() -> None:
    f = _findings(FakeSystem(interp=py(version="3.14.0", free_threaded=True)))[
        "python.free_threaded"
    ]
    assert f.status is Status.WARN and "abi3" in f.remedy
    assert "uv venv --python 3.14" in f.remedy


def test_identical_gpus_are_grouped_in_one_line() -> None:
    h100 = CudaDevice("NVIDIA H100 80GB HBM3", 9, 0, 80 * GIB)
    sys = machines.ubuntu_h100_580()
    sys.libcuda["libcuda.so.1"] = DriverQuery("libcuda.so.1", True, "", 13000, devices=(h100,) * 8)
    f = _findings(sys)["nvidia.gpu"]
    assert "GPU 0-7: 8× NVIDIA H100 80GB HBM3 (CC 9.0, 80 GiB)" in f.details
    assert f.summary.count("H100") == 1


def test_a_schema_1_report_replays_with_defaults(tmp_path) -> None:
    import json

    from tilec.platform import doctor

    saved = json.loads(
        json.dumps(doctor.render_json(doctor.build_report(gather(machines.ubuntu_h100_580()))))
    )
    saved["schema_version"] = 1
    for key in ("libcuda_path", "nouveau", "l4t"):
        del saved["facts"]["nvidia"][key]
    del saved["facts"]["toolchain"]["cuda_bindings"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(saved))
    facts = doctor.load_facts(str(path))
    assert facts.toolchain.cuda_bindings is None and facts.nvidia.l4t == ""
    assert select_backend(facts).cubin_route == "nvjitlink"
