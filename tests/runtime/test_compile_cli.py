"""``tilec compile`` and ``tilec.compile``: signatures, stages, targets, errors."""

from __future__ import annotations

import textwrap

import pytest

import tilec
from tilec import cli, config
from tilec.errors import UsageError
from tilec.ir import types as ir
from tilec.ir.argspec import ArgKind
from tilec.runtime.compile_api import parse_signature

KERNEL = textwrap.dedent(
    """
    import tilec
    import tilec.language as tl

    @tilec.jit
    def scale(x_ptr, out_ptr, n, FACTOR: tl.constexpr, BLOCK: tl.constexpr = 64):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * FACTOR, mask=m)
    """
)


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "kern_cli.py"
    path.write_text(KERNEL)
    with config.override(cache_dir=tmp_path / "cache"):
        yield path


def _kernel(path):
    from tilec.compile_cli import load_kernel

    return load_kernel(f"{path}:scale")


def test_signature_parsing(kernel_file):
    specs = parse_signature(_kernel(kernel_file), "*fp32:16, *fp16, i32:16, FACTOR=2.5")
    assert [s.kind for s in specs] == [
        ArgKind.POINTER,
        ArgKind.POINTER,
        ArgKind.SCALAR,
        ArgKind.CONSTEXPR,
        ArgKind.CONSTEXPR,
    ]
    assert specs[0].divisible_by_16 and not specs[1].divisible_by_16
    assert specs[1].type == ir.PointerType(ir.float16) and specs[2].divisible_by_16
    assert (specs[3].value, specs[4].value) == (2.5, 64)  # BLOCK from its default


@pytest.mark.parametrize(
    ("signature", "match"),
    [
        ("*fp32, *fp32, i32", "FACTOR"),
        ("*f32, *fp32, i32, 2", "bad type"),
        ("*fp32, *fp32, i32, 2, 64, 7", "more than"),
        ("*fp32, *fp32, i32, X=2", "unknown"),
    ],
)
def test_bad_signatures(kernel_file, signature, match):
    with pytest.raises(UsageError, match=match):
        parse_signature(_kernel(kernel_file), signature)


def test_cli_writes_tile_ir_and_llvm_ir(kernel_file, capsys, tmp_path):
    ref = f"{kernel_file}:scale"
    assert (
        cli.main(["compile", ref, "-s", "*fp32:16, *fp32:16, i32, FACTOR=3", "--stage", "tir"]) == 0
    )
    assert "func {sym_name = 'scale'}" in capsys.readouterr().out
    out = tmp_path / "scale.ll"
    assert (
        cli.main(["compile", ref, "-s", "*fp32, *fp32, i32, 3", "--stage", "llir", "-o", str(out)])
        == 0
    )
    assert "define" in out.read_text()


def test_cli_reports_usage_errors(kernel_file, capsys):
    assert cli.main(["compile", f"{kernel_file}:nope", "-s", "i32"]) == 2
    assert "no attribute 'nope'" in capsys.readouterr().err
    assert (
        cli.main(
            ["compile", f"{kernel_file}:scale", "-s", "*fp32, *fp32, i32, 3", "--stage", "ptx"]
        )
        == 2
    )
    assert "not ptx" in capsys.readouterr().err


def test_python_api_compiles_for_the_cpu(kernel_file):
    compiled = tilec.compile(_kernel(kernel_file), "*fp32:16, *fp32:16, i32, FACTOR=2", num_warps=2)
    assert compiled.metadata.options.num_warps == 2
    assert {"tir", "llir", "obj"} <= set(compiled.asm)


def test_cli_emits_ptx_for_an_offline_cuda_target(kernel_file, capsys):
    ref = f"{kernel_file}:scale"
    rc = cli.main(
        [
            "compile",
            ref,
            "-s",
            "*fp32:16, *fp32:16, i32, FACTOR=3",
            "--stage",
            "ptx",
            "--target",
            "cuda:sm_80",
        ]
    )
    captured = capsys.readouterr()
    if rc != 0 and "PTX" not in captured.err and "toolchain" in captured.err.lower():
        pytest.skip(f"no CUDA toolchain here: {captured.err.strip()}")
    assert rc == 0, captured.err
    assert ".target sm_80" in captured.out and ".entry scale" in captured.out


