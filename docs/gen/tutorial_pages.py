"""Tutorial pages: each script under docs/tutorials run at its ``--quick`` sizes on the CPU,
its prose (the module docstring), its code, what it printed and the plot it drew."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

TUTORIALS = Path(__file__).resolve().parents[1] / "tutorials"


@dataclass(frozen=True)
class Page:
    markdown: str
    images: dict[str, bytes]  # file name (beside the page) -> PNG


def scripts() -> list[Path]:
    return sorted(TUTORIALS.glob("[0-9][0-9]_*.py"))


def _split(source: str) -> tuple[str, str, str]:
    """(title, prose, code without the module docstring) of a tutorial's source."""
    tree = ast.parse(source)
    doc = ast.get_docstring(tree) or ""
    first = tree.body[0]
    code = "\n".join(source.splitlines()[first.end_lineno :]).strip("\n") if doc else source
    title, _, prose = doc.partition("\n")
    return title.strip(), prose.strip(), code


def run(script: Path, out: Path) -> str:
    """What the script prints at quick sizes on the CPU; raises if its check fails."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    args = ["--quick", "--numpy", "--device", "cpu", "--seed", "0", "--save-path", str(out)]
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          env=env, cwd=out, timeout=900)  # fmt: skip
    if proc.returncode != 0 or "check passed" not in proc.stdout:
        raise RuntimeError(f"{script.name} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def render(script: Path) -> Page:
    title, prose, code = _split(script.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        output = run(script, Path(tmp))
        images = {p.name: p.read_bytes() for p in sorted(Path(tmp).glob("*.png"))}
    lines = [f"# {title}", "", prose, "", f"Source: `docs/tutorials/{script.name}`", "",
             "```python", code, "```", "", "## Output", "",
             "Printed by `python docs/tutorials/" + script.name + " --quick --numpy` on the "
             "machine that built these pages (CPU, tiny sizes: the numbers show the shape of the "
             "comparison, not tilec's speed; run it without `--quick` for that).", "",
             "```text", output.rstrip(), "```", ""]  # fmt: skip
    lines += [f"![benchmark plot]({name})" for name in images]
    return Page("\n".join(lines) + "\n", images)
