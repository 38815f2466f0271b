"""The platform layer: detect this machine, pick the backend, explain every problem.

A leaf package (it imports nothing else from tilec): ``system`` is the only I/O, ``probes`` turn it
into typed ``facts``, ``checks`` turn facts into findings, ``select`` picks backend and target,
``matrix`` holds the support policy and ``doctor`` renders the ``tilec doctor`` report.
"""
