"""Triton's own tutorials, unchanged, run by the installed Triton and by tilec, side by side.

Each tutorial file (from a Triton checkout the caller names) runs twice, each time in a fresh
child process in its own temporary directory and caches: once as written (``import triton`` is
the installed Triton) and once with ``import triton`` answered by tilec
(tilec.tools.triton_alias, the same import hook as ``tilec.install_as_triton``) and
``TILEC_BACKEND=cuda``. The tutorial's own result checks run in both children; a child that
fails one exits non-zero and is reported. The child records every ``perf_report`` table the
tutorial prints (its ``Mark.run`` is wrapped to keep the rows); the parent pairs the tables by
name and prints, per x value, each side's value of every line and the ratio
tilec / Triton for the lines that the tutorial's kernel draws (the ones that are not torch's
or another library's). For throughput (GB/s, TFLOPS) higher is better; a tutorial whose unit
is time (ms) has its ratio inverted so that > 1 always means tilec is faster.

The two children run one after the other, never at once. Environment variables such as
``DISABLE_MMA_V3=1`` pass to both (tilec reads that one too).

    python bench/tutorials.py TRITON_CHECKOUT 02 05 [--out DIR] [--timeout S]

Exit status: 1 if a child failed (a result check, a crash, a time-out), else 0.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import runpy
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
SIDES = ("triton", "tilec")
REFERENCE_LINES = ("torch", "cublas", "apex", "flash", "cudnn")  # lines that are not the kernel


def _child(side: str, script: str, record_path: str) -> None:
    """Runs in the child: alias ``triton`` (tilec side), wrap Mark.run, run the tutorial."""
    record = Path(record_path)
    if side == "tilec":
        sys.path.insert(0, str(SRC))
        from tilec.tools.triton_alias import install

        install()
    import triton.testing

    tables: list[dict[str, Any]] = []
    original = triton.testing.Mark.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("show_plots", None)
        want_df = kwargs.pop("return_df", False)
        frames = original(self, *args, return_df=True, **kwargs)
        benches = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        frames_list = frames if len(benches) > 1 else [frames]
        for bench, frame in zip(benches, frames_list):
            rows = frame.to_dict("records") if hasattr(frame, "to_dict") else list(frame)
            tables.append(
                {
                    "name": bench.plot_name,
                    "x": list(bench.x_names),
                    "lines": list(bench.line_names),
                    "ylabel": str(bench.ylabel),
                    "rows": [{k: _plain(v) for k, v in r.items()} for r in rows],
                }
            )
            record.write_text(json.dumps(tables))
        return frames if want_df else None

    triton.testing.Mark.run = run
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")
    record.write_text(json.dumps(tables))


def _plain(v: Any) -> Any:
    try:
        return float(v) if not isinstance(v, str) else v
    except (TypeError, ValueError):
        return str(v)


def run_side(side: str, script: Path, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"tut-{side}-") as tmp:
        record = Path(tmp) / "tables.json"
        env = {
            **os.environ,
            "MPLBACKEND": "Agg",
            "TRITON_CACHE_DIR": f"{tmp}/triton-cache",
            "TILEC_CACHE_DIR": f"{tmp}/tilec-cache",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
        }
        if side == "tilec":
            env["TILEC_BACKEND"] = "cuda"
        code = f"import tutorials; tutorials._child({side!r}, {str(script)!r}, {str(record)!r})"
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-c", code],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            status, tail = proc.returncode, (proc.stdout + proc.stderr)[-3000:]
        except subprocess.TimeoutExpired as e:
            status, tail = "timeout", str(e.stdout or "")[-3000:]
        tables = json.loads(record.read_text()) if record.exists() else []
    seconds = time.perf_counter() - start
    return {"status": status, "seconds": round(seconds, 1), "tail": tail, "tables": tables}


def _is_kernel_line(name: str) -> bool:
    return not any(ref in name.lower() for ref in REFERENCE_LINES)


def compare(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Pair the two sides' tables by name and row; one entry per (table, x, kernel line)."""
    points = []
    theirs = {t["name"]: t for t in results["triton"]["tables"]}
    for ours in results["tilec"]["tables"]:
        ref = theirs.get(ours["name"])
        if ref is None:
            continue
        lower_is_better = "ms" in ours["ylabel"].lower().split() or ours["ylabel"] == "ms"
        for row, ref_row in zip(ours["rows"], ref["rows"]):
            x = {k: row.get(k) for k in ours["x"]}
            for line in ours["lines"]:
                a, b = _value(row, line), _value(ref_row, line)
                if not _is_kernel_line(line) or not _number(a) or not _number(b):
                    continue
                ratio = (b / a) if lower_is_better else (a / b)
                points.append(
                    {"table": ours["name"], "x": x, "line": line, "tilec": a, "triton": b,
                     "ratio": ratio}
                )  # fmt: skip
    return points


