"""The values a kernel reads from its closure and its module key its cache entries, and a
launch after a global changed raises GlobalChangedError (Triton's check), on both launch paths.

Before, two kernels with one source closing over different values shared a disk cache entry
(the second returned the first one's results) and a changed global was silently stale."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import ConstexprError, GlobalChangedError

from .conftest import NEEDS_NATIVE

N = 16
SCALE = 2.0
OFFSET = tl.constexpr(3)
WIDE = tl.float64
TABLE = np.arange(4.0)


def _paths():
    """Both launch paths, each with a private cache: the generated Python function and C."""
    return [
        pytest.param(True, id="python"),
        pytest.param(False, id="native", marks=NEEDS_NATIVE),
    ]


@pytest.fixture(params=_paths())
def path(request, private_cache):
    with config.override(disable_launcher=request.param):
        yield private_cache


def _input():
    return np.random.default_rng().uniform(0.5, 2.0, N).astype(np.float32)


def _poisoned():
    return np.full(N, np.nan, np.float32)


def _scaled_by(c):
    @tilec.jit
    def scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * c)

    return scaled


def _applying(fn, dtype):
    @tilec.jit
    def applied(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, fn(tl.load(x_ptr + offs).to(dtype)))

    return applied


def test_kernels_closing_over_different_values_differ(path):
    x = _input()
    for c in (1.5, -3.0, 1.5):
        out = _poisoned()
        _scaled_by(c)[(1,)](x, out, BLOCK=N)
        np.testing.assert_allclose(out, x.astype(np.float64) * c, rtol=1e-6)
    assert len(list((path / "kernels").glob("*.tck"))) == 2  # 1.5 again met its own entry


def test_closures_over_functions_and_dtypes_differ(path):
    x = _input()
    for fn, dtype, ref in [(tl.exp, tl.float32, np.exp), (tl.log, tl.float32, np.log),
                           (tl.exp, tl.float16, None)]:  # fmt: skip
        out = _poisoned()
        _applying(fn, dtype)[(1,)](x, out, BLOCK=N)
        if ref is None:  # through fp16: rounded to fp16's precision first
            ref = lambda v: np.exp(v.astype(np.float16).astype(np.float64))  # noqa: E731
            np.testing.assert_allclose(out, ref(x), rtol=2e-3)
        else:
            np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=1e-5)


@tilec.jit
def add_globals(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, (tl.load(x_ptr + offs).to(WIDE) * SCALE + OFFSET).to(tl.float32))


@tilec.jit
def calls_add_globals(x_ptr, out_ptr, BLOCK: tl.constexpr):
    add_globals(x_ptr, out_ptr, BLOCK)


def _fresh(kernel):
    """The same function under a new @jit, as if its module were imported anew."""
    return tilec.jit(kernel.fn)


@pytest.mark.parametrize("caller", [add_globals, calls_add_globals], ids=["kernel", "callee"])
def test_a_changed_global_raises_at_the_next_launch(path, monkeypatch, caller):
    kernel = _fresh(caller)
    x, out = _input(), _poisoned()
    kernel[(1,)](x, out, BLOCK=N)
    np.testing.assert_allclose(out, x.astype(np.float64) * 2.0 + 3, rtol=1e-6)
    entries = len(list((path / "kernels").glob("*.tck")))

    monkeypatch.setitem(globals(), "SCALE", 2.0 * (1 + 0 * N))  # equal, another object
    kernel[(1,)](x, out, BLOCK=N)
    monkeypatch.setitem(globals(), "SCALE", 5.0)
    out = _poisoned()
    with pytest.raises(GlobalChangedError, match=r"Global variable SCALE has changed since we "
                       r"compiled this kernel, from 2\.0 to 5\.0"):  # fmt: skip
        kernel[(1,)](x, out, BLOCK=N)
    with pytest.raises(RuntimeError, match="Global variable SCALE has changed"):  # as Triton
        kernel[(1,)](x, out, BLOCK=2 * N)  # a new specialization: refused before compiling
    with pytest.raises(GlobalChangedError):
        kernel[(1,)](x, out, BLOCK=N, num_warps=2)  # the launch path with options
    assert np.isnan(out).all()
    assert len(list((path / "kernels").glob("*.tck"))) == entries

    monkeypatch.setitem(globals(), "SCALE", 2.0)
    kernel[(1,)](x, out, BLOCK=N)  # back to the compiled value: launches again
    np.testing.assert_allclose(out, x.astype(np.float64) * 2.0 + 3, rtol=1e-6)
    monkeypatch.setitem(globals(), "OFFSET", tl.constexpr(4))
    with pytest.raises(GlobalChangedError, match="Global variable OFFSET"):
        kernel[(1,)](x, out, BLOCK=N)
    monkeypatch.delitem(globals(), "OFFSET")
    with pytest.raises(GlobalChangedError, match="to <deleted>"):
        kernel[(1,)](x, out, BLOCK=N)


def test_a_new_jit_of_the_function_compiles_the_new_value(path, monkeypatch):
    x, out = _input(), _poisoned()
    _fresh(add_globals)[(1,)](x, out, BLOCK=N)
    monkeypatch.setitem(globals(), "SCALE", -1.25)
    monkeypatch.setitem(globals(), "WIDE", tl.float32)
    _fresh(add_globals)[(1,)](x, out, BLOCK=N)  # a new fingerprint: not the old disk entry
    np.testing.assert_allclose(out, x.astype(np.float64) * -1.25 + 3, rtol=1e-6)


@NEEDS_NATIVE
def test_the_warm_launch_stays_native(native_launcher, monkeypatch):
    kernel = _fresh(add_globals)
    x, out = _input(), _poisoned()
    kernel[(1,)](x, out, BLOCK=N)
    launcher = kernel[(1,)]
    assert type(launcher).__name__ == "Bound"
    launcher(x, out, BLOCK=N)
    monkeypatch.setitem(globals(), "SCALE", 7.0)
    with pytest.raises(GlobalChangedError):
        launcher(x, out, BLOCK=N)  # the native dispatcher noticed the change


def test_used_global_vals_is_tritons_map():
    kernel = _fresh(calls_add_globals)
    kernel.cache_key  # noqa: B018 - computes it
    scope = add_globals.fn.__globals__
    used = kernel.used_global_vals
    assert used[("SCALE", id(scope))] == (SCALE, scope)
    assert used[("OFFSET", id(scope))][0] is OFFSET
    assert used[("WIDE", id(scope))][0] is WIDE
    assert all(name not in ("add_globals", "tl") for name, _ in used)  # callees and modules
    closure = _scaled_by(0.5)
    closure.cache_key  # noqa: B018
    (((name, _), (value, values)),) = closure.used_global_vals.items()
    assert (name, value, values) == ("c", 0.5, {"c": 0.5})


@tilec.jit
def reads_an_array(out_ptr):
    tl.store(out_ptr, TABLE[0])


def test_a_non_constant_global_is_refused(private_cache):
    with pytest.raises(ConstexprError, match="global 'TABLE' is a ndarray"):
        reads_an_array[(1,)](_poisoned())


MODULE = """
import json, sys
import numpy as np
import tilec, tilec.language as tl

