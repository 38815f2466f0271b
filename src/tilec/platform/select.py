"""Which backend and target tilec uses on this machine, why, and which install line fits it.

``select_backend()`` is the one decision the doctor prints and the runtime follows: CUDA when an
NVIDIA GPU, its driver, llvmlite's NVPTX target and the policy all allow it (with the PTX ISA
both the driver and LLVM accept, and the best cubin route), else the CPU backend. When CUDA is not
possible the ``Finding`` says why, so ``PlatformError`` gives the same advice as ``tilec doctor``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import remedies
from .facts import GPU, Facts, Tool
from .finding import Category, Finding, Remediation, Status
from .matrix import (
    ArchSupport,
    Level,
    SupportPolicy,
    cuda_version_text,
    load_policy,
    ptx_text,
    version_tuple,
)

PLAIN_INSTALL = 'pip install "tilec"'


@dataclass(frozen=True)
class CudaPlan:
    """How the CUDA backend would compile for this machine's first visible GPU."""

    gpu: GPU
    arch: ArchSupport
    ptx_version: int
    cubin_route: str  # "nvjitlink", "ptxas" or "driver-jit"
    tool: Tool | None  # the nvJitLink or ptxas that makes cubins (None for driver-jit)
    notice: Finding | None  # a degraded route (warning), or None


@dataclass(frozen=True)
class Selection:
    """The backend and target tilec uses, and why."""

    backend: str  # "cuda" or "cpu"
    arch: str  # "sm_90a", or the LLVM host CPU name ("znver4")
    features: tuple[str, ...]  # CPU: enabled LLVM features; CUDA: ()
    ptx_version: int | None  # PTX ISA as an int (80 = 8.0), CUDA only
    cubin_route: str  # "nvjitlink", "ptxas", "driver-jit"; "" for cpu
    device: str  # "NVIDIA H200 (compute capability 9.0)" or the CPU
    reason: str
    install: str  # the pip line this machine should use
    works: bool  # the selected backend can compile and run kernels
    finding: Finding | None = None  # why CUDA is not used, or why nothing works

    def describe(self) -> str:
        if self.backend == "cuda" and self.ptx_version is not None:
            return f"cuda {self.arch}, PTX ISA {ptx_text(self.ptx_version)}, cubin via {self.cubin_route}"
        return "cpu"


def _fail(
    check: str, summary: str, remedy: Remediation | None, scenario: int = 0, *details: str
) -> Finding:
    return Finding(check, Category.NVIDIA, Status.FAIL, summary, details, remedy, scenario)


def _arch_problem(facts: Facts, gpu: GPU, policy: SupportPolicy) -> Finding | ArchSupport:
    cc = gpu.compute_capability
    arch = policy.arch_for(cc)
    newest = policy.newest_arch
    if arch is None and version_tuple(cc) > version_tuple(newest.cc):
        summary = (
            f"{gpu.name} has compute capability {cc}, newer than this tilec knows "
            f"(up to {newest.cc}, {newest.arch})"
        )
        return _fail("nvidia.arch_known", summary, remedies.upgrade_tilec(), 5)
    if arch is None or arch.level is Level.UNSUPPORTED:
        name = f" ({arch.name})" if arch else ""
        summary = (
            f"{gpu.name} has compute capability {cc}{name}; tilec's CUDA backend needs "
            f"{policy.min_supported_cc} or newer"
        )
        return _fail("nvidia.compute_capability", summary, remedies.gpu_too_old(), 1)
    return arch


