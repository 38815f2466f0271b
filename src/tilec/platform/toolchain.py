"""Where the CUDA toolchain lives: ptxas, nvJitLink, libdevice and the driver's libcuda.

Each piece is searched in the order NVIDIA's cuda-pathfinder uses (an explicit TILEC_* override,
pip ``nvidia-*`` wheels in site-packages, conda, CUDA_HOME/CUDA_PATH, PATH, the default install
prefix) and reported with ``found_via`` and its CUDA version, so the doctor can say exactly which
copy the CUDA backend will use and the backend can use the same paths.
"""

from __future__ import annotations

import json
import os
import re

from .facts import Tool, Toolchain
from .matrix import cuda_version_text, version_tuple
from .system import DriverQuery, System

_PIP_PTXAS = ("nvidia/cu13/bin/ptxas", "nvidia/cuda_nvcc/bin/ptxas")
_PIP_NVJITLINK = (
    "nvidia/cu13/lib/libnvJitLink.so.13",
    "nvidia/nvjitlink/lib/libnvJitLink.so.12",
    "nvidia/cu13/bin/x86_64/nvJitLink_130_0.dll",
    "nvidia/nvjitlink/bin/nvJitLink_120_0.dll",
)
_PIP_LIBDEVICE = (
    "nvidia/cu13/nvvm/libdevice/libdevice.10.bc",
    "nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc",
    "nvidia/nvvm/libdevice/libdevice.10.bc",
)
# pip distributions that own the files above, newest CUDA major first
_PIP_DISTS = {
    "ptxas": ("nvidia-cuda-nvcc", "nvidia-cuda-nvcc-cu12"),
    "libdevice": ("nvidia-nvvm", "nvidia-cuda-nvcc-cu12"),
}
WSL_LIB = "/usr/lib/wsl/lib"


def _is_windows(system: System) -> bool:
    return system.uname()[0].lower() == "windows"


def _roots(system: System) -> list[tuple[str, str]]:
    """(found_via, directory) for conda and the CUDA toolkit env vars, in search order."""
    env = system.env
    roots = []
    if env.get("CONDA_PREFIX"):
        roots.append(("CONDA_PREFIX", env["CONDA_PREFIX"]))
        if _is_windows(system):
            roots.append(("CONDA_PREFIX", os.path.join(env["CONDA_PREFIX"], "Library")))
    roots += [(name, env[name]) for name in ("CUDA_HOME", "CUDA_PATH") if env.get(name)]
    return roots


def _first(system: System, candidates: list[tuple[str, str]]) -> tuple[str, str]:
    for via, path in candidates:
        if path and system.exists(path):
            return via, path
    return "", ""


def _site(system: System, relative: tuple[str, ...]) -> list[tuple[str, str]]:
    return [("site-packages", os.path.join(s, r)) for s in system.site_packages() for r in relative]


def _pip_version(system: System, piece: str) -> str:
    for dist in _PIP_DISTS[piece]:
        version = system.dist_version(dist)
        if version:
            return version
    return ""


def _toolkit_version(system: System, path: str, levels: int) -> str:
    """The CUDA version of the toolkit that holds ``path`` (its version.json), or ''."""
    root = path
    for _ in range(levels):
        root = os.path.dirname(root)
    text = system.read_text(os.path.join(root, "version.json"))
    try:
        return str(json.loads(text)["cuda"]["version"]) if text else ""
    except (ValueError, KeyError, TypeError):
        return ""


def find_ptxas(system: System, driver_major: int = 0) -> Tool:
    """The first ptxas found; with ``driver_major``, the first whose cubins that driver loads
    (CUDA 12 and 13 ptxas can be installed side by side). TILEC_PTXAS_PATH always wins."""
    env = system.env
    if env.get("TILEC_PTXAS_PATH") and system.exists(env["TILEC_PTXAS_PATH"]):
        return _ptxas_tool(system, "TILEC_PTXAS_PATH", env["TILEC_PTXAS_PATH"])
    found = [c for c in dict.fromkeys(_ptxas_candidates(system)) if c[1] and system.exists(c[1])]
    if not found:
        return Tool("ptxas", error="not found")
    return _fitting([_ptxas_tool(system, via, path) for via, path in found], driver_major)


