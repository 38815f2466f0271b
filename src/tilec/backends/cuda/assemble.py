"""PTX → cubin along the route tilec.platform.target.plan_target picks (the route ``tilec doctor``
prints): nvJitLink in-process, ptxas in a subprocess, or nothing (the driver JIT-compiles the PTX
at load). A tool whose cubins this driver cannot load (nvJitLink 13 under an R570 driver) or that
does not know the arch is passed over. Should a tool still refuse the arch, the next one is tried,
then PlatformError names the arch and the tool versions. Also reads register and spill counts.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

from ...errors import LoweringError, PlatformError
from ...platform.target import NVJITLINK, Assembler, Refusal, plan_target
from . import ptx_version, toolchain


@dataclass(frozen=True)
class Assembled:
    cubin: bytes | None
    n_regs: int
    n_spills: int
    log: str
    tool: str  # "nvjitlink", "ptxas" or "none"


def _parse(log: str, entry: str | None = None) -> tuple[int, int]:
    """Registers and spill-store bytes of the entry function (device functions that were not
    inlined have their own "Function properties" lines, which must not be taken for it).

    ptxas writes ``Compiling entry function 'k'``, ``Function properties for k`` with the spill
    stores, then ``Used N registers``; nvJitLink 13 writes ``Function properties for 'k':`` and
    ``used N registers, ..., S stack, ..., L bytes lmem`` and names no spill stores: local memory
    beyond the stack frame is counted as spilled. ``entry``: the kernel's name (from the PTX)."""
    named = re.search(r"Compiling entry function '([^']+)'", log)
    if entry is None and named:
        entry = named.group(1)
    tail = log
    if entry is not None:
        start = re.search(rf"Compiling entry function '{re.escape(entry)}'", log) or re.search(
            rf"Function properties for '?{re.escape(entry)}'?[:\s]", log
        )
        tail = log[start.start() :] if start else log
    regs = re.search(r"[Uu]sed (\d+) registers", tail)
    spills = re.search(r"(\d+) bytes spill stores", tail)
    if spills is None:
        local = re.search(r"(\d+) stack, .*?(\d+) bytes lmem", tail)
        count = max(0, int(local.group(2)) - int(local.group(1))) if local else 0
    else:
        count = int(spills.group(1))
    return (int(regs.group(1)) if regs else 0, count)


def _entry(ptx: str) -> str | None:
    match = re.search(r"\.entry\s+([\w$]+)", ptx)
    return match.group(1) if match else None


class _ArchDropped(Exception):
    """The tool runs but does not know ``arch`` (raised and caught inside this module only)."""


def with_nvjitlink(ptx: str, arch: str) -> Assembled:
    from cuda.bindings import nvjitlink  # lazy: optional (the cuda extra)

    opts = [f"-arch={arch}", "-O3", "-verbose"]
    try:
        handle = nvjitlink.create(len(opts), opts)
    except nvjitlink.nvJitLinkError as exc:
        if "UNSUPPORTED_ARCH" in str(exc):
            raise _ArchDropped(f"nvJitLink {_nvjitlink_version()} does not support {arch}") from exc
        raise LoweringError(f"nvJitLink could not start for {arch}: {exc}", ir=ptx) from exc
    try:
        data = ptx.encode()
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
            nvjitlink.complete(handle)
        except Exception as exc:
            log = _error_log(nvjitlink, handle)
            raise LoweringError(
                f"nvJitLink could not assemble the PTX for {arch}: {exc}\n{log}", ir=ptx
            ) from exc
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        size = nvjitlink.get_info_log_size(handle)
        info = bytearray(size)
        nvjitlink.get_info_log(handle, info)
        log = info.decode(errors="replace").rstrip("\0")
    finally:
        nvjitlink.destroy(handle)
    regs, spills = _parse(log, _entry(ptx))
    return Assembled(bytes(cubin), regs, spills, log, "nvjitlink")