SCALE = {scale}


def make(c):
    @tilec.jit
    def scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * SCALE * c)

    return scaled


out = np.full(4, np.nan, np.float32)
make(float(sys.argv[1]))[(1,)](np.ones(4, np.float32), out, BLOCK=4)
print(json.dumps(out.tolist()))
"""


def test_values_changed_between_processes_are_not_read_from_the_disk_cache(tmp_path):
    script = tmp_path / "kernel_module.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEC_")}
    env["TILEC_CACHE_DIR"] = str(tmp_path / "cache")
    for scale, c in [(2.0, 1.0), (2.0, 3.0), (5.0, 3.0)]:  # the closure, then the global
        script.write_text(MODULE.format(scale=scale))
        run = subprocess.run(
            [sys.executable, str(script), str(c)], capture_output=True, text=True, timeout=240,
            env=env,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout.splitlines()[-1]) == [scale * c] * 4
    assert len(list((tmp_path / "cache" / "kernels").glob("*.tck"))) == 3


def test_the_global_names_read_from_bytecode_match_dis():
    import dis

    from tilec.runtime.fingerprint import _global_names
    from tilec.runtime.namespace_reads import code_objects

    many = "\n".join(f"    v{i} = G{i}" for i in range(300))  # names past EXTENDED_ARG
    namespace: dict = {}
    exec(f"def wide():\n{many}\n    return [H for _ in range(2)]\n", namespace)
    for fn in (namespace["wide"], add_globals.fn, calls_add_globals.fn, _scaled_by(1.0).fn):
        expected = {
            str(ins.argval)
            for code in code_objects(fn.__code__)
            for ins in dis.get_instructions(code)
            if ins.opname == "LOAD_GLOBAL"
        }
        assert _global_names(fn.__code__) == expected
    assert {"G0", "G299", "H", "range"} <= _global_names(namespace["wide"].__code__)


def _with_default_scale(v):
    @tilec.jit
    def times(x, s=v):  # the default is evaluated here, outside times' code
        return x * s

    @tilec.jit
    def scaled_by_default(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, times(tl.load(x_ptr + offs)))

    return scaled_by_default


def test_a_callees_default_values_key_the_cache(path):
    # two callees with one source and different default values: before, both kernels had one
    # cache key and the second launch ran the first one's code (x * 2 for x * 3)
    x = _input()
    for v in (2.0, 3.0, 2.0):
        out = _poisoned()
        _with_default_scale(v)[(1,)](x, out, BLOCK=N)
        np.testing.assert_array_equal(out, x * np.float32(v))
    assert len(list((path / "kernels").glob("*.tck"))) == 2


HELPER = """
def factor(n):
    return n * {k}
