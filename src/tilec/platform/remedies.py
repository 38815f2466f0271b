"""The advice tilec gives for each known problem, with commands a user can paste as they are.

Kept apart from the checks so the doctor's report and the runtime's ``PlatformError`` quote the
same words; each remedy follows the fix reported upstream (notes/platform.md §7).
"""

from __future__ import annotations

from .facts import Facts
from .finding import Remediation
from .install import Install, InstallKind, reinstall_lines, upgrade_lines
from .matrix import ArchSupport, SupportPolicy, version_tuple

DRIVER_DOWNLOAD = "https://www.nvidia.com/Download/index.aspx"
WSL_LIB = "/usr/lib/wsl/lib"


def _R(text: str, *commands: str) -> Remediation:
    return Remediation(text, tuple(commands))


def upgrade_tilec(facts: Facts) -> Remediation:
    return _R(
        "Upgrade tilec from its source; a newer version may know this GPU.",
        *upgrade_lines(Install.of(facts)),
    )


def gpu_too_old() -> Remediation:
    return _R(
        "This GPU cannot run tilec's CUDA backend; kernels run on the CPU backend instead. "
        "Use a Volta-or-newer GPU (Turing or newer recommended) for CUDA."
    )


def update_driver(
    facts: Facts, policy: SupportPolicy, cuda: str = "", arch: ArchSupport | None = None
) -> Remediation:
    """A newer driver: the floor of CUDA ``cuda`` or of what GPU ``arch`` needs (whichever is
    later), else tilec's floors per CUDA major; Jetson drivers come with JetPack."""
    wanted = max(
        (c for c in (cuda, arch.driver_cuda if arch else "") if c), key=version_tuple, default=""
    )
    windows = _windows_driver(facts)
    if facts.nvidia.l4t or (arch is not None and arch.jetson and facts.os.system == "linux"):
        return jetpack(facts, policy, wanted, arch)
    release = policy.driver_release(wanted) if wanted else None
    if release is not None:
        text = (
            f"Install an NVIDIA driver of the R{release.branch} branch or newer (CUDA {wanted}): "
            f"≥ {release.windows if windows else release.linux}."
        )
    else:
        floors = ", ".join(
            f"≥ {f.windows if windows else f.linux} for CUDA {f.cuda_major}"
            for f in policy.driver_floors
        )
        text = f"Install a newer NVIDIA driver: {floors}."
    if windows:
        where = "in Windows (never install a Linux driver inside WSL)" if facts.os.wsl == 2 else ""
        return _R(f"{text} Download it from {DRIVER_DOWNLOAD} {where}".rstrip())
    if "ubuntu" in facts.os.distro.lower():
        return _R(text, "sudo ubuntu-drivers install", "sudo reboot")
    return _R(f"{text} Use your distribution's driver packages or {DRIVER_DOWNLOAD}.")


def jetpack(
    facts: Facts, policy: SupportPolicy, cuda: str = "", arch: ArchSupport | None = None
) -> Remediation:
    """On Jetson the GPU driver and CUDA come with JetPack (L4T), never from ubuntu-drivers."""
    l4t = facts.nvidia.l4t
    have = policy.jetson_release(l4t) if l4t else None
    now = (
        f"L4T {l4t} (JetPack {have.jetpack}, CUDA {have.cuda})"
        if have
        else (f"L4T {l4t}" if l4t else "This JetPack")
    )
    cuda = max(cuda, policy.cuda_min_driver, key=version_tuple)
    newer = [
        j for j in policy.jetson
        if version_tuple(j.cuda) >= version_tuple(cuda) and (arch is None or arch.cc in j.gpus)
    ]  # fmt: skip
    lead = "Jetson drivers come with JetPack, not with ubuntu-drivers or NVIDIA's desktop driver."
    if not newer:
        return _R(
            f"{lead} No JetPack release brings a CUDA {cuda} driver to this Jetson "
            f"({arch.name if arch else 'this module'}), so tilec's kernels run on the CPU backend."
        )
    target = f"JetPack {newer[0].jetpack} (L4T R{newer[0].l4t}, CUDA {newer[0].cuda})"
    return _R(
        f"{lead} {now} is too old: flash or upgrade to {target} or newer with NVIDIA SDK "
        "Manager. JetPack also installs CUDA (ptxas, nvJitLink) under /usr/local/cuda.",
        "cat /etc/nv_tegra_release",
        "sudo apt update && sudo apt install nvidia-jetpack",
    )


