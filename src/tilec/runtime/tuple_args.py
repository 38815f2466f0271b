"""Tuple kernel arguments: the compiled kernel takes one parameter per leaf.

A tuple argument's specialization key holds its elements' keys and its launch value is the flat
tuple of its leaves' values (describers.py); the frontend rebuilds the tuple from the leaf
parameters (named ``x[0]``, ``x[1][0]`` ...; a TensorDescriptor element from its base, shape
and outer strides). ``TupleKernel`` splices those flat values into the launch, so every backend
and launcher sees ordinary pointer, scalar and constexpr parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..ir.argspec import ArgKind, ArgSpec
from .kernel import LaunchedKernel


def tuple_positions(specs: Sequence[ArgSpec]) -> tuple[int, ...]:
    return tuple(i for i, s in enumerate(specs) if s.kind is ArgKind.TUPLE)


def _named_leaves(name: str, value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from _named_leaves(f"{name}[{i}]", item)
    else:
        yield name, value


def _leaf_objects(value: Any) -> Iterator[Any]:
    return (leaf for _, leaf in _named_leaves("", value))


class TupleKernel(LaunchedKernel):
    """Launches the compiled kernel with each tuple argument spliced into its leaves."""

    def __init__(self, inner: LaunchedKernel, specs: Sequence[ArgSpec]) -> None:
        super().__init__(inner.compiled, inner.loaded, None, inner.params)
        self.inner = inner
        self.names = tuple(s.name for s in specs)
        self.positions = frozenset(tuple_positions(specs))

    @property
    def metadata(self) -> Any:
        return self.inner.metadata

    def _flat(self, values: Sequence[Any]) -> list[Any]:
        flat: list[Any] = []
        for i, v in enumerate(values):
            if i in self.positions:
                flat += v  # the describer's flat leaf values
            else:
                flat.append(v)
        return flat

    def launch(self, grid: Any, *values: Any) -> None:
        self.inner.launch(grid, *self._flat(values))

    def launch_checked(
        self, grid: Any, values: Sequence[Any], arguments: Mapping[str, Any] | None
    ) -> None:
        """A bounds-checked launch: each leaf's object by its leaf name."""
        checked = getattr(self.inner, "launch_checked", None)
        if checked is None:
            self.inner.launch(grid, *self._flat(values))
            return
        objects = dict(arguments or {})
        for i in self.positions:
            if self.names[i] in objects:
                objects.update(_named_leaves(self.names[i], objects[self.names[i]]))
        checked(grid, self._flat(values), objects)

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        """``compiled[grid](*args)``: tuple arguments given whole, checked leaf by leaf."""
        direct = self.inner[grid]

        def launch(*args: Any) -> None:
            flat: list[Any] = []
            for i, a in enumerate(args):
                flat += _leaf_objects(a) if i in self.positions else [a]
            direct(*flat)

        return launch
