"""The advice tilec gives for each known problem, with commands a user can paste as they are.

Kept apart from the checks so the doctor's report and the runtime's ``PlatformError`` quote the
same words; each remedy follows the fix reported upstream (notes/platform.md §7).
"""

from __future__ import annotations

from .facts import Facts
from .finding import Remediation
from .matrix import SupportPolicy

DRIVER_DOWNLOAD = "https://www.nvidia.com/Download/index.aspx"
WSL_LIB = "/usr/lib/wsl/lib"


def _R(text: str, *commands: str) -> Remediation:
    return Remediation(text, tuple(commands))


def upgrade_tilec() -> Remediation:
    return _R("Upgrade tilec; a newer release may know this GPU.", 'pip install -U "tilec"')


def gpu_too_old() -> Remediation:
    return _R(
        "This GPU cannot run tilec's CUDA backend; kernels run on the CPU backend instead. "
        "Use a Volta-or-newer GPU (Turing or newer recommended) for CUDA."
    )


def update_driver(facts: Facts, policy: SupportPolicy, cuda: str = "") -> Remediation:
    floors = ", ".join(
        f"≥ {f.windows if _windows_driver(facts) else f.linux} for CUDA {f.cuda_major}"
        for f in policy.driver_floors
    )
    want = f" (one that supports CUDA {cuda} or newer)" if cuda else ""
    text = f"Install a newer NVIDIA driver{want}: {floors}."
    if _windows_driver(facts):
        where = "in Windows (never install a Linux driver inside WSL)" if facts.os.wsl == 2 else ""
        return _R(f"{text} Download it from {DRIVER_DOWNLOAD} {where}".rstrip())
    if "ubuntu" in facts.os.distro.lower():
        return _R(text, "sudo ubuntu-drivers install", "sudo reboot")
    return _R(f"{text} Use your distribution's driver packages or {DRIVER_DOWNLOAD}.")


def _windows_driver(facts: Facts) -> bool:
    return facts.os.system == "windows" or facts.os.wsl == 2


def libcuda(facts: Facts) -> Remediation:
    visible = facts.nvidia.cuda_visible_devices
    if visible is not None and "NO_DEVICE" in facts.toolchain.libcuda.error:
        return hidden_devices()
    if facts.os.wsl == 2:
        return _R(
            f"In WSL2 the driver library lives in {WSL_LIB} (provided by the Windows driver). "
            "Put it on the loader path; do not install a Linux driver inside WSL.",
            f"export LD_LIBRARY_PATH={WSL_LIB}:$LD_LIBRARY_PATH",
        )
    if facts.os.nixos:
        return _R(
            "On NixOS the driver lives in /run/opengl-driver/lib.",
            "export TILEC_LIBCUDA_PATH=/run/opengl-driver/lib/libcuda.so.1",
        )
    if facts.os.container and not facts.nvidia.device_nodes:
        return container_gpus()
    if facts.os.system == "windows":
        return _R(f"Reinstall the NVIDIA driver (nvcuda.dll is missing): {DRIVER_DOWNLOAD}")
    return _R(
        "Make libcuda.so.1 loadable: refresh the loader cache, or point tilec at the file.",
        "sudo ldconfig",
        "export TILEC_LIBCUDA_PATH=/path/to/libcuda.so.1",
    )


def container_gpus() -> Remediation:
    return _R(
        "This container was started without GPUs. Start it with the NVIDIA Container Toolkit.",
        "docker run --gpus all ...",
        "podman run --device nvidia.com/gpu=all ...",
    )


def reinstall_llvmlite() -> Remediation:
    return _R(
        "Reinstall llvmlite from the official wheels (they register the NVPTX target).",
        'pip install --force-reinstall "llvmlite>=0.50"',
    )


def install_toolchain(line: str) -> Remediation:
    return _R(
        "Install the pip CUDA toolchain matching your driver (nvJitLink makes cubins in-process), "
        "or point tilec at a newer ptxas.",
        line,
        "export TILEC_PTXAS_PATH=/usr/local/cuda/bin/ptxas",
    )


def wsl1() -> Remediation:
    return _R(
        "WSL1 has no GPU access. Convert this distribution to WSL2 (run in Windows PowerShell):",
        "wsl --set-version <distro> 2",
    )


