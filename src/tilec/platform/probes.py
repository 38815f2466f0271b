"""Probes: ask a ``System`` about OS, Python, CPU, GPUs, toolchain and tilec, and build ``Facts``.

Each probe is guarded: one that raises leaves its default value and a line in
``Facts.probe_errors``, so a report is always produced. ``gather_facts()`` caches the real
machine's facts for the process (nothing runs at import time).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Callable
from typing import TypeVar

from .facts import (
    GPU,
    CPUFacts,
    Facts,
    LLVMFacts,
    NvidiaFacts,
    OSFacts,
    PythonFacts,
    TilecFacts,
    Tool,
    Toolchain,
    TritonFacts,
)
from .install import InstallKind, classify, direct_url_directory
from .system import DriverQuery, System
from .toolchain import (
    WSL_LIB,
    find_libdevice,
    find_nvjitlink,
    find_ptxas,
    probe_libcuda,
    shadowing_dirs,
    toolchain,
    versioned_libdevice,
)
from .triton_probe import triton_facts

__all__ = ["gather", "gather_facts", "toolchain"]

T = TypeVar("T")


def _read_first_line(system: System, path: str) -> str:
    text = system.read_text(path)
    return text.strip().splitlines()[0].strip() if text and text.strip() else ""


def wsl_kind(system: System, osrelease: str) -> int:
    """0 native Linux, 1 WSL1, 2 WSL2 — several signals, since custom kernels hide the name."""
    if "microsoft-standard" in osrelease.lower() or "wsl2" in osrelease.lower():
        return 2
    if "Microsoft" in osrelease:  # WSL1 kernels spell it with a capital M: 4.4.0-19041-Microsoft
        return 1
    env = system.env
    if env.get("WSL_DISTRO_NAME") or system.exists("/proc/sys/fs/binfmt_misc/WSLInterop"):
        dxg = system.exists("/dev/dxg") or system.exists(WSL_LIB)
        return 2 if dxg or env.get("WSL_INTEROP") else 1
    return 0


def container_kind(system: System) -> str:
    env = system.env
    if system.exists("/.dockerenv"):
        return "docker"
    if system.exists("/run/.containerenv"):
        return "podman"
    if env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if env.get("container"):
        return env["container"]
    cgroup = system.read_text("/proc/1/cgroup") or ""
    for marker, kind in (("kubepods", "kubernetes"), ("docker", "docker"), ("lxc", "lxc")):
        if marker in cgroup:
            return kind
    return ""


def _os_release(system: System) -> str:
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        match = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', system.read_text(path) or "", re.M)
        if match:
            return match.group(1)
    return ""


def _wsl_lib_on_loader_path(system: System) -> bool:
    if WSL_LIB in system.env.get("LD_LIBRARY_PATH", "").split(":"):
        return True
    return any(WSL_LIB in (system.read_text(p) or "") for p in system.glob("/etc/ld.so.conf.d/*"))


def os_facts(system: System) -> OSFacts:
    sysname, release, machine = system.uname()
    name = sysname.lower()
    if name == "linux":
        osrelease = _read_first_line(system, "/proc/sys/kernel/osrelease") or release
        glibc = system.glibc_version()
        return OSFacts(
            system=name,
            release=osrelease,
            machine=machine,
            distro=_os_release(system),
            glibc=glibc,
            musl=not glibc and bool(system.glob("/lib/ld-musl-*")),
            wsl=wsl_kind(system, osrelease),
            wsl_lib_on_loader_path=_wsl_lib_on_loader_path(system),
            container=container_kind(system),
            nixos=system.exists("/etc/NIXOS"),
        )
    if name == "windows":
        key = r"SYSTEM\CurrentControlSet\Control\FileSystem"
        long_paths = system.windows_registry_dword(key, "LongPathsEnabled")
        return OSFacts(
            system=name,
            release=release,
            machine=machine,
            windows_build=system.windows_build(),
            native_machine=system.windows_native_machine(),
            long_paths=None if long_paths is None else long_paths == 1,
        )
    if name == "darwin":
        return OSFacts(
            system=name,
            release=system.mac_version() or release,
            machine=machine,
            apple_silicon=system.sysctl("hw.optional.arm64") == "1",
            rosetta=system.sysctl("sysctl.proc_translated") == "1",
        )
    return OSFacts(system=name, release=release, machine=machine)


def python_facts(system: System) -> PythonFacts:
    py = system.interpreter()
    env = system.env
    if system.exists(os.path.join(py.prefix, "conda-meta")) or env.get("CONDA_PREFIX") == py.prefix:
        kind = "conda"
    elif py.prefix != py.base_prefix:
        kind = "venv"
    elif "WindowsApps" in py.executable:
        kind = "msstore"
    elif system.glob(os.path.join(os.path.dirname(py.executable), "python3*._pth")):
        kind = "embedded"  # the Windows embeddable zip ships a ._pth file and no headers/libs
    else:
        kind = "system"
    return PythonFacts(
        version=py.version,
        implementation=py.implementation,
        bits=py.maxsize_bits,
        free_threaded=py.free_threaded,
        env_kind=kind,
        executable=py.executable,
        platform_tag=py.platform_tag,
        pip_version=system.dist_version("pip"),
    )


def cgroup_quota_cores(system: System) -> int:
    """CPUs granted by a cgroup CPU quota (v2 cpu.max, else v1 cfs files), rounded up; 0 = none."""
    fields = (system.read_text("/sys/fs/cgroup/cpu.max") or "").split()
    if len(fields) != 2:
        v1 = "/sys/fs/cgroup/cpu/cpu.cfs_"
        fields = [
            _read_first_line(system, v1 + "quota_us"),
            _read_first_line(system, v1 + "period_us"),
        ]
    quota, period = fields
    if not quota.isdigit() or not period.isdigit() or int(period) == 0:
        return 0  # "max" or -1: no quota
    return -(-int(quota) // int(period))


def cpu_and_llvm(system: System) -> tuple[CPUFacts, LLVMFacts]:
    llvm, host = system.llvm()
    cpu = CPUFacts(
        host.name, host.features, system.cpu_count(), cgroup_quota_cores(system), host.triple
    )
    return cpu, llvm


def _driver_version(system: System, nvml: DriverQuery) -> tuple[str, str]:
    version = _read_first_line(system, "/sys/module/nvidia/version")
    if version:
        return version, "sysfs"
    proc = system.read_text("/proc/driver/nvidia/version") or ""
    match = re.search(r"Kernel Module\s+(?:for \S+\s+)?(\d+\.\d+(?:\.\d+)?)", proc)
    if match:
        return match.group(1), "proc"
    if nvml.driver_version:
        return nvml.driver_version, "nvml"
    return "", ""


def _nvidia_smi(system: System) -> str:
    return system.which("nvidia-smi") or (
        f"{WSL_LIB}/nvidia-smi" if system.exists(f"{WSL_LIB}/nvidia-smi") else ""
    )


def _smi_gpus(system: System) -> tuple[tuple[GPU, ...], str]:
    """GPUs and the driver version from nvidia-smi (old drivers lack compute_cap: left '')."""
    smi = _nvidia_smi(system)
    if not smi:
        return (), ""
    fields = "name,memory.total,driver_version,compute_cap"
    result = system.run([smi, f"--query-gpu={fields}", "--format=csv,noheader,nounits"])
    if not result.ok:
        fields = "name,memory.total,driver_version"
        result = system.run([smi, f"--query-gpu={fields}", "--format=csv,noheader,nounits"])
    gpus, driver = [], ""
    for line in result.stdout.strip().splitlines() if result.ok else ():
        parts = [p.strip() for p in line.split(",")] + [""]
        mem = int(parts[1]) if parts[1].isdigit() else 0
        gpus.append(GPU("nvidia", parts[0], parts[3] if len(parts) > 4 else "", memory_mib=mem))
        driver = parts[2]
    return tuple(gpus), driver


def _nvml_path(system: System) -> str:
    if system.uname()[0].lower() == "windows":
        return "nvml.dll"
    return f"{WSL_LIB}/libnvidia-ml.so.1" if system.exists(WSL_LIB) else "libnvidia-ml.so.1"


def _gpus_from(query: DriverQuery | None) -> tuple[GPU, ...]:
    if query is None or not query.loaded or query.error:
        return ()
    return tuple(
        GPU("nvidia", d.name, f"{d.cc_major}.{d.cc_minor}", memory_mib=d.memory_bytes >> 20)
        for d in query.devices
    )


def nvidia_facts(system: System, libcuda: DriverQuery | None) -> NvidiaFacts:
    env = system.env
    nodes = any(system.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg"))
    driver_files = system.exists("/proc/driver/nvidia/version") or nodes
    nvml = system.query_nvml(_nvml_path(system))
    driver, source = _driver_version(system, nvml)
    gpus = _gpus_from(libcuda) or _gpus_from(nvml)
    if (not gpus or not driver) and (driver_files or nvml.loaded or libcuda is not None):
        smi_gpus, smi_driver = _smi_gpus(system)
        gpus = gpus or smi_gpus
        driver, source = (
            (driver, source) if driver else (smi_driver, "nvidia-smi" if smi_driver else "")
        )
    cuda = libcuda.cuda_version if libcuda is not None and libcuda.loaded else 0
    return NvidiaFacts(
        driver_version=driver,
        driver_source=source,
        cuda_version=cuda or nvml.cuda_version,
        gpus=gpus,
        device_nodes=nodes,
        cuda_visible_devices=env.get("CUDA_VISIBLE_DEVICES"),
        container_visible_devices=env.get("NVIDIA_VISIBLE_DEVICES"),
        image_cuda_version=env.get("CUDA_VERSION", ""),
        libcuda_path=_libcuda_file(libcuda),
        nouveau=system.exists("/sys/module/nouveau"),
        l4t=l4t_release(system),
    )


def _libcuda_file(query: DriverQuery | None) -> str:
    if query is None or not query.loaded:
        return ""
    return query.resolved or (query.path if os.path.isabs(query.path) else "")


def l4t_release(system: System) -> str:
    """'36.4.3' from Jetson's /etc/nv_tegra_release ('# R36 (release), REVISION: 4.3, ...')."""
    text = system.read_text("/etc/nv_tegra_release") or ""
    match = re.search(r"R(\d+)\s*\(release\),\s*REVISION:\s*([\d.]+)", text)
    return f"{match.group(1)}.{match.group(2)}" if match else ""


