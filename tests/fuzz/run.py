"""Long fuzz runs: ``python -m tests.fuzz.run --count 20000 --seed 1 --backend cpu --jobs 1``.

Kernels are generated from (seed, index), run in worker processes of ``--chunk`` kernels each
(a crash or a hang costs one worker, not the run), failures are shrunk and deduplicated by
signature, and a table plus a JSON file (``--json``) report counts, seeds, time and findings.
On a GPU: ``--backend cuda-vs-cpu --jobs 8 --pending`` (CUDA against the CPU bit for bit). A
finding's ``script`` is a stand-alone reproducer; ``--seed S --indices 153,204`` re-checks some.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

STATUSES = ("ok", "mismatch", "error", "crash", "reference-error", "worker-died")


def _worker_cmd(args: argparse.Namespace, start: int, stop: int) -> list[str]:
    args.shrunk_file.write_text(json.dumps(sorted(args.shrunk)))
    return [sys.executable, "-m", "tests.fuzz.worker", "--shrunk", str(args.shrunk_file),
            "--seed", str(args.seed), "--start", str(start), "--stop", str(stop),
            "--backend", args.backend, "--shrink", str(args.shrink)] + (
            ["--pending"] if args.pending else [])  # fmt: skip


def _run_chunk(args: argparse.Namespace, start: int, stop: int) -> list[dict]:
    """Runs kernels start..stop in a worker; resumes after a kernel that killed the worker."""
    env = {**os.environ, "TILEC_CACHE": "0", "TILEC_NUM_THREADS": str(args.threads)}
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    results: list[dict] = []
    while start < stop:
        proc = subprocess.Popen(_worker_cmd(args, start, stop), stdout=subprocess.PIPE,
                                text=True, env=env, cwd=root)  # fmt: skip
        current = start
        assert proc.stdout
        # a kernel that hangs (compile or launch) stops its worker, not the run
        watchdog = threading.Timer(args.kernel_timeout, proc.kill)
        watchdog.start()
        for line in proc.stdout:
            msg = json.loads(line)
            if "start" in msg:
                current = msg["start"]
                watchdog.cancel()
                watchdog = threading.Timer(args.kernel_timeout, proc.kill)
                watchdog.start()
            else:
                results.append(msg)
                args.shrunk.add(msg.get("rough", ""))
        watchdog.cancel()
        code = proc.wait()
        done = {r["index"] for r in results}
        if code == 0:
            break
        if current not in done:
            results.append({"index": current, "seed": args.seed, "status": "worker-died",
                            "signature": f"worker-died: exit code {code}", "detail": "",
                            "labels": [], "script": ""})  # fmt: skip
        start = current + 1
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first kernel index (resume a run)")
    p.add_argument("--indices", help="only these kernel indices, e.g. 153,204 (a re-check)")
    p.add_argument("--backend", choices=("cpu", "cuda-vs-cpu"), default="cpu")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="CPU grid threads per worker")
    p.add_argument("--chunk", type=int, default=100)
    p.add_argument(
        "--kernel-timeout",
        type=float,
        default=600,
        help="seconds one kernel (and its shrinking) may take",
    )
    p.add_argument("--shrink", type=int, default=60, help="launches spent shrinking a failure")
    p.add_argument("--json", type=Path, default=Path("fuzz-results.json"))
    p.add_argument(
        "--pending",
        action="store_true",
        help="skip lanes decided by semantics under repair (tests/fuzz/reference.py PENDING)",
    )
    args = p.parse_args(argv)
    args.shrunk = set()  # kinds of failure already shrunk: later ones are reported as found
    args.shrunk_file = args.json.with_suffix(".shrunk.json")
    began = time.monotonic()
    chunks = [(i, min(i + args.chunk, args.start + args.count))
              for i in range(args.start, args.start + args.count, args.chunk)]  # fmt: skip
    if args.indices:  # re-check earlier findings with today's code
        chunks = [(i, i + 1) for i in map(int, args.indices.split(","))]
        args.count = len(chunks)
    results: list[dict] = []
    done = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (lo, hi), chunk in zip(chunks, pool.map(lambda c: _run_chunk(args, *c), chunks)):
            results += chunk
            done += hi - lo
            rate = done / (time.monotonic() - began)
            bad = sum(r["status"] != "ok" for r in results)
            print(f"[{done}/{args.count}] {rate:.2f} kernels/s, {bad} not ok", flush=True)
            _write(args, results, done, time.monotonic() - began)
    _write(args, results, done, time.monotonic() - began)
    return _table(results, done, args, time.monotonic() - began)


def _summary(results: list[dict], done: int) -> dict:
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES[1:]}
    counts["ok"] = done - sum(counts.values())
    return counts


def _write(args: argparse.Namespace, results: list[dict], done: int, elapsed: float) -> None:
    found: dict[str, dict] = {}
    for r in results:
        entry = found.setdefault(r["signature"], {**r, "count": 0, "indices": []})
        entry["count"] += 1
        entry["indices"].append(r["index"])
    report = {"seed": args.seed, "start": args.start, "kernels": done, "backend": args.backend,
              "elapsed_s": round(elapsed, 1), "counts": _summary(results, done),
              "findings": sorted(found.values(), key=lambda e: -e["count"])}  # fmt: skip
    args.json.write_text(json.dumps(report, indent=1))


def _table(results: list[dict], done: int, args: argparse.Namespace, elapsed: float) -> int:
    counts = _summary(results, done)
    span = args.indices or f"{args.start}..{args.start + done - 1}"
    print(
        f"\nseed {args.seed}, kernels {span}, backend {args.backend}, "
        f"{elapsed:.0f} s ({done / max(elapsed, 1e-9):.2f} kernels/s)"
    )
    print("  ".join(f"{k}={v}" for k, v in counts.items()))
    found: dict[str, list[dict]] = {}
    for r in results:
        found.setdefault(r["signature"], []).append(r)
    if found:
        print(f"\n{'count':>5}  {'first':>6}  labels / signature")
        for sig, rs in sorted(found.items(), key=lambda kv: -len(kv[1])):
            print(f"{len(rs):>5}  {rs[0]['index']:>6}  [{', '.join(rs[0]['labels'])}] {sig[:150]}")
    print(f"\nreproducers: {args.json} (findings[].script)")
    return 0 if counts["ok"] == done else 1


if __name__ == "__main__":
    sys.exit(main())