def _value(row: dict[str, Any], line: str) -> Any:
    """A line's value in a row: Triton's tables name the column "line (unit)"."""
    return next((v for k, v in row.items() if k == line or k.startswith(f"{line} (")), None)


def _number(v: Any) -> bool:
    return isinstance(v, float) and math.isfinite(v) and v > 0


def report_points(report: dict[str, Any]) -> None:
    """Print the comparison of a JSON report written earlier."""
    for name, t in report["tutorials"].items():
        print(f"== {name}")
        _print_points(compare(t["sides"]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkout", type=Path, help="a Triton source tree (python/tutorials)")
    p.add_argument("tutorials", nargs="+", help="tutorial numbers or file names, e.g. 02 05")
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per child")
    p.add_argument("--from-json", action="store_true", help="TUTORIALS[0] is a report to print")
    args = p.parse_args(argv)
    if args.from_json:
        report_points(json.loads(Path(args.tutorials[0]).read_text()))
        return 0
    folder = args.checkout.resolve() / "python" / "tutorials"
    report: dict[str, Any] = {"machine": platform.platform(), "env": _env(), "tutorials": {}}
    failed = False
    for want in args.tutorials:
        script = next(iter(sorted(folder.glob(f"{want}*.py"))), None)
        if script is None:
            p.error(f"no tutorial {want!r} in {folder}")
        results = {side: run_side(side, script, args.timeout) for side in SIDES}
        points = compare(results)
        report["tutorials"][script.name] = {"sides": results, "points": points}
        print(f"== {script.name}")
        for side in SIDES:
            r = results[side]
            print(f"  {side}: exit {r['status']} in {r['seconds']} s, {len(r['tables'])} tables")
            if r["status"] != 0:
                failed = True
                print("    " + r["tail"].replace("\n", "\n    ")[-1500:])
        _print_points(points)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"tutorials-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(report, indent=1))
    print(f"wrote {path}")
    return 1 if failed else 0


def _print_points(points: list[dict[str, Any]]) -> None:
    by_table: dict[str, list[dict[str, Any]]] = {}
    for pt in points:
        by_table.setdefault(f"{pt['table']} [{pt['line']}]", []).append(pt)
    for name, pts in by_table.items():
        ratios = [pt["ratio"] for pt in pts]
        worst = min(pts, key=lambda pt: pt["ratio"])
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(
            f"  {name}: {len(pts)} points, geomean {geo:.3f}x, min {worst['ratio']:.3f}x at "
            f"{worst['x']} ({worst['tilec']:.4g} vs {worst['triton']:.4g})"
        )
        for pt in pts:
            x = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in pt["x"].values())
            print(f"    {x:>16}  tilec {pt['tilec']:9.4g}  triton {pt['triton']:9.4g}  "
                  f"{pt['ratio']:.3f}x")  # fmt: skip


def _env() -> dict[str, str]:
    keep = ("DISABLE_MMA_V3", "TILEC_DISABLE_WGMMA", "CUDA_VISIBLE_DEVICES")
    return {k: os.environ[k] for k in keep if k in os.environ}


if __name__ == "__main__":
    sys.exit(main())
