"""Typed facts about a machine, and their JSON form (``tilec doctor --json`` / ``--facts``).

Probes produce a ``Facts`` tree; checks and selection read only this tree, so a saved report
replays exactly what a user saw. ``to_json`` / ``from_json`` round-trip it; a malformed file is a
``FactsFormatError`` naming the offending field.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

# 2 added nvidia.libcuda_path/nouveau/l4t and toolchain.cuda_bindings. Older documents are read as
# they are: a missing field takes its default (None where "not recorded" differs from "absent").
# tilec.install_kind/source_dir and triton came later without a new version: older readers ignore
# them, and a document without triton reads as None (not recorded).
SCHEMA_VERSION = 2


class FactsFormatError(ValueError):
    """A saved facts document does not match the schema (the CLI maps it to exit code 2)."""


@dataclass(frozen=True)
class OSFacts:
    system: str = ""  # "linux", "windows", "darwin" (lower-cased platform.system())
    release: str = ""  # kernel release, Windows version or macOS version
    machine: str = ""  # the interpreter's architecture: x86_64, aarch64, arm64, AMD64 ...
    distro: str = ""  # /etc/os-release PRETTY_NAME
    glibc: str = ""  # "2.39"; "" on musl and non-Linux
    musl: bool = False
    wsl: int = 0  # 0 native, 1 WSL1, 2 WSL2
    wsl_lib_on_loader_path: bool = False  # /usr/lib/wsl/lib on LD_LIBRARY_PATH or ld.so.conf
    windows_build: int = 0
    native_machine: str = (
        ""  # Windows: the hardware under an emulated interpreter (IsWow64Process2)
    )
    long_paths: bool | None = None  # Windows LongPathsEnabled; None where it does not apply
    apple_silicon: bool = False
    rosetta: bool = False  # this process is an x86-64 binary translated by Rosetta 2
    container: str = ""  # "docker", "podman", "kubernetes", "lxc" or ""
    nixos: bool = False


@dataclass(frozen=True)
class PythonFacts:
    version: str = ""  # "3.11.7"
    implementation: str = ""
    bits: int = 64
    free_threaded: bool = False
    env_kind: str = ""  # "venv", "conda", "system", "embedded", "msstore"
    executable: str = ""
    platform_tag: str = ""  # sysconfig.get_platform(): linux-x86_64, win-amd64, macosx-11.0-arm64
    pip_version: str = ""


@dataclass(frozen=True)
class CPUFacts:
    name: str = ""  # LLVM host CPU name (znver4, apple-m1, neoverse-v2 ...)
    features: tuple[str, ...] = ()  # enabled LLVM features, without the '+'
    cores: int = 0  # CPUs this process may run on
    quota_cores: int = 0  # a cgroup CPU quota rounded up to whole CPUs (0 = no quota)
    triple: str = ""

    @property
    def cores_text(self) -> str:
        """'16 cores', or '16 cores, 2 by cgroup quota' when a container limits CPU time."""
        quota = f", {self.quota_cores} by cgroup quota" if 0 < self.quota_cores < self.cores else ""
        return f"{self.cores} cores{quota}"


@dataclass(frozen=True)
class LLVMFacts:
    llvmlite_version: str = ""
    llvm_version: str = ""  # "22.1.0"
    targets: tuple[str, ...] = ()  # registered targets tilec cares about: x86-64, nvptx64 ...
    error: str = ""  # why llvmlite could not be loaded


@dataclass(frozen=True)
class GPU:
    vendor: str  # "nvidia", "amd", "intel", "apple"
    name: str = ""
    compute_capability: str = ""  # NVIDIA: "9.0"
    arch: str = ""  # AMD: gfx942
    memory_mib: int = 0


@dataclass(frozen=True)
class Tool:
    """A toolchain piece: where it was found, how (``found_via``) and its version."""

    name: str
    path: str = ""
    found_via: str = (
        ""  # "TILEC_PTXAS_PATH", "site-packages", "CONDA_PREFIX", "CUDA_HOME", "PATH" ...
    )
    version: str = ""  # CUDA version of the piece, "13.0"
    error: str = ""

    @property
    def found(self) -> bool:
        return bool(self.path)


@dataclass(frozen=True)
class Toolchain:
    """The CUDA toolchain the CUDA backend uses (ptxas, nvJitLink, libdevice, libcuda)."""

    ptxas: Tool = field(default_factory=lambda: Tool("ptxas"))
    nvjitlink: Tool = field(default_factory=lambda: Tool("nvJitLink"))
    libdevice: Tool = field(default_factory=lambda: Tool("libdevice"))
    libcuda: Tool = field(default_factory=lambda: Tool("libcuda"))
    shadowing: tuple[str, ...] = ()  # LD_LIBRARY_PATH dirs whose CUDA libraries shadow pip's
    # the cuda-bindings version ("" not installed; None: not recorded by an older tilec). The CUDA
    # backend loads kernels through it, and its nvJitLink is the one of its own CUDA major.
    cuda_bindings: str | None = None


@dataclass(frozen=True)
class NvidiaFacts:
    driver_version: str = ""  # "580.159.04"
    driver_source: str = ""  # "sysfs", "proc", "nvml", "nvidia-smi"
    cuda_version: int = 0  # cuDriverGetVersion: 13000 = CUDA 13.0; 0 unknown
    gpus: tuple[GPU, ...] = ()
    device_nodes: bool = False  # /dev/nvidia0 or /dev/dxg present
    cuda_visible_devices: str | None = None
    container_visible_devices: str | None = None  # NVIDIA_VISIBLE_DEVICES
    image_cuda_version: str = ""  # CUDA_VERSION of a CUDA container image (not the driver)
    libcuda_path: str = ""  # the file libcuda was loaded from (WSL2: must be /usr/lib/wsl/lib)
    nouveau: bool = False  # the open-source nouveau kernel module is loaded
    l4t: str = ""  # Jetson: the L4T release from /etc/nv_tegra_release ("36.4.3")


@dataclass(frozen=True)
class TilecFacts:
    version: str = ""
    launcher_native: bool = False
    launcher_reason: str = ""
    cache_dir: str = ""
    cache_writable: bool = True
    cache_error: str = ""
    torch_version: str = ""
    torch_cuda: str = ""
    installed_flavours: tuple[str, ...] = ()  # distributions named tilec, tilec-cu12 ...
    # how this tilec was installed (install.InstallKind's values; "" not recorded, read as a
    # wheel) and the checkout it came from: the install lines the doctor prints depend on it
    install_kind: str = ""
    source_dir: str = ""


@dataclass(frozen=True)
class TritonFacts:
    """What decides which package ``import triton`` gives a Python process started here."""

    path: str = ""  # an installed Triton package's directory on sys.path ("" none found)
    version: str = ""  # its version ("" none installed, or not stated)
    distribution: str = ""  # the distribution that installed it: triton, pytorch-triton ...
    as_triton: str = ""  # TILEC_AS_TRITON as this process has it, lower-cased ("" unset)
    # where tilec_as_triton.pth lives: the start-up hook that honours TILEC_AS_TRITON in new
    # interpreters ("" not installed: the variable then changes nothing)
    startup_hook: str = ""

    @property
    def installed(self) -> bool:
        """Whether a Triton other than tilec is installed."""
        return bool(self.path or self.version)


@dataclass(frozen=True)
class Facts:
    """Everything the checks and the selection look at."""

    os: OSFacts = field(default_factory=OSFacts)
    python: PythonFacts = field(default_factory=PythonFacts)
    cpu: CPUFacts = field(default_factory=CPUFacts)
    llvm: LLVMFacts = field(default_factory=LLVMFacts)
    nvidia: NvidiaFacts = field(default_factory=NvidiaFacts)
    other_gpus: tuple[GPU, ...] = ()
    toolchain: Toolchain = field(default_factory=Toolchain)
    tilec: TilecFacts = field(default_factory=TilecFacts)
    rocm: str = ""  # where ROCm userspace was found
    hsa_override_gfx_version: str = ""
    probe_errors: tuple[str, ...] = ()  # probes that crashed (each became a default value)
    triton: TritonFacts | None = None  # which `triton` a process gets (None: not recorded)


def to_json(value: Any) -> Any:
    """A facts value as JSON-ready builtins (dataclasses become objects, tuples lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    return value


T = TypeVar("T")


def from_json(cls: type[T], data: Any, where: str = "facts") -> T:
    """Rebuild ``cls`` from ``to_json`` output; unknown keys are ignored, missing ones default."""
    if not isinstance(data, dict):
        raise FactsFormatError(f"{where}: expected an object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in data:
            kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise FactsFormatError(f"{where}: {exc}") from None


def _decode(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        (inner,) = [o for o in options if o is not type(None)]
        return _decode(inner, value, where)
    if origin is tuple:
        if not isinstance(value, list):
            raise FactsFormatError(f"{where}: expected a list")
        item = typing.get_args(hint)[0]
        return tuple(_decode(item, v, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return from_json(hint, value, where)
    expected = {int: (int,), str: (str,), bool: (bool,), float: (int, float)}[hint]
    if not isinstance(value, expected) or (hint is int and isinstance(value, bool)):
        raise FactsFormatError(f"{where}: expected {hint.__name__}, got {value!r}")
    return value
