"""``tl.extra.cuda.libdevice``: the same functions as ``tl.extra.libdevice``."""

from ..libdevice import __dir__, __getattr__  # noqa: F401
