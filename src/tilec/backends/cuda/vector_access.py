"""How a tile load or store splits into vector accesses: elements per access and the groups.

Axis analysis bounds the width (contiguity, divisibility, the mask's constancy) along the
layout's fastest dimension, up to 16 bytes; each group is the register keys one access covers.
The memory rules and the pipeliner (which copies the same groups into shared memory) share it.
"""

from __future__ import annotations

from ...ir.core import Value
from ...ir.types import PointerType, element_of
from .axis_info import AxisAnalysis
from .layout import Layout, register_keys
from .tile import Key
from .types import byte_size


def vector_width(
    axis: AxisAnalysis,
    ptr: Value,
    mask: Value | None,
    layout: Layout,
    shape: tuple[int, ...],
    vector_bytes: int,
) -> int:
    """Elements per access along the fastest dimension (a power of 2, at most
    ``vector_bytes``, the target's widest access)."""
    dim = layout.order[0]
    dm = layout.dim_maps()[dim]
    info = axis[ptr]
    pointee = element_of(ptr.type)
    assert isinstance(pointee, PointerType)
    eb = byte_size(pointee.element)
    vw = min(
        dm.spt_in(shape[dim]),
        max(1, vector_bytes // eb),
        info.contiguity[dim],
        max(1, info.divisibility[dim] // eb),
    )
    if mask is not None:
        vw = min(vw, axis[mask].constancy[dim])
    return 1 << (max(vw, 1).bit_length() - 1)


def vector_groups(layout: Layout, shape: tuple[int, ...], vw: int) -> list[list[Key]]:
    """The register keys of each access of ``vw`` elements, first key first."""
    dim = layout.order[0]
    out = []
    for key in register_keys(layout, shape):
        if key[dim] % vw == 0:
            out.append([(*key[:dim], key[dim] + j, *key[dim + 1 :]) for j in range(vw)])
    return out
