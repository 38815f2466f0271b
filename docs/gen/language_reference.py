"""The ``tl`` language reference, from the docstrings and signatures of ``tilec.language``.

Every name in ``tilec.language.__all__`` gets a row: builtins (implemented by the frontend),
library functions (written in tl), dtypes and submodules; ``tl.math`` and ``libdevice`` are
listed by name. A name without a docstring says so, rather than being left out.
"""

from __future__ import annotations

import inspect
from typing import Any


def _kind(obj: Any) -> str:
    if getattr(obj, "__tilec_builtin__", False):
        return "builtins"
    if getattr(obj, "__tilec_library__", False):
        return "library"
    if inspect.ismodule(obj):
        return "modules"
    if type(obj).__name__ == "ScalarType":
        return "dtypes"
    if inspect.isclass(obj):
        return "types"
    return "constants"


def _signature(obj: Any) -> str:
    sig = getattr(obj, "signature", None)
    if not isinstance(sig, inspect.Signature):
        try:
            sig = inspect.signature(getattr(obj, "fn", obj))
        except (TypeError, ValueError):
            return ""
    parts = []
    for p in sig.parameters.values():
        if p.name == "_semantic":
            continue
        name = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        parts.append(name if p.default is p.empty else f"{name}={p.default!r}")
    return f"({', '.join(parts)})"


def _summary(obj: Any) -> str:
    doc = inspect.getdoc(getattr(obj, "fn", None) or obj) if callable(obj) else None
    if not doc or (inspect.isclass(obj) and doc == inspect.getdoc(type)):
        return "*(no docstring yet)*"
    first = doc.split("\n\n")[0].replace("\n", " ").replace("``", "`")
    return first.replace("|", "&#124;")


SECTIONS = {
    "builtins": (
        "Builtins",
        "Implemented by the compiler; called only inside a `@tilec.jit` kernel.",
    ),
    "library": (
        "Library functions",
        "Written in tl itself (`tilec/language/standard.py`, `random.py`) "
        "and inlined into the kernels that call them.",
    ),
    "types": ("Types", "Classes a kernel's annotations and casts name."),
    "dtypes": ("Element types", "`tl.float32` and friends are the compiler's own scalar types."),
    "modules": ("Submodules", ""),
    "constants": ("Constants", ""),
}


def render() -> str:
    import tilec.language as tl
    from tilec.language.extra import libdevice

    groups: dict[str, list[str]] = {k: [] for k in SECTIONS}
    for name in sorted(set(tl.__all__)):
        groups[_kind(getattr(tl, name))].append(name)
    out = [
        "# Language reference (`tilec.language`)",
        "",
        "Generated from the docstrings of `tilec.language` at docs build time: every public",
        "name, imported as `import tilec.language as tl`. Triton's names and parameters are the",
        "specification; see the [tutorials](../tutorials/index.md) for them in use.",
        "",
    ]
    for key, (title, blurb) in SECTIONS.items():
        names = groups[key]
        if not names:
            continue
        out += [f"## {title}", "", blurb, ""] if blurb else [f"## {title}", ""]
        if key == "dtypes":
            out += [", ".join(f"`tl.{n}`" for n in names), ""]
            continue
        out += ["| name | signature | summary |", "|---|---|---|"]
        for n in names:
            obj = getattr(tl, n)
            sig = _signature(obj) if key in ("builtins", "library") else ""
            text = _summary(obj) if key != "constants" else f"`{obj!r}`"
            out.append(f"| `tl.{n}` | `{sig}` | {text} |" if sig else f"| `tl.{n}` | | {text} |")
        out.append("")
    out += [
        "## `tl.math` and `libdevice`",
        "",
        "`tl.math` holds the elementwise math functions; "
        "`tilec.language.extra.libdevice` (imported as Triton's `triton.language.extra.libdevice`)"
        " provides these functions, on the GPU through NVIDIA's libdevice and on the CPU through"
        " the host's math routines:",
        "",
        ", ".join(f"`{n}`" for n in dir(libdevice)),
        "",
        "Triton names tilec does not implement raise a compile error naming the feature.",
        "",
    ]
    return "\n".join(out)
