"""The differential fuzzer in CI: a fixed, derandomized set of random kernels (about a minute on
two cores) must match the NumPy reference on the CPU backend, and on a GPU, CUDA must match the
CPU bit for bit. A failure is shrunk by Hypothesis and reported as a stand-alone script; longer
runs: ``python -m tests.fuzz.run --count 20000 --seed S``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .check import run_case
from .check_cuda import cuda_available, run_pair
from .gen import generate
from .program import Case
from .reference import PENDING
from .repro import script

EXAMPLES = 30


@st.composite
def cases(draw: st.DrawFn) -> Case:
    class _D:
        def int(self, lo: int, hi: int) -> int:
            return draw(st.integers(lo, hi))

    return generate(_D())


FIXED = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _fail(case: Case, status: str, detail: str, lanes: list[int]) -> None:
    pytest.fail(f"{status}: {detail}\n--- reproducer ---\n{script(case, lanes or None)}")


@pytest.mark.slow
@FIXED
@given(case=cases())
def test_random_kernels_match_the_reference_on_cpu(case: Case, folder: Path) -> None:
    outcome = run_case(case, folder, PENDING)
    if outcome.status != "ok":
        _fail(outcome.case or case, outcome.status, outcome.detail, outcome.bad_lanes)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs an NVIDIA GPU and torch with CUDA")
@settings(parent=FIXED, max_examples=150)
@given(case=cases())
def test_random_kernels_cuda_matches_cpu(case: Case, folder: Path) -> None:
    outcome = run_pair(case, folder, PENDING)
    if outcome.status != "ok":
        _fail(outcome.case or case, outcome.status, outcome.detail, outcome.bad_lanes)
