"""LLVM IR text → PTX with LLVM's NVPTX backend (O3 through the new pass manager).

Every ``llvm.*`` / ``__nv_*`` callee is checked against the list tilec knows to select on the
target before LLVM sees the module, because an unselectable intrinsic aborts the process.
libdevice is linked (and internalized) only when a ``__nv_*`` function is referenced.
"""

from __future__ import annotations

import re
import threading
from functools import cache

from ...errors import LoweringError, PlatformError, UnsupportedFeature
from ..llvm import codegen_worker, forksafe
from . import toolchain

TRIPLE = "nvptx64-nvidia-cuda"
_LOCK = threading.Lock()

_ALLOWED = re.compile(
    r"llvm\.nvvm\.(read\.ptx\.sreg\.[a-z.]+|barrier\.cta\.sync\.aligned\.all|shfl\.sync\.(bfly|up|down|idx)\.i32"
    r"|ex2\.approx\.(ftz\.)?f|lg2\.approx\.f"
    r"|cp\.async\.(cg\.shared\.global\.16\.s|ca\.shared\.global\.[48]\.s|commit\.group"
    r"|wait\.group|wait\.all)|fence\.proxy\.async\.shared_cta"
    r"|wgmma\.(fence|commit_group)\.sync\.aligned)"
    r"|llvm\.(fma|fabs|floor|ceil|trunc|rint|nearbyint|round|sqrt|minnum|maxnum|copysign)\.(f16|bf16|f32|f64)"
    r"|llvm\.(minimum|maximum)\.(f16|bf16|f32)|llvm\.(exp2|sin|cos|tanh)\.f32"
    r"|llvm\.(ctpop|ctlz|cttz|bitreverse)\.i(8|16|32|64)"
    r"|llvm\.assume|vprintf|__assertfail|__nv_[a-z0-9_]+"
)
_DECLARE = re.compile(r'^declare [^@]*@"?([\w.$]+)"?\(', re.M)
# a call of llvm.sin/cos/tanh: its flags are group 1 (one line; a call that spans lines, as the
# old pattern allowed, scanned to the next "@" from every inline-asm call, quadratic in big kernels)
_TRIG_CALL = re.compile(r'call ([^@\n]*)@"?llvm\.(?:sin|cos|tanh)\.')
_AFN = re.compile(r"\bafn\b")


# intrinsics that select only from some architecture on (tanh.approx.f32 needs sm_75)
# and cp.async sm_80
_MIN_ARCH = {"llvm.tanh.f32": 75}
_MIN_ARCH.update(
    (f"llvm.nvvm.cp.async.{n}", 80)
    for n in (
        "cg.shared.global.16.s",
        "ca.shared.global.4.s",
        "ca.shared.global.8.s",
        "commit.group",
        "wait.group",
        "wait.all",
    )
)


_MIN_ARCH["llvm.nvvm.fence.proxy.async.shared_cta"] = 90
# intrinsics LLVM selects only for an architecture-specific target (sm_90a, not sm_90)
_SPECIFIC = frozenset(
    ("llvm.nvvm.wgmma.fence.sync.aligned", "llvm.nvvm.wgmma.commit_group.sync.aligned")
)


def check_callees(llir: str, arch: int = 80, specific: bool = False) -> None:
    """Refuse any declared function LLVM might fail to select (it would abort Python):
    ``specific`` says the target is architecture-specific (``sm_90a``)."""
    names = _DECLARE.findall(llir)
    for name in names:
        if (
            not _ALLOWED.fullmatch(name)
            or arch < _MIN_ARCH.get(name, 0)
            or (name in _SPECIFIC and not specific)
        ):
            raise LoweringError(
                f"refusing to hand LLVM an unvetted callee @{name} (it could abort)"
            )
    if not any(n.startswith(("llvm.sin.", "llvm.cos.", "llvm.tanh.")) for n in names):
        return
    for call in _TRIG_CALL.finditer(llir):
        if not _AFN.search(call.group(1)):
            raise LoweringError("llvm.sin/cos/tanh without afn cannot be selected for NVPTX")


@cache
def _llvm():  # type: ignore[no-untyped-def]
    import llvmlite.binding as llvm  # lazy: loads LLVM's library, on the first compile only

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    codegen_worker.set_options(llvm)  # before any target machine exists (32-bit smem pointers)
    return llvm


