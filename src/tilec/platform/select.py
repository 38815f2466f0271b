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
from .install import Install, extra_line
from .matrix import (
    ArchSupport,
    DriverFloor,
    Level,
    SupportPolicy,
    cuda_version_text,
    load_policy,
    ptx_text,
    version_tuple,
)
from .probes import gather_facts
from .target import DRIVER_JIT, NVJITLINK, PTXAS, Assembler, Refusal, TargetPlan, plan_target
from .toolchain import WSL_LIB

# Selection.install when tilec as installed needs nothing more (no GPU the CUDA backend can use)
NOTHING_TO_INSTALL = ""


@dataclass(frozen=True)
class CudaPlan:
    """How the CUDA backend compiles for one GPU: ``target.plan_target``'s answer on the facts."""

    gpu: GPU
    arch: ArchSupport
    ptx_version: int
    cubin_route: str  # "nvjitlink", "ptxas" or "driver-jit"
    tool: Tool | None  # the nvJitLink or ptxas that makes cubins (None for driver-jit)
    notice: Finding | None  # a degraded route (warning), or None
    target: str = ""  # the target emitted (sm_90a, sm_120)
    index: int = 0  # the GPU's CUDA device index


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
    install: str  # the pip line that adds what this machine's GPU needs ("": nothing more)
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


def _no_compute_capability(facts: Facts, gpu: GPU, policy: SupportPolicy) -> Finding:
    """A GPU seen on the PCI bus or through NVML, but CUDA cannot reach it: say which layer fails."""
    nv = facts.nvidia
    if nv.nouveau:
        summary = (
            f"{gpu.name}: the open-source nouveau driver holds the GPU; CUDA needs NVIDIA's driver"
        )
        return _fail("nvidia.nouveau", summary, remedies.blacklist_nouveau(facts), 3)
    if nv.driver_version:
        return _libcuda_finding(
            facts,
            policy,
            f"the NVIDIA kernel module {nv.driver_version} is loaded (from {nv.driver_source}), but ",
        )
    summary = f"{gpu.name} is present but the NVIDIA driver is not loaded"
    return _fail("nvidia.driver_loaded", summary, remedies.update_driver(facts, policy), 3)


def _libcuda_finding(facts: Facts, policy: SupportPolicy, prefix: str = "") -> Finding:
    nv, libcuda = facts.nvidia, facts.toolchain.libcuda
    if facts.os.wsl == 2 and nv.libcuda_path and not nv.libcuda_path.startswith(WSL_LIB):
        summary = (
            f"a Linux NVIDIA driver is installed inside WSL2: {nv.libcuda_path} was loaded "
            f"instead of the Windows driver's {WSL_LIB}/libcuda.so.1"
        )
        return _fail(
            "nvidia.wsl_linux_driver",
            summary,
            remedies.remove_linux_driver_in_wsl(nv.libcuda_path),
            7,
        )
    reason = libcuda.error or "libcuda was not found"
    if nv.cuda_visible_devices is not None and nv.cuda_visible_devices.strip() in ("", "-1"):
        reason += f' (CUDA_VISIBLE_DEVICES="{nv.cuda_visible_devices}" hides every GPU from CUDA)'
    summary = f"{prefix}the CUDA driver library (libcuda) cannot be used: {reason}"
    return _fail("nvidia.libcuda", summary, remedies.libcuda(facts), 7 if facts.os.wsl == 2 else 6)


def _arch_problem(facts: Facts, gpu: GPU, policy: SupportPolicy) -> Finding | ArchSupport:
    cc = gpu.compute_capability
    arch = policy.arch_for(cc)
    newest = policy.newest_arch
    if arch is None and version_tuple(cc) > version_tuple(newest.cc):
        summary = (
            f"{gpu.name} has compute capability {cc}, newer than this tilec knows "
            f"(up to {newest.cc}, {newest.arch})"
        )
        return _fail("nvidia.arch_known", summary, remedies.upgrade_tilec(facts), 5)
    if arch is None or arch.level is Level.UNSUPPORTED:
        name = f" ({arch.name})" if arch else ""
        summary = (
            f"{gpu.name} has compute capability {cc}{name}; tilec's CUDA backend needs "
            f"{policy.min_supported_cc} or newer"
        )
        return _fail("nvidia.compute_capability", summary, remedies.gpu_too_old(), 1)
    return arch


