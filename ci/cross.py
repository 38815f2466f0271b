"""Cross-compile the launcher's C core (no Python API in it) with zig cc and check that every
object has the target's format: proof on a Linux box that the Windows (LoadLibrary, Win32
threads) and macOS code paths compile.

    python ci/cross.py [TARGET ...]      (default: the targets in TARGETS)
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ("grid.c", "pack.c", "cuda.c", "fault.c")

# zig target -> (object format, machine id): COFF Machine, Mach-O cputype, ELF e_machine
TARGETS = {
    "x86_64-windows-gnu": ("coff", 0x8664),
    "aarch64-windows-gnu": ("coff", 0xAA64),
    "aarch64-macos": ("macho", 0x0100000C),
    "x86_64-macos": ("macho", 0x01000007),
    "aarch64-linux-gnu": ("elf", 183),
}


# Symbols each object must import: proof that the platform's own #ifdef branch was compiled.
IMPORTS = {
    "coff": {"grid.o": b"CreateThread", "cuda.o": b"LoadLibraryA", "fault.o": b"AddVectored"},
    "macho": {"grid.o": b"pthread_create", "cuda.o": b"dlopen", "fault.o": b"sigaltstack"},
    "elf": {"grid.o": b"pthread_create", "cuda.o": b"dlopen", "fault.o": b"sigaltstack"},
}


def object_format(data: bytes) -> tuple[str, int]:
    if data[:4] == b"\xcf\xfa\xed\xfe":
        return "macho", struct.unpack_from("<I", data, 4)[0]
    if data[:4] == b"\x7fELF":
        return "elf", struct.unpack_from("<H", data, 18)[0]
    return "coff", struct.unpack_from("<H", data, 0)[0]  # COFF objects have no magic


def compile_core(target: str, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    objects = []
    for source in CORE:
        obj = out / source.replace(".c", ".o")
        cmd = [sys.executable, "-m", "ziglang", "cc", "-target", target, "-std=c11", "-O2"]
        cmd += ["-Wall", "-Wextra", "-Werror", "-I", str(ROOT / "platform" / "launcher")]
        cmd += ["-c", str(ROOT / "platform" / "launcher" / source), "-o", str(obj)]
        subprocess.run(cmd, check=True)
        objects.append(obj)
    return objects


def main(targets: list[str]) -> int:
    failed = 0
    for target in targets or list(TARGETS):
        want = TARGETS[target]
        for obj in compile_core(target, ROOT / "build" / "cross" / target):
            data = obj.read_bytes()
            got = object_format(data)
            ok = got == want and IMPORTS[want[0]].get(obj.name, b"") in data
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {target:20} {obj.name:8} {got[0]} 0x{got[1]:x}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