@cache
def target_machine(arch: str, ptx_version: int):  # type: ignore[no-untyped-def]
    llvm = _llvm()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=f"+ptx{ptx_version}", opt=3)


_LIBDEVICE_CALL = re.compile(r'^declare [^@]*@"?(__nv_\w+)"?\(', re.M)


@cache
def _libdevice_bitcode(path: str | None = None) -> bytes:
    path = path or toolchain.libdevice_path()
    if path is None:
        raise PlatformError(
            "libdevice.10.bc was not found: pip install nvidia-nvvm, or set CUDA_HOME "
            "or TILEC_LIBDEVICE_PATH (needed by math functions such as erf, pow, fp64 exp)"
        )
    with open(path, "rb") as f:
        return f.read()


@cache
def _libdevice_subset(
    names: frozenset[str], arch: str, ptx_version: int, path: str | None = None
) -> bytes:
    """Bitcode holding only ``names`` and what they call: parsed and pruned once per set, so
    recompiling (autotuning, new specializations) links a few KB instead of all of libdevice."""
    llvm = _llvm()
    try:
        lib = llvm.parse_bitcode(_libdevice_bitcode(path))
    except RuntimeError as exc:  # e.g. an extern_libs path that is not a bitcode file
        where = path or toolchain.libdevice_path()
        raise PlatformError(f"libdevice {where} is not LLVM bitcode: {exc}") from None
    for fn in lib.functions:
        if not fn.is_declaration and fn.name not in names:
            fn.linkage = llvm.Linkage.internal
    pb = llvm.create_pass_builder(
        target_machine(arch, ptx_version), llvm.create_pipeline_tuning_options(speed_level=0)
    )
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_global_dead_code_eliminate_pass()
    mpm.run(lib, pb)
    return bytes(lib.as_bitcode())


def _link_libdevice(  # type: ignore[no-untyped-def]
    mod, names: frozenset[str], arch: str, ptx_version: int, kernel: str, path: str | None = None
) -> None:
    """Link the libdevice functions ``names`` into ``mod`` and internalize all but the kernel."""
    llvm = _llvm()
    lib = llvm.parse_bitcode(_libdevice_subset(names, arch, ptx_version, path))
    lib.triple = TRIPLE
    lib.data_layout = mod.data_layout
    mod.link_in(lib)
    missing = [f.name for f in mod.functions if f.is_declaration and f.name.startswith("__nv_")]
    if missing:
        raise UnsupportedFeature(f"libdevice has no {', '.join(missing)}")
    for fn in mod.functions:
        if not fn.is_declaration and fn.name != kernel:
            fn.linkage = llvm.Linkage.internal


# ptxas (CUDA 12 and 13, sm_90a) negates a 16-bit register in 32 bits and then takes the result
# as already sign-extended: ``neg.s16`` (or ``sub.s16 d, 0, s``) of -32768 followed by
# ``cvt.s32.s16`` reads +32768, and ``abs.s16`` alike. The negation spelled ``not`` + ``add``
# widens correctly (tests/backends/test_element_semantics.py, neg_i16_to_*, abs_i16_to_*).
_NEG_S16 = re.compile(r"\bneg\.s16(\s+)(%rs\d+), (%rs\d+);")
# ptxas (CUDA 13, sm_90a) also takes ``abs.s32`` as non-negative: ``cvt.rn.f32.u32`` of
# abs(INT32_MIN) = 0x80000000 gave -2**31 (seed 109 #9100, an int64 abs of a sign-extended
# int32). Every width is spelled with setp/not/add/selp.
_ABS = re.compile(r"\babs\.s(16|32|64)\s+(%r[sd]?\d+), (%r[sd]?\d+);")


def _abs_as_neg(m: re.Match[str]) -> str:
    bits, dst, src = m.groups()
    tmp = {"16": "%rs_abs", "32": "%r_abs", "64": "%rd_abs"}[bits]
    return (
        f"{{\n\t.reg .pred %p_abs;\n\t.reg .b{bits} {tmp};\n\tsetp.lt.s{bits} %p_abs, {src}, 0;"
        f"\n\tnot.b{bits} {tmp}, {src};\n\tadd.s{bits} {tmp}, {tmp}, 1;"
        f"\n\tselp.b{bits} {dst}, {tmp}, {src}, %p_abs;\n\t}}"
    )