def _error_log(nvjitlink: object, handle: int) -> str:
    try:
        size = nvjitlink.get_error_log_size(handle)  # type: ignore[attr-defined]
        buf = bytearray(size)
        nvjitlink.get_error_log(handle, buf)  # type: ignore[attr-defined]
        return buf.decode(errors="replace").rstrip("\0")
    except Exception:  # the log is a courtesy; the original error is raised anyway
        return ""


def with_ptxas(ptx: str, arch: str, ptxas: str) -> Assembled:
    with tempfile.TemporaryDirectory(prefix="tilec-ptxas-") as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        try:
            proc = subprocess.run(
                [ptxas, f"-arch={arch}", "-O3", "-v", src, "-o", out],
                capture_output=True,
                text=True,
                timeout=300,
            )
        except (OSError, subprocess.SubprocessError) as exc:  # not executable, hung
            raise PlatformError(f"ptxas ({ptxas}) could not run for {arch}: {exc}") from exc
        log = proc.stdout + proc.stderr
        if proc.returncode != 0 and "is not defined for option 'gpu-name'" in log:
            raise _ArchDropped(f"ptxas {ptxas} does not support {arch}")
        if proc.returncode != 0:
            raise LoweringError(f"ptxas could not assemble the PTX for {arch}:\n{log}", ir=ptx)
        with open(out, "rb") as f:
            cubin = f.read()
    regs, spills = _parse(log, _entry(ptx))
    return Assembled(cubin, regs, spills, log, "ptxas")


def _nvjitlink_version() -> str:
    try:
        from cuda.bindings import nvjitlink  # lazy: optional (the cuda extra)

        return ".".join(map(str, nvjitlink.version()))
    except Exception:  # only used in a message
        return "(unknown version)"


def _ptx_isa(ptx: str) -> int | None:
    match = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", ptx, re.M)
    return int(match.group(1)) * 10 + int(match.group(2)) if match else None


def _run(ptx: str, arch: str, tool: Assembler) -> Assembled:
    if tool.route == NVJITLINK:
        return with_nvjitlink(ptx, arch)
    return with_ptxas(ptx, arch, tool.where)


def assemble(
    ptx: str, arch: str, prefer: str = "auto", driver_cuda: int | str | None = "probe"
) -> Assembled:
    """Assemble along the planned route (``prefer``: 'auto', 'nvjitlink' or 'ptxas').

    ``driver_cuda`` is the driver's cuDriverGetVersion the cubin must load under: by default this
    machine's (None when it has no driver; then only the tools' own limits apply).
    """
    driver = toolchain.driver_cuda_version() if driver_cuda == "probe" else driver_cuda
    assert driver is None or isinstance(driver, int)
    offers = toolchain.assemblers(prefer)
    dropped: list[str] = []
    while True:
        plan = plan_target(arch, driver_cuda=driver, assemblers=offers, requested_ptx=_ptx_isa(ptx))
        if isinstance(plan, Refusal):
            ptx_version.raise_refusal(plan)
        assert not isinstance(plan, Refusal)
        if plan.assembler is None:
            break
        try:
            return _run(ptx, arch, plan.assembler)
        except _ArchDropped as exc:  # the tool disagrees with the table: try the next one
            dropped.append(str(exc))
            offers = offers[offers.index(plan.assembler) + 1 :]
    if dropped:
        raise PlatformError(_dropped_message(arch, dropped))
    return Assembled(None, 0, 0, "", "none")


def _dropped_message(arch: str, dropped: list[str]) -> str:
    return (
        f"cannot assemble PTX for {arch}: " + "; ".join(dropped) + ". CUDA 13 dropped the "
        "pre-Turing GPUs (sm_50 to sm_72). Install ptxas from CUDA 12 and point TILEC_PTXAS_PATH "
        "at it (e.g. pip install 'nvidia-cuda-nvcc-cu12'), or compile for sm_75 or newer."
    )