def _gfx_name(target_version: int) -> str:
    """KFD's gfx_target_version 90402 → gfx942 (major, then minor and stepping in hex)."""
    major, minor, step = target_version // 10000, target_version // 100 % 100, target_version % 100
    return f"gfx{major}{minor:x}{step:x}"


def _pci_gpus(system: System, vendor_id: str) -> list[str]:
    """PCI device ids of display controllers (base class 0x03) from one vendor."""
    found = []
    for dev in system.glob("/sys/bus/pci/devices/*"):
        if _read_first_line(system, f"{dev}/vendor").lower() != vendor_id:
            continue
        if _read_first_line(system, f"{dev}/class").lower().startswith("0x03"):
            found.append(_read_first_line(system, f"{dev}/device"))
    return found


def other_gpus(system: System) -> tuple[GPU, ...]:
    sysname = system.uname()[0].lower()
    if sysname == "darwin":
        if system.sysctl("hw.optional.arm64") != "1":
            return ()
        return (GPU("apple", system.sysctl("machdep.cpu.brand_string") or "Apple GPU"),)
    if sysname != "linux":
        return ()
    gpus = []
    for props in system.glob("/sys/class/kfd/kfd/topology/nodes/*/properties"):
        match = re.search(r"^gfx_target_version\s+(\d+)", system.read_text(props) or "", re.M)
        if match and int(match.group(1)) > 0:
            name = _read_first_line(system, os.path.join(os.path.dirname(props), "name"))
            gpus.append(GPU("amd", name or "AMD GPU", arch=_gfx_name(int(match.group(1)))))
    if not gpus:
        gpus = [GPU("amd", f"AMD GPU (PCI {d})") for d in _pci_gpus(system, "0x1002")]
    gpus += [GPU("intel", f"Intel GPU (PCI {d})") for d in _pci_gpus(system, "0x8086")]
    return tuple(gpus)


