"""Parse a kernel's Python source into an AST whose positions map back to the user's file.

The source comes from ``inspect`` (files and linecache) or from text supplied or recovered for
the function (source_text.py), and is dedented before parsing; the line and column offsets are
kept so that every SourceLoc points into that text, not into the dedented copy.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Any

from ..errors import UnsupportedFeature
from ..source import SourceLoc
from ..source_text import source_lines


@dataclass(frozen=True)
class ParsedFunction:
    """A function's AST plus what is needed to resolve its names and locate its nodes."""

    fn: Any
    node: ast.FunctionDef
    file: str
    line_offset: int  # add to an AST line number to get the file's line number
    col_offset: int  # indentation removed by dedent
    lines: tuple[str, ...]  # the file's lines of this function (for excerpts)

    @property
    def name(self) -> str:
        return self.node.name

    def loc(self, node: ast.AST | None) -> SourceLoc:
        """The SourceLoc of ``node`` in the user's file (the function's own line when None)."""
        target = node if node is not None and hasattr(node, "lineno") else self.node
        line = getattr(target, "lineno", 1)
        col = getattr(target, "col_offset", 0) + self.col_offset
        end_col = None
        if (
            getattr(target, "end_lineno", None) == line
            and getattr(target, "end_col_offset", None) is not None
        ):
            end_col = target.end_col_offset + self.col_offset  # type: ignore[attr-defined]
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return SourceLoc(self.file, line + self.line_offset, col, end_col, text)


@functools.lru_cache(maxsize=512)
def _parse_cached(fn: Any) -> ParsedFunction:
    lines, start, file = source_lines(fn)
    indent = len(lines[0]) - len(lines[0].lstrip())
    # strip the def line's indentation; lines indented less can only be inside strings
    body = "".join(line[indent:] if not line[:indent].strip() else line for line in lines)
    try:
        tree = ast.parse(body)
    except SyntaxError as e:
        raise UnsupportedFeature(f"cannot parse the source of {fn.__qualname__}: {e}") from None
    node = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    text_lines = tuple(line.rstrip("\n") for line in lines)
    return ParsedFunction(fn, node, file, start - 1, indent, text_lines)  # type: ignore[arg-type]


def parse_function(fn: Any) -> ParsedFunction:
    """Parse ``fn`` (a plain Python function) once; later calls reuse the parse."""
    return _parse_cached(fn)
