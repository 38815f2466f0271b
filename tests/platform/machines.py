"""The machines of issue #3, each a FakeSystem built from what that machine really exposes."""

from __future__ import annotations

from fake_system import SITE, FakeSystem, py

from tilec.platform.facts import LLVMFacts
from tilec.platform.system import CommandResult, CudaDevice, DriverQuery, HostCPU

GIB = 1 << 30
# what `tilec doctor` tells a wheel install to run for each CUDA major: the [cuda] and [cuda12]
# extras' packages by name (no package index serves tilec itself)
CU13_LINE = (
    'pip install "cuda-bindings>=13,<14" "cuda-pathfinder>=1.2" "nvidia-nvjitlink>=13,<14" '
    '"nvidia-cuda-nvcc>=13,<14" "nvidia-nvvm>=13,<14"'
)
CU12_LINE = (
    'pip install "cuda-bindings>=12.8,<13" "cuda-pathfinder>=1.2" '
    '"nvidia-nvjitlink-cu12>=12.8,<13" "nvidia-cuda-nvcc-cu12>=12.8,<13"'
)
UBUNTU = 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\n'


def _ptxas_version(release: str) -> CommandResult:
    out = f"ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release {release[:4]}, V{release}\n"
    return CommandResult(0, out)


def cu13_wheels(sys: FakeSystem, version: str = "13.0.88") -> FakeSystem:
    """The [cuda] extra: nvidia-nvjitlink, nvidia-cuda-nvcc, nvidia-nvvm (CUDA 13)."""
    lib = f"{SITE}/nvidia/cu13/lib/libnvJitLink.so.13"
    ptxas = f"{SITE}/nvidia/cu13/bin/ptxas"
    sys.files.update({lib: "", ptxas: "", f"{SITE}/nvidia/cu13/nvvm/libdevice/libdevice.10.bc": ""})
    sys.nvjitlink[lib] = version[:4]
    sys.commands[(ptxas, "--version")] = _ptxas_version(version)
    sys.dists.update(
        {"nvidia-nvjitlink": version, "nvidia-cuda-nvcc": version, "nvidia-nvvm": version}
    )
    sys.dists["cuda-bindings"] = "13.0.3"  # the [cuda] extra's cuda-bindings (its nvJitLink: 13)
    return sys


def cu12_wheels(sys: FakeSystem, version: str = "12.9.86", ptxas: bool = True) -> FakeSystem:
    """The [cuda12] extra: nvidia-nvjitlink-cu12 and nvidia-cuda-nvcc-cu12."""
    lib = f"{SITE}/nvidia/nvjitlink/lib/libnvJitLink.so.12"
    sys.files[lib] = ""
    sys.nvjitlink[lib] = version[:4]
    sys.dists["nvidia-nvjitlink-cu12"] = version
    sys.dists["cuda-bindings"] = "12.9.2"  # the [cuda12] extra's cuda-bindings
    if ptxas:
        exe = f"{SITE}/nvidia/cuda_nvcc/bin/ptxas"
        sys.files.update({exe: "", f"{SITE}/nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc": ""})
        sys.commands[(exe, "--version")] = _ptxas_version(version)
        sys.dists["nvidia-cuda-nvcc-cu12"] = version
    return sys


def linux_nvidia(driver: str, cuda: int, gpu: CudaDevice, *, proc_only: bool = False) -> FakeSystem:
    """Native Ubuntu with the NVIDIA kernel module loaded and libcuda on the loader path."""
    sys = FakeSystem(files={"/etc/os-release": UBUNTU, "/dev/nvidiactl": "", "/dev/nvidia0": ""})
    proc = (
        f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver}  Thu May  2 14:37:44 UTC 2024\n"
    )
    sys.files["/proc/driver/nvidia/version"] = proc
    if not proc_only:
        sys.files["/sys/module/nvidia/version"] = driver + "\n"
    sys.libcuda["libcuda.so.1"] = DriverQuery("libcuda.so.1", True, "", cuda, devices=(gpu,))
    sys.nvml = DriverQuery("libnvidia-ml.so.1", True, "", cuda, driver, (gpu,))
    sys.dists["cuda-bindings"] = "13.0.3" if cuda >= 13000 else "12.9.2"
    return sys


def ubuntu_h100_580() -> FakeSystem:
    h100 = CudaDevice("NVIDIA H100 80GB HBM3", 9, 0, 80 * GIB)
    return cu13_wheels(linux_nvidia("580.65.06", 13000, h100))


def wsl2_rtx4090_566() -> FakeSystem:
    gpu = CudaDevice("NVIDIA GeForce RTX 4090", 8, 9, 24 * GIB)
    wsl = "/usr/lib/wsl/lib"
    sys = FakeSystem(
        uname_=("Linux", "5.15.167.4-microsoft-standard-WSL2", "x86_64"),
        files={
            "/etc/os-release": UBUNTU,
            "/proc/sys/kernel/osrelease": "5.15.167.4-microsoft-standard-WSL2\n",
            "/dev/dxg": "",
            f"{wsl}/libcuda.so.1": "",
            f"{wsl}/nvidia-smi": "",
        },
        environ={"WSL_DISTRO_NAME": "Ubuntu", "WSL_INTEROP": "/run/WSL/1_interop"},
    )
    sys.libcuda[f"{wsl}/libcuda.so.1"] = DriverQuery(
        f"{wsl}/libcuda.so.1", True, "", 12070, devices=(gpu,)
    )
    sys.nvml = DriverQuery(f"{wsl}/libnvidia-ml.so.1", True, "", 12070, "566.36", (gpu,))
    return cu12_wheels(sys)


