"""Shared llvmlite emission used by every backend: IR types, intrinsics, vectorizable math,
target machines and the new-pass-manager optimization pipeline.

Nothing here knows about grids or threads; the cpu and cuda folders build on these pieces.
"""
