"""``tl.extra.cuda``: Triton's CUDA-specific namespace; its libdevice is the shared one."""

from .. import libdevice

__all__ = ["libdevice"]
