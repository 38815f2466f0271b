"""torch.compile on CUDA: Inductor's kernels compiled by tilec standing in for Triton, against
the same graphs compiled by the installed Triton.

The graphs are tests/compat_inductor/graphs.py's, at bench/inductor_graphs.py's GPU_SIZES. Two
child processes (bench/inductor_side.py) run them: "triton" compiles with the installed Triton
as plain torch.compile does, "tilec" calls tilec.install_as_triton() before it imports torch.
Each child has its own TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR and TILEC_CACHE_DIR in a fresh
temporary directory, so every kernel compiles cold and neither side reuses the other's, and
compiles in its own process (compile_threads=1). The parent hands the children one graph at a
time, in turns (the first side alternates), so only one uses the GPU at a time. For each graph a
child reports:

- compile s: the first call (Dynamo, Inductor, kernel compiles and autotuning);
- the largest error against eager float64 (outputs and input gradients, relative to
  max(1, |reference|)); it matches when that is at most max(1e-4, 8x eager float32's own error);
- that the call launched Triton kernels (Inductor's CachingAutotuner), so each column times
  what it names;
- ms: the median of per-call CUDA-event times with the L2 cache flushed before each call and
  warm-up calls excluded (triton.testing.do_bench's method); wall ms: the mean of back-to-back
  calls, the host's launch overhead included.

ratio = tilec ms / triton ms; the geomean is over the graphs both sides ran. A crashed child is
restarted (with fresh caches) for the next graph. Exit status: 1 if any side's output mismatches
or a graph fails or crashes, else 2 if a graph did not run (time budget, timeout), else 0.
``--device cpu`` runs the tilec side alone on the CPU (Inductor's cpu_backend="triton", the
sizes of bench/inductor_cpu.py): the plumbing without a GPU.

    python bench/inductor_gpu.py [--quick] [--out DIR] [--graphs a,b] [--device cuda|cpu]
                                 [--budget S] [--graph-timeout S] [--rep-ms MS] [--threads N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from inductor_graphs import GPU_SIZES
from inductor_side import MARK

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
QUICK_BUDGET_S = 140.0  # --quick: the whole run, children's start-up included
STARTUP_S = 240.0  # at most, for a child to import torch (and tilec)
FAILED = ("mismatch", "error", "crashed")  # statuses that make the run fail (exit 1)


class Lost(Exception):
    """The child exited or did not answer in time."""


class Side:
    """One child process of one side, restarted with fresh caches after it is lost."""

    def __init__(self, name: str, opts: argparse.Namespace) -> None:
        self.name, self.opts = name, opts
        self.proc: subprocess.Popen[str] | None = None
        self.info: dict[str, Any] | None = None  # the first child's ready line
        self.broken = ""  # the child cannot start: every graph of this side fails with it
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        self.dir = Path(tempfile.mkdtemp(prefix=f"inductor_gpu_{self.name}_"))
        env = {k: v for k, v in os.environ.items() if k != "TILEC_AS_TRITON"}
        env.update(
            TORCHINDUCTOR_CACHE_DIR=str(self.dir / "inductor"),
            TRITON_CACHE_DIR=str(self.dir / "triton"),
            TILEC_CACHE_DIR=str(self.dir / "tilec"),
            PYTHONUNBUFFERED="1",
            PYTHONPATH=os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p),
        )
        cmd = [sys.executable, str(HERE / "inductor_side.py"), self.name,
               "--device", self.opts.device, "--rep-ms", str(self.opts.rep_ms),
               "--threads", str(self.opts.threads)]  # fmt: skip
        cmd += ["--quick"] if self.opts.quick else []
        self.stderr = open(self.dir / "stderr.txt", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True, env=env,
                                     start_new_session=True)  # fmt: skip
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.ready = False

    @staticmethod
    def _read(proc: subprocess.Popen[str], lines: queue.Queue[dict[str, Any] | None]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(MARK):
                lines.put(json.loads(line[len(MARK) :]))
        lines.put(None)  # the child closed its output: it exited

    def _answer(self, timeout: float) -> dict[str, Any]:
        try:
            answer = self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise Lost(f"no answer within {timeout:.3g} s") from None
        if answer is None:
            assert self.proc is not None
            raise Lost(f"the child exited with status {self.proc.wait()}")
        return answer

    def stderr_tail(self, chars: int = 3000) -> str:
        self.stderr.flush()
        return (self.dir / "stderr.txt").read_text(errors="replace")[-chars:]

    def _await_ready(self, timeout: float) -> None:
        ready = self._answer(timeout)
        if not ready.get("ready"):
            self.broken = ready.get("error", "the child did not start")
        elif ready["triton_is_tilec"] != (self.name == "tilec"):
            self.broken = f"`import triton` gave {ready['triton_file']} in the {self.name} child"
        self.info = self.info or ready
        self.ready = True

    def run(self, name: str, deadline: float, graph_timeout: float) -> dict[str, Any]:
        if self.broken:  # said in full for the first graph
            first = self.broken.splitlines()[0]
            return {"graph": name, "status": "error", "error": f"as above: {first}"}
        left = deadline - time.monotonic()
        if left <= 0:
            return {"graph": name, "status": "skipped", "error": "the time budget is spent"}
        try:
            if self.proc is None:
                self.start()
            if not self.ready:
                self._await_ready(min(left, STARTUP_S))
                if self.broken:
                    return {"graph": name, "status": "error", "error": self.broken}
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(name + "\n")
            self.proc.stdin.flush()
            row = self._answer(min(deadline - time.monotonic(), graph_timeout))
        except (Lost, BrokenPipeError) as lost:
            timed_out = isinstance(lost, Lost) and str(lost).startswith("no answer")
            error = f"{lost}\n{self.stderr_tail()}".strip()
            self.stop(kill=True)  # the next graph starts a fresh child
            return {"graph": name, "status": "timeout" if timed_out else "crashed", "error": error}
        return _classify(row)

    def stop(self, kill: bool = False) -> None:
        """End the child: it exits at the end of its input, or is killed (when it is lost, or
        does not exit)."""
        if self.proc is None:
            return
        if not kill:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                kill = True
        if kill:  # the child leads its own session: this ends it and anything it started
            with contextlib.suppress(ProcessLookupError):  # all of them exited already
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.proc = None


def _classify(row: dict[str, Any]) -> dict[str, Any]:
    if "error" in row:
        return {**row, "status": "error"}
    if not row["launches"]:
        return {**row, "status": "error", "error": "no Triton kernel ran in a call"}
    return {**row, "status": "ok" if row["match"] else "mismatch"}


def _cell(row: dict[str, Any] | None, key: str, scale: float, digits: int) -> str:
    if row is None or row.get(key) is None:
        return "-"
    return f"{row[key] * scale:.{digits}f}"


def _match(row: dict[str, Any], sides: tuple[str, ...]) -> str:
    words = {"ok": "yes", "mismatch": "NO", "error": "err", "crashed": "crash"}
    return "/".join(words.get(row[s]["status"], row[s]["status"]) for s in sides)


def _ratio(row: dict[str, Any], key: str) -> float | None:
    triton, tilec = row.get("triton"), row["tilec"]
    if triton is None or triton["status"] != "ok" or tilec["status"] != "ok":
        return None
    return float(tilec[key] / triton[key])


def _geomean(values: list[float]) -> float | None:
    return math.exp(statistics.fmean(map(math.log, values))) if values else None


HEADER = (f"{'graph':<11} {'triton ms':>10} {'tilec ms':>10} {'ratio':>6} {'wall ratio':>10} "
          f"{'match':>11} {'compile triton s':>16} {'compile tilec s':>15} {'tilec error':>11}")  # fmt: skip


def _print_row(row: dict[str, Any], sides: tuple[str, ...]) -> None:
    triton, tilec = row.get("triton"), row["tilec"]
    ratio, wall = row["ratio"], row["wall_ratio"]
    error = f"{tilec['max_error']:.1e}" if "max_error" in tilec else "-"
    print(f"{row['graph']:<11} {_cell(triton, 'ms', 1, 3):>10} {_cell(tilec, 'ms', 1, 3):>10} "
          f"{'-' if ratio is None else f'{ratio:.2f}':>6} "
          f"{'-' if wall is None else f'{wall:.2f}':>10} {_match(row, sides):>11} "
          f"{_cell(triton, 'compile_s', 1, 1):>16} {_cell(tilec, 'compile_s', 1, 1):>15} "
          f"{error:>11}",
          flush=True)  # fmt: skip
    for side in sides:
        if row[side]["status"] != "ok":
            print(f"    {side} {row[side]['status']}: {row[side].get('error', '')[:3000]}")


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"a {QUICK_BUDGET_S:.0f} s budget (and small inputs on the CPU)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=HERE / "results", help="JSON goes here")
    parser.add_argument("--graphs", default="", help="comma-separated subset")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cpu: the tilec side alone, on the CPU")  # fmt: skip
    parser.add_argument("--budget", type=float, default=0.0,
                        help="seconds for the whole run; graphs not started by then are "
                             "skipped and a running one is stopped (0: none, unless --quick)")  # fmt: skip
    parser.add_argument("--graph-timeout", type=float, default=600.0,
                        help="seconds one side may take for one graph")  # fmt: skip
    parser.add_argument("--rep-ms", type=float, default=100.0, help="timed ms per graph, side")
    parser.add_argument("--threads", type=int, default=1, help="torch's threads (--device cpu)")
    opts = parser.parse_args()
    unknown = set(filter(None, opts.graphs.split(","))) - set(GPU_SIZES)
    if unknown:
        parser.error(f"unknown graphs {sorted(unknown)}; choose from {list(GPU_SIZES)}")
    return opts


def main() -> int:
    opts = _options()
    begin = time.monotonic()
    budget = opts.budget or (QUICK_BUDGET_S if opts.quick else 0.0)
    deadline = begin + budget if budget else math.inf
    names = [n for n in GPU_SIZES if not opts.graphs or n in opts.graphs.split(",")]
    sides = ("triton", "tilec") if opts.device == "cuda" else ("tilec",)
    children = {s: Side(s, opts) for s in sides}
    for child in children.values():
        child.start()  # both import torch at once; graphs then run one side at a time
    print(HEADER, flush=True)
    rows = []
    try:
        for i, name in enumerate(names):
            row: dict[str, Any] = {"graph": name}
            for side in sides if i % 2 == 0 else sides[::-1]:
                row[side] = children[side].run(name, deadline, opts.graph_timeout)
            row["ratio"], row["wall_ratio"] = _ratio(row, "ms"), _ratio(row, "wall_ms")
            rows.append(row)
            _print_row(row, sides)
    finally:
        for child in children.values():
            child.stop()
    statuses = [row[s]["status"] for row in rows for s in sides]
    geomean = _geomean([r["ratio"] for r in rows if r["ratio"] is not None])
    wall_geomean = _geomean([r["wall_ratio"] for r in rows if r["wall_ratio"] is not None])
    both = sum(r["ratio"] is not None for r in rows)
    if opts.device == "cuda":
        print(f"geomean tilec/triton: {geomean or float('nan'):.3f} over {both} of {len(rows)} "
              f"graphs (wall: {wall_geomean or float('nan'):.3f}); acceptance: <= 1.1")  # fmt: skip
    print(f"{time.monotonic() - begin:.0f} s; statuses: "
          + ", ".join(f"{s} {statuses.count(s)}" for s in sorted(set(statuses))))  # fmt: skip
    opts.out.mkdir(parents=True, exist_ok=True)
    suffix = ("_cpu" if opts.device == "cpu" else "") + ("_quick" if opts.quick else "")
    out = opts.out / f"inductor_gpu{suffix}.json"
    out.write_text(json.dumps({
        "machine": platform.platform(), "device": opts.device, "quick": opts.quick,
        "budget_s": budget, "rep_ms": opts.rep_ms, "elapsed_s": time.monotonic() - begin,
        "sides": {s: c.info for s, c in children.items()},
        "geomean_ratio": geomean, "geomean_wall_ratio": wall_geomean, "graphs": rows,
    }, indent=2) + "\n")  # fmt: skip
    print(f"wrote {out}")
    if any(s in FAILED for s in statuses):
        return 1
    return 2 if any(s != "ok" for s in statuses) else 0


if __name__ == "__main__":
    sys.exit(main())
