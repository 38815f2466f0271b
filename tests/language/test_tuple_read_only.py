"""A read-only array inside a tuple argument that the kernel writes through is refused, on the
first launch and on warm ones, on both CPU launch paths (a write would crash the process or
change an immutable object); read-only arrays the kernel only reads stay allowed."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random
from tilec import config
from tilec.backends import launcher
from tilec.errors import UsageError


@pytest.fixture(
    autouse=True, params=[pytest.param(True, id="python"), pytest.param(False, id="native")]
)
def launch_path(request):
    if not request.param and launcher.native_module() is None:
        pytest.skip("needs the native launcher (tilec._launcher)")
    with config.override(disable_launcher=request.param):
        yield


@jit
def copy_pairs(pair, nested, BLOCK: tl.constexpr):
    """pair[1] = pair[0]; nested[1][0] = nested[0]"""
    offs = tl.arange(0, BLOCK)
    tl.store(pair[1] + offs, tl.load(pair[0] + offs))
    tl.store(nested[1][0] + offs, tl.load(nested[0] + offs))


def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


def _args():
    src, dst = random(8, np.float32), poisoned(8, np.float32)
    src2, dst2 = random(8, np.float32), poisoned(8, np.float32)
    return (src, dst), (src2, (dst2,))


def test_read_only_inputs_are_allowed():
    (src, dst), (src2, (dst2,)) = _args()
    copy_pairs[(1,)]((_read_only(src), dst), (_read_only(src2), (dst2,)), BLOCK=8)
    np.testing.assert_array_equal(dst, src)
    np.testing.assert_array_equal(dst2, src2)


@pytest.mark.parametrize("warm", [False, True])
def test_read_only_outputs_are_refused(warm):
    if warm:  # compiled and launched once with writable arrays first
        copy_pairs[(1,)](*_args(), BLOCK=8)
    (src, dst), (src2, (dst2,)) = _args()
    frozen = _read_only(dst)
    with pytest.raises(UsageError, match=r"'pair\[1\]' is a read-only array"):
        copy_pairs[(1,)]((src, frozen), (src2, (dst2,)), BLOCK=8)
    assert np.isnan(frozen).all()  # poisoned, never written
    frozen2 = _read_only(dst2)
    with pytest.raises(UsageError, match=r"'nested\[1\]\[0\]' is a read-only array"):
        copy_pairs[(1,)]((src, dst), (src2, (frozen2,)), BLOCK=8)
    assert np.isnan(frozen2).all()


@jit
def fill_descriptors(d, pair):
    d.store([0, 0], tl.full((4, 4), 1.0, tl.float32))
    pair[0].store([0, 0], tl.full((4, 4), 2.0, tl.float32))


@pytest.mark.parametrize("which", ["d.base", "pair[0].base"])
def test_read_only_descriptor_bases_are_refused(which):
    from tilec.tools.tensor_descriptor import TensorDescriptor

    def desc(a):
        return TensorDescriptor.from_tensor(a, [4, 4])

    a, b = np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32)
    fill_descriptors[(1,)](desc(a), (desc(b),))  # compiled, then warm
    assert (a == 1.0).all() and (b == 2.0).all()
    frozen = _read_only(np.zeros((4, 4), np.float32))
    args = [desc(a), (desc(b),)]
    if which == "d.base":
        args[0] = desc(frozen)
    else:
        args[1] = (desc(frozen),)
    with pytest.raises(UsageError, match=rf"'{re.escape(which)}' is a read-only array"):
        fill_descriptors[(1,)](*args)
    assert (frozen == 0).all()
