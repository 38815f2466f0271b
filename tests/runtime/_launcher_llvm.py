"""Native CPU kernels for the launcher tests, JIT-compiled with llvmlite directly.

They follow the CPU kernel ABI (entry(args, gx, gy, gz, begin, end, status)) without going
through tilec's compiler, so the launcher tests do not depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HEADER = (
    "define void @entry(ptr %args, i32 %gx, i32 %gy, i32 %gz, i64 %begin, i64 %end, ptr %status)"
)

# out[pid] = k * pid + x + 1000 * y + 1000000 * z, counts[pid] += 1 (atomically); the program
# whose id equals args[3] fails a device_assert instead (status[0] = 1, status[1] = pid).
GRID_KERNEL = (
    HEADER
    + """ {
entry:
  %out.a = load i64, ptr %args
  %out = inttoptr i64 %out.a to ptr
  %counts.p = getelementptr i64, ptr %args, i64 1
  %counts.a = load i64, ptr %counts.p
  %counts = inttoptr i64 %counts.a to ptr
  %k.p = getelementptr i64, ptr %args, i64 2
  %k = load i64, ptr %k.p
  %fail.p = getelementptr i64, ptr %args, i64 3
  %fail = load i64, ptr %fail.p
  %gx64 = sext i32 %gx to i64
  %gy64 = sext i32 %gy to i64
  br label %loop
loop:
  %pid = phi i64 [%begin, %entry], [%next, %body]
  %done = icmp sge i64 %pid, %end
  br i1 %done, label %exit, label %check
check:
  %is.fail = icmp eq i64 %pid, %fail
  br i1 %is.fail, label %assert, label %body
assert:
  %old = cmpxchg ptr %status, i64 0, i64 1 seq_cst seq_cst
  %won = extractvalue { i64, i1 } %old, 1
  br i1 %won, label %record, label %exit
record:
  %pid.p = getelementptr i64, ptr %status, i64 1
  store i64 %pid, ptr %pid.p
  ret void
body:
  %x = srem i64 %pid, %gx64
  %q = sdiv i64 %pid, %gx64
  %y = srem i64 %q, %gy64
  %z = sdiv i64 %q, %gy64
  %kp = mul i64 %k, %pid
  %y1 = mul i64 %y, 1000
  %z1 = mul i64 %z, 1000000
  %s0 = add i64 %kp, %x
  %s1 = add i64 %s0, %y1
  %v = add i64 %s1, %z1
  %slot = getelementptr i64, ptr %out, i64 %pid
  store i64 %v, ptr %slot
  %cslot = getelementptr i64, ptr %counts, i64 %pid
  %c = atomicrmw add ptr %cslot, i64 1 seq_cst
  %next = add i64 %pid, 1
  br label %loop
exit:
  ret void
}
"""
)

# (type code, LLVM type, conversion to double) for every parameter type the launcher packs.
# fp16/bf16 are read as their bits: converting them needs compiler-rt calls MCJIT lacks.
PARAMS = [
    ("?", "i1", "uitofp"), ("b", "i8", "sitofp"), ("h", "i16", "sitofp"),
    ("i", "i32", "sitofp"), ("q", "i64", "sitofp"), ("B", "i8", "uitofp"),
    ("H", "i16", "uitofp"), ("I", "i32", "uitofp"), ("Q", "i64", "uitofp"),
    ("e", "i16", "uitofp"), ("E", "i16", "uitofp"), ("f", "float", "fpext"),
    ("d", "double", None),
]  # fmt: skip


def echo_kernel() -> str:
    """A kernel whose args are a double* then one parameter of each PARAMS type; it stores
    every parameter, read from its slot as its own type, into out[i] as a double."""
    lines = [HEADER + " {", "  %out.a = load i64, ptr %args", "  %out = inttoptr i64 %out.a to ptr"]
    for i, (_, ty, conv) in enumerate(PARAMS):
        lines.append(f"  %p{i} = getelementptr i64, ptr %args, i64 {i + 1}")
        if ty == "i1":  # an i1 parameter arrives as 0/1 in its slot
            lines += [f"  %w{i} = load i8, ptr %p{i}", f"  %v{i} = trunc i8 %w{i} to i1"]
        else:
            lines.append(f"  %v{i} = load {ty}, ptr %p{i}")
        value = f"%v{i}"
        if conv:
            lines.append(f"  %d{i} = {conv} {ty} %v{i} to double")
            value = f"%d{i}"
        lines += [
            f"  %o{i} = getelementptr double, ptr %out, i64 {i}",
            f"  store double {value}, ptr %o{i}",
        ]
    lines += ["  ret void", "}"]
    return "\n".join(lines)


@dataclass
class JitKernel:
    address: int
    engine: Any  # keeps the machine code alive


def jit(ir: str) -> JitKernel:
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(ir)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    return JitKernel(engine.get_function_address("entry"), engine)
