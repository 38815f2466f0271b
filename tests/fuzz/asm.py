"""The generated code of fuzz kernels, hashed: a refactoring of the lowering that must not change
what any kernel compiles to is checked over thousands of them, for every backend, without a GPU.

    python -m tests.fuzz.asm --seed 7 --count 500 --out before.json
    (change the compiler)
    python -m tests.fuzz.asm --seed 7 --count 500 --out after.json --check before.json

Each kernel is compiled, as its launch would specialize it, for the CPU (its object) and for
CUDA sm_80 and sm_90a (PTX, no assembler); the file maps each kernel to a SHA-256 per target
(or the first line of the error it raised). ``--check`` prints the kernels whose code differs
and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tilec import config
from tilec.runtime import compile_api, compiler, specialize
from tilec.runtime.launch_options import compile_options

from .check import buffer, load_kernel, make_launch
from .gen import generate
from .render import source
from .worker import case_draw

TARGETS = {"cpu": "obj", "cuda:sm_80": "ptx", "cuda:sm_90a": "ptx"}


def _arguments(case: Any) -> tuple[list[Any], dict[str, Any]]:
    k = case.kernel
    data = make_launch(case)
    args = [buffer(v, x.dtype) for v, x in zip(data.inputs, k.inputs)]
    args += [buffer(data.initial, k.out_dtype), *case.bounds, *(v for _, _, v in k.scalars)]
    return args, dict(k.constexprs)


def hashes(seed: int, index: int, folder: Path) -> dict[str, str]:
    case = generate(case_draw(seed, index))
    kernel = load_kernel(source(case.kernel), folder)
    args, constexprs = _arguments(case)
    values = dict(zip(kernel.arg_names, args)) | constexprs
    params = kernel.params
    _, specs = specialize.specialize(
        [p.name for p in params],
        [values[p.name] for p in params],
        [p.constexpr for p in params],
        [p.do_not_specialize for p in params],
    )
    out = {}
    for target, stage in TARGETS.items():
        try:
            compiled = compiler.compile(
                kernel, specs, compile_api.parse_target(target), compile_options({}, None)
            )
            text = compiled.asm[stage]
            data = text.encode() if isinstance(text, str) else text
            out[target] = hashlib.sha256(data).hexdigest()[:16]
        except Exception as exc:  # the same error before and after is the same behaviour
            out[target] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--check", type=Path, help="an earlier --out to compare with")
    args = parser.parse_args()
    config.update(cache_enabled=False)
    result: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="tilec-fuzz-asm-") as tmp:
        for index in range(args.start, args.start + args.count):
            result[str(index)] = hashes(args.seed, index, Path(tmp))
    args.out.write_text(json.dumps({"seed": args.seed, "kernels": result}, indent=1))
    errors = sum(" " in v for r in result.values() for v in r.values())
    print(f"{len(result)} kernels x {len(TARGETS)} targets, {errors} compile errors")
    if args.check is None:
        return 0
    before = json.loads(args.check.read_text())
    if before["seed"] != args.seed:
        print(f"--check was made with seed {before['seed']}, not {args.seed}")
        return 2
    differ = [
        (i, t)
        for i, now in result.items()
        for t, h in now.items()
        if before["kernels"].get(i, {}).get(t) != h
    ]
    for i, t in differ[:20]:
        print(f"kernel {i} {t}: {before['kernels'].get(i, {}).get(t)} -> {result[i][t]}")
    print(f"{len(differ)} (kernel, target) pairs differ from {args.check}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
