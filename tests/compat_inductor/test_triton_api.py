"""Triton's host API as Inductor calls it (tilec.compat.triton), without the import hook:
``triton.compile(ASTSource(...))``, the launcher calling convention of ``CompiledKernel.run``,
pickling of kernels and binaries, the backend and driver tables."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.compat.triton.backends import __getattr__ as backends_attr
from tilec.compat.triton.backends.compiler import GPUTarget
from tilec.compat.triton.compiler.compiler import ASTSource, CompiledKernel, compile, make_backend
from tilec.compat.triton.runtime import driver as triton_driver
from tilec.errors import UsageError
from tilec.language.extra import libdevice


@tilec.jit
def scale_add(x_ptr, y_ptr, out_ptr, xnumel, alpha, XBLOCK: tl.constexpr):
    offsets = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    mask = offsets < xnumel
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * alpha + y, mask=mask)


SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "xnumel": "i32",
             "alpha": "fp32", "XBLOCK": "constexpr"}  # fmt: skip
ALIGNED = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}


@pytest.fixture
def private_cache(tmp_path):
    with config.override(cache_dir=tmp_path / "cache", backend=None):
        yield


def _inputs(n, rng):
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    return x, y, np.full(n, np.nan, np.float32)


def _run(binary, grid, *args):
    """Inductor's generated launcher: grid, stream, function, metadata, hooks, then every
    argument (constexprs included) by position (after _init_handles, which Inductor calls)."""
    binary._init_handles()
    binary.run(grid, 1, 1, 0, binary.function, binary.packed_metadata, None, None, None, *args)


def _cpu_target():
    return triton_driver.driver.active.get_current_target()


def test_compile_and_run_matches_numpy(private_cache):
    rng = np.random.default_rng()
    binary = compile(
        ASTSource(scale_add, SIGNATURE, {"XBLOCK": 64}, {(0,): ALIGNED[(0,)]}),
        target=GPUTarget("cpu", _cpu_target().arch, 1),
        options={"num_warps": 1, "num_stages": 1, "debug": True, "sanitize_overflow": False},
    )
    assert isinstance(binary, CompiledKernel)
    assert binary.metadata.name == "scale_add" and binary.metadata.num_warps == 1
    assert isinstance(binary.hash, str) and binary.n_spills is not None
    n = 1000
    x, y, out = _inputs(n, rng)
    _run(binary, -(n // -64), x, y, out, n, 1.5, 64)
    np.testing.assert_allclose(out, x.astype(np.float64) * 1.5 + y, rtol=1e-6, atol=1e-6)


def test_runtime_parameter_given_as_constant(private_cache):
    """Inductor passes ``xnumel=1`` as a constant although the kernel declares a runtime
    parameter: the kernel folds it, and the launcher still receives it by position."""
    rng = np.random.default_rng()
    binary = compile(
        ASTSource(scale_add, {**SIGNATURE, "xnumel": "constexpr"}, {"XBLOCK": 8, "xnumel": 1}),
        target=_cpu_target(),
    )
    assert [s.kind.value for s in binary.specs][3] == "constexpr"
    x, y, out = _inputs(8, rng)
    _run(binary, 1, x, y, out, 1, -2.0, 8)
    assert out[0] == np.float32(x[0] * -2.0 + y[0])
    assert np.isnan(out[1:]).all()  # the mask used the folded xnumel


def test_binary_pickles_without_native_handles(private_cache):
    """Inductor's compile workers pickle the binary with module/function/run cleared and the
    parent calls _init_handles before launching."""
    rng = np.random.default_rng()
    binary = compile(ASTSource(scale_add, SIGNATURE, {"XBLOCK": 32}), target=_cpu_target())
    state = {**binary.__dict__, "module": None, "function": None, "run": None}
    kernel_fn = binary.src.fn
    saved = kernel_fn.fn, kernel_fn.__globals__, kernel_fn._hash_lock
    kernel_fn.fn, kernel_fn.__globals__, kernel_fn._hash_lock = None, None, None
    try:
        data = pickle.dumps(state)
    finally:
        kernel_fn.fn, kernel_fn.__globals__, kernel_fn._hash_lock = saved
    copy = CompiledKernel.__new__(CompiledKernel)
    copy.__dict__.update(pickle.loads(data))
    assert copy.src.fn.arg_names == scale_add.arg_names
    assert [p.num for p in copy.src.fn.params if p.is_constexpr] == [5]
    copy._init_handles()
    x, y, out = _inputs(100, rng)
    _run(copy, 4, x, y, out, 100, 0.5, 32)
    np.testing.assert_allclose(out, x.astype(np.float64) * 0.5 + y, rtol=1e-6, atol=1e-6)
    # and through pickle's own protocol
    again = pickle.loads(pickle.dumps(copy))
    assert again.function is None and again.run is None


def test_launch_refuses_an_argument_that_does_not_fit(private_cache):
    binary = compile(ASTSource(scale_add, SIGNATURE, {"XBLOCK": 16}), target=_cpu_target())
    x = np.zeros(16, np.float64)  # the kernel was compiled for fp32
    with pytest.raises(UsageError, match="x_ptr"):
        _run(binary, 1, x, x, x, 16, 1.0, 16)


def test_jit_function_pickles_with_and_without_its_function():
    from tilec.compat import pickling

    pickling.register()
    assert pickle.loads(pickle.dumps(scale_add)) is scale_add  # by reference

    @tilec.jit
    def local(x_ptr, N: tl.constexpr):
        tl.store(x_ptr, N)

    copy = pickle.loads(pickle.dumps(local))  # by description: cannot compile, describes
    assert copy.fn is None and copy.arg_names == ["x_ptr", "N"]
    assert [(p.num, p.is_constexpr) for p in copy.params] == [(0, False), (1, True)]
    assert copy._src_text.startswith("def local(")


def test_signature_needs_a_type_or_a_constant():
    with pytest.raises(UsageError, match="XBLOCK"):
        ASTSource(scale_add, SIGNATURE).arg_specs()


def test_backend_table_and_driver():
    table = backends_attr("backends")
    assert set(table) == {"cpu", "nvidia"}
    assert table["cpu"].driver.is_active()
    before = triton_driver.driver.active
    try:
        triton_driver.driver.set_active(table["cpu"].driver())
        assert isinstance(triton_driver.driver.active, table["cpu"].driver)
        assert triton_driver.driver.active.get_current_target().backend == "cpu"
        assert triton_driver.driver.active.get_current_stream() == 0
    finally:
        triton_driver.driver.set_active(before)
    options = make_backend(GPUTarget("cpu", "x", 1)).parse_options({"num_stages": 2})
    assert options.num_stages == 2 and options.supported_fp8_dtypes == ()
    with pytest.raises(UsageError, match="no backend"):
        make_backend(GPUTarget("hip", "gfx942", 64))


@tilec.jit
def int_names_kernel(x_ptr, rint_ptr, bits_ptr, n, BLOCK: tl.constexpr):
    """The tl names Inductor's kernels use: libdevice.llrint and tl.core.get_int_dtype."""
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(rint_ptr + offs, libdevice.llrint(x), mask=mask)
    udtype: tl.constexpr = tl.core.get_int_dtype(x.dtype.primitive_bitwidth, signed=False)
    tl.store(bits_ptr + offs, x.to(udtype, bitcast=True), mask=mask)