def pci_nvidia_without_driver(system: System) -> tuple[GPU, ...]:
    return tuple(GPU("nvidia", f"NVIDIA GPU (PCI {d})") for d in _pci_gpus(system, "0x10de"))


def rocm_root(system: System) -> str:
    rocm = system.env.get("ROCM_PATH") or "/opt/rocm"
    if system.exists(rocm):
        version = _read_first_line(system, os.path.join(rocm, ".info", "version"))
        return f"{rocm} ({version})" if version else rocm
    return system.which("rocminfo") or ""


def _default_cache_dir(system: System) -> str:
    """Mirrors tilec.config's default (the platform layer may not import config)."""
    env, name = system.env, system.uname()[0].lower()
    home = system.home()
    if env.get("TILEC_CACHE_DIR"):
        value = env["TILEC_CACHE_DIR"]
        return home + value[1:] if value.startswith("~") else value
    if name == "windows":
        local = env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(local, "tilec", "cache")
    if name == "darwin":
        return os.path.join(home, "Library", "Caches", "tilec")
    return os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "tilec")


def tilec_facts(system: System) -> TilecFacts:
    env = system.env
    if env.get("TILEC_DISABLE_LAUNCHER", "").lower() in ("1", "true", "yes", "on"):
        native, reason = False, "disabled by TILEC_DISABLE_LAUNCHER"
    else:
        error = system.import_error("tilec._launcher")
        native, reason = error is None, error or ""
    cache = _default_cache_dir(system)
    cache_error = system.writable_dir_error(cache)
    torch = system.dist_version("torch")
    torch_cuda = ""
    for site in system.site_packages() if torch else ():
        match = re.search(
            r"^cuda\b[^=\n]*=\s*'([^']+)'", system.read_text(f"{site}/torch/version.py") or "", re.M
        )
        torch_cuda = torch_cuda or (match.group(1) if match else "")
    flavours = ("tilec", "tilec-cu12", "tilec-cu13", "tilec-cpu")
    kind, source_dir = install_origin(system)
    return TilecFacts(
        version=system.tilec_version(),
        launcher_native=native,
        launcher_reason=reason,
        cache_dir=cache,
        cache_writable=not cache_error,
        cache_error=cache_error,
        torch_version=torch,
        torch_cuda=torch_cuda,
        installed_flavours=tuple(f for f in flavours if system.dist_version(f)),
        install_kind=kind.value,
        source_dir=source_dir,
    )


