"""The memory spaces array arguments report, spelled as torch spells its device types.

An argument's memory space is part of its specialization key; the registry says which backend's
kernels read which space. These two names are the only place the runtime spells them: they are
what ``torch.device.type``, DLPack device types and ``__cuda_array_interface__`` say, not names
of backends.
"""

from __future__ import annotations

HOST_MEMORY = "cpu"  # numpy arrays, torch CPU tensors, DLPack kDLCPU / kDLCUDAHost
CUDA_MEMORY = "cuda"  # torch CUDA tensors, __cuda_array_interface__, DLPack kDLCUDA / managed
KNOWN = (HOST_MEMORY, CUDA_MEMORY)
