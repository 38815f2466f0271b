"""Which ``triton`` a Python process gets here: none, an installed Triton, or tilec through
``tilec.install_as_triton()`` / ``TILEC_AS_TRITON`` (honoured at start-up by tilec_as_triton.pth),
and whether that alias shadows an installed Triton.

``triton_facts`` asks a ``System``; ``resolve`` is the one reading of those facts, shared by the
doctor's ``tilec.triton`` finding and by ``tilec.compat.install.which_triton`` (this process).
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .facts import Facts, TritonFacts
from .finding import Category, Finding, Remediation, Status
from .finding import make as _f

if TYPE_CHECKING:  # kept out at run time: interpreter start-up (compat/startup.py) imports this
    from .matrix import SupportPolicy
    from .system import System

STARTUP_HOOK = "tilec_as_triton.pth"
# distributions that install a top-level `triton` package (torch's wheels pin pytorch-triton)
DISTRIBUTIONS = ("triton", "pytorch-triton", "pytorch-triton-rocm", "pytorch-triton-xpu",
                 "triton-windows")  # fmt: skip


class Provider(enum.Enum):
    """What ``import triton`` gives."""

    TILEC = "tilec"  # tilec's alias hook answers
    TRITON = "triton"  # an installed Triton package
    NONE = "none"  # it fails: no Triton is installed


class Request(enum.Enum):
    """How ``TILEC_AS_TRITON`` reads (the start-up hook reads it the same way)."""

    OFF = "off"  # unset, 0, false, off, no
    ON = "on"  # 1, true, on, yes: tilec where no Triton is installed
    REPLACE = "replace"  # tilec over an installed Triton too, an explicit choice
    INVALID = "invalid"  # anything else: ignored, with a note on stderr

    @classmethod
    def of(cls, value: str) -> Request:
        value = value.strip().lower()
        if value in ("", "0", "false", "off", "no"):
            return cls.OFF
        if value in ("1", "true", "on", "yes"):
            return cls.ON
        return cls.REPLACE if value == "replace" else cls.INVALID


@dataclass(frozen=True)
class TritonResolution:
    """Which package ``import triton`` gives, and why."""

    provider: Provider
    facts: TritonFacts
    in_process: bool = False  # the alias hook is installed in the process asked about
    inert: bool = False  # TILEC_AS_TRITON asks for tilec but does not get it (why: ``note``)
    note: str = ""

    @property
    def shadows(self) -> bool:
        """tilec answers ``import triton`` although a Triton is installed."""
        return self.provider is Provider.TILEC and self.facts.installed

    def installed_text(self) -> str:
        t = self.facts
        version = f" {t.version}" if t.version else ""
        source = f" (distribution {t.distribution})" if t.distribution else ""
        return f"Triton{version} at {t.path}{source}"

    def summary(self) -> str:
        if self.provider is Provider.TILEC:
            how = (
                "install_as_triton()"
                if self.in_process
                else f"TILEC_AS_TRITON={self.facts.as_triton}"
            )
            shadow = f", shadowing the installed {self.installed_text()}" if self.shadows else ""
            return f"import triton gives tilec ({how}){shadow}"
        if self.provider is Provider.TRITON:
            return f"import triton gives the installed {self.installed_text()}"
        return "import triton fails: no Triton is installed (tilec.install_as_triton() opts in)"


def resolve(t: TritonFacts, in_process: bool = False) -> TritonResolution:
    """What ``import triton`` gives a new interpreter started with these facts' environment, or
    (``in_process``) a process whose alias hook is installed already."""
    if in_process:
        return TritonResolution(Provider.TILEC, t, in_process=True)
    native = Provider.TRITON if t.installed else Provider.NONE
    request = Request.of(t.as_triton)
    if request is Request.OFF:
        return TritonResolution(native, t)
    if request is Request.INVALID:
        return TritonResolution(native, t, inert=True,
                                note=f"TILEC_AS_TRITON={t.as_triton!r} is ignored (use 1, or "
                                     "replace to shadow an installed Triton)")  # fmt: skip
    if not t.startup_hook:
        return TritonResolution(native, t, inert=True,
                                note=f"TILEC_AS_TRITON={t.as_triton} is set but tilec's start-up "
                                     f"hook ({STARTUP_HOOK}) is not installed")  # fmt: skip
    if request is Request.ON and t.installed:
        return TritonResolution(native, t, inert=True,
                                note=f"TILEC_AS_TRITON={t.as_triton} keeps an installed Triton; "
                                     "replace chooses tilec over it")  # fmt: skip
    return TritonResolution(Provider.TILEC, t)


# --- probe -----------------------------------------------------------------------------------


def _version(system: System, path: str) -> str:
    init = path if path.endswith(".py") else os.path.join(path, "__init__.py")
    match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", system.read_text(init) or "", re.M)
    return match.group(1) if match else ""


def triton_facts(system: System) -> TritonFacts:
    path = system.find_package("triton")
    dists = [(d, system.dist_version(d)) for d in DISTRIBUTIONS] if path else []
    dist, dist_version = next(((d, v) for d, v in dists if v), ("", ""))
    hooks = [os.path.join(s, STARTUP_HOOK) for s in system.site_packages()]
    return TritonFacts(
        path=path,
        version=(_version(system, path) or dist_version) if path else "",
        distribution=dist,
        as_triton=system.env.get("TILEC_AS_TRITON", "").strip().lower(),
        startup_hook=next((h for h in hooks if system.exists(h)), ""),
    )


# --- check -----------------------------------------------------------------------------------


def _remedy(r: TritonResolution) -> Remediation | None:
    request = Request.of(r.facts.as_triton)
    if request is Request.INVALID:
        return Remediation("Set TILEC_AS_TRITON=1 (or replace), or unset it.")
    if not r.facts.startup_hook:
        return Remediation(
            "Reinstall tilec so its start-up hook lands in site-packages, or call "
            "tilec.install_as_triton() in the process before anything imports triton."
        )
    return Remediation(
        "Set TILEC_AS_TRITON=replace to choose tilec over the installed Triton, or unset "
        "TILEC_AS_TRITON to keep it."
    )


def check_triton(facts: Facts, policy: SupportPolicy) -> Iterable[Finding]:
    """The ``tilec.triton`` finding: which triton ``import triton`` gives (nothing when the
    facts predate it)."""
    if facts.triton is None:
        return
    r = resolve(facts.triton)
    hook = f"start-up hook {r.facts.startup_hook}" if r.facts.startup_hook else ""
    if r.inert:
        yield _f("tilec.triton", Category.TILEC, Status.WARN, f"{r.summary()} — {r.note}", hook,
                 remediation=_remedy(r))  # fmt: skip
        return
    shadow = (
        "an explicit choice (TILEC_AS_TRITON=replace); unset it to get the installed Triton back"
    )
    yield _f(
        "tilec.triton", Category.TILEC, Status.OK, r.summary(), shadow if r.shadows else "", hook
    )
