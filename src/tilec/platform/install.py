"""How this tilec was installed, and the pip lines that work for that install.

No package index serves tilec yet, so ``pip install "tilec[cuda]"`` finds nothing. A checkout
installs an extra from its own directory (``pip install -e "/src/tilec[cuda]"``); an installed
wheel gets the extra's packages by name, as support.json's driver floors list them (a test keeps
them equal to pyproject.toml's extras). ``classify`` is pure: probes.py hands it what it read.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from enum import Enum
from urllib.parse import unquote, urlparse

from .facts import Facts
from .matrix import DriverFloor


class InstallKind(Enum):
    EDITABLE = "editable"  # pip install -e <checkout>: tilec runs from the checkout
    DIRECTORY = "directory"  # pip install <checkout>: a copy in site-packages, built from there
    SOURCE = "source"  # imported from a checkout's src/ that pip did not install (PYTHONPATH)
    WHEEL = "wheel"  # a wheel file, or anything that names no checkout to install from


@dataclass(frozen=True)
class Install:
    kind: InstallKind
    source_dir: str = ""  # the checkout; "" for WHEEL

    @classmethod
    def of(cls, facts: Facts) -> Install:
        """The install the facts describe; unrecorded (older facts) or unknown reads as a wheel,
        whose lines work everywhere."""
        try:
            kind = InstallKind(facts.tilec.install_kind)
        except ValueError:
            kind = InstallKind.WHEEL
        if kind is InstallKind.WHEEL or not facts.tilec.source_dir:
            return cls(InstallKind.WHEEL)
        return cls(kind, facts.tilec.source_dir)


def classify(
    package_dir: str, tree_pyproject: str | None, direct_url: str | None, checkout_exists: bool
) -> tuple[InstallKind, str]:
    """The install kind and checkout of the tilec package in ``package_dir``.

    ``tree_pyproject`` is the text of ``<package_dir>/../../pyproject.toml`` (None if absent),
    ``direct_url`` the distribution's PEP 610 direct_url.json (None if it has none), and
    ``checkout_exists`` whether the directory that names still holds a pyproject.toml."""
    root = os.path.dirname(os.path.dirname(package_dir))
    in_tree = os.path.basename(os.path.dirname(package_dir)) == "src" and bool(
        re.search(r'^name\s*=\s*"tilec"', tree_pyproject or "", re.M)
    )
    directory, editable = _local_directory(direct_url)
    if in_tree:
        same = editable and os.path.normcase(directory.rstrip("/\\")) == os.path.normcase(root)
        return (InstallKind.EDITABLE if same else InstallKind.SOURCE), root
    if directory and checkout_exists:
        return (InstallKind.EDITABLE if editable else InstallKind.DIRECTORY), directory
    return InstallKind.WHEEL, ""


def direct_url_directory(direct_url: str | None) -> str:
    """The local directory a PEP 610 direct_url.json names ("" for a wheel, a VCS or an index)."""
    return _local_directory(direct_url)[0]


def _local_directory(direct_url: str | None) -> tuple[str, bool]:
    """The local directory a PEP 610 direct_url.json names ("" for a wheel, a VCS or an index),
    and whether pip installed it editable."""
    try:
        data = json.loads(direct_url or "")
    except ValueError:
        return "", False
    if not isinstance(data, dict) or not isinstance(data.get("dir_info"), dict):
        return "", False
    url = urlparse(str(data.get("url", "")))
    if url.scheme != "file":
        return "", False
    path = unquote(url.path)
    if re.match(r"/[A-Za-z]:", path):  # file:///C:/src/tilec on Windows
        path = path[1:]
    return path, bool(data["dir_info"].get("editable", False))


def requirement_name(requirement: str) -> str:
    """The distribution a requirement names: 'nvidia-nvvm>=13,<14' -> 'nvidia-nvvm'."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement


def extra_line(install: Install, floor: DriverFloor) -> str:
    """The pip line that adds the CUDA extra of ``floor`` to this install."""
    if install.kind is InstallKind.EDITABLE:
        return f'pip install -e "{install.source_dir}[{floor.extra}]"'
    if install.kind is InstallKind.DIRECTORY:
        return f'pip install "{install.source_dir}[{floor.extra}]"'
    # a wheel (or a checkout pip did not install): the extra's packages by name, nothing else
    return "pip install " + " ".join(f'"{r}"' for r in floor.requirements)


def reinstall_lines(install: Install) -> tuple[str, ...]:
    """Commands that install this tilec again, with its native launcher built."""
    where = install.source_dir
    if install.kind is InstallKind.EDITABLE:
        return (f'pip install --force-reinstall --no-deps -e "{where}"',)
    if install.kind is InstallKind.DIRECTORY:
        return (f'pip install --force-reinstall --no-deps "{where}"',)
    if install.kind is InstallKind.SOURCE:
        return (f'bash "{os.path.join(where, "ci", "build_inplace.sh")}"',)
    return ("pip install --force-reinstall --no-deps /path/to/tilec-<version>-<tag>.whl",)


def upgrade_lines(install: Install) -> tuple[str, ...]:
    """Commands that bring this tilec up to date with its source."""
    where = install.source_dir
    if install.kind is InstallKind.SOURCE:
        return (f'git -C "{where}" pull',)
    if install.kind in (InstallKind.EDITABLE, InstallKind.DIRECTORY):
        editable = "-e " if install.kind is InstallKind.EDITABLE else ""
        return (f'git -C "{where}" pull', f'pip install {editable}"{where}"')
    return ("git clone https://github.com/tilec/tilec", 'pip install --upgrade "./tilec"')
