"""Every conformance kernel compiles for the GPU without one (issue #6): tile IR -> LLVM NVPTX ->
PTX for sm_80 and sm_90a, and a cubin when ptxas or nvJitLink is installed."""

from __future__ import annotations

import pytest

import tilec

from . import kernels

I32 = "i32"


def ints(count: int) -> str:
    return ", ".join([I32] * count)


# The signatures the tutorials' host code launches with (16-byte aligned tensors).
SIGNATURES = {
    "add_kernel": "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK_SIZE=1024",
    "softmax_kernel": f"*fp32:16, *fp32:16, {ints(4)}, BLOCK_SIZE=1024, num_stages=2",
    "matmul_kernel": (
        f"*fp16:16, *fp16:16, *fp16:16, {ints(9)}, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,"
        " BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION='leaky_relu'"
    ),
    "dropout_kernel": "*fp32:16, *i1:16, *fp32:16, i32, fp32, BLOCK_SIZE=1024",
    "seeded_dropout_kernel": "*fp32:16, *fp32:16, i32, fp32, i32, BLOCK_SIZE=1024",
    "philox_kernel": "*u32:16, *fp32:16, i64, i64, i32, BLOCK_SIZE=256, N_ROUNDS=10",
    "layer_norm_fwd_kernel": f"{', '.join(['*fp16:16'] * 4)}, *fp32, *fp32, i32, i32, fp32,"
    " BLOCK_SIZE=1024",
    "layer_norm_bwd_dx_kernel": f"{', '.join(['*fp16:16'] * 6)}, *fp32, *fp32, *i32, i32, i32,"
    " GROUP_SIZE_M=64, BLOCK_SIZE_N=1024",
    "layer_norm_bwd_dwdb_kernel": "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32,"
    " BLOCK_SIZE_M=32, BLOCK_SIZE_N=128",
    "attn_fwd_kernel": f"*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, {ints(18)},"
    " HEAD_DIM=64, BLOCK_M=64, BLOCK_N=32, STAGE=3",
    "attn_fwd_block_ptr_kernel": f"*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, {ints(18)},"
    " HEAD_DIM=64, BLOCK_M=64, BLOCK_N=32, CAUSAL=False",
    "asin_kernel": "*fp32:16, *fp32:16, i32, BLOCK_SIZE=1024",
    "persistent_matmul_kernel": f"*fp16:16, *fp16:16, *fp16:16, {ints(9)}, BLOCK_SIZE_M=128,"
    " BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, NUM_SMS=132",
}


def test_every_kernel_has_a_signature():
    names = {
        name
        for name, obj in vars(kernels).items()
        if isinstance(obj, tilec.JITFunction) and name.endswith("_kernel")
    }
    assert names == set(SIGNATURES)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_compiles_to_ptx(name, arch):
    compiled = tilec.compile(getattr(kernels, name), SIGNATURES[name], target=f"cuda:{arch}")
    ptx = compiled.asm["ptx"]
    assert f".target {arch}" in ptx
    assert ".entry" in ptx
    cubin = compiled.asm.get("cubin")
    if cubin:  # assembled by ptxas or nvJitLink where one is installed
        assert bytes(cubin[:4]) == b"\x7fELF"
