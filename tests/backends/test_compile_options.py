"""CompileOptions rejects options of the wrong type or range with a UsageError naming the option
(never a bare TypeError from a comparison) and normalizes numpy values to Python ones."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.backends.target import CompileOptions
from tilec.errors import UsageError


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"num_warps": "x"}, "num_warps must be an integer"),
        ({"num_warps": 4.0}, "num_warps must be an integer"),
        ({"num_warps": True}, "num_warps must be an integer"),
        ({"num_warps": 3}, "num_warps must be a power of 2"),
        ({"num_warps": 0}, "num_warps must be from 1"),
        ({"num_warps": 2048}, "num_warps must be from 1 to 1024"),
        ({"num_stages": -1}, "num_stages"),
        ({"num_stages": None}, "num_stages must be an integer"),
        ({"num_ctas": 0}, "num_ctas"),
        ({"maxnreg": "many"}, "maxnreg must be an integer"),
        ({"maxnreg": 1000}, "maxnreg must be from 1 to 255"),
        ({"debug": "x"}, "debug must be True or False"),
        ({"enable_fp_fusion": 2}, "enable_fp_fusion must be True or False"),
    ],
)
def test_bad_option_is_a_usage_error_naming_it(options: dict, named: str) -> None:
    with pytest.raises(UsageError, match=named):
        CompileOptions(**options)
    with pytest.raises(AssertionError, match=named):  # what Triton's option checks raise
        CompileOptions(**options)


def test_numpy_values_become_python_values() -> None:
    options = CompileOptions(num_warps=np.int64(8), maxnreg=np.int32(128), debug=np.bool_(True))
    assert options == CompileOptions(num_warps=8, maxnreg=128, debug=True)
    assert type(options.num_warps) is int and options.debug is True
    assert hash(options) == hash(CompileOptions(num_warps=8, maxnreg=128, debug=True))


def test_defaults_and_triton_values_are_accepted() -> None:
    for warps in (1, 2, 4, 8, 16, 32):
        assert CompileOptions(num_warps=warps, num_stages=0).num_warps == warps
    assert CompileOptions().maxnreg is None
