"""tilec's import graph has no cycle, and imports sit at the top of their module.

Read statically with ast: nothing is imported. An import is an edge to the most specific tilec
module it names (``from .pkg import mod`` reaches ``pkg.mod``, ``from .pkg import name`` reaches
``pkg/__init__``). The parent packages Python initializes on the way are edges of their own
only in test_no_import_cycles_through_packages. Every import counts toward a cycle: one under ``if TYPE_CHECKING:`` (two modules that need each
other's types cannot be read one without the other) and one inside a function (a cycle held
together by function-local imports is still a cycle).

Inside a function only two kinds of import are allowed:
- of a tilec module, where LAZY names the pair with its reason (a part kept off a path that must
  stay cheap: a warm launch, ``import tilec``, interpreter start-up);
- of any other module, with a comment ``# lazy: <reason>`` on its line or on the comment line
  right above (an optional dependency such as cuda-bindings, or a slow one kept off the path
  that does not need it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "tilec"
LAZY_COMMENT = "# lazy:"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    node: ast.Import | ast.ImportFrom
    local: bool  # inside a function (else run when the module is imported, or for types)


def _imports(name: str, tree: ast.AST) -> Iterator[Import]:
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, local = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield Import(name, node, local)
            continue
        inner = local or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _absolute(name: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name if _is_package(name) else name.rpartition(".")[0]
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def targets(imp: Import) -> list[str]:
    """The tilec modules an import statement loads (the package root aside)."""
    node = imp.node
    if isinstance(node, ast.Import):
        dotted = [a.name for a in node.names]
    else:
        module = _absolute(imp.module, node)
        dotted = [m if m in MODULES else module for m in (f"{module}.{a.name}" for a in node.names)]
    found = [t for t in dotted if t in MODULES and t not in (PACKAGE, imp.module)]
    return sorted(set(found))


def foreign(imp: Import) -> list[str]:
    """The modules outside tilec an import statement names."""
    node = imp.node
    if isinstance(node, ast.ImportFrom):
        return [] if node.level or (node.module or "").split(".")[0] == PACKAGE else [node.module]
    return [a.name for a in node.names if a.name.split(".")[0] != PACKAGE]


def all_imports() -> list[Import]:
    return [
        imp
        for name, path in MODULES.items()
        for imp in _imports(name, ast.parse(path.read_text(encoding="utf-8")))
    ]


def _packages_run(importer: str, target: str) -> list[str]:
    """The packages whose ``__init__`` importing ``target`` runs first: its parents below the
    root, apart from the importer's own (they have run before the importer does)."""
    parts = target.split(".")
    parents = (".".join(parts[:i]) for i in range(2, len(parts)))
    return [p for p in parents if not (importer == p or importer.startswith(p + "."))]