def blacklist_nouveau(facts: Facts) -> Remediation:
    commands = [
        "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
        "sudo update-initramfs -u"
        if "ubuntu" in facts.os.distro.lower() or "debian" in facts.os.distro.lower()
        else "sudo dracut --force",
    ]
    if "ubuntu" in facts.os.distro.lower():
        commands.append("sudo ubuntu-drivers install")
    commands.append("sudo reboot")
    return _R(
        "The nouveau module drives this GPU, so NVIDIA's driver cannot load. Blacklist nouveau, "
        "install NVIDIA's driver and reboot:",
        *commands,
    )


def remove_linux_driver_in_wsl(path: str) -> Remediation:
    return _R(
        "WSL2 gets CUDA from the Windows driver (/usr/lib/wsl/lib); a Linux NVIDIA driver "
        f"installed inside WSL shadows it ({path}). Find its package and remove it, then refresh "
        "the loader cache:",
        f"dpkg -S {path}",
        "sudo apt-get remove --purge '^nvidia-driver-.*' '^libnvidia-compute-.*'",
        "sudo ldconfig",
    )


def driver_branch_max(branch: int) -> Remediation:
    return _R(
        f"Install an R{branch} driver (the last branch that supports this GPU; R580 is a long-term "
        f"support branch), or use a newer GPU.",
    )


def visible_devices(value: str) -> Remediation:
    return _R(
        "tilec runs on the first GPU CUDA lists. Hide the GPUs it cannot use:",
        f"export CUDA_VISIBLE_DEVICES={value}",
    )


def _windows_driver(facts: Facts) -> bool:
    return facts.os.system == "windows" or facts.os.wsl == 2


def libcuda(facts: Facts) -> Remediation:
    visible = facts.nvidia.cuda_visible_devices
    if visible is not None and (
        "NO_DEVICE" in facts.toolchain.libcuda.error or visible.strip() in ("", "-1")
    ):
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


def install_cuda_bindings(line: str) -> Remediation:
    return _R(
        "Install the CUDA extra's packages for your driver (cuda-bindings, with nvJitLink, ptxas "
        "and libdevice from NVIDIA's wheels):",
        line,
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


def duplicate_flavours(facts: Facts, names: tuple[str, ...]) -> Remediation:
    return _R(
        "Several tilec distributions are installed; remove them all and install tilec again.",
        "pip uninstall -y " + " ".join(names),
        *reinstall_lines(Install.of(facts)),
    )


def other_vendor(planned: str, elsewhere: str = "") -> Remediation:
    """Nothing for tilec to install; the command that installs what runs GPU kernels on that
    vendor's GPUs today, where there is one."""
    if elsewhere:
        return _R(f"Nothing to install for tilec: {planned}", elsewhere)
    return _R(f"Nothing to install: {planned} For GPU kernels today, use an NVIDIA GPU.")


def unsupported_platform() -> Remediation:
    return _R(
        "See the install matrix (docs/install-matrix.md) for the platforms tilec ships wheels for; "
        "Linux x86-64/aarch64, Windows x64 and macOS arm64 are covered."
    )


def reinstall_tilec(facts: Facts) -> Remediation:
    install = Install.of(facts)
    how = (
        "Reinstall tilec from a binary (abi3) wheel"
        if install.kind is InstallKind.WHEEL
        else "Build tilec again with a C compiler (gcc, clang or MSVC) installed"
    )
    return _R(
        f"{how} to get the native launcher (results are identical; only launch overhead differs).",
        *reinstall_lines(install),
    )


def match_driver_major(line: str, stale: tuple[str, ...]) -> Remediation:
    """Swap the newer CUDA major's packages (``stale``) for those ``line`` installs."""
    return _R(
        "Update the driver to 580 or newer, or use the CUDA 12 toolchain that matches it.",
        *(("pip uninstall -y " + " ".join(stale),) if stale else ()),
        line,
    )


def hidden_devices() -> Remediation:
    return _R(
        'CUDA_VISIBLE_DEVICES hides every GPU from CUDA (an empty value, "", or -1 means "no '
        'GPU"). Unset it or list the GPUs to use.',
        "unset CUDA_VISIBLE_DEVICES",
    )


def free_threaded(note: str, version: str) -> Remediation:
    return _R(
        f"{note} Use the regular (GIL) build of the same Python:",
        f"uv venv --python {version}",
    )
