"""Tile IR: typed SSA values, operations with regions, a builder, a printer and a verifier.

This package imports nothing else from tilec except ``source`` and ``errors``; the language,
frontend, passes and every backend build on it.
"""

from .types import (
    PointerType,
    ScalarType,
    TileType,
    Type,
)

__all__ = ["PointerType", "ScalarType", "TileType", "Type"]
