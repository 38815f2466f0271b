"""Bounds-checked mode on the host: argument extents in, OutOfBoundsError out.

``memory_extent`` finds the memory an argument's pointer may legally reach: a numpy array's
whole base buffer (a reversed or sliced view may reach every byte of it), a torch tensor's
storage, else the view's own bytes from shape and strides (``__cuda_array_interface__``,
DLPack). ``bounds_error`` turns the record a checked kernel left behind into the exception.
"""

from __future__ import annotations

import ctypes
from typing import Any

from ..errors import OutOfBoundsError
from ..ir.bounds import BoundsInfo
from . import dlpack

Extent = tuple[int, int]  # [lo, hi) byte addresses
# an argument whose memory cannot be found (a raw address): every address passes
UNLIMITED: Extent = (0, (1 << 64) - 1)


def _itemsize(typestr: str) -> int:
    digits = "".join(ch for ch in typestr if ch.isdigit())
    return int(digits) if digits else 1


def view_extent(address: int, shape: Any, strides: Any, itemsize: int) -> Extent:
    """The bytes a strided view starting at ``address`` covers (strides in bytes; None means
    C-contiguous)."""
    shape = tuple(int(n) for n in shape)
    if any(n == 0 for n in shape):
        return (address, address)
    if strides is None:
        strides, step = [], itemsize
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    lo = hi = address
    for n, s in zip(shape, strides):
        reach = (n - 1) * int(s)
        lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
    return (lo, hi + itemsize)


def _interface_extent(iface: dict[str, Any]) -> Extent:
    return view_extent(
        int(iface["data"][0] or 0),
        iface["shape"],
        iface.get("strides"),
        _itemsize(iface["typestr"]),
    )


def _numpy_base(a: Any) -> Any:
    """The last array in ``a``'s chain of bases: the one that owns (or wraps) the buffer."""
    while hasattr(getattr(a, "base", None), "__array_interface__"):
        a = a.base
    return a


def _dlpack_extent(obj: Any) -> Extent:
    capsule = obj.__dlpack__()
    tensor = dlpack._DLTensor.from_address(dlpack._capsule_pointer(capsule))
    shape = [tensor.shape[i] for i in range(tensor.ndim)]
    itemsize = max(tensor.dtype.bits * tensor.dtype.lanes // 8, 1)
    strides = [tensor.strides[i] * itemsize for i in range(tensor.ndim)] if tensor.strides else None
    found = view_extent((tensor.data or 0) + tensor.byte_offset, shape, strides, itemsize)
    del capsule
    return found


def memory_extent(value: Any) -> Extent:
    """The byte range ``value``'s pointer argument may reach (UNLIMITED when unknown)."""
    storage = getattr(value, "untyped_storage", None)
    if callable(storage):  # torch: the storage, which every view of it shares
        s = storage()
        return (int(s.data_ptr()), int(s.data_ptr()) + int(s.nbytes()))
    if hasattr(value, "__array_interface__"):
        return _interface_extent(_numpy_base(value).__array_interface__)
    cai = getattr(value, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return _interface_extent(cai)
    if hasattr(value, "__dlpack__"):
        return _dlpack_extent(value)
    return UNLIMITED


def extent_words(info: BoundsInfo, objects: dict[str, Any]) -> list[int]:
    """``lo, hi`` per checked pointer parameter, in the hidden parameters' order."""
    words: list[int] = []
    for name in info.pointers:
        lo, hi = memory_extent(objects[name]) if name in objects else UNLIMITED
        words += [lo, hi]
    return words


def bounds_error(
    kernel: str,
    info: BoundsInfo,
    record: tuple[int, int, int],
    grid: tuple[int, int, int],
    bases: dict[str, int],
    extents: list[int],
) -> OutOfBoundsError:
    """The exception for a record ``(code, linear program id, address)``; ``bases`` holds the
    address each pointer argument was passed as."""
    code, pid, address = record
    site = info.site(code)
    gx, gy, _ = grid
    where = (pid % gx, (pid // gx) % gy, pid // (gx * gy))
    if site is None:
        return OutOfBoundsError(
            f"kernel {kernel}: out-of-bounds access (unknown site {code}) at program id {where}",
            kernel=kernel, argument="?", offset=0, allowed=(0, 0), program_id=where,
        )  # fmt: skip

    def distance(c: int) -> int:
        lo, hi = extents[2 * c], extents[2 * c + 1]
        return 0 if lo <= address < hi else min(abs(address - lo), abs(address - hi))

    chosen = min(site.candidates, key=distance)
    name = info.pointers[chosen]
    base = bases.get(name, 0)
    lo, hi = extents[2 * chosen] - base, extents[2 * chosen + 1] - base
    offset = _signed(address - base)
    size = site.access_bytes
    element = f" (element {offset // size} of {site.element})" if offset % size == 0 else ""
    text = (
        f"kernel {kernel}: out-of-bounds {site.kind.value} through argument {name!r} at program "
        f"id {where}: byte offset {offset}{element} from {name}'s base pointer; its memory is "
        f"bytes [{lo}, {hi}) of that pointer"
    )
    return OutOfBoundsError(
        text, kernel=kernel, argument=name, offset=offset, allowed=(lo, hi),
        program_id=where, loc=site.loc,
    )  # fmt: skip


def _signed(v: int) -> int:
    return ctypes.c_int64(v).value
