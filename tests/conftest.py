"""Settings for the whole suite: how many workers, and the longest tests first.

The suite runs on every core (pytest-xdist, where it is installed). A test that takes
tens of seconds and starts last keeps one worker busy after the others have run out of work;
started first, the short tests fill the other workers around it.
"""

from __future__ import annotations

import pytest

# Node-id prefixes, in the order they start: the tests that took longest on a 2-core machine.
# An entry that no longer matches only changes the order; every collected test still runs.
FIRST = (
    "tests/compat_inductor/test_inductor_cpu.py::test_compile_worker_pool_cold_and_warm",
    "tests/compat_inductor/test_inductor_cpu.py",
    "tests/robustness/test_process_survives.py::test_odd_kernels_compile",
    "tests/packaging/test_c_core.py",
    "tests/backends/cpu/test_no_runtime_helpers.py",
    "tests/robustness/test_process_survives.py",
    "tests/backends/cpu/test_fork_while_compiling.py",
    "tests/docs/test_tutorials.py",
    "tests/backends/cuda/test_matmul_k_loop.py",
)


def _rank(item: pytest.Item) -> int:
    return next((i for i, prefix in enumerate(FIRST) if item.nodeid.startswith(prefix)), len(FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: the rest keep pytest's order


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads its options
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Unless the command line chooses (``-n``, ``--dist``), the suite runs on a worker per core
    with work stealing (``-n auto --dist worksteal``). It stays in this one process without
    pytest-xdist, when every argument names a file or a test (starting workers costs seconds
    that a few tests never repay), and for ``-m gpu``, whose tests share one device."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.option.numprocesses is not None or config.option.dist != "no":
        return
    where = config.invocation_params.dir
    files = [where / arg.split("::")[0] for arg in config.args]
    if (files and all(f.is_file() for f in files)) or config.option.markexpr.strip() == "gpu":
        return
    config.option.numprocesses = "auto"
    config.option.dist = "worksteal"
