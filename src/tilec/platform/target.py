"""The CUDA target, PTX ISA version and assembly route: one function for the doctor and the backend.

``plan_target`` takes plain values only (a target name, the driver's CUDA version, the assemblers
at hand in the order they are tried), so ``tilec doctor`` calls it on gathered facts and the CUDA
backend calls it at compile time on what it finds: what the doctor prints is what a launch does.
It returns a ``TargetPlan`` or a ``Refusal`` that says why nothing can compile or load the kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .matrix import ArchSupport, Level, SupportPolicy, cuda_version_text, load_policy, ptx_text
from .matrix import version_tuple as _v

NVJITLINK, PTXAS, DRIVER_JIT = "nvjitlink", "ptxas", "driver-jit"


@dataclass(frozen=True)
class Assembler:
    """A tool that turns PTX into a cubin: ``route`` is "nvjitlink" or "ptxas"."""

    route: str
    version: str  # its CUDA version ("13.0"); "" when it cannot say (then it is simply tried)
    where: str = ""  # path or origin, for messages

    @property
    def label(self) -> str:
        name = "nvJitLink" if self.route == NVJITLINK else "ptxas"
        return f"{name} {self.version or '(unknown version)'}"


@dataclass(frozen=True)
class Refusal:
    """Why no kernel can be built or loaded for the target. ``kind`` is stable (tests, errors)."""

    kind: str  # unknown-arch, unsupported-arch, bad-ptx, driver-ptx, no-assembler
    message: str
    need_cuda: str = ""  # the CUDA release whose driver or toolkit would fix it ('' if none)


@dataclass(frozen=True)
class TargetPlan:
    gpu: ArchSupport
    target: str  # sm_90a, sm_120 ...
    ptx_version: int  # 80 = PTX ISA 8.0
    route: str  # nvjitlink, ptxas or driver-jit
    assembler: Assembler | None  # the tool that makes the cubin (None: the driver JITs the PTX)
    passed_over: tuple[str, ...] = ()  # why each earlier assembler was not used

    def describe(self) -> str:
        tool = f" ({self.assembler.label})" if self.assembler else ""
        return f"{self.target}, PTX ISA {ptx_text(self.ptx_version)}, cubin via {self.route}{tool}"


def target_for_cc(cc: str, policy: SupportPolicy | None = None) -> str:
    """The target tilec emits for compute capability ``cc`` ('' when the table does not know it)."""
    arch = (policy or load_policy()).arch_for(cc)
    return arch.arch if arch else ""


def choose_ptx(
    target: str,
    driver_cuda: int | None = None,
    requested: int | None = None,
    policy: SupportPolicy | None = None,
    llvm_version: str = "22",
) -> tuple[ArchSupport, int] | Refusal:
    """The GPU row and PTX ISA for ``target``: its floor (or ``requested``), within what LLVM
    emits and what the driver (cuDriverGetVersion, e.g. 12080) loads."""
    policy = policy or load_policy()
    found = policy.arch_for_target(target)
    if found is None:
        return Refusal("unknown-arch", f"the CUDA backend does not know architecture {target!r}")
    arch, floor = found
    if arch.level is Level.UNSUPPORTED:
        message = (
            f"{target} ({arch.name}, compute capability {arch.cc}) is not supported by the CUDA "
            f"backend: it needs compute capability {policy.min_supported_cc} or newer"
        )
        return Refusal("unsupported-arch", message)
    want = requested if requested is not None else floor
    top = policy.llvm_max(llvm_version)
    if not floor <= want <= top:
        message = f"PTX {ptx_text(want)} cannot target {target} (needs {ptx_text(floor)}..{ptx_text(top)})"
        return Refusal("bad-ptx", message)
    if driver_cuda is not None:
        cap = policy.max_ptx_for_cuda(cuda_version_text(driver_cuda))
        if want > cap:
            need = max(policy.cuda_for_ptx(want), arch.cuda_min, key=_v)
            message = (
                f"the CUDA driver (CUDA {cuda_version_text(driver_cuda) or '?'}) loads PTX up to "
                f"{ptx_text(cap)}, but {target} needs {ptx_text(want)} (CUDA {need}): update the driver"
            )
            return Refusal("driver-ptx", message, need)
    return arch, want


def assembler_problem(
    arch: ArchSupport,
    target: str,
    ptx: int,
    tool: Assembler,
    driver_cuda: int | None,
    policy: SupportPolicy,
) -> str:
    """'' when ``tool`` can make a cubin for ``target`` that this driver loads, else why not."""
    version = _v(tool.version)[:2]
    if len(version) < 2:
        return ""  # unknown version: the tool itself decides (assemble falls through on refusal)
    if version < _v(arch.cuda_min):
        return f"{tool.label} does not know {target} (needs CUDA {arch.cuda_min} or newer)"
    if arch.cuda_max_major and version[0] > arch.cuda_max_major:
        return (
            f"{tool.label} cannot target {target}: CUDA {arch.cuda_max_major + 1} dropped "
            f"{arch.name} (use CUDA {arch.cuda_max_major} tools)"
        )
    if ptx > policy.max_ptx_for_cuda(tool.version):
        return f"{tool.label} reads PTX up to {ptx_text(policy.max_ptx_for_cuda(tool.version))}, not {ptx_text(ptx)}"
    if driver_cuda is not None and version[0] > driver_cuda // 1000:
        floor = policy.floor(version[0])
        need = f"an R{_v(floor.linux)[0]} driver" if floor else "a newer driver"
        return (
            f"{tool.label} makes CUDA {version[0]} cubins, which need {need}; this driver "
            f"supports CUDA {cuda_version_text(driver_cuda)}"
        )
    return ""


def plan_target(
    target: str,
    *,
    driver_cuda: int | None,
    assemblers: Sequence[Assembler],
    requested_ptx: int | None = None,
    llvm_version: str = "22",
    policy: SupportPolicy | None = None,
) -> TargetPlan | Refusal:
    """The PTX version and route a kernel for ``target`` takes.

    ``driver_cuda`` is the driver's cuDriverGetVersion (None when compiling without a driver);
    ``assemblers`` are tried in order. Without a fitting assembler the PTX goes to the driver's
    JIT, which is possible only when there is a driver or no assembler at all (the cubin is then
    left to the driver that loads it).
    """
    policy = policy or load_policy()
    chosen = choose_ptx(target, driver_cuda, requested_ptx, policy, llvm_version)
    if isinstance(chosen, Refusal):
        return chosen
    arch, ptx = chosen
    passed: list[str] = []
    for tool in assemblers:
        problem = assembler_problem(arch, target, ptx, tool, driver_cuda, policy)
        if not problem:
            return TargetPlan(arch, target, ptx, tool.route, tool, tuple(passed))
        passed.append(problem)
    if passed and driver_cuda is None:
        message = f"cannot assemble PTX for {target}: " + "; ".join(passed)
        if arch.cuda_max_major:
            message += (
                f". Install ptxas from CUDA {arch.cuda_max_major} and point TILEC_PTXAS_PATH at it "
                f"(pip install 'nvidia-cuda-nvcc-cu{arch.cuda_max_major}'), or compile for a newer GPU."
            )
        return Refusal("no-assembler", message, arch.cuda_min)
    return TargetPlan(arch, target, ptx, DRIVER_JIT, None, tuple(passed))
