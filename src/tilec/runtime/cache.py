"""KernelCache: compiled kernels on disk, content-addressed, safe under concurrent processes.

An entry is ``kernels/<key>.tck``: a magic line, a one-line JSON header (for ``tilec cache
list``), the SHA-256 of the payload and the pickled CompiledKernel. Writes go to a private
temporary file that ``os.replace`` renames into place, so a reader sees a whole entry or none;
a checksum mismatch marks a corrupted entry, which is deleted and rebuilt by the caller.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import config
from ..backends.artifacts import CompiledKernel
from ..errors import CacheError
from ..ir.argspec import ArgSpec

MAGIC = b"TILEC-KERNEL 1\n"
SUFFIX = ".tck"


@dataclass(frozen=True)
class CacheEntry:
    """What ``tilec cache list`` shows about one entry."""

    key: str
    path: Path
    size: int
    header: dict[str, Any]


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _split(blob: bytes) -> tuple[dict[str, Any], bytes] | None:
    """(header, payload) of a well-formed entry, else None."""
    if not blob.startswith(MAGIC):
        return None
    rest = blob[len(MAGIC) :]
    header_end = rest.find(b"\n")
    digest_end = rest.find(b"\n", header_end + 1)
    if header_end < 0 or digest_end < 0:
        return None
    digest, payload = rest[header_end + 1 : digest_end], rest[digest_end + 1 :]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    try:
        header = json.loads(rest[:header_end])
    except ValueError:
        return None
    return header, payload


class KernelCache:
    """Compiled kernels under ``root`` (default: ``config.cache_dir``)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else config.get().cache_dir
        self.kernels = self.root / "kernels"

    def path(self, key: str) -> Path:
        return self.kernels / f"{key}{SUFFIX}"

    def get(self, key: str) -> CompiledKernel | None:
        """The cached kernel, or None when absent or corrupted (a corrupted entry is removed)."""
        path = self.path(key)
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CacheError(f"cannot read kernel cache entry {path}: {exc}") from exc
        parts = _split(blob)
        if parts is not None:
            try:
                kernel = pickle.loads(parts[1])
            except Exception:
                kernel = None
            if isinstance(kernel, CompiledKernel):
                return kernel
        with contextlib.suppress(OSError):
            path.unlink()
        return None

    def put(self, key: str, kernel: CompiledKernel, specs: Sequence[ArgSpec] = ()) -> Path:
        """Store ``kernel``; ``specs`` (all parameters, constexprs too) label it in listings."""
        payload = pickle.dumps(kernel, protocol=pickle.HIGHEST_PROTOCOL)
        header = {
            "name": kernel.metadata.name,
            "target": str(kernel.metadata.target),
            "params": [str(p) for p in (specs or kernel.metadata.params)],
            "stages": sorted(kernel.asm),
            "created": round(time.time(), 3),
        }
        head = json.dumps(header, sort_keys=True).encode()
        digest = hashlib.sha256(payload).hexdigest().encode()
        path = self.path(key)
        try:
            _atomic_write(path, MAGIC + head + b"\n" + digest + b"\n" + payload)
        except OSError as exc:
            raise CacheError(f"cannot write kernel cache entry {path}: {exc}") from exc
        return path

    def entries(self) -> Iterator[CacheEntry]:
        if not self.kernels.is_dir():
            return
        for path in sorted(self.kernels.glob(f"*{SUFFIX}")):
            with contextlib.suppress(OSError):
                blob = path.read_bytes()
                parts = _split(blob)
                header = parts[0] if parts else {"corrupted": True}
                yield CacheEntry(path.stem, path, len(blob), header)

    def clear(self) -> int:
        """Remove every entry (kernels, autotuning results, and descriptor wrapper files that
        earlier versions wrote); returns the number of files removed."""
        removed = 0
        for sub in (self.kernels, self.root / "autotune", self.root / "descriptor_wrappers"):
            if not sub.is_dir():
                continue
            for path in sub.iterdir():
                if path.is_file():
                    with contextlib.suppress(OSError):
                        path.unlink()
                        removed += 1
        return removed


def _info(cache: KernelCache) -> dict[str, Any]:
    entries = list(cache.entries())
    tuned = cache.root / "autotune"
    return {
        "path": str(cache.root),
        "enabled": config.get().cache_enabled,
        "kernels": len(entries),
        "bytes": sum(e.size for e in entries),
        "autotune_results": len(list(tuned.glob("*.json"))) if tuned.is_dir() else 0,
    }


def main(action: str, as_json: bool = False) -> int:
    """``tilec cache info | list | clear``."""
    cache = KernelCache()
    if action == "info":
        info = _info(cache)
        if as_json:
            print(json.dumps(info, indent=2))
        else:
            for k, v in info.items():
                print(f"{k:17} {v}")
    elif action == "list":
        rows = [{"key": e.key, "size": e.size, **e.header} for e in cache.entries()]
        if as_json:
            print(json.dumps(rows, indent=2))
        for r in [] if as_json else rows:
            params = ", ".join(r.get("params", []))
            print(f"{r['key'][:16]}  {r.get('name', '?'):24} {r.get('target', '?'):18} ({params})")
    elif action == "clear":
        n = cache.clear()
        print(json.dumps({"removed": n}) if as_json else f"removed {n} entries from {cache.root}")
    else:
        raise CacheError(f"unknown cache action {action!r} (info, list, clear)")
    return 0