"""

USER = """
import json, sys
import numpy as np
import tilec, tilec.language as tl
from helper_module import factor


@tilec.jit
def scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * factor(BLOCK))


out = np.full(4, np.nan, np.float32)
scaled[(1,)](np.ones(4, np.float32), out, BLOCK=4)
print(json.dumps(out.tolist()))
"""


def test_an_edited_function_of_another_module_is_not_read_from_the_disk_cache(tmp_path):
    # a plain function the kernel calls at compile time, imported from another file: before,
    # only its name was in the key, and after an edit the old kernel came from the cache
    (tmp_path / "user_script.py").write_text(USER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEC_")}
    env["TILEC_CACHE_DIR"] = str(tmp_path / "cache")
    for k in (2, 30):  # texts of different sizes: Python's bytecode cache tells them apart
        (tmp_path / "helper_module.py").write_text(HELPER.format(k=k))
        run = subprocess.run(
            [sys.executable, str(tmp_path / "user_script.py")], capture_output=True, text=True,
            timeout=240, env=env, cwd=tmp_path,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout.splitlines()[-1]) == [4.0 * k] * 4


@tilec.jit
def fill_with(out_ptr, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.full([BLOCK], VALUE, tl.float32))


@tilec.jit
def fill_with_second(out_ptr, VALUES: tl.constexpr, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.full([BLOCK], VALUES[1], tl.float32))


@pytest.mark.parametrize(
    "kernel,values,wanted",
    [
        (fill_with, (0.0, -0.0), (0.0, -0.0)),
        (fill_with, (-0.0, 0.0), (-0.0, 0.0)),
        (fill_with_second, ((1.0, 0.0), (1.0, -0.0)), (0.0, -0.0)),
    ],
    ids=["zero-first", "negative-zero-first", "in-a-tuple"],
)
def test_constexprs_that_compare_equal_but_differ_get_their_own_kernel(
    path, kernel, values, wanted
):
    # -0.0 == 0.0 (and they hash alike): the kernel table gave the first one's kernel to both
    kernel = tilec.jit(kernel.fn)
    for v, want in zip(values, wanted):
        out = _poisoned()
        kernel[(1,)](out, v, BLOCK=N)
        np.testing.assert_array_equal(np.signbit(out), np.full(N, np.signbit(want)))
        assert (out == 0).all()
