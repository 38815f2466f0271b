"""A random kernel as data: a DAG of frozen ``Node``s over loaded inputs, scalars and literals,
stored (or atomically combined) into one output. gen.py builds them, render.py writes them as
Python source, reference.py evaluates them with NumPy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dtypes import DType

Shape = tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Node:
    """One value. ``op`` names the operation; ``attr`` holds its static parameters."""

    op: str
    args: tuple[Node, ...]
    dtype: DType
    shape: Shape
    attr: tuple = ()

    @property
    def is_literal(self) -> bool:
        """A Python number in the source (a literal or a constexpr): it types like Triton's
        scalars, which do not widen a tensor of their kind."""
        return self.op in ("lit", "const")


@dataclass(frozen=True)
class Layout:
    """Where a tile's elements lie in its block of memory: row-major over the axes in ``order``
    (the tile's own order when empty: contiguous rows), the ``flipped`` axes backwards."""

    order: tuple[int, ...] = ()
    flipped: tuple[int, ...] = ()

    def strides(self, shape: Shape) -> list[int]:
        order = self.order or tuple(range(len(shape)))
        strides = [0] * len(shape)
        step = 1
        for axis in reversed(order):
            strides[axis] = step
            step *= shape[axis]
        return strides

    def offsets(self, shape: Shape) -> np.ndarray:
        """Each element's offset in the block."""
        out = np.zeros(shape, np.int64)
        for axis, stride in enumerate(self.strides(shape)):
            index = np.arange(shape[axis])
            if axis in self.flipped:
                index = index[::-1]
            out = out + (index * stride).reshape(
                [-1 if k == axis else 1 for k in range(len(shape))]
            )
        return out


@dataclass(frozen=True)
class Input:
    """A pointer argument loaded as a tile of ``shape`` (``pid * numel`` further on)."""

    dtype: DType
    shape: Shape
    masked: bool
    other: int | float | None  # the masked load's ``other`` (None: lanes stay undefined)
    layout: Layout = Layout()
    # read from the output buffer instead (its own program's block, before the store writes
    # it: an in-place update); the input's values are then the output's initial contents
    aliases_out: bool = False


@dataclass(frozen=True)
class Kernel:
    inputs: tuple[Input, ...]
    root: Node
    out_dtype: DType  # the output pointer's element type (a store converts to it)
    store: str  # "store", or an atomic: "atomic_add", "atomic_max", ...
    out_masked: bool
    grid: int
    scalars: tuple[tuple[str, DType, int | float], ...]  # runtime scalar arguments
    constexprs: tuple[tuple[str, int | float], ...]
    combine: tuple[str, ...] = ()  # helper combine functions the kernel's scans call
    # an atomic's returned old values are stored after the atomic's lanes (a grid of 1: with
    # more programs they would depend on the order the programs ran in)
    returns_old: bool = False
    out_layout: Layout = Layout()
    # the launch's grid over up to three axes (``grid`` programs in all): the kernel numbers
    # its programs row-major from program_id and num_programs; () is (grid,)
    grid_dims: tuple[int, ...] = ()
    # the output block an input read from the output holds is overwritten with 1 right after
    # the loads, before anything uses what they read (the kernel index of that input, or -1)
    scribble: int = -1

    @property
    def launch_grid(self) -> tuple[int, ...]:
        return self.grid_dims or (self.grid,)


@dataclass(frozen=True)
class Case:
    """A kernel plus what its launch needs: the data seed and the mask bounds."""

    kernel: Kernel
    data_seed: int
    bounds: tuple[int, ...]  # n for each input, then for the output
    special: int  # how often inputs take edge values (0..3)


def dropped_loop(n: Node) -> bool:
    """A for loop over a constant empty range: the compiler drops it, its value is the init."""
    return n.op == "loop" and not n.attr[3] and n.attr[2] != 4 and not range(*n.attr[1])


def walk(root: Node) -> list[Node]:
    """Every node once, operands before their users."""
    seen: dict[int, Node] = {}
    order: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            if id(node) not in seen:
                seen[id(node)] = node
                order.append(node)
            continue
        if id(node) in seen:
            continue
        stack.append((node, True))
        stack.extend((a, False) for a in reversed(node.args))
    return order


def numel(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
