"""`tilec doctor` end to end: exit codes, the JSON schema, replay errors, -v and ASCII output."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import machines
import pytest

from tilec.platform import doctor, facts
from tilec.platform.probes import gather

SRC = Path(__file__).resolve().parents[2] / "src"


def _schema() -> dict:
    return json.loads(resources.files("tilec.platform").joinpath("doctor.schema.json").read_text())


def _tilec(*args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    return subprocess.run(
        [sys.executable, "-m", "tilec", "doctor", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_gpu_less_machine_exits_0_selects_cpu_and_names_the_host_cpu() -> None:
    import llvmlite.binding as llvm

    from tilec.platform.system import System

    if gather(System()).nvidia.gpus:
        pytest.skip("this machine has an NVIDIA GPU")
    out = _tilec()
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"Backend: cpu on {llvm.get_host_cpu_name()} (" in out.stdout


def test_json_output_validates_against_the_shipped_schema() -> None:
    out = _tilec("--json")
    report = json.loads(out.stdout)
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(_schema())
    jsonschema.validate(report, _schema())
    assert report["exit_code"] == out.returncode


@pytest.mark.parametrize(
    "build", [machines.wsl2_rtx4090_566, machines.linux_driver_470, machines.macos14_arm64]
)
def test_fixture_reports_validate_too(build) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doctor.render_json(doctor.build_report(gather(build()))), _schema())


def test_schema_describes_every_facts_field() -> None:
    defs = _schema()["$defs"]
    for cls in (facts.Facts, facts.OSFacts, facts.PythonFacts, facts.CPUFacts, facts.LLVMFacts,
                facts.GPU, facts.Tool, facts.Toolchain, facts.NvidiaFacts, facts.TilecFacts):  # fmt: skip
        assert set(defs[cls.__name__]["properties"]) == {f.name for f in dataclasses.fields(cls)}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json", "is not JSON"),
        ('{"os": {"wsl": "two"}}', "facts.os.wsl: expected int"),
        ('{"schema_version": 99, "facts": {}}', "schema_version 99"),
        ("[1, 2]", "expected an object"),
    ],
)
def test_bad_facts_file_is_a_usage_error(tmp_path, capsys, content, message) -> None:
    path = tmp_path / "facts.json"
    if content is not None:
        path.write_text(content)
    assert doctor.main(facts=str(path)) == 2
    assert message in capsys.readouterr().err


def test_cli_passes_replay_exit_code_through(tmp_path) -> None:
    path = tmp_path / "gtx1080.json"
    path.write_text(
        json.dumps(doctor.render_json(doctor.build_report(gather(machines.linux_gtx1080()))))
    )
    out = _tilec("--facts", str(path))
    assert out.returncode == 1
    assert "✗ NVIDIA GeForce GTX 1080 has compute capability 6.1 (Pascal)" in out.stdout


def test_verbose_shows_every_fact() -> None:
    report = doctor.build_report(gather(machines.ubuntu_h100_580()))
    text = doctor.render_text(report, verbose=True)
    for key, _ in doctor._flatten(facts.to_json(report.facts)):
        assert f"    {key} = " in text
    assert "toolchain.nvjitlink.found_via = site-packages" in text


def test_ascii_markers_when_the_console_cannot_encode_them() -> None:
    report = doctor.build_report(gather(machines.linux_driver_470()))
    stream = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    text = doctor.encodable(doctor.render_text(report), stream)
    text.encode("cp1252")
    assert "[x] NVIDIA GPU" in text and "    x NVIDIA driver 470.256.02" in text
    assert ">= 525.60.13" in text and "✓" not in text


def test_run_reports_the_smoke_kernel_error(capsys) -> None:
    from tilec.platform.system import CommandResult

    sys_ = machines.ubuntu_h100_580()
    err = "Traceback (most recent call last):\n  ...\ntilec.errors.LaunchError: CUDA_ERROR_INVALID_IMAGE\n"
    sys_.commands[("python", "-c")] = CommandResult(1, "", err)
    report = doctor.build_report(gather(sys_), sys_, run=True)
    smoke = [f for f in report.findings if f.check.startswith("smoke.")]
    assert [f.check for f in smoke] == ["smoke.cpu", "smoke.cuda"]
    assert (
        smoke[1].summary
        == "cuda: the smoke kernel failed: tilec.errors.LaunchError: CUDA_ERROR_INVALID_IMAGE"
    )
    assert report.exit_code == 1
    assert (
        "backend='cuda'" in sys_.python_runs[1]
        and "__cuda_array_interface__" in sys_.python_runs[1]
    )


def test_run_passes_when_the_kernel_matches_numpy() -> None:
    from tilec.platform.system import CommandResult

    sys_ = machines.macos14_arm64()
    sys_.commands[("python", "-c")] = CommandResult(0, "TILEC_SMOKE_OK 0.0\n")
    report = doctor.build_report(gather(sys_), sys_, run=True)
    assert [f.status.value for f in report.findings if f.check == "smoke.cpu"] == ["ok"]
    assert report.exit_code == 0


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_smoke_kernel_source_is_valid_python(backend: str) -> None:
    import ast

    from tilec.platform.smoke import kernel_source

    ast.parse(kernel_source(backend))


def test_json_stays_valid_on_a_console_that_cannot_encode_unicode(tmp_path) -> None:
    path = tmp_path / "t4.json"
    path.write_text(
        json.dumps(doctor.render_json(doctor.build_report(gather(machines.linux_driver_470()))))
    )
    out = subprocess.run(
        [sys.executable, "-m", "tilec", "doctor", "--json", "--facts", str(path)],
        capture_output=True,
        env={"PYTHONPATH": str(SRC), "PYTHONIOENCODING": "cp1252"},
        timeout=120,
    )
    report = json.loads(out.stdout.decode("cp1252"))
    remedies = [f["remediation"]["text"] for f in report["findings"] if f["remediation"]]
    assert any("≥ 525.60.13" in text for text in remedies)
