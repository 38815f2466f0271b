"""Reading PTX loops in tests: the body of the innermost (or largest) loop closed by a backward
branch, and the instruction counts that matter for a tensor-core K loop."""

from __future__ import annotations

import re
from collections import Counter

_LABEL = re.compile(r"^(\$L__BB\d+_\d+):")
_BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+);")


def _spans(ptx: str) -> tuple[list[str], list[tuple[int, int]]]:
    lines = [line.strip() for line in ptx.splitlines()]
    where: dict[str, int] = {}
    spans = []
    for i, line in enumerate(lines):
        label = _LABEL.match(line)
        if label:
            where[label.group(1)] = i
        branch = _BRANCH.search(line)
        if branch and branch.group(1) in where:
            spans.append((where[branch.group(1)], i))
    return lines, spans


def loops(ptx: str) -> list[list[str]]:
    """Every loop body: the lines from a label to a later branch back to it."""
    lines, spans = _spans(ptx)
    return [lines[a : b + 1] for a, b in spans]


def k_loop(ptx: str) -> list[str]:
    """The innermost loop with the most mma.sync instructions (a matmul's K loop)."""
    lines, spans = _spans(ptx)
    inner = [
        (a, b)
        for a, b in spans
        if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in spans)
    ]
    bodies = [lines[a : b + 1] for a, b in inner]
    # most mma first; of equals the shortest (a path of an outer loop can look like a loop)
    return max(bodies, key=lambda body: (sum("mma.sync" in line for line in body), -len(body)))


def counts(body: list[str]) -> Counter[str]:
    """Instruction counts of a loop body, by the names a K loop is judged on."""
    c: Counter[str] = Counter()
    for line in body:
        if not line or line.startswith(("//", "$", ".")):
            continue
        text = re.sub(r"^@!?%p\d+\s+", "", line)
        op = text.split()[0] if text.split() else ""
        for name in ("mma.sync", "ldmatrix", "cp.async.wait_group", "cp.async.commit_group"):
            if op.startswith(name):
                c[name] += 1
        if op.startswith("ldmatrix") and ".x4" in op:
            c["ldmatrix.x4"] += 1
        if op.startswith(("cp.async.cg", "cp.async.ca")):
            c["cp.async"] += 1
        if op.startswith(("bar.sync", "barrier.sync")):
            c["bar.sync"] += 1
        if op.startswith(("ld.shared", "st.shared")):
            c[op.split(".")[0] + ".shared"] += 1
        if op.startswith(("ld.local", "st.local")):
            c["local"] += 1
        if op.startswith(("ld.global", "st.global")) or "ld.global" in text:
            c["global"] += 1
    return c