def test_llrint_and_get_int_dtype(private_cache):
    rng = np.random.default_rng()
    x = np.concatenate([[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e10, -3.7], rng.normal(0, 100, 56)])
    x = x.astype(np.float32)
    rint = np.full(64, -7, np.int64)
    bits = np.zeros(64, np.uint32)
    int_names_kernel[(1,)](x, rint, bits, 64, BLOCK=64)
    np.testing.assert_array_equal(rint, np.rint(x.astype(np.float64)).astype(np.int64))
    np.testing.assert_array_equal(bits, x.view(np.uint32))


def test_autotuner_base_fn_is_the_jit_kernel():
    tuned = tilec.autotune(configs=[tilec.Config({"XBLOCK": 16})], key=["xnumel"])(scale_add)
    assert tilec.heuristics({"XBLOCK": lambda a: 16})(tuned).fn.base_fn is scale_add


def test_torch_fast_path_checks_what_it_skips(private_cache):
    """With torch imported, ``run`` packs tensors itself; a tensor of another dtype, or one
    the kernel's alignment assumption does not hold for, goes through the checked launch."""
    torch = pytest.importorskip("torch")
    binary = compile(ASTSource(scale_add, SIGNATURE, {"XBLOCK": 64}, ALIGNED), target=_cpu_target())
    binary._init_handles()
    assert hasattr(binary.run, "launches")  # the generated launcher
    x, y = torch.randn(300), torch.randn(300)
    for threads in (1, 2):
        torch.set_num_threads(threads)
        out = torch.full((300,), float("nan"))
        _run(binary, 5, x, y, out, 300, 0.25, 64)
        torch.testing.assert_close(out, x * 0.25 + y)
        if config.get().num_threads == 0:
            assert threads in binary.run.launches  # the grid ran on torch's thread count
    with pytest.raises(UsageError, match="x_ptr"):
        _run(binary, 5, x.double(), y, out, 300, 0.25, 64)
    with pytest.raises(UsageError, match="y_ptr"):
        _run(binary, 5, x, y[1:], out, 299, 0.25, 64)  # not 16-byte aligned
    with pytest.raises(UsageError, match="xnumel"):
        _run(binary, 5, x, y, out, 1 << 40, 0.25, 64)  # compiled for i32


def test_cuda_target_compiles_offline(private_cache):
    """A CUDA GPUTarget by number compiles to PTX without a GPU (loading waits for
    _init_handles, as in Triton)."""
    binary = compile(ASTSource(scale_add, SIGNATURE, {"XBLOCK": 128}, ALIGNED),
                     target=GPUTarget("cuda", 80, 32), options={"num_warps": 4})  # fmt: skip
    assert binary.metadata.backend_name == "cuda" and binary.metadata.num_warps == 4
    assert ".target sm_80" in binary.asm["ptx"] and binary.run is None
