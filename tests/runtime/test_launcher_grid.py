"""The CPU grid runner: native and fallback run every program once and give identical results."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from tilec import config
from tilec.backends import launcher
from tilec.errors import LaunchError

from ._launcher_llvm import GRID_KERNEL, jit

HAS_NATIVE = importlib.util.find_spec("tilec._launcher") is not None
needs_native = pytest.mark.skipif(
    not HAS_NATIVE, reason="tilec._launcher is not built (run ci/build_inplace.sh)"
)


@pytest.fixture(scope="module")
def kernel():
    return jit(GRID_KERNEL)


def run(kernel, grid, threads, *, native, k=7, fail_at=-1):
    with config.override(disable_launcher=not native):
        return run_configured(kernel, grid, threads, native=native, k=k, fail_at=fail_at)


def run_configured(kernel, grid, threads, *, native, k=7, fail_at=-1):
    """``run`` under the configuration in force (config.override is process-wide, so threads
    must not each override it: the restores interleave)."""
    total = grid[0] * grid[1] * grid[2]
    out = np.full(max(total, 1), -1, dtype=np.int64)  # poisoned: every program must write
    counts = np.zeros(max(total, 1), dtype=np.int64)
    args = np.zeros(4, dtype=np.uint64)
    status = np.zeros(4, dtype=np.int64)
    assert launcher.status().native is native
    launcher.pack_args(b"PPqq", (out.ctypes.data, counts.ctypes.data, k, fail_at), args.ctypes.data)
    launcher.run_cpu_grid(kernel.address, args.ctypes.data, grid, threads, status.ctypes.data)
    return out[:total], counts[:total], status


def expected(grid, k):
    gx, gy, gz = grid
    pid = np.arange(gx * gy * gz, dtype=np.int64)
    x, y, z = pid % gx, (pid // gx) % gy, pid // (gx * gy)
    return k * pid + x + 1000 * y + 1000000 * z


GRIDS = [(1, 1, 1), (5, 1, 1), (3, 4, 5), (1000, 1, 1), (17, 3, 2)]


@needs_native
@pytest.mark.parametrize("grid", GRIDS)
@pytest.mark.parametrize("threads", [1, 2, 7])
def test_native_and_fallback_agree(kernel, grid, threads):
    k = int(np.random.default_rng().integers(1, 1000))
    native = run(kernel, grid, threads, native=True, k=k)
    fallback = run(kernel, grid, threads, native=False, k=k)
    for got in (native, fallback):
        np.testing.assert_array_equal(got[0], expected(grid, k))
        np.testing.assert_array_equal(got[1], 1)  # every program ran exactly once
        assert not got[2].any()


@pytest.mark.parametrize("native", [pytest.param(True, marks=needs_native), False])
def test_many_programs_on_many_threads(kernel, native):
    grid = (4099, 3, 1)  # not a multiple of any chunk size
    out, counts, _ = run(kernel, grid, 16, native=native, k=3)
    np.testing.assert_array_equal(out, expected(grid, 3))
    np.testing.assert_array_equal(counts, 1)


@pytest.mark.parametrize("native", [pytest.param(True, marks=needs_native), False])
def test_empty_grid_runs_nothing(kernel, native):
    out, counts, status = run(kernel, (0, 4, 1), 4, native=native)
    assert out.size == 0 and counts.size == 0 and not status.any()


@pytest.mark.parametrize("native", [pytest.param(True, marks=needs_native), False])
@pytest.mark.parametrize("threads", [1, 3])
def test_failed_assert_reports_its_program(kernel, native, threads):
    out, counts, status = run(kernel, (50, 2, 1), threads, native=native, fail_at=37)
    assert status[0] == 1 and status[1] == 37
    assert counts[37] == 0 and out[37] == -1
    assert counts.max() == 1  # no program ran twice


@pytest.mark.parametrize("native", [pytest.param(True, marks=needs_native), False])
@pytest.mark.parametrize(
    ("grid", "threads"), [((-1, 1, 1), 1), ((1, 1), 1), ((2**31, 1, 1), 1), ((4, 1, 1), 0)]
)
def test_bad_grid_or_threads_is_a_launch_error(kernel, native, grid, threads):
    status = np.zeros(4, dtype=np.int64)
    with config.override(disable_launcher=not native), pytest.raises(LaunchError):
        launcher.run_cpu_grid(kernel.address, 0, grid, threads, status.ctypes.data)


@pytest.mark.parametrize("native", [pytest.param(True, marks=needs_native), False])
def test_concurrent_grids_from_several_python_threads(kernel, native):
    import threading

    results, errors = {}, []

    def launch(i: int) -> None:
        try:
            for _ in range(10):
                results[i] = run_configured(kernel, (97, 3, 1), 3, native=native, k=i + 1)
        except Exception as exc:  # reported below; a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=launch, args=(i,)) for i in range(4)]
    with config.override(disable_launcher=not native):
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert not errors and len(results) == 4
    for i, (out, counts, status) in results.items():
        np.testing.assert_array_equal(out, expected((97, 3, 1), i + 1))
        np.testing.assert_array_equal(counts, 1)
        assert not status.any()


@needs_native
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_runs_grids_after_the_parent_did(kernel):
    import multiprocessing

    run(kernel, (64, 1, 1), 4, native=True)  # the parent's pool now has worker threads
    ctx = multiprocessing.get_context("fork")
    child = ctx.Process(target=_grid_in_child, args=(kernel.address,))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung running a grid")
    assert child.exitcode == 0


def _grid_in_child(address: int) -> None:
    import sys

    class Kernel:
        pass

    k = Kernel()
    k.address = address  # the JIT-compiled code is mapped in the child too
    out, counts, _ = run(k, (300, 1, 1), 4, native=True, k=5)
    ok = (out == expected((300, 1, 1), 5)).all() and (counts == 1).all()
    sys.exit(0 if ok else 1)
