"""The support policy (``support.json`` in this package) as typed values, plus version arithmetic.

One data file decides what tilec supports: OS × architecture, GPU compute capabilities, driver
floors per CUDA major, PTX ISA per CUDA version, and what happens on other GPU vendors. The doctor's
verdicts and docs/install-matrix.md (ci/gen_install_matrix.py) are both generated from it.
"""

from __future__ import annotations

import enum
import functools
import json
from dataclasses import dataclass


class Level(enum.Enum):
    SUPPORTED = "supported"
    EXPERIMENTAL = "experimental"
    CPU_ONLY = "cpu-only"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class PlatformSupport:
    os: str  # linux, wsl2, wsl1, windows, darwin
    arch: str
    level: Level
    gpu: str  # GPU vendor with a tilec backend here ("" = CPU only)
    glibc_min: str
    wheel: str
    note: str


@dataclass(frozen=True)
class ArchSupport:
    cc: str  # compute capability "9.0"
    name: str
    arch: str  # the LLVM/PTX target tilec emits for this GPU: sm_90a, sm_120
    level: Level
    min_ptx: int  # the PTX ISA tilec emits for it: LLVM's minimum, and never below 7.0
    llvm_min_ptx: int  # LLVM 22's default (lowest) PTX ISA for the target
    cuda_min: str  # first CUDA toolkit whose ptxas/nvJitLink knows the arch
    cuda_max_major: int  # last CUDA major that still compiles for it (0 = no end yet)
    driver_cuda: str  # first CUDA release whose driver runs this GPU (floor: driver_by_cuda)
    driver_branch_max: int = 0  # the last driver branch that runs it (0 = no end announced)
    variants: tuple[tuple[str, int], ...] = ()  # other names `--target` accepts, with their PTX
    jetson: bool = False

    def targets(self) -> tuple[tuple[str, int], ...]:
        """Every target name tilec accepts for this GPU, with its PTX ISA floor; default first."""
        return ((self.arch, self.min_ptx), *self.variants)


@dataclass(frozen=True)
class DriverRelease:
    """The first driver of a CUDA release, per OS (NVIDIA's toolkit release notes)."""

    cuda: str
    linux: str
    windows: str
    branch: int


@dataclass(frozen=True)
class JetsonRelease:
    l4t: str  # major L4T release ("36")
    jetpack: str
    cuda: str
    gpus: tuple[str, ...]


@dataclass(frozen=True)
class DriverFloor:
    cuda_major: int
    linux: str
    windows: str
    extra: str  # the pip extra that installs this CUDA major's toolchain
    # that extra's requirements as pyproject.toml lists them (a test keeps the two equal): what
    # a wheel install gets by name, since no package index serves tilec itself yet
    requirements: tuple[str, ...] = ()


@dataclass(frozen=True)
class VendorSupport:
    vendor: str
    level: Level
    planned: str
    elsewhere: str = ""  # the command that installs what runs GPU kernels there today


@dataclass(frozen=True)
class SupportPolicy:
    python_min: str
    python_max_tested: str
    python_reason: str
    python_abis: tuple[str, ...]
    wheel_abi: str
    free_threaded: bool
    free_threaded_note: str
    platforms: tuple[PlatformSupport, ...]
    architectures: tuple[ArchSupport, ...]
    cuda_min_driver: str
    llvmlite_min: str
    driver_floors: tuple[DriverFloor, ...]
    ptx_by_cuda: tuple[tuple[str, int], ...]
    llvm_max_ptx: tuple[tuple[int, int], ...]
    vendors: tuple[VendorSupport, ...]
    driver_by_cuda: tuple[DriverRelease, ...] = ()
    jetson: tuple[JetsonRelease, ...] = ()

    def platform(self, os_name: str, arch: str) -> PlatformSupport | None:
        arch = normalize_arch(arch)
        for row in self.platforms:
            if row.os == os_name and normalize_arch(row.arch) == arch:
                return row
        return None

    def arch_for(self, cc: str) -> ArchSupport | None:
        return next((a for a in self.architectures if a.cc == cc), None)

    def arch_for_target(self, target: str) -> tuple[ArchSupport, int] | None:
        """The GPU row and PTX floor of a target name (``sm_90a``, ``sm_120a`` ...)."""
        for arch in self.architectures:
            for name, ptx in arch.targets():
                if name == target:
                    return arch, ptx
        return None

    def driver_release(self, cuda: str) -> DriverRelease | None:
        """The first driver of CUDA ``cuda`` (or of the newest release listed before it)."""
        known = [r for r in self.driver_by_cuda if version_tuple(r.cuda) <= version_tuple(cuda)]
        return max(known, key=lambda r: version_tuple(r.cuda), default=None)

    def jetson_release(self, l4t: str) -> JetsonRelease | None:
        major = l4t.split(".")[0]
        return next((j for j in self.jetson if j.l4t == major), None)

    @property
    def min_supported_cc(self) -> str:
        usable = [a for a in self.architectures if a.level is not Level.UNSUPPORTED]
        return min(usable, key=lambda a: version_tuple(a.cc)).cc

    @property
    def newest_arch(self) -> ArchSupport:
        return max(self.architectures, key=lambda a: version_tuple(a.cc))

    def max_ptx_for_cuda(self, cuda: str) -> int:
        """Highest PTX ISA a CUDA version accepts (the closest known version at or below it)."""
        known = [(version_tuple(v), p) for v, p in self.ptx_by_cuda]
        eligible = [p for v, p in known if v <= version_tuple(cuda)]
        return max(eligible) if eligible else 0

    def cuda_for_ptx(self, ptx: int) -> str:
        """The first CUDA version whose driver/tools accept PTX ISA ``ptx``."""
        matches = [v for v, p in self.ptx_by_cuda if p >= ptx]
        return min(matches, key=version_tuple) if matches else ""

    def llvm_max(self, llvm_version: str) -> int:
        major = version_tuple(llvm_version)[:1] or (0,)
        eligible = [p for m, p in self.llvm_max_ptx if m <= major[0]]
        return max(eligible) if eligible else 0

    def floor(self, cuda_major: int) -> DriverFloor | None:
        return next((f for f in self.driver_floors if f.cuda_major == cuda_major), None)

    def vendor(self, name: str) -> VendorSupport | None:
        return next((v for v in self.vendors if v.vendor == name), None)


