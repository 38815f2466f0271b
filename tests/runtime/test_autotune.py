"""Autotuning on the CPU (fake backend): picks the fastest config, remembers it on disk."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import UsageError

from .fake_backend import PROGRAMS, f32


def work(x_ptr, n, BLOCK: tl.constexpr):
    pass


LAUNCHED: list[int] = []  # the grid size of each launch of the fake kernel


def _program_for(block_by_call):
    def program(args, pid, grid):
        x, n = args
        if pid == 0:
            LAUNCHED.append(grid[0])
        for i in range(pid, n, grid[0]):
            f32(x, i).value += 1.0

    return program


def _modelled_time(call, quantiles=None):
    """The autotuner's do_bench, injected: runs the config once (its hooks and side effects
    included) and returns a modelled time, 0.4 ms per program, so the fake kernel is slower
    for small blocks, like a real one with more programs, on any machine and under any load."""
    LAUNCHED.clear()
    call()
    return 0.4 * LAUNCHED[-1]


CONFIGS = [tilec.Config({"BLOCK": b}, num_warps=w) for b, w in ((2, 1), (8, 4), (4, 2))]


def _tuned(**kw):
    tune = tilec.autotune(configs=CONFIGS, key=["n"], do_bench=_modelled_time, **kw)
    return tune(tilec.jit(work))


@pytest.fixture
def program(fake):
    PROGRAMS["work"] = _program_for(None)
    return PROGRAMS["work"]


def _grid(meta):
    return (tilec.cdiv(meta["n"], meta["BLOCK"]),)


def test_picks_the_fastest_config_and_runs_it(program, fake):
    kernel = _tuned(reset_to_zero=["x_ptr"])
    x = np.full(32, np.nan, np.float32)
    kernel[_grid](x, 32)
    assert kernel.best_config.kwargs == {"BLOCK": 8}
    assert set(kernel.configs_timings) == set(CONFIGS)
    # reset_to_zero cleared x before every timed run, so only the final launch left its mark
    np.testing.assert_array_equal(x, np.ones(32, np.float32))


def test_result_is_remembered_on_disk(program, fake):
    x = np.zeros(32, np.float32)
    _tuned(reset_to_zero=["x_ptr"])[_grid](x, 32)
    again = _tuned(reset_to_zero=["x_ptr"])
    again[_grid](x, 32)
    assert again.best_config.kwargs == {"BLOCK": 8}
    assert again.configs_timings is None  # loaded, not timed


def test_restore_value_keeps_inputs(program):
    kernel = _tuned(restore_value=["x_ptr"])
    x = np.arange(16, dtype=np.float32)
    kernel[_grid](x, 16)
    np.testing.assert_array_equal(x, np.arange(16, dtype=np.float32) + 1)


def test_prune_and_perf_model(program):
    seen = []

    def early(configs, named, **kwargs):
        seen.append((named["n"], kwargs))
        return [c for c in configs if c.kwargs["BLOCK"] != 8]

    kernel = _tuned(
        prune_configs_by={"early_config_prune": early,
                          "perf_model": lambda **kw: kw["BLOCK"], "top_k": 1},
        reset_to_zero=["x_ptr"],
    )  # fmt: skip
    kernel[_grid](np.zeros(16, np.float32), 16)
    assert seen == [(16, {})] and kernel.best_config.kwargs == {"BLOCK": 2}
    assert len(kernel.configs_timings) == 1


def test_the_prune_hook_gets_keyword_arguments_as_keywords(program):
    # Triton calls early_config_prune(configs, positional arguments by name, **keyword
    # arguments): its fused-attention tutorial reads kwargs["N_CTX"] there
    seen = []

    def early(configs, named, **kwargs):
        seen.append((sorted(named), kwargs))
        return configs

    kernel = _tuned(prune_configs_by={"early_config_prune": early})
    kernel[_grid](np.zeros(16, np.float32), n=16)
    assert seen == [(["x_ptr"], {"n": 16})]


def test_conflicting_meta_parameter_is_an_error(program):
    with pytest.raises(UsageError, match="BLOCK"):
        _tuned()[_grid](np.zeros(16, np.float32), 16, BLOCK=4)


def test_unknown_key_is_an_error():
    with pytest.raises(UsageError, match="'m'"):
        tilec.autotune(configs=CONFIGS, key=["m"])(tilec.jit(work))


def test_heuristics_fill_meta_parameters(program):
    kernel = tilec.heuristics({"BLOCK": lambda args: tilec.next_power_of_2(args["n"]) // 4})(
        tilec.jit(work)
    )
    x = np.zeros(20, np.float32)
    kernel[_grid](x, 20)
    np.testing.assert_array_equal(x, np.ones(20, np.float32))


def test_config_all_kwargs_and_str():
    c = tilec.Config({"BLOCK": 64}, num_warps=8, num_stages=2, maxnreg=128)
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 8, "num_stages": 2, "num_ctas": 1,
                              "maxnreg": 128}  # fmt: skip
    assert "BLOCK: 64" in str(c)


def test_progress_line_when_asked(program, capsys):
    from tilec import config

    with config.override(print_autotuning=True):
        _tuned(reset_to_zero=["x_ptr"])[_grid](np.zeros(16, np.float32), 16)
    err = capsys.readouterr().err
    assert "Autotuning kernel work" in err and "best config selected: BLOCK: 8" in err
