"""The only code in tilec's platform layer that touches the machine.

Files, environment, subprocesses, shared libraries (libcuda, NVML, nvJitLink, llvmlite) and
interpreter details all go through ``System``; tests substitute a fake subclass that serves canned
answers. Every method returns a value describing failure instead of raising, and every subprocess
has a timeout.
"""

from __future__ import annotations

import ctypes
import dataclasses
import glob as _glob
import importlib
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .facts import LLVMFacts

COMMAND_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class CommandResult:
    returncode: int  # -1 when the command could not be started or timed out
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass(frozen=True)
class Interpreter:
    version: str
    implementation: str
    maxsize_bits: int
    free_threaded: bool
    executable: str
    prefix: str
    base_prefix: str
    platform_tag: str


@dataclass(frozen=True)
class HostCPU:
    name: str = ""
    features: tuple[str, ...] = ()
    triple: str = ""


@dataclass(frozen=True)
class CudaDevice:
    name: str
    cc_major: int
    cc_minor: int
    memory_bytes: int = 0


@dataclass(frozen=True)
class DriverQuery:
    """What libcuda (or NVML) answered; ``error`` says why it could not be asked."""

    path: str
    loaded: bool = False
    error: str = ""
    cuda_version: int = 0
    driver_version: str = ""  # NVML only
    devices: tuple[CudaDevice, ...] = ()
    resolved: str = ""  # the file the loader actually opened for ``path`` ('' unknown)