def _ptxas_candidates(system: System) -> list[tuple[str, str]]:
    exe = "ptxas.exe" if _is_windows(system) else "ptxas"
    candidates = _site(
        system, tuple(p + (".exe" if exe.endswith(".exe") else "") for p in _PIP_PTXAS)
    )
    candidates += [(via, os.path.join(root, "bin", exe)) for via, root in _roots(system)]
    candidates += [("PATH", system.which("ptxas") or "")]
    candidates += [("/usr/local/cuda", "/usr/local/cuda/bin/ptxas")]
    return candidates


def _ptxas_tool(system: System, via: str, path: str) -> Tool:
    result = system.run([path, "--version"], timeout=10.0)
    match = re.search(r"release [\d.]+, V(\d+\.\d+(?:\.\d+)?)", result.stdout)
    if not match:
        return Tool("ptxas", path, via, error=(result.stderr or result.stdout).strip()[:200])
    return Tool("ptxas", path, via, match.group(1))


def _fitting(tools: list[Tool], major: int) -> Tool:
    """The first tool of CUDA major ``major`` or older (its cubins load), else the first one."""
    fit = [t for t in tools if 0 < (version_tuple(t.version)[:1] or (0,))[0] <= major]
    return fit[0] if fit else tools[0]


def find_nvjitlink(system: System, driver_major: int = 0, bindings: str = "") -> Tool:
    """The nvJitLink the CUDA backend uses: cuda-bindings ``bindings`` loads the one of its own
    CUDA major; without that, the first whose CUDA major the driver can load (a cu12 and a cu13
    wheel can be installed side by side)."""
    candidates = _nvjitlink_candidates(system)
    found = [c for c in dict.fromkeys(candidates) if c[1] and system.exists(c[1])]
    tools = [_nvjitlink_tool(system, via, path) for via, path in found]
    if not tools:
        return Tool("nvJitLink", error="not found")
    major = version_tuple(bindings)[:1]
    same = [t for t in tools if major and version_tuple(t.version)[:1] == major]
    return same[0] if same else _fitting(tools, driver_major)


def _nvjitlink_candidates(system: System) -> list[tuple[str, str]]:
    candidates = _site(system, _PIP_NVJITLINK)
    for via, root in _roots(system):
        for pattern in ("lib64/libnvJitLink.so.*", "lib/libnvJitLink.so.*", "bin/nvJitLink_*.dll"):
            candidates += [(via, p) for p in system.glob(os.path.join(root, pattern))]
    cuda = "/usr/local/cuda/lib64"
    candidates += [("/usr/local/cuda", p) for p in system.glob(f"{cuda}/libnvJitLink.so.*")]
    return candidates


def _nvjitlink_tool(system: System, via: str, path: str) -> Tool:
    version = system.nvjitlink_version(path)
    if not version and via == "site-packages":
        dist = "nvidia-nvjitlink" if "cu13" in path else "nvidia-nvjitlink-cu12"
        version = system.dist_version(dist)
    return Tool("nvJitLink", path, via, version)


def find_libdevice(system: System) -> Tool:
    via, path = _first(system, _libdevice_candidates(system))
    if not path:
        return Tool("libdevice", error="not found")
    if via == "site-packages":
        version = _pip_version(system, "libdevice")
    else:
        version = _toolkit_version(system, path, levels=3)
    return Tool("libdevice", path, via, version)


def _libdevice_candidates(system: System) -> list[tuple[str, str]]:
    relative = os.path.join("nvvm", "libdevice", "libdevice.10.bc")
    candidates = [("TILEC_LIBDEVICE_PATH", system.env.get("TILEC_LIBDEVICE_PATH", ""))]
    candidates += _site(system, _PIP_LIBDEVICE)
    candidates += [(via, os.path.join(root, relative)) for via, root in _roots(system)]
    candidates += [("/usr/local/cuda", os.path.join("/usr/local/cuda", relative))]
    return candidates


