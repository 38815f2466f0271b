"""LLVM code generation in a child process, so that an LLVM assertion or fatal error (llvmlite's
LLVM is built with assertions; its loop vectorizer can assert on valid IR) ends the child, not
the Python process. The child runs this file as a script and imports only llvmlite; requests and
replies are length-prefixed pickles over its stdin/stdout. ``generate`` is the one implementation,
run in the child or, where no child can be started, in-process.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

# request: (ir_text, triple, cpu, features, opt_level, vectorize, emit_asm, run_passes)
# reply:   ("ok", optimized_ir_text, object_bytes, asm_text_or_None) | ("error", message)


# LLVM's command-line options, set in every process that optimizes (here and, through
# machine.initialize, the parent): no loop is versioned on a run-time stride being 1. tilec
# specializes an integer argument equal to 1 as a constant (as Triton does), so a stride that
# reaches a kernel at run time is not 1 and that version never runs, while its fallback stays
# scalar; without it the vectorizer gathers (a column sum with a run-time row stride, 2-core
# x86-64: 24.7 -> 5.3 ms). NVPTX: shared, constant and local pointers are 32 bits wide (as
# Triton's are), so each shared-memory address a kernel keeps (ldmatrix's lane addresses, one per
# operand fragment) takes one register instead of two (attention's K loop, sm_90: 164 -> 128).
OPTIONS = ("-enable-mem-access-versioning=0", "--nvptx-short-ptr")


def set_options(llvm: Any) -> None:
    for option in OPTIONS:
        llvm.set_option("", option)


def generate(
    ir_text: str,
    triple: str,
    cpu: str,
    features: str,
    level: int,
    vectorize: bool,
    emit_asm: bool,
    run_passes: bool = True,
) -> tuple[str, bytes, str | None]:
    """Parse, verify, optimize with the new pass manager (unless ``run_passes`` is off, for IR
    that is already optimized), and emit an object (and assembly)."""
    # lazy: importing this module (the parent process does) must not load LLVM (~40 ms)
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    set_options(llvm)
    tm = llvm.Target.from_triple(triple).create_target_machine(
        cpu=cpu, features=features, opt=level, reloc="pic", codemodel="small"
    )
    ref = parse(ir_text, triple, tm)
    if run_passes:
        optimize(ref, tm, level, vectorize)
    asm = str(tm.emit_assembly(ref)) if emit_asm else None
    return str(ref), emit_object(ref, tm), asm


def parse(ir_text: str, triple: str, tm: Any) -> Any:
    # lazy: importing this module (the parent process does) must not load LLVM (~40 ms)
    import llvmlite.binding as llvm

    ref = llvm.parse_assembly(ir_text)
    ref.triple = triple
    ref.data_layout = str(tm.target_data)
    ref.verify()
    return ref


def optimize(ref: Any, tm: Any, level: int, vectorize: bool) -> None:
    # lazy: importing this module (the parent process does) must not load LLVM (~40 ms)
    import llvmlite.binding as llvm

    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pto.loop_vectorization = vectorize and level >= 2
    pto.slp_vectorization = vectorize and level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(ref, pb)


def emit_object(ref: Any, tm: Any) -> bytes:
    return bytes(tm.emit_object(ref))


def _read(stream: Any) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        return None
    size = int.from_bytes(header, "little")
    return pickle.loads(stream.read(size))


def _write(stream: Any, message: Any) -> None:
    data = pickle.dumps(message)
    stream.write(len(data).to_bytes(8, "little") + data)
    stream.flush()


def serve() -> None:
    """The child's loop: one request in, one reply out, until stdin closes."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    import llvmlite.binding as llvm  # lazy: the child loads LLVM here, before saying ready

    llvm.initialize_native_target()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    _write(stdout, ("ready",))
    while True:
        request = _read(stdin)
        if request is None:
            return
        try:
            reply: tuple[Any, ...] = ("ok", *generate(*request))
        except Exception as exc:
            reply = ("error", f"{type(exc).__name__}: {exc}")
        _write(stdout, reply)


if __name__ == "__main__":
    serve()
