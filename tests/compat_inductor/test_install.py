"""``tilec.install_as_triton()``: the module tree ``import triton`` gives, child processes,
an installed Triton never shadowed silently. Each case runs in a fresh interpreter so the hook
never reaches this test process."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PTH = "tilec_as_triton.pth"


def _python(code: str, env: dict[str, str] | None = None, path: Path | None = None):
    run_env = {k: v for k, v in os.environ.items() if k != "TILEC_AS_TRITON"}
    run_env.update(env or {})
    if path is not None:
        run_env["PYTHONPATH"] = os.pathsep.join([str(path), run_env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=run_env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _ok(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def _pth_installed() -> bool:
    return any((Path(d) / PTH).is_file() for d in site.getsitepackages())


NEEDS_PTH = pytest.mark.skipif(
    not _pth_installed(), reason=f"{PTH} is not in site-packages (installed with tilec's wheel)"
)


@pytest.fixture
def fake_triton(tmp_path):
    """A directory holding a package named triton, as an installed Triton would be."""
    (tmp_path / "triton").mkdir()
    (tmp_path / "triton" / "__init__.py").write_text("REAL = True\n")
    return tmp_path


def test_module_tree_is_tilec():
    out = _ok(
        _python("""
        import os, tilec
        triton = tilec.install_as_triton()
        import tilec.language, tilec.errors
        import triton.language as tl
        from triton.backends.compiler import GPUTarget, BaseBackend
        from triton.compiler.compiler import ASTSource, CompiledKernel, make_backend, triton_key
        from triton.compiler.errors import CompilationError
        from triton.runtime.autotuner import OutOfResources, Heuristics, Autotuner
        from triton.runtime.jit import KernelInterface, JITFunction
        from triton.runtime.driver import driver
        from triton.runtime.cache import triton_key as key2
        from triton import knobs, Config
        assert triton.jit is tilec.jit and tl is tilec.language
        assert JITFunction is tilec.JITFunction and CompilationError is tilec.errors.CompileError
        assert triton.compile is __import__("triton.compiler").compiler.compile
        assert triton.backends.backends["cpu"].driver.is_active()
        assert triton.runtime.driver.active is driver.active
        assert GPUTarget("cpu", "x", 1) == GPUTarget("cpu", "x", 1)
        assert knobs.runtime.launch_enter_hook is None and key2 is triton_key
        assert triton.__version__.startswith("3.") and tl.core.dtype is tl.dtype
        try:
            import triton.no_such_module
        except ModuleNotFoundError as exc:
            assert "tilec" in str(exc), exc
        print(os.environ["TILEC_AS_TRITON"])
    """)
    )
    assert out.split() == ["1"]


def test_installed_triton_is_never_shadowed_silently(fake_triton):
    out = _ok(
        _python(
            """
        import tilec
        from tilec.compat.install import which_triton
        print(which_triton().provider.value)
        try:
            tilec.install_as_triton()
        except tilec.errors.UsageError as exc:
            print("refused", "replace_installed=True" in str(exc))
        import triton
        print(getattr(triton, "REAL", False))
    """,
            path=fake_triton,
        )
    )
    assert out.split() == ["triton", "refused", "True", "True"]


def test_replacing_an_installed_triton_is_explicit(fake_triton):
    out = _ok(
        _python(
            """
        import os, tilec
        from tilec.compat.install import which_triton
        triton = tilec.install_as_triton(replace_installed=True)
        print(getattr(triton, "REAL", False), os.environ["TILEC_AS_TRITON"])
        print(which_triton().summary())
    """,
            path=fake_triton,
        )
    )
    assert out.splitlines()[0] == "False replace"
    assert "shadowing the installed Triton" in out.splitlines()[1]


def test_too_late_after_triton_was_imported(fake_triton):
    out = _ok(
        _python(
            """
        import triton, tilec
        try:
            tilec.install_as_triton(replace_installed=True)
        except tilec.errors.UsageError as exc:
            print("already imported" in str(exc))
    """,
            path=fake_triton,
        )
    )
    assert out.split() == ["True"]


@NEEDS_PTH
def test_children_follow_the_environment_variable():
    code = "import sys; print('tilec' in sys.modules); import triton; print(triton.__name__)"
    assert _ok(_python(code, {"TILEC_AS_TRITON": "1"})).split() == ["True", "tilec.compat.triton"]
    unset = _python(code)  # the .pth imports nothing when the variable is unset
    assert unset.stdout.split()[0] == "False" and "No module named 'triton'" in unset.stderr


@NEEDS_PTH
def test_children_keep_an_installed_triton_unless_told_to_replace_it(fake_triton):
    code = "import triton; print(getattr(triton, 'REAL', False))"
    kept = _python(code, {"TILEC_AS_TRITON": "1"}, path=fake_triton)
    assert _ok(kept).split() == ["True"] and "TILEC_AS_TRITON=replace" in kept.stderr
    replaced = _python(code, {"TILEC_AS_TRITON": "replace"}, path=fake_triton)
    assert _ok(replaced).split() == ["False"]
