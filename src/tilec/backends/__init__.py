"""Backends: one folder per target (cpu, cuda) plus the shared llvmlite emission in ``llvm``.

Nothing here is imported eagerly: ``registry.get("cpu")`` imports a backend on first use.
"""