def install_origin(system: System) -> tuple[InstallKind, str]:
    """Whether tilec runs from a checkout (editable, or on PYTHONPATH) or was installed from
    one, or from a wheel; and that checkout."""
    package = system.tilec_package_dir()
    tree = os.path.join(os.path.dirname(os.path.dirname(package)), "pyproject.toml")
    direct_url = system.dist_text("tilec", "direct_url.json")
    named = direct_url_directory(direct_url)
    exists = bool(named) and system.exists(os.path.join(named, "pyproject.toml"))
    return classify(package, system.read_text(tree), direct_url, exists)


def _guard(errors: list[str], name: str, probe: Callable[[], T], default: T) -> T:
    try:
        return probe()
    except Exception as exc:  # a broken probe must not stop the report: it becomes a finding
        errors.append(f"{name}: {type(exc).__name__}: {exc}")
        return default


def gather(system: System) -> Facts:
    """Every fact about the machine ``system`` describes."""
    errors: list[str] = []
    os_ = _guard(errors, "os", lambda: os_facts(system), OSFacts())
    cpu, llvm = _guard(errors, "cpu", lambda: cpu_and_llvm(system), (CPUFacts(), LLVMFacts()))
    no_driver: tuple[Tool, DriverQuery | None] = (Toolchain().libcuda, None)
    libcuda, query = _guard(errors, "libcuda", lambda: probe_libcuda(system), no_driver)
    major = query.cuda_version // 1000 if query is not None else 0
    bindings = system.dist_version("cuda-bindings")
    nvjitlink = _guard(
        errors, "nvjitlink", lambda: find_nvjitlink(system, major, bindings), Toolchain().nvjitlink
    )
    ptxas = _guard(errors, "ptxas", lambda: find_ptxas(system, major), Toolchain().ptxas)
    libdevice = _guard(errors, "libdevice", lambda: find_libdevice(system), Toolchain().libdevice)
    tools = Toolchain(
        ptxas=ptxas,
        nvjitlink=nvjitlink,
        libdevice=versioned_libdevice(libdevice, ptxas),
        libcuda=libcuda,
        shadowing=_guard(errors, "shadowing", lambda: shadowing_dirs(system, nvjitlink), ()),
        cuda_bindings=bindings,
    )
    nvidia = _guard(errors, "nvidia", lambda: nvidia_facts(system, query), NvidiaFacts())
    no_gpus: tuple[GPU, ...] = ()
    if not nvidia.gpus:
        pci = _guard(errors, "pci", lambda: pci_nvidia_without_driver(system), no_gpus)
        nvidia = dataclasses.replace(nvidia, gpus=pci) if pci else nvidia
    return Facts(
        os=os_,
        python=_guard(errors, "python", lambda: python_facts(system), PythonFacts()),
        cpu=cpu,
        llvm=llvm,
        nvidia=nvidia,
        other_gpus=_guard(errors, "gpus", lambda: other_gpus(system), no_gpus),
        toolchain=tools,
        tilec=_guard(errors, "tilec", lambda: tilec_facts(system), TilecFacts()),
        rocm=_guard(errors, "rocm", lambda: rocm_root(system), ""),
        hsa_override_gfx_version=system.env.get("HSA_OVERRIDE_GFX_VERSION", ""),
        triton=_guard(errors, "triton", lambda: triton_facts(system), TritonFacts()),
        probe_errors=tuple(errors),
    )


@functools.lru_cache(maxsize=1)
def gather_facts() -> Facts:
    """The facts of the machine this process runs on (gathered once per process)."""
    return gather(System())
