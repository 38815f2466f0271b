"""Checks: pure functions from ``Facts`` (and the support policy) to ``Finding``s.

``CHECKS`` lists them in report order. ``run_checks`` runs every one; a check that raises becomes
a FAIL finding naming it, so the report always completes. Each finding that recognises a known
failure carries its row number from notes/platform.md §7 in ``scenario``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from . import remedies
from .facts import Facts
from .finding import Category, Finding, Status
from .finding import make as _f
from .gpu_checks import (
    check_cuda_major,
    check_loader,
    check_nvidia,
    check_other_gpus,
    check_toolchain,
)
from .matrix import Level, SupportPolicy, load_policy, normalize_arch, version_tuple
from .triton_probe import check_triton

Check = Callable[[Facts, SupportPolicy], Iterable[Finding]]


def platform_key(facts: Facts) -> tuple[str, str]:
    """(os row, arch) of the support matrix that describes this machine."""
    os_ = facts.os
    name = {1: "wsl1", 2: "wsl2"}.get(os_.wsl, os_.system)
    arch = "arm64" if os_.rosetta else os_.machine  # the hardware, not the translated process
    return name, arch


def _os_label(facts: Facts) -> str:
    os_ = facts.os
    name, arch = platform_key(facts)
    label = {
        "linux": os_.distro or "Linux",
        "windows": f"Windows (build {os_.windows_build})",
        "darwin": f"macOS {os_.release}",
    }.get(os_.system, os_.system or "unknown OS")
    where = f"{label}, {arch}" + (f", {name.upper()}" if name.startswith("wsl") else "")
    return where + (f", in a {os_.container} container" if os_.container else "")


def check_os(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    os_, (name, arch) = facts.os, platform_key(facts)
    where, row = _os_label(facts), policy.platform(name, arch)
    details = (
        f"kernel {os_.release}" if os_.system == "linux" else "",
        f"glibc {os_.glibc}" if os_.glibc else "",
    )
    if row is None or row.level is Level.UNSUPPORTED:
        why = row.note if row else "not in the install matrix"
        yield _f("system.os", Category.SYSTEM, Status.FAIL, f"{where}: unsupported", why, *details,
                 remediation=remedies.unsupported_platform())  # fmt: skip
    elif name == "wsl1":
        yield _f("system.os", Category.SYSTEM, Status.WARN, f"{where}: no GPU access in WSL1",
                 *details, remediation=remedies.wsl1(), scenario=8)  # fmt: skip
    elif row.level is Level.EXPERIMENTAL:
        yield _f(
            "system.os", Category.SYSTEM, Status.WARN, f"{where}: experimental", row.note, *details
        )
    else:
        yield _f("system.os", Category.SYSTEM, Status.OK, where, row.note, *details)


def check_libc(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    os_ = facts.os
    if os_.system != "linux":
        return
    row = policy.platform(*platform_key(facts))
    minimum = row.glibc_min if row else ""
    if os_.musl:
        yield _f(
            "system.glibc",
            Category.SYSTEM,
            Status.FAIL,
            "musl libc: llvmlite ships no musllinux wheels",
            remediation=remedies.glibc(minimum or "2.28"),
            scenario=19,
        )
    elif minimum and os_.glibc and version_tuple(os_.glibc) < version_tuple(minimum):
        yield _f(
            "system.glibc",
            Category.SYSTEM,
            Status.FAIL,
            f"glibc {os_.glibc} is older than the wheels' manylinux floor (glibc {minimum})",
            remediation=remedies.glibc(minimum),
            scenario=19,
        )


def check_emulation(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    os_ = facts.os
    if os_.rosetta:
        yield _f("system.emulation", Category.SYSTEM, Status.WARN,
                 "this Python runs under Rosetta 2 (x86-64 on Apple Silicon)",
                 remediation=remedies.native_python_on_apple_silicon(), scenario=28)  # fmt: skip
    elif os_.native_machine and normalize_arch(os_.native_machine) != normalize_arch(os_.machine):
        yield _f("system.emulation", Category.SYSTEM, Status.WARN,
                 f"this {os_.machine} Python is emulated on {os_.native_machine} Windows",
                 remediation=remedies.native_python_on_windows_arm())  # fmt: skip


def check_long_paths(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    if facts.os.system == "windows" and facts.os.long_paths is False:
        yield _f(
            "system.long_paths",
            Category.SYSTEM,
            Status.WARN,
            "Windows long paths are disabled (LongPathsEnabled=0): deep cache paths fail",
            remediation=remedies.long_paths(),
            scenario=14,
        )


def check_container_gpus(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    nv = facts.nvidia
    hinted = (nv.container_visible_devices or "").lower() not in (
        "",
        "void",
        "none",
    ) or nv.image_cuda_version
    if facts.os.container and hinted and not nv.gpus and not nv.device_nodes:
        hint = (
            f"NVIDIA_VISIBLE_DEVICES={nv.container_visible_devices}"
            if nv.container_visible_devices
            else f"CUDA_VERSION={nv.image_cuda_version}"
        )
        yield _f(
            "system.container_gpu",
            Category.SYSTEM,
            Status.WARN,
            f"a CUDA container ({hint}) without GPU devices: no /dev/nvidia*, no driver",
            remediation=remedies.container_gpus(),
            scenario=24,
        )


def check_probes(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    for error in facts.probe_errors:
        yield _f("system.probe", Category.SYSTEM, Status.WARN, f"a probe failed: {error}")


def check_python(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    py = facts.python
    ft = ", free-threaded" if py.free_threaded else ""
    summary = f"{py.implementation} {py.version} ({py.bits}-bit{ft}, {py.env_kind})"
    pip = f"pip {py.pip_version}" if py.pip_version else "pip not installed"
    if py.bits != 64:
        yield _f(
            "python.bits",
            Category.PYTHON,
            Status.FAIL,
            f"{summary}: 32-bit Python",
            remediation=remedies.python_64bit(),
            scenario=21,
        )
        return
    version = version_tuple(py.version)[:2]
    if py.free_threaded and not policy.free_threaded:
        yield _f(
            "python.free_threaded",
            Category.PYTHON,
            Status.WARN,
            f"{summary}: no tilec wheel or native launcher serves free-threaded Python",
            remediation=remedies.free_threaded(
                policy.free_threaded_note, ".".join(map(str, version))
            ),
            scenario=22,
        )
        return
    if version < version_tuple(policy.python_min):
        yield _f(
            "python.version",
            Category.PYTHON,
            Status.FAIL,
            f"{summary}: tilec needs Python ≥ {policy.python_min}",
            remediation=remedies.python_version(policy),
            scenario=22,
        )
    elif version > version_tuple(policy.python_max_tested):
        yield _f(
            "python.version",
            Category.PYTHON,
            Status.WARN,
            f"{summary}: newer than tested (≤ {policy.python_max_tested}); llvmlite may have no wheel",
            remediation=remedies.python_version(policy),
            scenario=22,
        )
    else:
        yield _f("python.version", Category.PYTHON, Status.OK, summary, pip, py.executable)


def check_launcher(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    t = facts.tilec
    torch = f"torch {t.torch_version}" if t.torch_version else ""
    torch += f" (CUDA {t.torch_cuda})" if t.torch_cuda else ""
    if t.launcher_native:
        yield _f(
            "tilec.launcher",
            Category.TILEC,
            Status.OK,
            f"tilec {t.version}, native launcher",
            torch,
        )
        return
    disabled = "TILEC_DISABLE_LAUNCHER" in t.launcher_reason  # the user chose the fallback
    # ctypes turns a kernel's hardware fault into an exception on Windows only
    faults = "" if facts.os.system == "windows" else ", kernel memory faults end the process"
    yield _f("tilec.launcher", Category.TILEC, Status.OK if disabled else Status.WARN,
             f"tilec {t.version}, ctypes launcher fallback (slower launches{faults})", t.launcher_reason, torch,
             remediation=None if disabled else remedies.reinstall_tilec(facts))  # fmt: skip


def check_cache(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    t = facts.tilec
    if t.cache_writable:
        yield _f("tilec.cache", Category.TILEC, Status.OK, f"cache directory {t.cache_dir}")
    else:
        yield _f("tilec.cache", Category.TILEC, Status.WARN, f"cache directory {t.cache_dir} is not writable",
                 t.cache_error, remediation=remedies.cache_dir(), scenario=26)  # fmt: skip


def check_flavours(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    names = facts.tilec.installed_flavours
    if len(names) > 1:
        yield _f("tilec.flavours", Category.TILEC, Status.WARN,
                 f"several tilec distributions installed: {', '.join(names)}",
                 remediation=remedies.duplicate_flavours(facts, names))  # fmt: skip


_KEY_FEATURES = ("avx2", "avx512f", "fma", "neon", "sve", "sve2", "fp-armv8", "amx-tile")


def check_cpu(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    cpu, llvm = facts.cpu, facts.llvm
    if llvm.error or not cpu.name:
        yield _f(
            "cpu.llvmlite",
            Category.CPU,
            Status.FAIL,
            f"llvmlite cannot be used: {llvm.error or 'no host CPU reported'}",
            remediation=remedies.reinstall_llvmlite(),
        )
        return
    if version_tuple(llvm.llvmlite_version) < version_tuple(policy.llvmlite_min):
        yield _f(
            "cpu.llvmlite",
            Category.CPU,
            Status.FAIL,
            f"llvmlite {llvm.llvmlite_version} (LLVM {llvm.llvm_version}) is older than tilec needs "
            f"(llvmlite ≥ {policy.llvmlite_min})",
            remediation=remedies.reinstall_llvmlite(),
        )
        return
    features = ", ".join(f for f in _KEY_FEATURES if f in cpu.features) or "baseline ISA"
    yield _f(
        "cpu.llvmlite",
        Category.CPU,
        Status.OK,
        f"{cpu.name} ({cpu.cores_text}; {features}) via llvmlite {llvm.llvmlite_version} / LLVM {llvm.llvm_version}",
        f"triple {cpu.triple}",
        f"LLVM targets: {', '.join(llvm.targets)}",
    )


CHECKS: tuple[Check, ...] = (
    check_os,
    check_libc,
    check_emulation,
    check_long_paths,
    check_container_gpus,
    check_probes,
    check_python,
    check_launcher,
    check_cache,
    check_flavours,
    check_triton,
    check_cpu,
    check_nvidia,
    check_toolchain,
    check_cuda_major,
    check_loader,
    check_other_gpus,
)


def run_checks(
    facts: Facts, policy: SupportPolicy | None = None, checks: Iterable[Check] = CHECKS
) -> tuple[Finding, ...]:
    """Every finding about ``facts``; a crashing check becomes a FAIL finding and the rest still run."""
    policy = policy or load_policy()
    findings: list[Finding] = []
    for check in checks:
        try:
            findings.extend(check(facts, policy))
        except Exception as exc:  # a broken check is reported, never fatal
            name = getattr(check, "__name__", repr(check))
            findings.append(
                _f(
                    name,
                    Category.SYSTEM,
                    Status.FAIL,
                    f"check {name} crashed: {type(exc).__name__}: {exc}",
                )
            )
    return tuple(findings)