def _driver_problem(facts: Facts, arch: ArchSupport, policy: SupportPolicy) -> Finding | int:
    """The highest PTX ISA the driver accepts, or why the driver cannot be used."""
    nv, libcuda = facts.nvidia, facts.toolchain.libcuda
    if not libcuda.found or libcuda.error:
        reason = libcuda.error or "libcuda was not found"
        summary = f"the CUDA driver library (libcuda) cannot be used: {reason}"
        return _fail(
            "nvidia.libcuda", summary, remedies.libcuda(facts), 7 if facts.os.wsl == 2 else 6
        )
    cuda = cuda_version_text(nv.cuda_version)
    if not cuda or version_tuple(cuda) < version_tuple(policy.cuda_min_driver):
        summary = (
            f"NVIDIA driver {nv.driver_version or '?'} supports CUDA {cuda or '?'}; tilec needs a "
            f"driver for CUDA {policy.cuda_min_driver} or newer"
        )
        return _fail("nvidia.driver", summary, remedies.update_driver(facts, policy), 3)
    driver_ptx = policy.max_ptx_for_cuda(cuda)
    if driver_ptx < arch.min_ptx:
        # the arch's first toolkit can be later than its PTX ISA's (12.7 was never released)
        need = max(policy.cuda_for_ptx(arch.min_ptx), arch.cuda_min, key=version_tuple)
        summary = (
            f"{arch.arch} needs PTX ISA {ptx_text(arch.min_ptx)} (CUDA {need}); the driver "
            f"supports CUDA {cuda} (PTX ≤ {ptx_text(driver_ptx)})"
        )
        return _fail("nvidia.driver_ptx", summary, remedies.update_driver(facts, policy, need), 2)
    return driver_ptx


def _tool_fits(tool: Tool, arch: ArchSupport, driver_major: int) -> bool:
    version = version_tuple(tool.version)[:2]
    if not tool.found or tool.error or len(version) < 2:
        return False
    if version < version_tuple(arch.cuda_min) or version[0] > driver_major:
        return False  # cannot target the arch, or makes cubins the older driver may not load
    return not (arch.cuda_max_major and version[0] > arch.cuda_max_major)


def _route(facts: Facts, arch: ArchSupport, ptx_cap: int, policy: SupportPolicy) -> CudaPlan:
    gpu = facts.nvidia.gpus[0]
    driver_major = facts.nvidia.cuda_version // 1000
    tools = facts.toolchain
    for route, tool in (("nvjitlink", tools.nvjitlink), ("ptxas", tools.ptxas)):
        if _tool_fits(tool, arch, driver_major):
            ptx = min(ptx_cap, policy.max_ptx_for_cuda(tool.version))
            if ptx >= arch.min_ptx:
                return CudaPlan(gpu, arch, ptx, route, tool, None)
    found = [t for t in (tools.nvjitlink, tools.ptxas) if t.found]
    if found:
        versions = ", ".join(f"{t.name} {t.version or '?'}" for t in found)
        summary = (
            f"{versions} cannot make {arch.arch} cubins for this driver "
            f"(needs CUDA {arch.cuda_min}+, at most the driver's CUDA {driver_major}.x); "
            "PTX is compiled by the driver's JIT instead"
        )
        check = "nvidia.toolchain_arch"
    else:
        summary = "no nvJitLink or ptxas found: PTX is compiled by the driver's JIT at first launch"
        check = "nvidia.toolchain"
    remedy = remedies.install_toolchain(install_line(facts, policy))
    notice = Finding(check, Category.NVIDIA, Status.WARN, summary, (), remedy, 5 if found else 0)
    return CudaPlan(gpu, arch, ptx_cap, "driver-jit", None, notice)


def plan_cuda(facts: Facts, policy: SupportPolicy | None = None) -> CudaPlan | Finding:
    """The CUDA plan for the first visible GPU, or the Finding that rules CUDA out."""
    policy = policy or load_policy()
    gpus = facts.nvidia.gpus
    if not gpus:
        return Finding("nvidia.gpu", Category.NVIDIA, Status.SKIP, "no NVIDIA GPU found")
    gpu = gpus[0]
    if not gpu.compute_capability:
        summary = f"{gpu.name} is present but the NVIDIA driver is not loaded"
        return _fail("nvidia.driver_loaded", summary, remedies.update_driver(facts, policy), 3)
    arch = _arch_problem(facts, gpu, policy)
    if isinstance(arch, Finding):
        return arch
    driver_ptx = _driver_problem(facts, arch, policy)
    if isinstance(driver_ptx, Finding):
        return driver_ptx
    if "nvptx64" not in facts.llvm.targets:
        summary = f"llvmlite {facts.llvm.llvmlite_version or '?'} has no NVPTX target registered"
        return _fail("nvidia.llvm_nvptx", summary, remedies.reinstall_llvmlite())
    ptx_cap = min(driver_ptx, policy.llvm_max(facts.llvm.llvm_version))
    if ptx_cap < arch.min_ptx:
        summary = f"LLVM {facts.llvm.llvm_version} cannot emit PTX ISA {ptx_text(arch.min_ptx)} for {arch.arch}"
        return _fail("nvidia.llvm_ptx", summary, remedies.reinstall_llvmlite(), 5)
    return _route(facts, arch, ptx_cap, policy)


