"""A ``System`` that describes an imaginary machine: canned files, env, commands and libraries."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tilec.platform.facts import LLVMFacts
from tilec.platform.system import CommandResult, DriverQuery, HostCPU, Interpreter, System

SITE = "/venv/lib/python3.12/site-packages"


def py(version: str = "3.12.4", bits: int = 64, prefix: str = "/venv", **kw: object) -> Interpreter:
    values = {
        "version": version,
        "implementation": "CPython",
        "maxsize_bits": bits,
        "free_threaded": False,
        "executable": f"{prefix}/bin/python",
        "prefix": prefix,
        "base_prefix": "/usr",
        "platform_tag": "linux-x86_64",
    }
    values.update(kw)
    return Interpreter(**values)  # type: ignore[arg-type]


LLVM_OK = LLVMFacts("0.50.0", "22.1.0", ("nvptx64", "amdgcn", "x86-64"))


@dataclass
class FakeSystem(System):
    uname_: tuple[str, str, str] = ("Linux", "6.8.0-45-generic", "x86_64")
    files: dict[str, str] = field(default_factory=dict)
    environ: dict[str, str] = field(default_factory=dict)
    commands: dict[tuple[str, ...], CommandResult] = field(default_factory=dict)
    libcuda: dict[str, DriverQuery] = field(default_factory=dict)
    nvml: DriverQuery | None = None
    nvjitlink: dict[str, str] = field(default_factory=dict)
    dists: dict[str, str] = field(default_factory=lambda: {"pip": "24.2"})
    llvm_: tuple[LLVMFacts, HostCPU] = (
        LLVM_OK,
        HostCPU("znver4", ("avx2", "fma"), "x86_64-unknown-linux-gnu"),
    )
    interp: Interpreter = field(default_factory=py)
    sysctls: dict[str, str] = field(default_factory=dict)
    registry: dict[str, int] = field(default_factory=dict)
    native_machine: str = ""
    glibc: str = "2.39"
    cores: int = 16
    sites: tuple[str, ...] = (SITE,)
    unwritable: dict[str, str] = field(default_factory=dict)
    launcher_error: str | None = None
    python_runs: list[str] = field(default_factory=list)
    tilec_dir: str = f"{SITE}/tilec"  # where the tilec package lives (a wheel install)
    dist_files: dict[tuple[str, str], str] = field(default_factory=dict)  # direct_url.json ...

    @property
    def env(self) -> Mapping[str, str]:
        return self.environ

    def home(self) -> str:
        return "C:/Users/me" if self.uname_[0] == "Windows" else "/home/me"

    def read_text(self, path: str, limit: int = 1 << 16) -> str | None:
        return self.files.get(path)

    def exists(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return path in self.files or any(p.startswith(prefix) for p in self.files)

    def listdir(self, path: str) -> tuple[str, ...]:
        prefix = path.rstrip("/") + "/"
        return tuple(
            sorted({p[len(prefix) :].split("/")[0] for p in self.files if p.startswith(prefix)})
        )

    def glob(self, pattern: str) -> tuple[str, ...]:
        depth = pattern.count("/")
        paths = set()
        for p in self.files:
            parts = p.split("/")
            paths.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        return tuple(
            sorted(p for p in paths if p.count("/") == depth and fnmatch.fnmatch(p, pattern))
        )

    def which(self, name: str) -> str | None:
        for entry in self.environ.get("PATH", "").split(":"):
            if entry and f"{entry}/{name}" in self.files:
                return f"{entry}/{name}"
        return None

    def run(self, argv: Sequence[str], timeout: float = 10.0) -> CommandResult:
        for key, result in self.commands.items():
            if tuple(argv[: len(key)]) == key:
                return result
        return CommandResult(-1, "", f"{argv[0]}: not found")

    def run_python(self, code: str, timeout: float = 120.0) -> CommandResult:
        self.python_runs.append(code)
        return self.run(["python", "-c"])

    def uname(self) -> tuple[str, str, str]:
        return self.uname_

    def mac_version(self) -> str:
        return self.uname_[1]

    def windows_build(self) -> int:
        return int(self.uname_[1].split(".")[-1]) if self.uname_[0] == "Windows" else 0

    def windows_native_machine(self) -> str:
        return self.native_machine

    def windows_registry_dword(self, key: str, name: str) -> int | None:
        return self.registry.get(name)

    def sysctl(self, name: str) -> str | None:
        return self.sysctls.get(name)

    def glibc_version(self) -> str:
        return self.glibc

    def cpu_count(self) -> int:
        return self.cores

    def interpreter(self) -> Interpreter:
        return self.interp

    def site_packages(self) -> tuple[str, ...]:
        return self.sites

    def dist_version(self, name: str) -> str:
        return self.dists.get(name, "")

    def find_package(self, name: str) -> str:
        """A package directory on PYTHONPATH or in site-packages, as the fake's files hold it."""
        for entry in [*self.environ.get("PYTHONPATH", "").split(":"), *self.sites]:
            if entry and f"{entry}/{name}/__init__.py" in self.files:
                return f"{entry}/{name}"
        return ""

    def tilec_version(self) -> str:
        return "0.1.0"

    def tilec_package_dir(self) -> str:
        return self.tilec_dir

    def dist_text(self, name: str, filename: str) -> str | None:
        return self.dist_files.get((name, filename))

    def import_error(self, module: str) -> str | None:
        return self.launcher_error

    def writable_dir_error(self, path: str) -> str:
        return self.unwritable.get(path, "")

    def llvm(self) -> tuple[LLVMFacts, HostCPU]:
        return self.llvm_

    def query_libcuda(self, path: str) -> DriverQuery:
        return self.libcuda.get(
            path, DriverQuery(path, error=f"{path}: cannot open shared object file")
        )

    def query_nvml(self, path: str) -> DriverQuery:
        return self.nvml or DriverQuery(path, error=f"{path}: cannot open shared object file")

    def nvjitlink_version(self, path: str) -> str:
        return self.nvjitlink.get(path, "")
