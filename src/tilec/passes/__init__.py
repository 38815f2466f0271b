"""Tile IR → tile IR transformations, one pass per module, each a plain ``(ModuleOp) -> None``."""
