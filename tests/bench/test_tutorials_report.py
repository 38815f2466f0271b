"""bench/tutorials.py pairs the perf_report tables of Triton's tutorials run by Triton and by
tilec: Triton names a line's column "Line (unit)", tilec's "Line"; only the kernel's lines are
compared, and a table in milliseconds has its ratio inverted so > 1 is always tilec faster."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "tutorials.py"


@pytest.fixture(scope="module")
def tutorials():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_tutorials", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _side(rows: list[dict], ylabel: str = "GB/s") -> dict:
    lines = ["Triton", "Torch"]
    table = {"name": "softmax", "x": ["N"], "lines": lines, "ylabel": ylabel, "rows": rows}
    return {"status": 0, "tables": [table]}


def test_kernel_lines_pair_by_name_and_row(tutorials) -> None:  # type: ignore[no-untyped-def]
    triton = _side([
        {"N": 256.0, "Triton (GB/s)": 800.0, "Torch (GB/s)": 1000.0},
        {"N": 512.0, "Triton (GB/s)": 1000.0, "Torch (GB/s)": 1500.0},
    ])  # fmt: skip
    tilec = _side([
        {"N": 256.0, "Triton": 400.0, "Triton-min": 390.0, "Torch": 990.0},
        {"N": 512.0, "Triton": 1100.0, "Triton-min": 1000.0, "Torch": 1490.0},
    ])  # fmt: skip
    points = tutorials.compare({"triton": triton, "tilec": tilec})
    assert [(p["x"]["N"], p["line"], p["ratio"]) for p in points] == [
        (256.0, "Triton", 0.5),
        (512.0, "Triton", 1.1),
    ]  # torch's line is a reference, not the kernel


def test_time_tables_invert_the_ratio(tutorials) -> None:  # type: ignore[no-untyped-def]
    triton = _side([{"N": 1.0, "Triton (ms)": 2.0, "Torch (ms)": 1.0}], "ms")
    tilec = _side([{"N": 1.0, "Triton": 1.0, "Torch": 1.0}], "ms")
    (point,) = tutorials.compare({"triton": triton, "tilec": tilec})
    assert point["ratio"] == 2.0  # half the time: twice as fast


def test_missing_or_broken_values_are_left_out(tutorials) -> None:  # type: ignore[no-untyped-def]
    triton = _side([{"N": 1.0, "Triton (GB/s)": math.nan}, {"N": 2.0, "Triton (GB/s)": 5.0}])
    tilec = _side([{"N": 1.0, "Triton": 3.0}, {"N": 2.0}])
    assert tutorials.compare({"triton": triton, "tilec": tilec}) == []
