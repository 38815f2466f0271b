"""Run-time scenarios for test_process_survives.py (see scenarios.py): threads, forks, the disk
cache, faults and interrupts around launches."""

from __future__ import annotations

import gc
import os
import sys
import threading
from pathlib import Path

import numpy as np

import tilec
import tilec.language as tl
from tilec import config


def _fail(message: str) -> None:
    print(message, file=sys.stderr)
    raise SystemExit(1)


def _kernel(scale: float):  # type: ignore[no-untyped-def]
    @tilec.jit
    def axpy(x_ptr, y_ptr, out_ptr, n, A: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(out_ptr + offs, A * x + tl.load(y_ptr + offs, mask=m), mask=m)

    return axpy


def threads_compile_and_launch(threads: str, rounds: str) -> None:
    """Several Python threads each compile fresh kernels (new JITFunctions, new constexprs)
    and launch them on multi-threaded grids, while the main thread drops kernels and collects
    garbage (LLVM engines are freed while other threads compile and run)."""
    errors: list[str] = []

    def worker(t: int) -> None:
        rng = np.random.default_rng(t)
        try:
            for r in range(int(rounds)):
                n = int(rng.integers(1, 3000))
                x, y = (
                    rng.standard_normal(n).astype(np.float32),
                    rng.standard_normal(n).astype(np.float32),
                )
                out = np.full(n, np.nan, np.float32)
                a = float(t * 100 + r)
                k = _kernel(a)
                for _ in range(3):
                    k[(tilec.cdiv(n, 64),)](x, y, out, n, A=a, BLOCK=64)
                if not np.allclose(out, a * x.astype(np.float64) + y, rtol=1e-5, atol=1e-3):
                    errors.append(f"thread {t} round {r}: wrong result")
                del k
        except Exception as exc:  # reported by the main thread
            errors.append(f"thread {t}: {type(exc).__name__}: {exc}")

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(int(threads))]
    for th in pool:
        th.start()
    while any(th.is_alive() for th in pool):
        gc.collect()
        pool[0].join(0.05)
    for th in pool:
        th.join()
    if errors:
        _fail("\n".join(errors))


