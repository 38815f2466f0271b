"""The environment-variable reference, read from ``src/tilec/config.py`` itself.

Each ``Config`` field's variables are the string literals its ``from_env`` keyword reads
(directly or through a local variable), and its description is the field's comment, so the
page cannot drift from the code: a new variable appears as soon as ``from_env`` reads it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[2] / "src" / "tilec" / "config.py"
# Triton reads a few variables without its prefix; tilec honours those it knows
NAME = re.compile(r"^((TILEC|TRITON)_[A-Z0-9_]+|DISABLE_MMA_V3)$")


@dataclass(frozen=True)
class Setting:
    field: str
    variables: tuple[str, ...]
    description: str


def _comments(source: str) -> tuple[dict[int, str], set[int]]:
    """Line number -> comment text for every comment, and the lines that are only a comment."""
    out, alone = {}, set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string.lstrip("#").strip()
            if tok.line.strip().startswith("#"):
                alone.add(tok.start[0])
    return out, alone


def _names_in(node: ast.AST, local: dict[str, set[str]]) -> set[str]:
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and NAME.match(sub.value):
            found.add(sub.value)
        elif isinstance(sub, ast.Name) and sub.id in local:
            found |= local[sub.id]
    return found


def _field_docs(cls: ast.ClassDef, comments: dict[int, str], alone: set[int]) -> dict[str, str]:
    """A field's comment: on its own line's end, else the comment block right above it."""
    docs = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            lines = [comments[stmt.lineno]] if stmt.lineno in comments else []
            above = stmt.lineno - 1
            while not docs.get(stmt.target.id) and above in alone and stmt.lineno not in comments:
                lines.insert(0, comments[above])
                above -= 1
            docs[stmt.target.id] = " ".join(lines)
    return docs


def _env_reads(cls: ast.ClassDef) -> dict[str, set[str]]:
    from_env = next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "from_env")
    local: dict[str, set[str]] = {}
    reads: dict[str, set[str]] = {}

    def visit(body: list[ast.stmt], condition: set[str]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):  # a variable read in the test guards the assignments
                visit(stmt.body + stmt.orelse, condition | _names_in(stmt.test, local))
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        found = _names_in(stmt.value, local) | condition
                        local[target.id] = local.get(target.id, set()) | found
            elif isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call):
                for kw in stmt.value.keywords:
                    reads[kw.arg or ""] = _names_in(kw.value, local)

    visit(from_env.body, set())
    return reads


def settings(path: Path = CONFIG) -> list[Setting]:
    source = path.read_text(encoding="utf-8")
    cls = next(
        n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "Config"
    )
    docs, reads = _field_docs(cls, *_comments(source)), _env_reads(cls)

    def order(name: str) -> tuple[int, str]:
        return (0 if name.startswith("TILEC_") else 1, name)

    return [Setting(f, tuple(sorted(reads.get(f, ()), key=order)), d) for f, d in docs.items()]


def all_names(path: Path = CONFIG) -> set[str]:
    """Every TILEC_* / TRITON_* string literal in config.py (what the page must cover)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and NAME.match(n.value)
    }


def render() -> str:
    rows = [
        f"| {'<br>'.join(f'`{v}`' for v in s.variables) or '—'} | `{s.field}` | "
        f"{s.description.replace('|', '&#124;')} |"
        for s in settings()
    ]
    return "\n".join(
        [
            "# Environment variables",
            "",
            "Generated from `src/tilec/config.py`, the only module that reads the environment. Each",
            "row is one field of `tilec.config.Config`; where both a `TILEC_*` and a `TRITON_*` name",
            "are listed, tilec honours Triton's name too, so a setup made for Triton keeps working.",
            "Flags count as set for `1`, `true`, `yes` or `on`. Inside a program, "
            "`tilec.config.override(field=value)` changes a setting for a `with` block.",
            "",
            "| variable | `Config` field | what it does |",
            "|---|---|---|",
            *rows,
            "",
            "`tilec cache info` prints the cache folder in use and its size; `tilec cache clear`",
            "empties it.",
            "",
        ]
    )