def version_tuple(text: str) -> tuple[int, ...]:
    """'580.159.04' → (580, 159, 4); stops at the first part that is not a number."""
    parts: list[int] = []
    for piece in text.strip().split("."):
        digits = "".join(c for c in piece if c.isdigit()) if piece[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def cuda_version_text(encoded: int) -> str:
    """cuDriverGetVersion's 13000 → '13.0' ('' for 0 = unknown)."""
    return f"{encoded // 1000}.{encoded % 1000 // 10}" if encoded > 0 else ""


def ptx_text(ptx: int) -> str:
    return f"{ptx // 10}.{ptx % 10}"


def normalize_arch(machine: str) -> str:
    """Spellings of one architecture → one name (AMD64/x64 → x86_64, arm64/aarch64 → arm64)."""
    m = machine.lower()
    if m in ("amd64", "x64", "x86_64", "x86-64"):
        return "x86_64"
    if m in ("arm64", "aarch64", "armv8", "arm64e"):
        return "arm64"
    return m


@functools.lru_cache(maxsize=1)
def load_policy() -> SupportPolicy:
    """The policy shipped in the package (read once, on first use)."""
    from importlib import resources  # lazy: ~13 ms, only when the policy is read

    text = resources.files(__package__).joinpath("support.json").read_text(encoding="utf-8")
    return parse_policy(json.loads(text))


def parse_policy(data: dict) -> SupportPolicy:
    py = data["python"]
    return SupportPolicy(
        python_min=py["min"],
        python_max_tested=py["max_tested"],
        python_reason=py["reason"],
        python_abis=tuple(py.get("abis", ())),
        wheel_abi=py.get("wheel_abi", ""),
        free_threaded=bool(py.get("free_threaded", False)),
        free_threaded_note=py.get("free_threaded_note", ""),
        platforms=tuple(
            PlatformSupport(**{**p, "level": Level(p["level"])}) for p in data["platforms"]
        ),
        architectures=tuple(_arch(a) for a in data["architectures"]),
        cuda_min_driver=data["cuda_min_driver"],
        llvmlite_min=data["llvmlite_min"],
        driver_floors=tuple(
            DriverFloor(**{**f, "requirements": tuple(f.get("requirements", ()))})
            for f in data["driver_floors"]
        ),
        ptx_by_cuda=tuple((k, int(v)) for k, v in data["ptx_by_cuda"].items()),
        llvm_max_ptx=tuple((int(k), int(v)) for k, v in data["llvm_max_ptx"].items()),
        vendors=tuple(VendorSupport(**{**v, "level": Level(v["level"])}) for v in data["vendors"]),
        driver_by_cuda=tuple(
            DriverRelease(cuda, **row) for cuda, row in data.get("driver_by_cuda", {}).items()
        ),
        jetson=tuple(
            JetsonRelease(**{**j, "gpus": tuple(j["gpus"])}) for j in data.get("jetson", ())
        ),
    )


def _arch(row: dict) -> ArchSupport:
    variants = tuple(sorted(row.get("variants", {}).items()))
    return ArchSupport(**{**row, "level": Level(row["level"]), "variants": variants})