class System:
    """The real machine. Subclass and override to describe another one."""

    @property
    def env(self) -> Mapping[str, str]:
        return dict(os.environ)

    def home(self) -> str:
        return os.path.expanduser("~")

    def read_text(self, path: str, limit: int = 1 << 16) -> str | None:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return fh.read(limit)
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def listdir(self, path: str) -> tuple[str, ...]:
        try:
            return tuple(sorted(os.listdir(path)))
        except OSError:
            return ()

    def glob(self, pattern: str) -> tuple[str, ...]:
        return tuple(sorted(_glob.glob(pattern)))

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def run(self, argv: Sequence[str], timeout: float = COMMAND_TIMEOUT_S) -> CommandResult:
        try:
            proc = subprocess.run(
                list(argv), capture_output=True, text=True, timeout=timeout, errors="replace"
            )
        except subprocess.TimeoutExpired:
            return CommandResult(-1, "", f"timed out after {timeout:g} s")
        except OSError as exc:
            return CommandResult(-1, "", str(exc))
        return CommandResult(proc.returncode, proc.stdout, proc.stderr)

    def run_python(self, code: str, timeout: float = 120.0) -> CommandResult:
        """Run ``code`` as a script in a fresh interpreter like this one.

        A file, not ``-c``: kernels must live in a file for the frontend to read their source,
        and a crash in that process cannot hurt this one.
        """
        with tempfile.TemporaryDirectory(prefix="tilec-doctor-") as tmp:
            script = os.path.join(tmp, "tilec_doctor_smoke.py")
            with open(script, "w", encoding="utf-8") as fh:
                fh.write(code)
            return self.run([sys.executable, script], timeout=timeout)

    def uname(self) -> tuple[str, str, str]:
        """(system, release, machine) of this interpreter."""
        return platform.system(), platform.release(), platform.machine()

    def mac_version(self) -> str:
        return platform.mac_ver()[0]

    def windows_build(self) -> int:
        getwv = getattr(sys, "getwindowsversion", None)
        return int(getwv().build) if getwv is not None else 0

    def windows_native_machine(self) -> str:
        """The hardware's architecture even when this interpreter is emulated (IsWow64Process2)."""
        try:
            kernel32 = ctypes.WinDLL("kernel32")  # type: ignore[attr-defined,unused-ignore]
            process, native = ctypes.c_ushort(0), ctypes.c_ushort(0)
            handle = kernel32.GetCurrentProcess()
            if not kernel32.IsWow64Process2(handle, ctypes.byref(process), ctypes.byref(native)):
                return ""
        except (AttributeError, OSError):
            return ""
        return {0x8664: "AMD64", 0xAA64: "ARM64", 0x14C: "x86"}.get(native.value, hex(native.value))

    def windows_registry_dword(self, key: str, name: str) -> int | None:
        try:
            # lazy: Windows only
            import winreg  # type: ignore[import-not-found,unused-ignore]

            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, key) as handle:  # type: ignore[attr-defined,unused-ignore]
                return int(winreg.QueryValueEx(handle, name)[0])  # type: ignore[attr-defined,unused-ignore]
        except (ImportError, OSError, ValueError):
            return None

    def sysctl(self, name: str) -> str | None:
        """A macOS sysctl value as text (integers and strings), None where it does not exist."""
        try:
            libc = ctypes.CDLL("/usr/lib/libSystem.B.dylib")  # sysctlbyname lives here
            size = ctypes.c_size_t(0)
            key = name.encode()
            if libc.sysctlbyname(key, None, ctypes.byref(size), None, 0) != 0:
                return None
            buf = ctypes.create_string_buffer(size.value)
            if libc.sysctlbyname(key, buf, ctypes.byref(size), None, 0) != 0:
                return None
        except (OSError, AttributeError):
            return None
        raw = buf.raw[: size.value]
        if name.startswith(("hw.optional", "sysctl.proc")) and len(raw) in (4, 8):
            return str(int.from_bytes(raw, sys.byteorder))
        return raw.rstrip(b"\0").decode(errors="replace")

    def glibc_version(self) -> str:
        try:
            value = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.39"
        except (AttributeError, ValueError, OSError):
            return ""
        return value.split()[-1] if value and value.startswith("glibc") else ""

    def cpu_count(self) -> int:
        affinity = getattr(os, "sched_getaffinity", None)
        return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)

    def interpreter(self) -> Interpreter:
        return Interpreter(
            version=platform.python_version(),
            implementation=platform.python_implementation(),
            maxsize_bits=sys.maxsize.bit_length() + 1,
            free_threaded=bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
            executable=sys.executable,
            prefix=sys.prefix,
            base_prefix=getattr(sys, "base_prefix", sys.prefix),
            platform_tag=sysconfig.get_platform(),
        )

    def site_packages(self) -> tuple[str, ...]:
        paths = [sysconfig.get_paths().get(k, "") for k in ("purelib", "platlib")]
        return tuple(dict.fromkeys(p for p in paths if p))

    def dist_version(self, name: str) -> str:
        import importlib.metadata  # lazy: ~10 ms, only when a distribution is asked about

        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return ""
        except Exception:  # a broken dist-info must not stop the report
            return ""

    def find_package(self, name: str) -> str:
        """The directory (or file) ``import name`` would load, asking every import finder but
        tilec's own ``triton`` hook; '' when none finds it. Nothing is imported."""
        for finder in sys.meta_path:
            if type(finder).__module__.startswith("tilec."):
                continue
            find_spec = getattr(finder, "find_spec", None)
            try:
                spec = find_spec(name, None) if find_spec is not None else None
            except Exception:  # a broken third-party finder must not stop the report
                continue
            if spec is not None:
                locations = list(spec.submodule_search_locations or ())
                return locations[0] if locations else spec.origin or ""
        return ""

    def tilec_package_dir(self) -> str:
        """The directory of the tilec package this code runs from."""
        return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def dist_text(self, name: str, filename: str) -> str | None:
        """A file of distribution ``name``'s metadata (direct_url.json ...), None if absent."""
        import importlib.metadata  # lazy: (as above)

        try:
            return importlib.metadata.distribution(name).read_text(filename)
        except Exception:  # not installed, or a broken dist-info: nothing recorded
            return None

    def tilec_version(self) -> str:
        """The version of the tilec these files belong to (its _version.py, else its metadata)."""
        here = os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_version.py"
        )
        match = re.search(r'__version__\s*=\s*"([^"]+)"', self.read_text(here) or "")
        return match.group(1) if match else self.dist_version("tilec")

    def import_error(self, module: str) -> str | None:
        """None when ``module`` imports, else why not (for tilec's optional native launcher)."""
        if importlib.util.find_spec(module.rpartition(".")[0] or module) is None:
            return f"{module} is not installed"
        try:
            importlib.import_module(module)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        return None

    def writable_dir_error(self, path: str) -> str:
        """'' when files can be created in ``path`` (created if missing), else the OS error."""
        try:
            os.makedirs(path, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
                pass
        except OSError as exc:
            return str(exc)
        return ""

    def llvm(self) -> tuple[LLVMFacts, HostCPU]:
        try:
            # lazy: loads LLVM (~40 ms), only for the doctor's LLVM facts
            import llvmlite
            import llvmlite.binding as llvm

            llvm.initialize_all_targets()
            triple = llvm.get_process_triple()
            wanted = ("nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa", triple)
            targets = []
            for t in wanted:
                try:
                    targets.append(llvm.Target.from_triple(t).name)
                except RuntimeError:
                    continue
            feats = llvm.get_host_cpu_features()
            cpu = HostCPU(
                name=llvm.get_host_cpu_name(),
                features=tuple(sorted(k for k, on in feats.items() if on)),
                triple=triple,
            )
            version = ".".join(map(str, llvm.llvm_version_info))
            return LLVMFacts(llvmlite.__version__, version, tuple(targets)), cpu
        except Exception as exc:
            return LLVMFacts(error=f"{type(exc).__name__}: {exc}"), HostCPU()

    def query_libcuda(self, path: str) -> DriverQuery:
        """Load libcuda from ``path`` and ask the driver for its CUDA version and devices."""
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            return DriverQuery(path, error=str(exc))
        try:
            query = _ask_libcuda(lib, path)
        except (AttributeError, OSError, ValueError) as exc:
            query = DriverQuery(path, loaded=True, error=f"{type(exc).__name__}: {exc}")
        return dataclasses.replace(query, resolved=self._mapped_file("libcuda.so"))

    def _mapped_file(self, stem: str) -> str:
        """The path of a loaded shared library whose name starts with ``stem`` (Linux only)."""
        for line in (self.read_text("/proc/self/maps", limit=1 << 22) or "").splitlines():
            path = line.split(maxsplit=5)[-1] if line.count(" ") >= 5 else ""
            if os.path.basename(path).startswith(stem):
                return path
        return ""

    def query_nvml(self, path: str) -> DriverQuery:
        """Ask NVML (no CUDA context needed, ignores CUDA_VISIBLE_DEVICES) about the driver."""
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            return DriverQuery(path, error=str(exc))
        try:
            return _ask_nvml(lib, path)
        except (AttributeError, OSError, ValueError) as exc:
            return DriverQuery(path, loaded=True, error=f"{type(exc).__name__}: {exc}")

    def nvjitlink_version(self, path: str) -> str:
        """'13.0' from ``nvJitLinkVersion`` of the library at ``path``; '' when it cannot say."""
        try:
            fn = ctypes.CDLL(path).nvJitLinkVersion
            major, minor = ctypes.c_uint(0), ctypes.c_uint(0)
            if fn(ctypes.byref(major), ctypes.byref(minor)) != 0:
                return ""
        except (OSError, AttributeError):
            return ""
        return f"{major.value}.{minor.value}"


_CU_CC_MAJOR, _CU_CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{MAJOR,MINOR}


def _cu_error(lib: ctypes.CDLL, rc: int) -> str:
    name = ctypes.c_char_p()
    if lib.cuGetErrorName(rc, ctypes.byref(name)) == 0 and name.value:
        return f"{name.value.decode()} ({rc})"
    return f"CUresult {rc}"


def _ask_libcuda(lib: ctypes.CDLL, path: str) -> DriverQuery:
    version = ctypes.c_int(0)
    lib.cuDriverGetVersion(ctypes.byref(version))  # valid before cuInit
    rc = lib.cuInit(0)
    if rc != 0:
        error = f"cuInit failed: {_cu_error(lib, rc)}"
        return DriverQuery(path, True, error, version.value)
    count = ctypes.c_int(0)
    lib.cuDeviceGetCount(ctypes.byref(count))
    devices = []
    for index in range(count.value):
        dev, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        lib.cuDeviceGet(ctypes.byref(dev), index)
        name = ctypes.create_string_buffer(256)
        lib.cuDeviceGetName(name, 256, dev)
        lib.cuDeviceGetAttribute(ctypes.byref(major), _CU_CC_MAJOR, dev)
        lib.cuDeviceGetAttribute(ctypes.byref(minor), _CU_CC_MINOR, dev)
        mem = ctypes.c_size_t(0)
        lib.cuDeviceTotalMem_v2(ctypes.byref(mem), dev)
        devices.append(
            CudaDevice(name.value.decode(errors="replace"), major.value, minor.value, mem.value)
        )
    return DriverQuery(path, True, "", version.value, devices=tuple(devices))


class _NvmlMemory(ctypes.Structure):
    _fields_ = [
        ("total", ctypes.c_ulonglong),
        ("free", ctypes.c_ulonglong),
        ("used", ctypes.c_ulonglong),
    ]


def _ask_nvml(lib: ctypes.CDLL, path: str) -> DriverQuery:
    rc = lib.nvmlInit_v2()
    if rc != 0:
        return DriverQuery(path, True, f"nvmlInit failed: NVML_ERROR {rc}")
    try:
        buf = ctypes.create_string_buffer(96)
        lib.nvmlSystemGetDriverVersion(buf, 96)
        driver = buf.value.decode(errors="replace")
        cuda = ctypes.c_int(0)
        lib.nvmlSystemGetCudaDriverVersion_v2(ctypes.byref(cuda))
        count = ctypes.c_uint(0)
        lib.nvmlDeviceGetCount_v2(ctypes.byref(count))
        lib.nvmlDeviceGetHandleByIndex_v2.argtypes = [
            ctypes.c_uint,
            ctypes.POINTER(ctypes.c_void_p),
        ]
        devices = []
        for index in range(count.value):
            handle = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)) != 0:
                continue
            lib.nvmlDeviceGetName.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint]
            lib.nvmlDeviceGetName(handle, buf, 96)
            major, minor, mem = ctypes.c_int(0), ctypes.c_int(0), _NvmlMemory()
            lib.nvmlDeviceGetCudaComputeCapability.argtypes = [ctypes.c_void_p] + [
                ctypes.c_void_p
            ] * 2
            lib.nvmlDeviceGetCudaComputeCapability(handle, ctypes.byref(major), ctypes.byref(minor))
            lib.nvmlDeviceGetMemoryInfo.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            lib.nvmlDeviceGetMemoryInfo(handle, ctypes.byref(mem))
            name = buf.value.decode(errors="replace")
            devices.append(CudaDevice(name, major.value, minor.value, mem.total))
        return DriverQuery(path, True, "", cuda.value, driver, tuple(devices))
    finally:
        lib.nvmlShutdown()