# ptxas (CUDA 13, sm_90a) reads the float immediate -0.0 of a float-typed ``selp`` as +0.0: a
# boolean made -1.0 or -0.0 and read as bits gave 0 for 0x80000000 (seed 109 #9402). selp and
# mov only move bits: spelled .b32/.b64 with the immediates as integers, nothing is left to
# canonicalize.
_FLOAT_MOVE = re.compile(
    r"^(\s*(?:@!?%p\d+\s+)?)(selp|mov)\.f(32|64)(?=[^\n]*\b0[fd][0-9A-F]{8})(\s[^\n]*)$", re.M
)
_FLOAT_IMMEDIATE = re.compile(r"\b0[fd]([0-9A-F]{8}(?:[0-9A-F]{8})?)\b")


def _bits_move(m: re.Match[str]) -> str:
    prefix, op, bits, rest = m.groups()
    return prefix + f"{op}.b{bits}" + _FLOAT_IMMEDIATE.sub(r"0x\1", rest)


# ptxas (CUDA 13, sm_90a) stores the low byte of a 64-bit register that a float instruction
# wrote (``selp.f64`` ...) as if converting the float, saturated (255 for a large double),
# although PTX defines a store narrower than its register as keeping the low bits. NVPTX folds
# ``trunc`` into such stores; an explicit integer ``cvt`` into a register of the store's width
# first keeps the bits (tests/backends/cuda/test_gpu_narrow_store.py).
_NARROW_STORE = re.compile(
    r"^(\s*)(@!?%p\d+\s+)?(st(?:\.[a-z0-9]+)*\.b(8|16|32))(\s+)(\[[^\]]*\]), (%rd?\d+);$", re.M
)


def _narrow_store(m: re.Match[str]) -> str:
    indent, pred, op, bits, space, addr, src = m.groups()
    wide = 64 if src.startswith("%rd") else 32
    if int(bits) >= wide:
        return m.group(0)
    narrow = 32 if bits == "32" else 16
    tmp = "%r_st" if narrow == 32 else "%rs_st"
    return (
        f"{indent}{{\n{indent}.reg .b{narrow} {tmp};\n{indent}cvt.u{narrow}.u{wide} {tmp}, {src};"
        f"\n{indent}{pred or ''}{op}{space}{addr}, {tmp};\n{indent}}}"
    )


def _ptxas_safe(ptx: str) -> str:
    ptx = _NEG_S16.sub(r"not.b16\1\2, \3;\n\tadd.s16\1\2, \2, 1;", ptx)
    ptx = _NARROW_STORE.sub(_narrow_store, ptx)
    ptx = _FLOAT_MOVE.sub(_bits_move, ptx)
    return _ABS.sub(_abs_as_neg, ptx)


def parse(llir: str, tm):  # type: ignore[no-untyped-def]
    """The module LLVM reads from ``llir``, verified (a bad signature raises, never aborts)."""
    llvm = _llvm()
    try:
        mod = llvm.parse_assembly(llir)
        mod.triple = TRIPLE
        mod.data_layout = str(tm.target_data)
        mod.verify()
    except RuntimeError as exc:
        raise LoweringError(f"LLVM rejected the generated IR: {exc}", ir=llir) from exc
    return mod


def optimize(mod, tm) -> None:  # type: ignore[no-untyped-def]
    """LLVM's O3 pipeline (new pass manager) on ``mod`` in place."""
    llvm = _llvm()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def emit(mod, tm) -> str:  # type: ignore[no-untyped-def]
    """PTX text for ``mod``, with the rewrites ptxas needs (_ptxas_safe)."""
    return _ptxas_safe(tm.emit_assembly(mod))


def to_ptx(
    llir: str, arch: str, ptx_version: int, kernel: str, libdevice: str | None = None
) -> tuple[str, str]:
    """Optimize ``llir`` and emit PTX; returns (optimized LLVM IR, PTX). ``libdevice`` is a
    bitcode file to link instead of the toolchain's (Triton's ``extern_libs``)."""
    check_callees(llir, int(re.sub(r"\D", "", arch) or 0), arch.endswith("a"))
    forksafe.register(_LOCK)
    with _LOCK:  # LLVM's global state (options, contexts) is not reentrant across threads
        tm = target_machine(arch, ptx_version)
        mod = parse(llir, tm)
        needed = frozenset(_LIBDEVICE_CALL.findall(llir))
        if needed:
            _link_libdevice(mod, needed, arch, ptx_version, kernel, libdevice)
        optimize(mod, tm)
        return str(mod), emit(mod, tm)
