"""``tilec doctor``: gather (or replay) facts, run the checks, select a backend, and report.

The text report follows ``flutter doctor``: one ``[✓]``/``[!]``/``[✗]`` line per category, each
finding below it with its remedy indented, and a final line naming the backend, target and install
line. ``--json`` emits the versioned document described by ``doctor.schema.json``; ``--facts``
replays one. Exit codes: 0 the selected backend works, 1 something is broken, 2 usage errors.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, TextIO

from .checks import run_checks
from .facts import SCHEMA_VERSION, Facts, FactsFormatError, from_json, to_json
from .finding import Category, Finding, Status
from .matrix import load_policy
from .probes import gather
from .select import CudaPlan, Selection, plan_cuda, select_backend
from .smoke import run_smoke
from .system import System

REPORT_SCHEMA = "https://tilec.dev/schemas/doctor-report-2.json"


@dataclass(frozen=True)
class Report:
    facts: Facts
    findings: tuple[Finding, ...]
    selection: Selection

    @property
    def status(self) -> Status:
        worst = max((f.status for f in self.findings), key=lambda s: s.severity, default=Status.OK)
        if not self.selection.works:
            return Status.FAIL
        return Status.OK if worst is Status.SKIP else worst

    @property
    def exit_code(self) -> int:
        return 1 if self.status is Status.FAIL else 0


def build_report(facts: Facts, system: System | None = None, run: bool = False) -> Report:
    policy = load_policy()
    findings = run_checks(facts, policy)
    selection = select_backend(facts, policy=policy)
    if run:
        system = system or System()
        backends = ["cpu"] if not facts.llvm.error else []
        if isinstance(plan_cuda(facts, policy), CudaPlan):
            backends.append("cuda")
        findings += tuple(run_smoke(system, b) for b in backends)
    return Report(facts, findings, selection)


# --- text ------------------------------------------------------------------------------------

_UNICODE = {Status.OK: "✓", Status.WARN: "!", Status.FAIL: "✗", Status.SKIP: "-"}
_ASCII = {Status.OK: "+", Status.WARN: "!", Status.FAIL: "x", Status.SKIP: "-"}
_ASCII_TEXT = str.maketrans(
    {"≥": ">=", "≤": "<=", "–": "-", "—": "-", "•": "*", "·": "-", "→": "->"}
)


def render_text(report: Report, verbose: bool = False) -> str:
    lines = [f"tilec doctor (tilec {report.facts.tilec.version or '?'})"]
    for category in Category:
        found = [f for f in report.findings if f.category is category]
        if not found:
            continue
        worst = _worst(found)
        lines.append(f"[{_UNICODE[worst]}] {category.value}")
        for f in found:
            lines.append(f"    {_UNICODE[f.status]} {f.summary}")
            if verbose or f.status in (Status.WARN, Status.FAIL):
                lines += [f"        · {d}" for d in f.details] if verbose else []
            if f.remediation is not None:
                lines.append(f"      → {f.remediation.text}")
                lines += [f"          $ {c}" for c in f.remediation.commands]
    if verbose:
        lines += ["", "Facts:"] + [f"    {k} = {v}" for k, v in _flatten(to_json(report.facts))]
    sel = report.selection
    issues = sum(f.status in (Status.WARN, Status.FAIL) for f in report.findings)
    lines.append("")
    lines.append(
        f"• {issues} issue{'s' if issues != 1 else ''} found." if issues else "• No issues found!"
    )
    broken = "" if sel.works else " — it does NOT work (see ✗ above)"
    lines.append(f"Backend: {sel.describe()} on {sel.device}{broken}")
    lines.append(f"Why: {sel.reason}")
    lines.append(
        f"Install: {sel.install or 'nothing more (no GPU here that a CUDA extra would serve)'}"
    )
    return "\n".join(lines)


def _worst(found: list[Finding]) -> Status:
    """The category's marker: its most severe finding; skip only when everything was skipped."""
    active = [f.status for f in found if f.status is not Status.SKIP]
    return max(active, key=lambda s: s.severity) if active else Status.SKIP


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [
            kv for k, v in value.items() for kv in _flatten(v, f"{prefix}.{k}" if prefix else k)
        ]
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [kv for i, v in enumerate(value) for kv in _flatten(v, f"{prefix}[{i}]")]
    if isinstance(value, list):
        return [(prefix, ", ".join(map(str, value)) if value else "[]")]
    return [(prefix, value)]


def encodable(text: str, stream: TextIO) -> str:
    """``text`` with ASCII markers when ``stream`` cannot encode ✓ (legacy Windows consoles)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        for status, mark in _UNICODE.items():
            text = text.replace(f"[{mark}]", f"[{_ASCII[status]}]").replace(
                f"    {mark} ", f"    {_ASCII[status]} "
            )
        return text.translate(_ASCII_TEXT).encode(encoding, errors="replace").decode(encoding)


# --- JSON ------------------------------------------------------------------------------------


def _finding_json(f: Finding | None) -> dict[str, Any] | None:
    if f is None:
        return None
    remedy = f.remediation
    return {
        "check": f.check,
        "category": f.category.name.lower(),
        "status": f.status.value,
        "summary": f.summary,
        "details": list(f.details),
        "remediation": None
        if remedy is None
        else {"text": remedy.text, "commands": list(remedy.commands)},
        "scenario": f.scenario,
    }


def render_json(report: Report) -> dict[str, Any]:
    sel = report.selection
    return {
        "$schema": REPORT_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tilec_version": report.facts.tilec.version,
        "status": report.status.value,
        "exit_code": report.exit_code,
        "selection": {
            "backend": sel.backend,
            "arch": sel.arch,
            "features": list(sel.features),
            "ptx_version": sel.ptx_version,
            "cubin_route": sel.cubin_route,
            "device": sel.device,
            "reason": sel.reason,
            "install": sel.install,
            "works": sel.works,
            "finding": _finding_json(sel.finding),
        },
        "findings": [_finding_json(f) for f in report.findings],
        "facts": to_json(report.facts),
    }


def load_facts(path: str) -> Facts:
    """Facts from a saved ``--json`` report (or a bare facts object); FactsFormatError if bad."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise FactsFormatError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise FactsFormatError(f"{path} is not JSON: {exc}") from None
    if isinstance(data, dict) and "facts" in data:
        version = data.get("schema_version", SCHEMA_VERSION)
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise FactsFormatError(
                f"{path}: schema_version {version!r} is newer than this tilec reads ({SCHEMA_VERSION})"
            )
        data = data["facts"]
    return from_json(Facts, data)


def main(
    verbose: bool = False, as_json: bool = False, facts: str | None = None, run: bool = False
) -> int:
    """The ``tilec doctor`` command; returns the exit code."""
    system = System()
    try:
        known = load_facts(facts) if facts is not None else gather(system)
    except FactsFormatError as exc:
        print(f"tilec doctor: error: {exc}", file=sys.stderr)
        return 2
    report = build_report(known, system, run=run and facts is None)
    if run and facts is not None:
        print(
            "tilec doctor: --run ignored with --facts (replayed facts describe another machine)",
            file=sys.stderr,
        )
    if as_json:
        text = json.dumps(render_json(report), indent=2, ensure_ascii=False)
        if encodable(text, sys.stdout) != text:  # keep it valid JSON on legacy consoles
            text = json.dumps(render_json(report), indent=2)
        print(text)
    else:
        print(encodable(render_text(report, verbose), sys.stdout))
    return report.exit_code