def native_python_on_apple_silicon() -> Remediation:
    return _R(
        "This Python is an x86-64 binary running under Rosetta 2: kernels are compiled for an "
        "emulated x86 CPU. Install a native arm64 Python (python.org universal2 installer, "
        "Homebrew in /opt/homebrew, or conda's osx-arm64) and reinstall tilec there.",
        "arch -arm64 /usr/bin/python3 -m venv .venv-arm64",
    )


def native_python_on_windows_arm() -> Remediation:
    return _R(
        "Emulated x64 code runs slower and compiles kernels for the emulated CPU. Install the "
        "ARM64 build of Python from python.org and reinstall tilec there (CPU backend only: "
        "NVIDIA ships no CUDA for Windows on Arm)."
    )


def python_64bit() -> Remediation:
    return _R("Install a 64-bit Python: tilec, llvmlite and CUDA ship only 64-bit builds.")


def python_version(policy: SupportPolicy) -> Remediation:
    return _R(
        f"Use CPython {policy.python_min}–{policy.python_max_tested} ({policy.python_reason})",
        f"uv venv --python {policy.python_max_tested}",
    )


def glibc(minimum: str) -> Remediation:
    return _R(
        f"Binary wheels need glibc ≥ {minimum} (manylinux_{minimum.replace('.', '_')}). "
        "Use a newer distribution or a container image such as ubuntu:24.04.",
        "docker run --rm -it ubuntu:24.04",
    )


def shadowing(dirs: tuple[str, ...]) -> Remediation:
    return _R(
        "A system CUDA on LD_LIBRARY_PATH shadows the pip nvJitLink, which ends in errors like "
        "'undefined symbol: __nvJitLinkCreate_12_8'. Remove it from LD_LIBRARY_PATH:",
        "export LD_LIBRARY_PATH=$(printf %s \"$LD_LIBRARY_PATH\" | tr : '\\n' | grep -vxF "
        + " ".join(f"-e {d}" for d in dirs)
        + " | paste -sd: -)",
    )


def cache_dir() -> Remediation:
    return _R(
        "Point tilec at a writable cache directory.",
        "export TILEC_CACHE_DIR=$HOME/.cache/tilec",
    )


def long_paths() -> Remediation:
    return _R(
        "Enable long paths (an administrator PowerShell; then sign out and in):",
        "New-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem' "
        "-Name LongPathsEnabled -Value 1 -PropertyType DWORD -Force",
    )


def libdevice(line: str) -> Remediation:
    return _R(
        "libdevice (CUDA's math library: tl.exp, tl.sqrt_rn, libdevice calls) was not found. "
        "Install the pip toolchain or set TILEC_LIBDEVICE_PATH.",
        line,
    )


def duplicate_flavours(names: tuple[str, ...]) -> Remediation:
    return _R(
        "Several tilec distributions are installed; keep exactly one.",
        "pip uninstall -y " + " ".join(names),
        'pip install "tilec"',
    )


def other_vendor(planned: str) -> Remediation:
    return _R(f"Nothing to install: {planned} For GPU kernels today, use an NVIDIA GPU.")


def unsupported_platform() -> Remediation:
    return _R(
        "See the install matrix (docs/install-matrix.md) for the platforms tilec ships wheels for; "
        "Linux x86-64/aarch64, Windows x64 and macOS arm64 are covered."
    )


def reinstall_tilec() -> Remediation:
    return _R(
        "Reinstall tilec from a binary wheel to get the native launcher (results are identical; "
        "only launch overhead differs).",
        'pip install --force-reinstall --no-deps "tilec"',
    )


def match_driver_major(line: str) -> Remediation:
    return _R(
        "Update the driver to 580 or newer, or use the CUDA 12 toolchain that matches it.",
        "pip uninstall -y nvidia-nvjitlink nvidia-cuda-nvcc nvidia-nvvm",
        line,
    )


def hidden_devices() -> Remediation:
    return _R(
        "CUDA_VISIBLE_DEVICES hides every GPU from CUDA. Unset it or list the GPUs to use.",
        "unset CUDA_VISIBLE_DEVICES",
    )
