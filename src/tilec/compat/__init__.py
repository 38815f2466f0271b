"""tilec as the ``triton`` package: the module tree PyTorch's Inductor (and other Triton hosts)
imports, as thin adapters over tilec's own objects.

``tilec.install_as_triton()`` (install.py) makes ``import triton`` resolve here in this process
and, through ``TILEC_AS_TRITON``, in child processes (startup.py, run from the .pth file tilec's
wheel installs). ``triton/`` mirrors Triton's module paths; a Triton module path with no module
there resolves to tilec's module of the same path (alias.py). Nothing happens at import time.
"""
