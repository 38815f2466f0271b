"""The cache key's source fingerprint follows the kernel, its @jit callees and its constants."""

from __future__ import annotations

import importlib.util
import itertools

from tilec.runtime.fingerprint import fingerprint

TEMPLATE = """
import tilec
import tilec.language as tl

SCALE = tl.constexpr({scale})
UNUSED = {unused}


@tilec.jit
def helper(x):
    return x * {helper_factor}


def block_for(n):
    return n * {block_factor}


@tilec.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs * block_for(1), helper(tl.load(x_ptr + offs)) * SCALE)
"""

_counter = itertools.count()


def _load(tmp_path, **values):
    params = {"scale": 2, "unused": 0, "helper_factor": 3, "block_factor": 1, **values}
    path = tmp_path / f"fp_mod_{next(_counter)}.py"
    path.write_text(TEMPLATE.format(**params))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def test_same_source_same_fingerprint(tmp_path):
    assert fingerprint(_load(tmp_path).fn) == fingerprint(_load(tmp_path).fn)


def test_callee_and_constexpr_global_change_it(tmp_path):
    base = fingerprint(_load(tmp_path).fn)
    assert fingerprint(_load(tmp_path, helper_factor=4).fn) != base
    assert fingerprint(_load(tmp_path, scale=5).fn) != base
    assert fingerprint(_load(tmp_path, block_factor=2).fn) != base  # a plain helper


def test_unused_globals_do_not(tmp_path):
    assert fingerprint(_load(tmp_path, unused=7).fn) == fingerprint(_load(tmp_path).fn)


def test_jit_function_caches_it(tmp_path):
    kernel = _load(tmp_path)
    assert kernel.cache_key == fingerprint(kernel.fn)


def _kernel_from(tmp_path, body: str):
    path = tmp_path / f"fp_src_{next(_counter)}.py"
    path.write_text(body)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


SPAN = """
import tilec
import tilec.language as tl


@tilec.jit
def kernel(x_ptr, BLOCK{annotation}):
    y{local} = 2
    tl.store(x_ptr + tl.arange(0, BLOCK), y)
{after}
"""


def test_the_definition_lines_count_and_nothing_after(tmp_path):
    def fp(annotation="", local="", after=""):
        text = SPAN.format(annotation=annotation, local=local, after=after)
        return fingerprint(_kernel_from(tmp_path, text).fn)

    base = fp()
    assert fp(annotation=": tl.constexpr") != base  # the signature (no bytecode changes)
    assert fp(local=": tl.constexpr") != base  # a local annotation (no bytecode either)
    assert fp(after="\n\ndef other():\n    return 1\n") == base


def test_a_kernel_without_source_falls_back_to_its_bytecode():
    namespace: dict = {}
    exec("def kernel(x):\n    return x + 1\n", namespace)
    other: dict = {}
    exec("def kernel(x):\n    return x + 2\n", other)
    assert fingerprint(namespace["kernel"]) != fingerprint(other["kernel"])