def _driver_problem(
    facts: Facts, gpu: GPU, arch: ArchSupport, policy: SupportPolicy
) -> Finding | None:
    """Why this driver cannot run CUDA for this GPU (too old for tilec or for the GPU, or past
    the last branch that supports it), or None."""
    nv = facts.nvidia
    cuda = cuda_version_text(nv.cuda_version)
    if not cuda or version_tuple(cuda) < version_tuple(policy.cuda_min_driver):
        summary = (
            f"NVIDIA driver {nv.driver_version or '?'} supports CUDA {cuda or '?'}; tilec needs a "
            f"driver for CUDA {policy.cuda_min_driver} or newer"
        )
        return _fail("nvidia.driver", summary, remedies.update_driver(facts, policy, arch=arch), 3)
    if version_tuple(cuda) < version_tuple(arch.driver_cuda):
        release = policy.driver_release(arch.driver_cuda)
        branch = f"an R{release.branch} driver" if release else "a newer driver"
        summary = (
            f"{gpu.name} ({arch.name}) needs {branch} (CUDA {arch.driver_cuda}); NVIDIA driver "
            f"{nv.driver_version or '?'} supports CUDA {cuda}"
        )
        return _fail(
            "nvidia.driver_gpu", summary, remedies.update_driver(facts, policy, arch=arch), 2
        )
    driver_branch = version_tuple(nv.driver_version)[:1]
    if arch.driver_branch_max and driver_branch and driver_branch[0] > arch.driver_branch_max:
        summary = (
            f"NVIDIA driver {nv.driver_version} no longer supports {arch.name} GPUs "
            f"(R{arch.driver_branch_max} is the last branch that does)"
        )
        return _fail(
            "nvidia.driver_gpu", summary, remedies.driver_branch_max(arch.driver_branch_max), 3
        )
    return None


def assemblers(facts: Facts) -> list[Assembler]:
    """The cubin tools the CUDA backend would use on this machine, in the order it tries them."""
    tools, found = facts.toolchain, []
    nvjitlink, bindings = tools.nvjitlink, tools.cuda_bindings
    # the backend reaches nvJitLink through cuda-bindings, which loads the one of its own major
    usable = bindings is None or (
        bool(bindings) and version_tuple(bindings)[:1] == version_tuple(nvjitlink.version)[:1]
    )
    if nvjitlink.found and not nvjitlink.error and usable:
        found.append(Assembler(NVJITLINK, nvjitlink.version, nvjitlink.path))
    if tools.ptxas.found and not tools.ptxas.error:
        found.append(Assembler(PTXAS, tools.ptxas.version, tools.ptxas.path))
    return found


def _tool_of(facts: Facts, assembler: Assembler | None) -> Tool | None:
    if assembler is None:
        return None
    return facts.toolchain.nvjitlink if assembler.route == NVJITLINK else facts.toolchain.ptxas


def plan_gpu(facts: Facts, index: int, policy: SupportPolicy | None = None) -> CudaPlan | Finding:
    """The CUDA plan for GPU ``index``, or the Finding that rules CUDA out for it."""
    policy = policy or load_policy()
    gpu = facts.nvidia.gpus[index]
    if not gpu.compute_capability:
        return _no_compute_capability(facts, gpu, policy)
    arch = _arch_problem(facts, gpu, policy)
    if isinstance(arch, Finding):
        return arch
    libcuda = facts.toolchain.libcuda
    if (
        not libcuda.found
        or libcuda.error
        or (
            facts.os.wsl == 2
            and facts.nvidia.libcuda_path
            and not facts.nvidia.libcuda_path.startswith(WSL_LIB)
        )
    ):
        return _libcuda_finding(facts, policy)
    problem = _driver_problem(facts, gpu, arch, policy)
    if problem is not None:
        return problem
    if facts.toolchain.cuda_bindings == "":
        summary = "cuda-bindings is not installed: the CUDA backend loads kernels through it"
        return _fail(
            "nvidia.cuda_bindings",
            summary,
            remedies.install_cuda_bindings(install_line(facts, policy)),
        )
    if "nvptx64" not in facts.llvm.targets:
        summary = f"llvmlite {facts.llvm.llvmlite_version or '?'} has no NVPTX target registered"
        return _fail("nvidia.llvm_nvptx", summary, remedies.reinstall_llvmlite())
    plan = plan_target(
        arch.arch,
        driver_cuda=facts.nvidia.cuda_version,
        assemblers=assemblers(facts),
        llvm_version=facts.llvm.llvm_version or "22",
        policy=policy,
    )
    if isinstance(plan, Refusal):
        check = {"driver-ptx": "nvidia.driver_ptx"}.get(plan.kind, "nvidia.llvm_ptx")
        remedy = (
            remedies.update_driver(facts, policy, plan.need_cuda)
            if plan.kind == "driver-ptx"
            else remedies.reinstall_llvmlite()
        )
        return _fail(
            check, f"{gpu.name}: {plan.message}", remedy, 2 if plan.kind == "driver-ptx" else 5
        )
    notice = _route_notice(facts, plan, policy)
    tool = _tool_of(facts, plan.assembler)
    return CudaPlan(gpu, arch, plan.ptx_version, plan.route, tool, notice, plan.target, index)


