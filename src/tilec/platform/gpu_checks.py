"""Checks of GPUs: the NVIDIA driver, GPU and toolchain (through the selection), other vendors.

Same contract as ``checks``: pure functions from ``Facts`` and the policy to findings. The NVIDIA
verdict comes from ``select.plan_cuda`` so the doctor and the runtime's PlatformError agree.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import remedies
from .facts import Facts
from .finding import Category, Finding, Status
from .finding import make as _f
from .install import requirement_name
from .matrix import SupportPolicy, cuda_version_text, version_tuple
from .select import CudaPlan, cuda_floor, install_line, plan_cuda, plan_gpu, visible_devices
from .toolchain import WSL_LIB


def _gpu_line(facts: Facts) -> str:
    """The GPUs, identical neighbours grouped: 'GPU 0-7: 8× NVIDIA H100 (CC 9.0, 80 GiB)'."""
    groups: list[list[int]] = []
    gpus = facts.nvidia.gpus
    for i, g in enumerate(gpus):
        if groups and gpus[groups[-1][0]] == g:
            groups[-1].append(i)
        else:
            groups.append([i])
    parts = []
    for group in groups:
        g = gpus[group[0]]
        where = f"GPU {group[0]}" if len(group) == 1 else f"GPU {group[0]}-{group[-1]}"
        count = f"{len(group)}× " if len(group) > 1 else ""
        spec = (
            f" (CC {g.compute_capability}, {g.memory_mib // 1024} GiB)"
            if g.compute_capability
            else ""
        )
        parts.append(f"{where}: {count}{g.name}{spec}")
    return "; ".join(parts)


def _driver_line(facts: Facts) -> str:
    nv = facts.nvidia
    cuda = cuda_version_text(nv.cuda_version)
    parts = [
        f"driver {nv.driver_version} (from {nv.driver_source})" if nv.driver_version else "",
        f"CUDA {cuda} (cuDriverGetVersion)" if cuda else "",
        f"CUDA_VISIBLE_DEVICES={nv.cuda_visible_devices}"
        if nv.cuda_visible_devices is not None
        else "",
    ]
    return ", ".join(p for p in parts if p)


def check_nvidia(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    plan = plan_cuda(facts, policy)
    if isinstance(plan, Finding):
        details = (*plan.details, _driver_line(facts), _gpu_line(facts))
        yield _f(plan.check, plan.category, plan.status, plan.summary, *details,
                 remediation=plan.remediation, scenario=plan.scenario)  # fmt: skip
        return
    gpu = plan.gpu
    route = (
        f"{plan.cubin_route} ({plan.tool.name} {plan.tool.version})"
        if plan.tool
        else plan.cubin_route
    )
    count = len(facts.nvidia.gpus)
    name = f"{gpu.name}" + (f" (GPU 0 of {count})" if count > 1 else "")
    yield _f(
        "nvidia.gpu",
        Category.NVIDIA,
        Status.OK,
        f"{name}: compute capability {gpu.compute_capability} ({plan.arch.name}), {_driver_line(facts)}",
        _gpu_line(facts),
        f"target {plan.target}, PTX ISA {plan.ptx_version / 10:.1f}, cubin via {route}",
        f"support level: {plan.arch.level.value}",
    )
    if plan.notice is not None:
        yield plan.notice
    yield from _other_devices(facts, policy)


def _other_devices(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    """GPUs after the first that tilec cannot use, with the CUDA_VISIBLE_DEVICES that hides them."""
    gpus = facts.nvidia.gpus
    plans = [plan_gpu(facts, i, policy) for i in range(len(gpus))]
    bad = [(i, p) for i, p in enumerate(plans) if isinstance(p, Finding)]
    if not bad:
        return
    good = [i for i, p in enumerate(plans) if isinstance(p, CudaPlan)]
    lines = tuple(f"GPU {i} ({gpus[i].name}): {p.summary}" for i, p in bad)
    summary = f"{len(bad)} of {len(gpus)} GPUs cannot be used by tilec: " + ", ".join(
        f"GPU {i} ({gpus[i].name})" for i, _ in bad
    )
    yield _f("nvidia.devices", Category.NVIDIA, Status.WARN, summary, *lines,
             remediation=remedies.visible_devices(visible_devices(facts, good)))  # fmt: skip


def check_toolchain(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    tools = facts.toolchain
    lines = tuple(
        f"{t.name}: {t.version or '?'} at {t.path} (via {t.found_via})"
        if t.found
        else f"{t.name}: {t.error or 'not found'}"
        for t in (tools.nvjitlink, tools.ptxas, tools.libdevice, tools.libcuda)
    )
    found = [
        f"{t.name} {t.version}".strip()
        for t in (tools.nvjitlink, tools.ptxas, tools.libdevice)
        if t.found
    ]
    summary = "CUDA toolchain: " + (", ".join(found) if found else "none found")
    if not facts.nvidia.gpus:
        yield _f(
            "nvidia.toolchain_found",
            Category.NVIDIA,
            Status.SKIP,
            summary + " (unused without a GPU)",
            *lines,
        )
        return
    usable = isinstance(plan_cuda(facts, policy), CudaPlan)
    if usable and not tools.libdevice.found:
        yield _f(
            "nvidia.libdevice",
            Category.NVIDIA,
            Status.WARN,
            summary + "; libdevice missing",
            *lines,
            remediation=remedies.libdevice(install_line(facts, policy)),
        )
    else:
        yield _f("nvidia.toolchain_found", Category.NVIDIA, Status.OK, summary, *lines)


def check_cuda_major(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    """CUDA 13 pieces on a CUDA 12 driver (scenario 4): their cubins need the newer driver."""
    cuda = cuda_version_text(facts.nvidia.cuda_version)
    if (
        not facts.nvidia.gpus
        or not cuda
        or version_tuple(cuda) < version_tuple(policy.cuda_min_driver)
    ):
        return  # no driver to compare with, or one so old that check_nvidia already failed it
    driver_major = facts.nvidia.cuda_version // 1000
    tools = facts.toolchain
    newer = [
        t
        for t in (tools.nvjitlink, tools.ptxas)
        if t.found and version_tuple(t.version)[:1] > (driver_major,)
    ]
    if not newer:
        return
    names = ", ".join(f"{t.name} {t.version}" for t in newer)
    floor = policy.floor(version_tuple(newer[0].version)[0])
    need = (
        f"a driver ≥ {floor.windows if facts.os.system == 'windows' or facts.os.wsl == 2 else floor.linux}"
        if floor
        else "a newer driver"
    )
    yield _f(
        "nvidia.cuda_major",
        Category.NVIDIA,
        Status.WARN,
        f"{names}: newer than the driver's CUDA {cuda}; their cubins need {need}",
        remediation=remedies.match_driver_major(
            install_line(facts, policy), _stale_packages(facts, policy, driver_major)
        ),
        scenario=4,
    )


def _stale_packages(facts: Facts, policy: SupportPolicy, driver_major: int) -> tuple[str, ...]:
    """The CUDA extras' packages of majors newer than the driver's, except those (re)pinned by
    the extra that fits it (cuda-bindings, cuda-pathfinder): what to uninstall."""
    fits = cuda_floor(facts, policy)
    keep = {requirement_name(r) for r in fits.requirements} if fits else set()
    names = (
        requirement_name(r)
        for f in policy.driver_floors
        if f.cuda_major > driver_major
        for r in f.requirements
    )
    return tuple(dict.fromkeys(n for n in names if n not in keep))


def check_loader(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    tools = facts.toolchain
    if (
        tools.libcuda.found
        and tools.libcuda.found_via == WSL_LIB
        and not facts.os.wsl_lib_on_loader_path
    ):
        yield _f(
            "nvidia.wsl_loader",
            Category.NVIDIA,
            Status.WARN,
            f"{WSL_LIB} is not on the loader path (tilec found libcuda there; other tools will not)",
            remediation=remedies.libcuda(facts),
            scenario=7,
        )
    if tools.shadowing:
        yield _f(
            "nvidia.shadowing",
            Category.NVIDIA,
            Status.WARN,
            f"system CUDA libraries on LD_LIBRARY_PATH shadow pip's nvJitLink: {', '.join(tools.shadowing)}",
            remediation=remedies.shadowing(tools.shadowing),
            scenario=20,
        )


def check_other_gpus(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    for vendor in ("amd", "intel", "apple"):
        gpus = [g for g in facts.other_gpus if g.vendor == vendor]
        if not gpus:
            continue
        support = policy.vendor(vendor)
        names = ", ".join(g.name + (f" ({g.arch})" if g.arch else "") for g in gpus)
        planned = support.planned if support else "kernels run on the CPU backend."
        extra = []
        if vendor == "amd":
            extra = [f"ROCm: {facts.rocm or 'not found'}"]
            if facts.hsa_override_gfx_version:
                extra.append(
                    f"HSA_OVERRIDE_GFX_VERSION={facts.hsa_override_gfx_version} (unused by tilec)"
                )
        # Apple GPUs are the documented CPU-only configuration of every Mac: not a problem to flag.
        status = Status.OK if vendor == "apple" else Status.WARN
        elsewhere = support.elsewhere if support else ""
        remedy = remedies.other_vendor(planned, elsewhere) if status is Status.WARN else None
        summary = f"{names}: no tilec backend for {vendor.upper() if vendor == 'amd' else vendor.title()} GPUs"
        if status is Status.OK:
            summary += f" ({planned.rstrip('.')})"
        scenario = {"amd": 18, "apple": 16}.get(vendor, 0)
        yield _f(
            f"gpu.{vendor}",
            Category.OTHER_GPU,
            status,
            summary,
            *extra,
            remediation=remedy,
            scenario=scenario,
        )
