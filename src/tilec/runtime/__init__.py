"""The runtime: ``@jit`` kernels, specialization, the kernel cache, autotuning and launching.

Submodules are imported on use; importing this package does no work.
"""
