"""The generated launch function: any parameter names, defaults, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import UnsupportedFeature, UsageError
from tilec.runtime.binder import generate_source
from tilec.runtime.parameters import Parameter

from .fake_backend import PROGRAMS


def odd_names(grid, kernel, _k0, options, c, self, BLOCK: tl.constexpr = 4):
    pass


def test_parameter_names_never_clash_with_generated_ones(fake):
    seen = []
    PROGRAMS["odd_names"] = lambda args, pid, g: seen.append(list(args))
    k = tilec.jit(odd_names)
    x = np.zeros(4, np.float32)
    k[(1,)](x, 5, 7, 2.5, True, 1 << 40)
    addr = x.ctypes.data
    assert seen == [[addr, 5, 7, 2.5, 1, 1 << 40]]
    assert k.warmup(x, 5, 7, 2.5, True, 1 << 40, BLOCK=8).params[-1].value == 8


def test_reserved_prefix_is_rejected():
    def bad(_tilec_grid, n):
        pass

    with pytest.raises(UsageError, match="_tilec_grid"):
        tilec.jit(bad)[(1,)](1, 2)


def test_keyword_only_and_var_keyword_are_not_launched():
    """Such a function is a @jit helper (tests/language/test_jit_varargs.py): launching it is
    refused by name (``*args`` is launched, as a tuple argument)."""

    def star(x, *rest, scale=1, **more):
        pass

    helper = tilec.jit(star)
    with pytest.raises(UnsupportedFeature, match=r"keyword-only parameters \('scale', 'more'\)"):
        helper[(1,)](1, 2)


def test_var_positional_source():
    params = [
        Parameter("x", False, False, num=0),
        Parameter("rest", False, False, num=1, var_positional=True),
    ]
    assert "def k(_tilec_grid, x=_tilec_defaults[0], *rest, **_tilec_options):" in (
        generate_source("k", params)
    )


def test_argument_errors_name_the_parameter(fake):
    PROGRAMS["odd_names"] = lambda args, pid, g: None
    with pytest.raises(UsageError, match="odd_names: argument 'options'"):
        tilec.jit(odd_names)[(1,)](np.zeros(4), 1, 2, "text", 4, 5)


def test_generated_source_is_readable():
    src = generate_source("k", [Parameter("x", False, False), Parameter("B", True, False, 16)])
    # a parameter without a default gets a sentinel, which no describer accepts: a missing
    # argument is a LaunchArgumentError naming it, at no cost to launches that pass it
    assert (
        "def k(_tilec_grid, x=_tilec_defaults[0], B=_tilec_defaults[1], **_tilec_options):" in src
    )
    compile(src, "<test>", "exec")
