"""The support policy file: shipped in the package, consistent with LLVM and NVIDIA's tables."""

from __future__ import annotations

import re

import pytest

from tilec.platform.matrix import Level, load_policy, version_tuple


def test_architecture_names_and_compute_capabilities() -> None:
    names = {a.cc: a.name.split(" (")[0] for a in load_policy().architectures}
    expected = {"7.0": "Volta", "7.5": "Turing", "8.0": "Ampere", "8.6": "Ampere", "8.9": "Ada Lovelace",
                "9.0": "Hopper", "10.0": "Blackwell", "12.0": "Blackwell"}  # fmt: skip
    assert {cc: names[cc] for cc in expected} == expected
    assert load_policy().arch_for("9.0").arch == "sm_90a"
    assert load_policy().min_supported_cc == "7.0"
    assert load_policy().arch_for("6.1").level is Level.UNSUPPORTED


def test_driver_floors_per_cuda_major() -> None:
    floors = {f.cuda_major: (f.linux, f.windows, f.extra) for f in load_policy().driver_floors}
    assert floors[12] == ("525.60.13", "528.33", "cuda12")
    assert version_tuple(floors[13][0])[0] == 580 and floors[13][2] == "cuda"


@pytest.mark.parametrize(
    ("cuda", "ptx"),
    [
        ("12.0", 80),
        ("12.4", 84),
        ("12.6", 85),
        ("12.8", 87),
        ("12.9", 88),
        ("13.0", 90),
        ("13.2", 90),
        ("11.4", 74),
    ],
)
def test_max_ptx_per_cuda_version(cuda: str, ptx: int) -> None:
    assert load_policy().max_ptx_for_cuda(cuda) == ptx


def test_every_arch_min_ptx_is_what_llvm_emits_by_default() -> None:
    llvm = pytest.importorskip("llvmlite.binding")
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    module = 'target triple = "nvptx64-nvidia-cuda"\ndefine void @k() {\n  ret void\n}\n'
    for arch in load_policy().architectures:
        asm = target.create_target_machine(cpu=arch.arch).emit_assembly(llvm.parse_assembly(module))
        assert re.search(r"\.target (\S+)", asm).group(1) == arch.arch
        version = re.search(r"\.version (\d+)\.(\d+)", asm)
        assert int(version.group(1)) * 10 + int(version.group(2)) == arch.llvm_min_ptx, arch.arch
        # what tilec emits: LLVM's floor, never below PTX 7.0 (the CUDA 11.0 ISA tilec's code needs)
        if arch.level is not Level.UNSUPPORTED:
            assert arch.min_ptx == max(arch.llvm_min_ptx, 70), arch.arch
        for name, ptx in arch.variants:
            asm = target.create_target_machine(cpu=name).emit_assembly(llvm.parse_assembly(module))
            version = re.search(r"\.version (\d+)\.(\d+)", asm)
            assert int(version.group(1)) * 10 + int(version.group(2)) == ptx, name


def test_llvm22_emits_at_most_ptx_9_0() -> None:
    assert load_policy().llvm_max("22.1.0") == 90
    assert load_policy().llvm_max("23.0.0") == 90  # unknown newer LLVM: stay at the known maximum


def test_policy_and_schema_are_package_data() -> None:
    from importlib import resources

    names = {p.name for p in resources.files("tilec.platform").iterdir()}
    assert {"support.json", "doctor.schema.json"} <= names


def test_install_matrix_page_is_generated_from_the_current_policy() -> None:
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "ci" / "gen_install_matrix.py"
    out = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
