"""``tl.tuple_type``: the type of a kernel tuple (``t.type``), its element types and, for a
named tuple, its field names; the frontend builds it (operators) and the language exports it."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, init=False)
class tuple_type:
    """The type of a tuple: its element types, and its field names for a named tuple."""

    types: builtins.tuple[Any, ...]
    fields: builtins.tuple[str, ...] | None

    def __init__(self, types: Iterable[Any], fields: Iterable[str] | None = None) -> None:
        object.__setattr__(self, "types", builtins.tuple(types))
        object.__setattr__(self, "fields", None if fields is None else builtins.tuple(fields))

    @property
    def name(self) -> str:
        if self.fields is None:
            return "[" + ",".join(str(t) for t in self.types) + "]"
        return "[" + ",".join(f"{k}:{t}" for k, t in zip(self.fields, self.types)) + "]"

    def __str__(self) -> str:
        return self.name

    def __iter__(self) -> Iterator[Any]:
        return iter(self.types)

    def __getitem__(self, index: int) -> Any:
        return self.types[index]

    def __len__(self) -> int:
        return len(self.types)