def install_line(facts: Facts, policy: SupportPolicy | None = None) -> str:
    """``pip install "tilec[cuda]"`` (CUDA 13 driver), ``"tilec[cuda12]"`` (CUDA 12) or plain."""
    policy = policy or load_policy()
    nv = facts.nvidia
    if not nv.gpus or not nv.gpus[0].compute_capability:
        return PLAIN_INSTALL
    arch = policy.arch_for(nv.gpus[0].compute_capability)
    if arch is None or arch.level is Level.UNSUPPORTED:
        return PLAIN_INSTALL
    major = nv.cuda_version // 1000 if nv.cuda_version else _major_from_branch(facts, policy)
    if arch.cuda_max_major:
        major = min(major, arch.cuda_max_major)
    floor = policy.floor(major)
    return f'pip install "tilec[{floor.extra}]"' if floor else PLAIN_INSTALL


def _major_from_branch(facts: Facts, policy: SupportPolicy) -> int:
    """The newest CUDA major whose driver floor this driver version meets (0 if none)."""
    key = "windows" if facts.os.system == "windows" or facts.os.wsl == 2 else "linux"
    have = version_tuple(facts.nvidia.driver_version)
    majors = [
        f.cuda_major
        for f in policy.driver_floors
        if have and have >= version_tuple(getattr(f, key))
    ]
    return max(majors, default=0)


def _cpu_selection(facts: Facts, cuda: Finding | None, policy: SupportPolicy) -> Selection:
    cpu, llvm = facts.cpu, facts.llvm
    works = not llvm.error and bool(cpu.name)
    finding = cuda
    if not works:
        summary = (
            f"the CPU backend cannot run: llvmlite is unusable ({llvm.error or 'no host CPU'})"
        )
        finding = Finding(
            "cpu.llvmlite", Category.CPU, Status.FAIL, summary, (), remedies.reinstall_llvmlite()
        )
    reason = "no usable NVIDIA GPU" if cuda is None else f"CUDA unavailable: {cuda.summary}"
    return Selection(
        backend="cpu",
        arch=cpu.name,
        features=cpu.features,
        ptx_version=None,
        cubin_route="",
        device=f"{cpu.name} ({cpu.cores_text}, {cpu.triple})" if cpu.name else "unknown CPU",
        reason=reason,
        install=install_line(facts, policy),
        works=works,
        finding=finding,
    )


def select_backend(
    facts: Facts | None = None, *, require: str | None = None, policy: SupportPolicy | None = None
) -> Selection:
    """The backend tilec uses here; ``require="cuda"``/``"cpu"`` reports whether that one works."""
    if facts is None:
        from .probes import gather_facts

        facts = gather_facts()
    policy = policy or load_policy()
    plan = plan_cuda(facts, policy) if require != "cpu" else None
    if isinstance(plan, CudaPlan):
        gpu = plan.gpu
        return Selection(
            backend="cuda",
            arch=plan.arch.arch,
            features=(),
            ptx_version=plan.ptx_version,
            cubin_route=plan.cubin_route,
            device=f"{gpu.name} (compute capability {gpu.compute_capability})",
            reason=f"{gpu.name} with CUDA {cuda_version_text(facts.nvidia.cuda_version)} driver",
            install=install_line(facts, policy),
            works=True,
            finding=plan.notice,
        )
    cuda_finding = plan if plan is not None and plan.status is Status.FAIL else None
    if require == "cuda":
        finding = plan if plan is not None else None
        return Selection(
            "cuda",
            "",
            (),
            None,
            "",
            "",
            "CUDA was required",
            install_line(facts, policy),
            False,
            finding,
        )
    return _cpu_selection(facts, cuda_finding, policy)
