"""KernelCache: hits across processes, corrupted entries, concurrent writers, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tilec import cli
from tilec.backends.artifacts import CompiledKernel, KernelMetadata
from tilec.backends.target import CompileOptions, Target
from tilec.runtime.cache import KernelCache

WORKER = Path(__file__).with_name("cache_worker.py")
SRC = Path(__file__).resolve().parents[2] / "src"


def _run(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, str(WORKER), *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _kernel(name: str = "k", text: str = "body") -> CompiledKernel:
    meta = KernelMetadata(name, name, Target("cpu", "fake"), CompileOptions(), ())
    return CompiledKernel(meta, {"llir": text, "obj": b"\x00\x01"})


def test_put_then_get_round_trips(tmp_path):
    cache = KernelCache(tmp_path)
    cache.put("abc", _kernel())
    got = cache.get("abc")
    assert got is not None and got.asm == {"llir": "body", "obj": b"\x00\x01"}
    assert cache.get("missing") is None


def test_hit_in_a_new_process(tmp_path):
    first = _run("launch", str(tmp_path))
    second = _run("launch", str(tmp_path))
    assert first == {"compiles": 1, "ok": True}
    assert second == {"compiles": 0, "ok": True}


def test_corrupted_entry_is_detected_and_rebuilt(tmp_path):
    assert _run("launch", str(tmp_path))["compiles"] == 1
    (entry,) = (tmp_path / "kernels").glob("*.tck")
    blob = bytearray(entry.read_bytes())
    blob[-10] ^= 0xFF  # flip bits in the payload
    entry.write_bytes(bytes(blob))
    assert _run("launch", str(tmp_path)) == {"compiles": 1, "ok": True}
    assert _run("launch", str(tmp_path)) == {"compiles": 0, "ok": True}


def test_truncated_entry_is_removed(tmp_path):
    cache = KernelCache(tmp_path)
    path = cache.put("abc", _kernel())
    path.write_bytes(path.read_bytes()[:40])
    assert cache.get("abc") is None and not path.exists()


def test_concurrent_processes_never_read_a_torn_entry(tmp_path):
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "hammer", str(tmp_path), str(w), "15"],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(SRC)},
        )
        for w in range(4)
    ]
    results = [json.loads(p.communicate(timeout=120)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert results == [{"torn": 0}] * 4
    assert not list((tmp_path / "kernels").glob("*.tmp"))


def test_cli_info_list_clear(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    from tilec import config

    config.reload()
    try:
        KernelCache(tmp_path).put("k1", _kernel("alpha"))
        assert cli.main(["cache", "info", "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["kernels"] == 1 and info["path"] == str(tmp_path)
        assert cli.main(["cache", "list"]) == 0
        assert "alpha" in capsys.readouterr().out
        assert cli.main(["cache", "clear"]) == 0
        assert "removed 1" in capsys.readouterr().out
        assert KernelCache(tmp_path).get("k1") is None
    finally:
        monkeypatch.delenv("TILEC_CACHE_DIR")
        config.reload()


def test_warm_load_is_one_read(tmp_path, monkeypatch):
    # fast by construction (counted, not timed, so a loaded machine cannot fail it): a warm
    # load reads its one entry file once and looks at nothing else in the cache folder
    from pathlib import Path

    cache = KernelCache(tmp_path)
    cache.put("k", _kernel(text="x" * 20_000))
    reads = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: reads.append(p) or real(p))

    def no_scan(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a warm load listed the cache folder")

    monkeypatch.setattr(Path, "iterdir", no_scan)
    monkeypatch.setattr(Path, "glob", no_scan)
    monkeypatch.setattr(Path, "rglob", no_scan)
    assert cache.get("k") is not None
    assert reads == [cache.path("k")]


def test_unwritable_cache_warns_and_still_compiles(tmp_path, fake):
    import pytest

    import tilec
    from tilec import config

    fake.PROGRAMS["noop"] = lambda args, pid, grid: None
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")

    def noop(n):
        pass

    with config.override(cache_dir=blocker), pytest.warns(RuntimeWarning, match="cache"):
        tilec.jit(noop)[(1,)](3)
    assert fake.STATS.compiles == 1