def tables_switched_while_launching(rounds: str) -> None:
    """Threads launch one kernel while the main thread flips the settings that select the
    kernel table (num_threads), so tables are created and swapped under running launches."""
    k = _kernel(2.0)
    n = 4096
    x, y = np.ones(n, np.float32), np.ones(n, np.float32)
    errors: list[str] = []
    stop = threading.Event()

    def launcher() -> None:
        out = np.zeros(n, np.float32)
        try:
            while not stop.is_set():
                out[:] = np.nan
                k[(n // 64,)](x, y, out, n, A=2.0, BLOCK=64)
                if not (out == 3.0).all():
                    errors.append("wrong result")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")

    pool = [threading.Thread(target=launcher) for _ in range(3)]
    for th in pool:
        th.start()
    for r in range(int(rounds)):
        with config.override(num_threads=1 + r % 3):
            pool[0].join(0.01)
    stop.set()
    for th in pool:
        th.join()
    if errors:
        _fail("\n".join(errors[:5]))


def cache_hammer(cache_dir: str, rounds: str) -> None:
    """Compile and load the same specializations through one on-disk cache that other
    processes write, read and damage at the same time."""
    from tilec.runtime.cache import KernelCache

    kernels = KernelCache(Path(cache_dir)).kernels
    rng = np.random.default_rng()
    with config.override(cache_dir=Path(cache_dir), cache_enabled=True):
        for r in range(int(rounds)):
            a = float(r % 4)
            n = 100
            x, y = rng.standard_normal(n).astype(np.float32), np.zeros(n, np.float32)
            out = np.full(n, np.nan, np.float32)
            _kernel(a)[(2,)](x, y, out, n, A=a, BLOCK=64)
            if not np.allclose(out, a * x, rtol=1e-6):
                _fail(f"round {r}: wrong result")
            entries = sorted(kernels.glob("*.tck")) if kernels.is_dir() else []
            if entries and r % 3 == 0:  # damage one entry: truncate it or flip payload bytes
                victim = entries[int(rng.integers(len(entries)))]
                try:
                    blob = bytearray(victim.read_bytes())
                    if r % 2:
                        blob = blob[: len(blob) // 2]
                    else:
                        blob[-64:] = bytes(64)
                    victim.write_bytes(bytes(blob))
                except OSError:
                    pass  # another process replaced or removed it meanwhile


def cache_cleared_by_another_thread(cache_dir: str, rounds: str) -> None:
    """Threads load the same specializations from the disk cache (fresh JITFunctions, so every
    launch goes to the cache) while another thread keeps clearing it."""
    from tilec.runtime.cache import KernelCache

    errors: list[str] = []
    stop = threading.Event()
    x, y = np.arange(100, dtype=np.float32), np.ones(100, np.float32)

    def loader(t: int) -> None:
        try:
            for r in range(int(rounds)):
                a = float((t + r) % 3)
                out = np.full(100, np.nan, np.float32)
                _kernel(a)[(2,)](x, y, out, 100, A=a, BLOCK=64)
                if not np.array_equal(out, a * x + 1):
                    errors.append(f"thread {t} round {r}: wrong result")
        except Exception as exc:
            errors.append(f"thread {t}: {type(exc).__name__}: {exc}")

    def clearer() -> None:
        cache = KernelCache(Path(cache_dir))
        while not stop.is_set():
            cache.clear()
            stop.wait(0.01)

    with config.override(cache_dir=Path(cache_dir), cache_enabled=True):
        loaders = [threading.Thread(target=loader, args=(t,)) for t in range(3)]
        wiper = threading.Thread(target=clearer)
        for th in [*loaders, wiper]:
            th.start()
        for th in loaders:
            th.join()
        stop.set()
        wiper.join()
    if errors:
        _fail("\n".join(errors[:5]))


def runtime_division_by_zero() -> None:
    """Integer division and remainder by zero, and INT_MIN // -1, trap (SIGFPE) on x86 when
    emitted as plain idiv: they must give some value, not kill the process."""

    @tilec.jit
    def div(x_ptr, y_ptr, q_ptr, r_ptr, d, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(q_ptr + offs, x // tl.load(y_ptr + offs) + x // d)
        tl.store(r_ptr + offs, x % tl.load(y_ptr + offs) + x % d)

    @tilec.jit
    def udiv(x_ptr, y_ptr, q_ptr, r_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
        tl.store(q_ptr + offs, x // y)
        tl.store(r_ptr + offs, x % y)

    for dtype in (np.int32, np.int64, np.int8):
        info = np.iinfo(dtype)
        x = np.array([info.min, info.max, 7, -7] * 4, dtype)
        q, r = np.zeros(16, dtype), np.zeros(16, dtype)
        div[(1,)](x, np.zeros(16, dtype), q, r, 0, BLOCK=16)
        div[(1,)](x, np.full(16, -1, dtype), q, r, -1, BLOCK=16)
        if q[2] != -14 or r[2] != 0:  # 7 // -1 twice, 7 % -1 twice
            _fail(f"{dtype.__name__}: 7 // -1 gave {q[2]}, 7 % -1 gave {r[2]}")
    x = np.array([0, 1, 2**32 - 1, 7] * 4, np.uint32)
    q, r = np.zeros(16, np.uint32), np.zeros(16, np.uint32)
    udiv[(1,)](x, np.zeros(16, np.uint32), q, r, BLOCK=16)


def fork_after_launches() -> None:
    """The native launcher's worker pool has threads in the parent; a forked child (which has
    none of them) compiles and runs grids, and so does the parent afterwards."""
    k = _kernel(3.0)
    n = 1 << 14
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    out = np.zeros(n, np.float32)
    k[(n // 64,)](x, y, out, n, A=3.0, BLOCK=64)
    pid = os.fork()
    if pid == 0:
        ok = True
        try:
            out[:] = 0
            k[(n // 64,)](x, y, out, n, A=3.0, BLOCK=64)
            _kernel(5.0)[(n // 64,)](x, y, out, n, A=5.0, BLOCK=64)
            ok = bool((out == 5.0).all())
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    out[:] = 0
    k[(n // 64,)](x, y, out, n, A=3.0, BLOCK=64)
    if status != 0 or not (out == 3.0).all():
        _fail(f"child wait status {status}, parent result ok: {(out == 3.0).all()}")


def interrupted_fallback_grid() -> None:
    """An exception (Ctrl-C) in the calling thread while the fallback launcher's threads run a
    long grid: when it reaches the caller, no thread may still be running the kernel (its
    argument buffer and arrays are freed as the exception unwinds)."""
    import signal

    @tilec.jit
    def spin(x_ptr, out_ptr, n):
        acc = 0.0
        for i in range(n):
            acc = acc * 0.999 + tl.load(x_ptr + i % 7)
        tl.store(out_ptr + tl.program_id(0), acc)

    class Interrupted(Exception):
        pass

    def interrupt(signum, frame):  # type: ignore[no-untyped-def]
        raise Interrupted

    x, out = np.ones(8, np.float32), np.zeros(64, np.float32)
    with config.override(disable_launcher=True, num_threads=4):
        spin[(1,)](x, out, 1)  # compiled before the clock starts
        signal.signal(signal.SIGALRM, interrupt)
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        try:
            spin[(64,)](x, out, 30_000_000)
        except Interrupted:
            pass
        else:
            _fail("the grid finished before the interrupt; make it longer")
        alive = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
        if alive:
            _fail(f"kernel threads still running after the exception: {alive}")


def faults_from_threads(rounds: str) -> None:
    """Kernels that read wild addresses, launched from several Python threads on multi-threaded
    grids (pool and spawned threads) next to correct kernels: every faulting launch is a
    LaunchError, every correct one gives its result, and the process lives on."""
    from tilec.backends import launcher
    from tilec.errors import LaunchError

    if not launcher.status().native:
        return  # only the native launcher traps faults (the ctypes fallback says so)

    @tilec.jit
    def wild(x_ptr, out_ptr, far):
        pid = tl.program_id(0)
        tl.store(out_ptr + pid, tl.load(x_ptr + far * (pid % 3)))

    errors: list[str] = []

    def worker(t: int) -> None:
        x, out = np.ones(64, np.float32), np.zeros(64, np.float32)
        try:
            for r in range(int(rounds)):
                try:
                    wild[(64,)](x, out, 1 << 40)
                    errors.append(f"thread {t}: a wild read raised nothing")
                except LaunchError:
                    pass
                out[:] = 0
                wild[(64,)](x, out, 0)  # in bounds
                if not (out == 1).all():
                    errors.append(f"thread {t} round {r}: wrong result after a fault")
        except Exception as exc:
            errors.append(f"thread {t}: {type(exc).__name__}: {exc}")

    with config.override(num_threads=4):
        pool = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
    if errors:
        _fail("\n".join(errors[:5]))