def wsl1() -> FakeSystem:
    return FakeSystem(
        uname_=("Linux", "4.4.0-19041-Microsoft", "x86_64"),
        files={"/etc/os-release": UBUNTU, "/proc/sys/kernel/osrelease": "4.4.0-19041-Microsoft\n"},
        environ={"WSL_DISTRO_NAME": "Ubuntu"},
    )


def windows11_rtx3060() -> FakeSystem:
    gpu = CudaDevice("NVIDIA GeForce RTX 3060", 8, 6, 12 * GIB)
    sys = FakeSystem(
        uname_=("Windows", "10.0.22631", "AMD64"),
        glibc="",
        registry={"LongPathsEnabled": 0},
        interp=py(prefix="C:/venv", platform_tag="win-amd64"),
        environ={"LOCALAPPDATA": "C:/Users/me/AppData/Local"},
    )
    sys.libcuda["nvcuda.dll"] = DriverQuery("nvcuda.dll", True, "", 12080, devices=(gpu,))
    sys.nvml = DriverQuery("nvml.dll", True, "", 12080, "572.83", (gpu,))
    dll = f"{SITE}/nvidia/nvjitlink/bin/nvJitLink_120_0.dll"
    sys.files[dll] = ""
    sys.nvjitlink[dll] = "12.8"
    sys.dists["cuda-bindings"] = "12.8.0"
    return sys


def macos14_arm64() -> FakeSystem:
    return FakeSystem(
        uname_=("Darwin", "14.6.1", "arm64"),
        glibc="",
        sysctls={
            "hw.optional.arm64": "1",
            "sysctl.proc_translated": "0",
            "machdep.cpu.brand_string": "Apple M3 Pro",
        },
        llvm_=(
            LLVMFacts("0.50.0", "22.1.0", ("nvptx64", "amdgcn", "aarch64")),
            HostCPU("apple-m3", ("fp-armv8", "neon"), "arm64-apple-darwin23.6.0"),
        ),
        interp=py(platform_tag="macosx-11.0-arm64"),
        cores=12,
    )


def macos_rosetta() -> FakeSystem:
    sys = macos14_arm64()
    sys.uname_ = ("Darwin", "14.6.1", "x86_64")
    sys.sysctls["sysctl.proc_translated"] = "1"
    sys.llvm_ = (LLVM_X86, HostCPU("westmere", ("sse4.2",), "x86_64-apple-darwin23.6.0"))
    sys.interp = py(platform_tag="macosx-10.9-x86_64")
    return sys


LLVM_X86 = LLVMFacts("0.50.0", "22.1.0", ("nvptx64", "amdgcn", "x86-64"))


def linux_gtx1080() -> FakeSystem:
    gpu = CudaDevice("NVIDIA GeForce GTX 1080", 6, 1, 8 * GIB)
    return cu12_wheels(linux_nvidia("535.183.01", 12020, gpu))


def linux_amd_mi300_radeon() -> FakeSystem:
    topo = "/sys/class/kfd/kfd/topology/nodes"
    return FakeSystem(
        files={
            "/etc/os-release": UBUNTU,
            f"{topo}/0/properties": "cpu_cores_count 96\ngfx_target_version 0\n",
            f"{topo}/0/name": "\n",
            f"{topo}/1/properties": "simd_count 1216\ngfx_target_version 90402\n",
            f"{topo}/1/name": "AMD Instinct MI300X\n",
            f"{topo}/2/properties": "simd_count 192\ngfx_target_version 110000\n",
            f"{topo}/2/name": "AMD Radeon RX 7900 XTX\n",
            "/opt/rocm/.info/version": "6.2.0-66\n",
            "/dev/kfd": "",
        },
        environ={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"},
    )


def linux_intel_arc() -> FakeSystem:
    dev = "/sys/bus/pci/devices/0000:03:00.0"
    return FakeSystem(
        files={
            "/etc/os-release": UBUNTU,
            f"{dev}/vendor": "0x8086\n",
            f"{dev}/class": "0x030000\n",
            f"{dev}/device": "0x56a0\n",  # Arc A770
        }
    )


def container_without_gpu() -> FakeSystem:
    return FakeSystem(
        files={"/etc/os-release": UBUNTU, "/.dockerenv": "", "/proc/1/cgroup": "0::/\n"},
        environ={"NVIDIA_VISIBLE_DEVICES": "all", "CUDA_VERSION": "12.4.1"},
    )


def linux_driver_470() -> FakeSystem:
    gpu = CudaDevice("Tesla T4", 7, 5, 15 * GIB)
    return cu12_wheels(linux_nvidia("470.256.02", 11040, gpu, proc_only=True))


def blackwell_old_toolchain() -> FakeSystem:
    gpu = CudaDevice("NVIDIA GeForce RTX 5090", 12, 0, 32 * GIB)
    return cu12_wheels(linux_nvidia("575.64.03", 12090, gpu), version="12.6.85")


def no_llvm_nvptx() -> FakeSystem:
    sys = ubuntu_h100_580()
    sys.llvm_ = (LLVMFacts("0.50.0", "22.1.0", ("x86-64",)), sys.llvm_[1])
    return sys
