"""One fuzz worker process (run.py starts them): runs kernels start..stop of a seed and prints
one JSON line per kernel it starts and per failure (with a shrunk stand-alone reproducer)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import traceback
from pathlib import Path

from .check import Outcome, run_case
from .draw import RandomDraw
from .gen import generate
from .program import Case
from .reference import PENDING
from .repro import script
from .shrink import shrink
from .triage import labels, signature


def case_draw(seed: int, index: int) -> RandomDraw:
    return RandomDraw(seed * 1_000_003 + index)


def safe_run(
    case: Case, folder: Path, backend: str, pending: frozenset[str] = frozenset()
) -> Outcome:
    try:
        if backend == "cuda-vs-cpu":
            from .check_cuda import run_pair

            return run_pair(case, folder, pending)
        return run_case(case, folder, pending)
    except Exception:  # the reference itself failed: a fuzzer bug to report
        return Outcome("reference-error", traceback.format_exc()[-600:])


def main() -> None:
    p = argparse.ArgumentParser()
    for name in ("seed", "start", "stop", "shrink"):
        p.add_argument(f"--{name}", type=int)
    p.add_argument("--backend", default="cpu")
    p.add_argument("--pending", action="store_true")
    p.add_argument("--shrunk", type=Path, help="a JSON list of failure kinds already shrunk")
    args = p.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tilec-fuzz-"))
    pending = PENDING if args.pending else frozenset()
    shrunk: set[str] = set(json.loads(args.shrunk.read_text())) if args.shrunk else set()
    for index in range(args.start, args.stop):
        print(json.dumps({"start": index}), flush=True)
        d = case_draw(args.seed, index)
        case = generate(d)
        outcome = safe_run(case, folder, args.backend, pending)
        if outcome.status == "ok":
            continue
        # shrinking costs dozens of compiles: once per kind of failure and worker
        root = case.kernel.root
        head = f"{outcome.status}:{root.op}:{root.attr[0] if root.attr else ''}:"
        rough = head + (
            ",".join(labels(case)) if outcome.status == "mismatch" else outcome.detail[:60]
        )
        if args.shrink and rough not in shrunk and outcome.status != "reference-error":
            shrunk.add(rough)

            def fails(c: Case, status: str = outcome.status) -> bool:
                return safe_run(c, folder, args.backend, pending).status == status

            case = shrink(d.record, fails, budget=args.shrink, seconds=3.0 * args.shrink)
            outcome = safe_run(case, folder, args.backend, pending)
        result = {
            "index": index,
            "rough": rough, "seed": args.seed, "status": outcome.status,
            "detail": outcome.detail, "signature": signature(case, outcome.status, outcome.detail),
            "labels": labels(case), "script": _script(case, outcome),
        }  # fmt: skip
        print(json.dumps(result), flush=True)
    sys.stdout.flush()


def _script(case: Case, outcome: Outcome) -> str:
    try:
        return script(outcome.case or case, outcome.bad_lanes or None)
    except Exception:  # a failure to print must not lose the finding
        return traceback.format_exc()


if __name__ == "__main__":
    main()
