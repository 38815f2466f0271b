"""tilec's import graph has no cycles (read statically with ast).

Every import counts, a function-local one too: a cycle held together by imports inside
functions is still a cycle. Imports under ``if TYPE_CHECKING:`` are for type checkers only and
are left out. An import is an edge to the most specific module it names (``from .pkg import
mod`` reaches ``pkg.mod``, ``from .pkg import name`` reaches ``pkg/__init__``); the parent
packages Python initializes on the way are not edges of their own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "tilec"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _targets(name: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The tilec modules an import statement in module ``name`` loads."""
    if isinstance(node, ast.Import):
        dotted = [a.name for a in node.names]
    else:
        package = name if _is_package(name) else name.rpartition(".")[0]
        base = package.split(".")
        if node.level:
            base = base[: len(base) - node.level + 1]
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = node.module or ""
        submodules = [f"{module}.{a.name}" for a in node.names]
        dotted = [m if m in MODULES else module for m in submodules]
    for target in dotted:
        if target in MODULES and target != PACKAGE:
            yield target


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges = {t for node in _statements(tree) for t in _targets(name, node)}
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


# Cycles in modules others are reworking (issue #13's later steps); each must still exist (strike
# it when it is broken) and no other cycle may appear.
OPEN = [
    ["tilec.language.extra.libdevice", "tilec.language.extra.libdevice_composed"],
]


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    new = [c for c in found if c not in OPEN]
    assert new == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in new)
    gone = [c for c in OPEN if c not in found]
    assert gone == [], f"no longer a cycle (strike it from OPEN): {gone}"


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


# the runtime and the backend protocol's modules: every import inside a function says why
LAZY_CHECKED = [
    *sorted((SRC / PACKAGE / "runtime").rglob("*.py")),
    *(SRC / PACKAGE / "backends" / name for name in ("base.py", "registry.py", "launcher.py")),
    *(SRC / PACKAGE / "backends" / b / f"{m}.py" for b in ("cpu", "cuda") for m in ("driver", "launch")),
]  # fmt: skip


def _function_local_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    yield inner


def test_every_function_local_import_says_why() -> None:
    """Imports inside functions are for optional or heavy dependencies only, each with a
    comment on its line or the line above (a cycle is never the reason: see above)."""
    silent = []
    for path in LAZY_CHECKED:
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in _function_local_imports(ast.parse("\n".join(lines))):
            here, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
            if "#" not in here and not above.startswith("#"):
                silent.append(f"{path.relative_to(SRC)}:{node.lineno}: {here.strip()}")
    assert silent == [], "function-local imports without a reason:\n" + "\n".join(silent)
