"""Triton's ``perf_report`` / ``Benchmark``: sweep a benchmark function and report a table.

``@perf_report(Benchmark(...))`` wraps a function returning a number (or ``(mid, min, max)``)
per (x, line) point; ``.run(print_data=True, save_path=..., show_plots=...)`` prints a table,
writes CSV, and plots with matplotlib when it is installed.
"""

from __future__ import annotations

import csv
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError


@dataclass
class Benchmark:
    """One sweep: ``x_names`` take every value of ``x_vals``; ``line_arg`` each of ``line_vals``."""

    x_names: Sequence[str]
    x_vals: Sequence[Any]
    line_arg: str
    line_vals: Sequence[Any]
    line_names: Sequence[str]
    plot_name: str
    args: dict[str, Any] = field(default_factory=dict)
    xlabel: str = ""
    ylabel: str = ""
    x_log: bool = False
    y_log: bool = False
    styles: Sequence[tuple[str, str]] | None = None
    color: Any = None


def _point(value: Any) -> tuple[float, float, float]:
    if isinstance(value, (tuple, list)):
        if len(value) != 3:
            raise UsageError(f"a benchmark returns a number or (mid, min, max), got {value!r}")
        return float(value[0]), float(value[1]), float(value[2])
    return float(value), float(value), float(value)


class Mark:
    """A benchmark function with its sweeps (what ``@perf_report`` returns)."""

    def __init__(self, fn: Callable[..., Any], benchmarks: Benchmark | Sequence[Benchmark]):
        self.fn = fn
        self.benchmarks = benchmarks

    def _sweep(self, bench: Benchmark, **kwargs: Any) -> list[dict[str, Any]]:
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, (tuple, list)) else [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, xs))
            row: dict[str, Any] = dict(x_args)
            for name, y in zip(bench.line_names, bench.line_vals):
                value = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                mid, lo, hi = _point(value)
                row[name], row[f"{name}-min"], row[f"{name}-max"] = mid, lo, hi
            rows.append(row)
        return rows

    def _table(self, bench: Benchmark, rows: list[dict[str, Any]]) -> str:
        cols = [*bench.x_names, *bench.line_names]
        cells = [
            [f"{r[c]:.4g}" if isinstance(r[c], float) else str(r[c]) for c in cols] for r in rows
        ]
        widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
        lines = [f"{bench.plot_name}:", "  ".join(c.rjust(w) for c, w in zip(cols, widths))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(lines)

    def _plot(
        self, bench: Benchmark, rows: list[dict[str, Any]], path: Path | None, show: bool
    ) -> None:
        try:
            plt = importlib.import_module("matplotlib.pyplot")
        except ImportError:
            return  # the table and CSV carry the same data
        fig, ax = plt.subplots()
        xs = [r[bench.x_names[0]] for r in rows]
        for i, name in enumerate(bench.line_names):
            style = bench.styles[i] if bench.styles else None
            kw = {"color": style[0], "linestyle": style[1]} if style else {}
            ax.plot(xs, [r[name] for r in rows], label=name, **kw)
            ax.fill_between(
                xs, [r[f"{name}-min"] for r in rows], [r[f"{name}-max"] for r in rows], alpha=0.15
            )
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        ax.legend()
        if path is not None:
            fig.savefig(path / f"{bench.plot_name}.png")
        if show:
            plt.show()
        plt.close(fig)

    def run(
        self,
        show_plots: bool = False,
        print_data: bool = False,
        save_path: str = "",
        return_df: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Run every sweep; returns its rows (a pandas DataFrame when installed) if ``return_df``."""
        benches = [self.benchmarks] if isinstance(self.benchmarks, Benchmark) else self.benchmarks
        path = Path(save_path) if save_path else None
        results = []
        for bench in benches:
            rows = self._sweep(bench, **kwargs)
            if print_data:
                print(self._table(bench, rows))
            if path is not None:
                path.mkdir(parents=True, exist_ok=True)
                with open(path / f"{bench.plot_name}.csv", "w", newline="") as f:
                    writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else [])
                    writer.writeheader()
                    writer.writerows(rows)
            if path is not None or show_plots:
                self._plot(bench, rows, path, show_plots)
            results.append(_frame(rows))
        if return_df:
            return results[0] if len(results) == 1 else results
        return None


def _frame(rows: list[dict[str, Any]]) -> Any:
    try:
        pandas = importlib.import_module("pandas")
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def perf_report(
    benchmarks: Benchmark | Sequence[Benchmark],
) -> Callable[[Callable[..., Any]], Mark]:
    """Decorator: ``@perf_report(Benchmark(...))`` over a function of the sweep's arguments."""
    return lambda fn: Mark(fn, benchmarks)
