"""``tl.extra``: target math libraries (``from tilec.language.extra import libdevice``)."""

from . import libdevice

__all__ = ["libdevice"]