# --- user mistakes are one clear message and exit code 2, never a traceback ---------------------


def _run_cli(capsys, *argv):
    rc = cli.main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err
    return rc, captured.err


def test_syntax_error_in_the_kernel_file_points_at_it(tmp_path, capsys):
    bad = tmp_path / "broken_kernel.py"
    bad.write_text("import tilec\n\n@tilec.jit\ndef k(x_ptr):\n    y = (x_ptr + \n")
    rc, err = _run_cli(capsys, "compile", f"{bad}:k", "-s", "*fp32")
    assert rc == 2
    assert f"{bad}:5:" in err and "syntax error" in err
    assert "    y = (x_ptr +" in err and "^" in err.splitlines()[-1]


def test_a_failing_import_in_the_kernel_file_names_its_line(tmp_path, capsys):
    bad = tmp_path / "imports_missing.py"
    bad.write_text("import tilec\nimport no_such_module_here\n")
    rc, err = _run_cli(capsys, "compile", f"{bad}:k", "-s", "*fp32")
    assert rc == 2
    assert f"(at {bad}:2)" in err and "no_such_module_here" in err


def test_an_unknown_module_is_a_usage_error(capsys):
    rc, err = _run_cli(capsys, "compile", "no_such_module_here:k", "-s", "*fp32")
    assert rc == 2 and "no module named 'no_such_module_here'" in err


def test_a_kernel_compile_error_exits_2_with_its_position(tmp_path, capsys):
    path = tmp_path / "kern_type_error.py"
    path.write_text(
        "import tilec\nimport tilec.language as tl\n\n@tilec.jit\ndef k(x_ptr):\n"
        "    tl.store(x_ptr + tl.arange(0, 3), 1.0)\n"
    )
    with config.override(cache_dir=tmp_path / "cache"):
        rc, err = _run_cli(capsys, "compile", f"{path}:k", "-s", "*fp32")
    assert rc == 2 and f"{path}:6:" in err


def test_unknown_cuda_architecture_lists_the_valid_ones(kernel_file, capsys):
    rc, err = _run_cli(
        capsys,
        "compile",
        f"{kernel_file}:scale",
        "-s",
        "*fp32, *fp32, i32, 3",
        "--target",
        "cuda:sm_1000",
    )
    assert rc == 2 and "cuda:sm_1000" in err and "cuda:sm_90a" in err and "cuda:sm_80" in err


def test_cuda_target_without_the_cuda_bindings_says_how_to_install(
    kernel_file, capsys, monkeypatch
):
    from tilec.backends import registry

    def no_bindings():
        raise ModuleNotFoundError("No module named 'cuda'", name="cuda")

    monkeypatch.setattr(registry.get("cuda").driver, "current_target", no_bindings)
    rc, err = _run_cli(
        capsys,
        "compile",
        f"{kernel_file}:scale",
        "-s",
        "*fp32, *fp32, i32, 3",
        "--target",
        "cuda",
        "--stage",
        "ptx",
    )
    assert rc == 2
    assert 'pip install ".[cuda]"' in err and "--target cuda:sm_90a" in err


def test_cubin_without_an_assembler_names_the_remedy(kernel_file, capsys, monkeypatch):
    from tilec.backends.cuda import toolchain

    monkeypatch.setattr(toolchain, "nvjitlink_available", lambda: False)
    monkeypatch.setattr(toolchain, "ptxas_path", lambda: None)
    with config.override(cache_enabled=False):
        rc, err = _run_cli(
            capsys,
            "compile",
            f"{kernel_file}:scale",
            "-s",
            "*fp32, *fp32, i32, 3",
            "--target",
            "cuda:sm_80",
            "--stage",
            "cubin",
            "-o",
            str(kernel_file.with_suffix(".cubin")),
        )
    if rc == 0:
        pytest.skip("this machine assembles PTX without nvJitLink or ptxas")
    assert rc == 2 and "not cubin" in err and 'pip install ".[cuda]"' in err
