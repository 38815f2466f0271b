"""Settings for the whole suite: how many workers, the longest tests first, and the slow tests.

The suite runs on every core (pytest-xdist, where it is installed). A test that takes
tens of seconds and starts last keeps one worker busy after the others have run out of work;
started first, the short tests fill the other workers around it.

The tests marked ``slow`` (``@pytest.mark.slow``, or listed in tests/slow.txt, which
``ci/slow_tests.py`` writes from measured durations) are left out of a plain ``python -m pytest``
so that it stays quick; the summary says how many and how to run them, and CI runs them.

Random inputs are the same on every run: each test seeds numpy's generators from its node id and
``--seed`` (0 unless given), so that a failure reproduces and a tolerance that holds today holds
tomorrow. ``--seed random`` draws a new seed, printed in the header, to look for inputs that fail.
"""

from __future__ import annotations

import secrets
import zlib
from pathlib import Path

import numpy as np
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

# One folder, file, test function (all its parameters) or node id per line, '#' starts a comment.
# Kept beside the tests rather than as decorators in them, so that regenerating it touches one
# file. An entry that no longer matches only adds its tests back to the default run.
SLOW_LIST = Path(__file__).with_name("slow.txt")

RUN_SLOW = "python -m pytest --slow"
ONLY_SLOW = "python -m pytest -m slow"
_LEFT_OUT = "slow_left_out"  # the count a worker reports to the controller (xdist workeroutput)
_left_out = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="also run the tests marked slow, which a plain run leaves out (CI runs them)",
    )
    parser.addoption(
        "--seed",
        default="0",
        help="seed of the tests' random inputs, an integer or 'random' (default 0)",
    )


def _base_seed(config: pytest.Config) -> int:
    chosen = config.getoption("--seed")
    if chosen == "random":  # drawn once by the controller and handed to every worker
        workerinput = getattr(config, "workerinput", None)
        return int(workerinput["tilec_seed"]) if workerinput else _drawn_seed(config)
    try:
        return int(chosen)
    except ValueError:
        raise pytest.UsageError(f"--seed: {chosen!r} is neither an integer nor 'random'") from None


_drawn = pytest.StashKey[int]()


def _drawn_seed(config: pytest.Config) -> int:
    if _drawn not in config.stash:
        config.stash[_drawn] = secrets.randbelow(2**31)
    return config.stash[_drawn]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # pytest-xdist: hand the controller's seed to a worker
    node.workerinput["tilec_seed"] = _base_seed(node.config)


@pytest.fixture(autouse=True)
def _seeded_random_inputs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """``np.random.default_rng()`` and numpy's global generator, seeded from ``--seed`` and the
    test's node id; a generator asked for with a seed of its own is left alone."""
    seed = zlib.crc32(request.node.nodeid.encode()) ^ _base_seed(request.config)
    np.random.seed(seed)
    streams = np.random.SeedSequence(seed).spawn
    unseeded = np.random.default_rng

    def default_rng(seed=None):
        return unseeded(streams(1)[0] if seed is None else seed)

    monkeypatch.setattr(np.random, "default_rng", default_rng)


def _rank(item: pytest.Item) -> int:
    return next((i for i, prefix in enumerate(FIRST) if item.nodeid.startswith(prefix)), len(FIRST))


def _slow_entries() -> tuple[str, ...]:
    lines = SLOW_LIST.read_text().splitlines() if SLOW_LIST.is_file() else []
    return tuple(e for e in (line.split("#")[0].strip() for line in lines) if e)


def _listed(nodeid: str, entries: tuple[str, ...]) -> bool:
    # a prefix only at a boundary (/, ::, [): x.py::test_f names no test_fg, tests/a no tests/ab
    return any(nodeid == e or nodeid.startswith((e + "/", e + "::", e + "[")) for e in entries)


def _names_files(config: pytest.Config) -> bool:
    """Whether every argument names a file or a test (``pytest tests/x/test_y.py::test_z``)."""
    where = config.invocation_params.dir
    files = [where / arg.split("::")[0] for arg in config.args]
    return bool(files) and all(f.is_file() for f in files)


def _leaves_out_slow(config: pytest.Config) -> bool:
    """A plain run leaves the slow tests out; ``--slow`` keeps them, and so does a run that
    chooses its tests itself: a marker expression (``-m slow``, ``-m gpu``, ``-m "not gpu"``)
    or arguments that each name a file or a test."""
    return not (config.option.slow or config.option.markexpr.strip() or _names_files(config))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    entries = _slow_entries()
    for item in items:
        if _listed(item.nodeid, entries):
            item.add_marker(pytest.mark.slow)
    items.sort(key=_rank)  # stable: the rest keep pytest's order
    if not _leaves_out_slow(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config.hook.pytest_deselected(items=slow)
    config.stash[_left_out] = len(slow)
    if hasattr(config, "workerinput"):
        config.workeroutput[_LEFT_OUT] = len(slow)  # type: ignore[attr-defined]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # pytest-xdist: a worker finished
    count = getattr(node, "workeroutput", {}).get(_LEFT_OUT)
    if count is not None:  # every worker collects the same tests, so any one's count will do
        node.config.stash[_left_out] = count


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = [f"random inputs: --seed {_base_seed(config)}"]
    if _leaves_out_slow(config):
        lines.append(f"slow tests: left out (`{RUN_SLOW}` runs them too, `{ONLY_SLOW}` only them)")
    return lines


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    count = config.stash.get(_left_out, 0)
    if count:
        terminalreporter.write_line(
            f"{count} slow tests were left out (deselected): `{RUN_SLOW}` runs everything, "
            f"`{ONLY_SLOW}` only the slow tests; CI runs them",
            yellow=True,
            bold=True,
        )


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
    if _names_files(config) or config.option.markexpr.strip() == "gpu":
        return
    config.option.numprocesses = "auto"
    config.option.dist = "worksteal"