def import_graph(imports: list[Import], packages: bool = False) -> dict[str, set[str]]:
    """Module -> the tilec modules it imports; with ``packages``, also the packages whose
    ``__init__`` those imports run."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for imp in imports:
        for target in targets(imp):
            graph[imp.module].add(target)
            if packages:
                graph[imp.module].update(_packages_run(imp.module, target))
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


def _edges_within(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    members = set(component)
    return [f"  {a} -> {b}" for a in component for b in sorted(graph[a] & members)]


# Cycles that are known and owned; each must still exist (strike it when it is broken) and no
# other cycle may appear.
OPEN: dict[tuple[str, ...], str] = {}


def test_no_import_cycles() -> None:
    graph = import_graph(all_imports())
    found = cycles(graph)
    new = [c for c in found if tuple(c) not in OPEN]
    report = [line for c in new for line in ["cycle:", *_edges_within(graph, c)]]
    assert new == [], "import cycles (edges within each):\n" + "\n".join(report)
    gone = [c for c in OPEN if list(c) not in found]
    assert gone == [], f"no longer a cycle (strike it from OPEN): {gone}"


# Cycles that run through a package's ``__init__`` (importing any module of a package runs it
# first), by the packages they lie in: each must still exist, and no other may appear.
OPEN_THROUGH_PACKAGES: dict[tuple[str, ...], str] = {}


def _within(component: list[str], scope: tuple[str, ...]) -> bool:
    return all(any(m == p or m.startswith(p + ".") for p in scope) for m in component)


def test_no_import_cycles_through_packages() -> None:
    imports = all_imports()
    direct = cycles(import_graph(imports))
    graph = import_graph(imports, packages=True)
    found = [c for c in cycles(graph) if c not in direct]  # those are test_no_import_cycles'
    new = [c for c in found if not any(_within(c, scope) for scope in OPEN_THROUGH_PACKAGES)]
    report = [line for c in new for line in ["cycle:", *_edges_within(graph, c)]]
    assert new == [], "import cycles through packages:\n" + "\n".join(report)
    gone = [s for s in OPEN_THROUGH_PACKAGES if not any(_within(c, s) for c in found)]
    assert gone == [], f"no longer a cycle (strike it from OPEN_THROUGH_PACKAGES): {gone}"


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_imports_count_under_type_checking_and_inside_functions() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .kernel import LaunchedKernel\n"
        "def f():\n    from . import bounds\n"
    )
    found = {(t, imp.local) for imp in _imports("tilec.runtime.jit", tree) for t in targets(imp)}
    assert found == {("tilec.runtime.kernel", False), ("tilec.runtime.bounds", True)}


def test_an_import_runs_the_packages_above_it_but_not_the_importers() -> None:
    assert _packages_run("tilec.runtime.jit", "tilec.frontend.values") == ["tilec.frontend"]
    assert _packages_run("tilec.frontend.codegen", "tilec.frontend.values") == []
    assert _packages_run("tilec.frontend", "tilec.frontend.values") == []


# Function-local imports of tilec modules: (importer, imported) -> why it is not at the top.
_BACKEND_FACE = "the backend package hands out its compiler and driver on first access"
_COMPILER_HALF = (
    "on a cache miss only: a warm launch never loads the compiler half "
    "(tests/runtime/test_warm_load_imports.py)"
)
LAZY: dict[tuple[str, str], str] = {
    ("tilec.backends.cpu", "tilec.backends.cpu.compiler"): _BACKEND_FACE,
    ("tilec.backends.cpu", "tilec.backends.cpu.driver"): _BACKEND_FACE,
    ("tilec.backends.cuda", "tilec.backends.cuda.compiler"): _BACKEND_FACE,
    ("tilec.backends.cuda", "tilec.backends.cuda.driver"): _BACKEND_FACE,
    ("tilec.cli", "tilec.platform.doctor"): "each subcommand loads only what it runs",
    ("tilec.cli", "tilec.compile_cli"): "each subcommand loads only what it runs",
    ("tilec.cli", "tilec.runtime.cache"): "each subcommand loads only what it runs",
    ("tilec.compat.alias", "tilec.compat.pickling"): (
        "the import hook is installed at interpreter start-up; pickling loads the runtime, "
        "which only a first `import triton` needs"
    ),
    ("tilec.compat.startup", "tilec.config"): "runs at interpreter start-up (the .pth file)",
    ("tilec.compat.startup", "tilec.platform.triton_probe"): "runs at interpreter start-up",
    ("tilec.compat.startup", "tilec.compat.alias"): "runs at interpreter start-up",
    ("tilec.compat.startup", "tilec.compat.install"): "runs at interpreter start-up",
    ("tilec.compat.triton", "tilec.language.core"): "triton's names load on first access",
    ("tilec.compat.triton._filecheck", "tilec.frontend.kernel"): (
        "the compiler half: triton._filecheck's helpers load it when they build a kernel's IR"
    ),
    ("tilec.compat.triton.backends", "tilec.compat.triton.backends.compiler"): (
        "triton's names load on first access"
    ),
    ("tilec.compat.triton.backends", "tilec.compat.triton.backends.driver"): (
        "triton's names load on first access"
    ),
    ("tilec.compat.triton.compiler", "tilec.compat.triton.compiler.compiler"): (
        "triton's names load on first access"
    ),
    ("tilec.compat.triton.compiler", "tilec.compat.triton.compiler.errors"): (
        "triton's names load on first access"
    ),
    ("tilec.compat.triton.runtime", "tilec.runtime"): "triton's names load on first access",
    ("tilec.runtime.compiler", "tilec.frontend"): _COMPILER_HALF,
    ("tilec.runtime.compiler", "tilec.passes.pipeline"): _COMPILER_HALF,
    ("tilec.runtime.compiler", "tilec.passes.bounds_check"): _COMPILER_HALF,
    ("tilec.runtime.compiler", "tilec.passes.fuse_multiply_add"): _COMPILER_HALF,
}


def test_function_local_tilec_imports_are_listed() -> None:
    found: dict[tuple[str, str], str] = {}
    for imp in all_imports():
        if imp.local:
            for target in targets(imp):
                found.setdefault((imp.module, target), f"{imp.module}:{imp.node.lineno}")
    unlisted = [f"{where} imports {pair[1]}" for pair, where in found.items() if pair not in LAZY]
    assert unlisted == [], "function-local imports of tilec modules:\n" + "\n".join(unlisted)
    gone = [pair for pair in LAZY if pair not in found]
    assert gone == [], f"no longer imported inside a function (strike it from LAZY): {gone}"
    assert all(LAZY.values()), "every entry of LAZY says why"


def _says_lazy(lines: list[str], lineno: int) -> bool:
    """A ``# lazy: <reason>`` on the import's line or right above its run of imports."""
    above = lineno - 1
    while above > 0 and lines[above - 1].strip().startswith(("import ", "from ")):
        above -= 1
    comment = lines[above - 1].strip() if above > 0 else ""
    reason = lines[lineno - 1].partition(LAZY_COMMENT)[2] or (
        comment.partition(LAZY_COMMENT)[2] if comment.startswith(LAZY_COMMENT) else ""
    )
    return bool(reason.strip())


def test_function_local_imports_of_other_packages_say_why() -> None:
    silent = []
    for name, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for imp in _imports(name, ast.parse("\n".join(lines))):
            if imp.local and foreign(imp) and not _says_lazy(lines, imp.node.lineno):
                silent.append(f"{name}:{imp.node.lineno}: {foreign(imp)}")
    assert silent == [], f"function-local imports without '{LAZY_COMMENT} <reason>':\n" + (
        "\n".join(silent)
    )


def test_a_lazy_reason_stands_beside_the_import_or_above_its_run() -> None:
    lines = [
        "def f():",
        "    import numpy  # lazy: slow",
        "    # lazy: optional",
        "    import cuda.bindings",
        "    import cuda.pathfinder",
        "    # a comment that is no reason",
        "    import llvmlite",
        "    import torch  # lazy:",
    ]
    assert [_says_lazy(lines, n) for n in range(2, 9) if "import" in lines[n - 1]] == [
        True, True, True, False, False,
    ]  # fmt: skip
