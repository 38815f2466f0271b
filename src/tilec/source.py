"""Source positions in kernel code, and the one place that renders them.

Every user-facing compile error points at kernel source as ``file:line:col`` followed by the
offending line and a caret under the column, the way Python's own tracebacks do.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    """A position in a source file: 1-based line, 0-based column (rendered 1-based)."""

    file: str
    line: int
    col: int = 0
    end_col: int | None = None
    text: str | None = None  # the source line, captured when the file may not be on disk

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"

    def source_line(self) -> str:
        if self.text is not None:
            return self.text
        return linecache.getline(self.file, self.line).rstrip("\n")

    def excerpt(self) -> str:
        """The source line and a caret (or a run of carets) under the position."""
        line = self.source_line()
        if not line:
            return ""
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        col = max(self.col - indent, 0)
        width = 1
        if self.end_col is not None and self.end_col > self.col:
            width = min(self.end_col - self.col, max(len(stripped) - col, 1))
        return f"    {stripped}\n    {' ' * col}{'^' * width}"

    def render(self, message: str) -> str:
        """``file:line:col: message`` plus the excerpt."""
        excerpt = self.excerpt()
        head = f"{self}: {message}"
        return f"{head}\n{excerpt}" if excerpt else head


UNKNOWN_LOC = SourceLoc("<unknown>", 0, 0)