def stamp(system: System | None = None) -> str:
    """A cheap fingerprint of every ptxas, nvJitLink and libdevice the search could pick (path,
    size, modification time; the ptxas override): it changes when any of them is installed,
    removed or replaced. Nothing is run or loaded, unlike ``toolchain()``."""
    system = system or System()
    override = system.env.get("TILEC_PTXAS_PATH", "")
    paths = [override] + [p for candidates in (_ptxas_candidates(system),
             _nvjitlink_candidates(system), _libdevice_candidates(system))
             for _, p in candidates]  # fmt: skip
    parts = [f"ptxas override {override!r}"]
    for path in dict.fromkeys(p for p in paths if p):
        try:
            info = os.stat(path)
        except OSError:
            continue
        parts.append(f"{path} {info.st_size} {info.st_mtime_ns}")
    return "; ".join(parts)


def libcuda_candidates(system: System) -> list[tuple[str, str]]:
    """(found_via, name or path) to try loading libcuda from, in order."""
    env = system.env
    override = env.get("TILEC_LIBCUDA_PATH", "")
    if override and not override.endswith((".so", ".dll")) and ".so." not in override:
        override = os.path.join(override, "libcuda.so.1")  # a directory was given
    candidates = [("TILEC_LIBCUDA_PATH", override)] if override else []
    system_name = system.uname()[0].lower()
    if system_name == "windows":
        return [*candidates, ("loader", "nvcuda.dll")]
    if system_name != "linux":
        return candidates
    candidates.append(("loader", "libcuda.so.1"))
    if system.exists(WSL_LIB):
        candidates.append((WSL_LIB, f"{WSL_LIB}/libcuda.so.1"))
    if system.exists("/run/opengl-driver/lib"):  # NixOS keeps the driver here, off the loader path
        candidates.append(("/run/opengl-driver/lib", "/run/opengl-driver/lib/libcuda.so.1"))
    return candidates


def probe_libcuda(system: System) -> tuple[Tool, DriverQuery | None]:
    """Load libcuda from the first candidate that loads and ask the driver what it supports."""
    errors = []
    for via, path in libcuda_candidates(system):
        query = system.query_libcuda(path)
        if query.loaded:
            version = cuda_version_text(query.cuda_version)
            return Tool("libcuda", path, via, version, query.error), query
        errors.append(f"{path}: {query.error}")
    return Tool("libcuda", error="; ".join(errors) or "no CUDA driver on this OS"), None


def shadowing_dirs(system: System, nvjitlink: Tool) -> tuple[str, ...]:
    """LD_LIBRARY_PATH entries with CUDA libraries that would be loaded instead of pip's."""
    if nvjitlink.found_via != "site-packages":
        return ()
    pip_dir = os.path.dirname(nvjitlink.path)
    found = []
    for entry in system.env.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        if not entry or os.path.normpath(entry) == os.path.normpath(pip_dir):
            continue
        if system.glob(os.path.join(entry, "libnvJitLink.so*")):
            found.append(entry)
    return tuple(found)


def toolchain(system: System | None = None) -> Toolchain:
    """The CUDA toolchain pieces the CUDA backend will use (searched now, not cached)."""
    system = system or System()
    libcuda, query = probe_libcuda(system)
    driver_major = query.cuda_version // 1000 if query is not None else 0
    bindings = system.dist_version("cuda-bindings")
    nvjitlink = find_nvjitlink(system, driver_major, bindings)
    ptxas = find_ptxas(system, driver_major)
    return Toolchain(
        ptxas=ptxas,
        nvjitlink=nvjitlink,
        libdevice=versioned_libdevice(find_libdevice(system), ptxas),
        libcuda=libcuda,
        shadowing=shadowing_dirs(system, nvjitlink),
        cuda_bindings=bindings,
    )


def versioned_libdevice(libdevice: Tool, ptxas: Tool) -> Tool:
    """libdevice without a version.json takes the version of the ptxas in the same toolkit."""
    if libdevice.version or not libdevice.found or not ptxas.found:
        return libdevice
    root = os.path.dirname(os.path.dirname(os.path.dirname(libdevice.path)))
    if os.path.dirname(os.path.dirname(ptxas.path)) != root:
        return libdevice
    return Tool(libdevice.name, libdevice.path, libdevice.found_via, ptxas.version)