def _route_notice(facts: Facts, plan: TargetPlan, policy: SupportPolicy) -> Finding | None:
    if plan.route != DRIVER_JIT:
        return None
    remedy = remedies.install_toolchain(install_line(facts, policy))
    if plan.passed_over:
        summary = "; ".join(plan.passed_over) + ": PTX is compiled by the driver's JIT instead"
        return Finding(
            "nvidia.toolchain_arch", Category.NVIDIA, Status.WARN, summary, (), remedy, 5
        )
    summary = "no nvJitLink or ptxas found: PTX is compiled by the driver's JIT at first launch"
    return Finding("nvidia.toolchain", Category.NVIDIA, Status.WARN, summary, (), remedy, 0)


def visible_devices(facts: Facts, indices: list[int]) -> str:
    """The CUDA_VISIBLE_DEVICES value that keeps only the devices at ``indices`` (which count
    within the GPUs CUDA enumerates now, i.e. within an existing CUDA_VISIBLE_DEVICES)."""
    current = [e.strip() for e in (facts.nvidia.cuda_visible_devices or "").split(",") if e.strip()]
    if len(current) == len(facts.nvidia.gpus):
        return ",".join(current[i] for i in indices)
    return ",".join(str(i) for i in indices)


def plan_cuda(facts: Facts, policy: SupportPolicy | None = None) -> CudaPlan | Finding:
    """The CUDA plan for the GPU the runtime uses (CUDA device 0), or the Finding that rules CUDA
    out; when device 0 cannot be used but another GPU can, the Finding names CUDA_VISIBLE_DEVICES."""
    policy = policy or load_policy()
    gpus = facts.nvidia.gpus
    if not gpus:
        return Finding("nvidia.gpu", Category.NVIDIA, Status.SKIP, "no NVIDIA GPU found")
    first = plan_gpu(facts, 0, policy)
    if isinstance(first, CudaPlan) or len(gpus) == 1:
        return first
    usable = [i for i in range(1, len(gpus)) if isinstance(plan_gpu(facts, i, policy), CudaPlan)]
    if not usable:
        return first
    value = visible_devices(facts, usable)
    summary = f"GPU 0 ({gpus[0].name}) cannot be used: {first.summary}; GPU {', '.join(map(str, usable))} can"
    return _fail("nvidia.devices", summary, remedies.visible_devices(value), first.scenario)


def install_line(facts: Facts, policy: SupportPolicy | None = None) -> str:
    """The pip line that adds the CUDA extra this GPU and driver need, in the form that works for
    this install (``install.extra_line``): the ``cuda`` extra for a CUDA 13 driver, ``cuda12``
    for CUDA 12; ``NOTHING_TO_INSTALL`` without a GPU the CUDA backend supports."""
    floor = cuda_floor(facts, policy)
    return extra_line(Install.of(facts), floor) if floor else NOTHING_TO_INSTALL


def cuda_floor(facts: Facts, policy: SupportPolicy | None = None) -> DriverFloor | None:
    """The CUDA major (its driver floor and pip extra) whose toolchain fits GPU 0 and the driver."""
    policy = policy or load_policy()
    nv = facts.nvidia
    if not nv.gpus or not nv.gpus[0].compute_capability:
        return None
    arch = policy.arch_for(nv.gpus[0].compute_capability)
    if arch is None or arch.level is Level.UNSUPPORTED:
        return None
    major = nv.cuda_version // 1000 if nv.cuda_version else _major_from_branch(facts, policy)
    if arch.cuda_max_major:
        major = min(major, arch.cuda_max_major)
    return policy.floor(major)


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
        facts = gather_facts()
    policy = policy or load_policy()
    plan = plan_cuda(facts, policy) if require != "cpu" else None
    if isinstance(plan, CudaPlan):
        gpu = plan.gpu
        return Selection(
            backend="cuda",
            arch=plan.target,
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
