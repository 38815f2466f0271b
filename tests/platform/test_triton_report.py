"""`tilec doctor` says which `triton` a process gets: none, an installed Triton (version, path),
or tilec through TILEC_AS_TRITON and the start-up hook, and whether tilec shadows an installed one.

The four saved reports in data/triton-*.json are these machines' `tilec doctor --json`; they
replay to the same finding, and the probe still reads the machines as the files recorded them.
Rewrite them after a deliberate change with ``python tests/platform/test_triton_report.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import machines
import pytest
from fake_system import SITE, FakeSystem

from tilec.platform import doctor
from tilec.platform.facts import Facts, TritonFacts
from tilec.platform.probes import gather
from tilec.platform.triton_probe import Provider, resolve

DATA = Path(__file__).with_name("data")
HOOK = f"{SITE}/tilec_as_triton.pth"
TRITON = f"{SITE}/triton"


def _cpu_laptop(env: dict[str, str] | None = None) -> FakeSystem:
    """Ubuntu on a CPU-only machine, tilec's wheel installed (with its start-up hook)."""
    return FakeSystem(files={"/etc/os-release": machines.UBUNTU, HOOK: ""}, environ=env or {})


def _with_triton(system: FakeSystem, version: str = "3.5.0") -> FakeSystem:
    """The Triton torch's CUDA wheels depend on, installed in site-packages."""
    system.files[f"{TRITON}/__init__.py"] = f"__version__ = '{version}'\n"
    system.files[HOOK] = ""
    system.dists["triton"] = version
    return system


def _h100_with_triton(env: dict[str, str] | None = None) -> FakeSystem:
    system = _with_triton(machines.ubuntu_h100_580())
    system.environ.update(env or {})
    return system


# fixture name -> (machine, provider, shadows, the finding's summary)
FIXTURES: dict[str, tuple[Callable[[], FakeSystem], Provider, bool, str]] = {
    "triton-none": (
        _cpu_laptop, Provider.NONE, False,
        "import triton fails: no Triton is installed (tilec.install_as_triton() opts in)",
    ),
    "triton-installed": (
        _h100_with_triton, Provider.TRITON, False,
        f"import triton gives the installed Triton 3.5.0 at {TRITON} (distribution triton)",
    ),
    "triton-alias": (
        lambda: _cpu_laptop({"TILEC_AS_TRITON": "1"}), Provider.TILEC, False,
        "import triton gives tilec (TILEC_AS_TRITON=1)",
    ),
    "triton-alias-over-installed": (
        lambda: _h100_with_triton({"TILEC_AS_TRITON": "replace"}), Provider.TILEC, True,
        "import triton gives tilec (TILEC_AS_TRITON=replace), shadowing the installed "
        f"Triton 3.5.0 at {TRITON} (distribution triton)",
    ),
}  # fmt: skip


def _report(system: FakeSystem) -> dict:
    return doctor.render_json(doctor.build_report(gather(system)))


def _finding(report: dict) -> dict:
    (found,) = [f for f in report["findings"] if f["check"] == "tilec.triton"]
    return found


@pytest.mark.parametrize("name", FIXTURES)
def test_saved_report_replays_to_the_same_finding(name: str, capsys) -> None:
    _, provider, shadows, summary = FIXTURES[name]
    doctor.main(as_json=True, facts=str(DATA / f"{name}.json"))
    report = json.loads(capsys.readouterr().out)
    finding = _finding(report)
    assert (finding["status"], finding["summary"]) == ("ok", summary)
    assert ("explicit choice" in " ".join(finding["details"])) == shadows
    facts = doctor.load_facts(str(DATA / f"{name}.json"))
    assert facts.triton is not None
    assert (resolve(facts.triton).provider, resolve(facts.triton).shadows) == (provider, shadows)


@pytest.mark.parametrize("name", FIXTURES)
def test_probe_reads_the_machine_as_the_saved_report_did(name: str) -> None:
    saved = doctor.load_facts(str(DATA / f"{name}.json"))
    assert gather(FIXTURES[name][0]()).triton == saved.triton


def test_text_report_names_the_triton_a_process_gets() -> None:
    text = doctor.render_text(
        doctor.build_report(gather(FIXTURES["triton-alias-over-installed"][0]()))
    )
    assert (
        "✓ import triton gives tilec (TILEC_AS_TRITON=replace), shadowing the installed Triton"
        in text
    )


@pytest.mark.parametrize(
    ("env", "hook", "note", "remedy"),
    [
        ("1", True, "TILEC_AS_TRITON=1 keeps an installed Triton", "TILEC_AS_TRITON=replace"),
        ("replace", False, "start-up hook (tilec_as_triton.pth) is not installed", "Reinstall"),
        ("yes please", True, "TILEC_AS_TRITON='yes please' is ignored", "TILEC_AS_TRITON=1"),
    ],
)
def test_a_variable_that_cannot_take_effect_warns(
    env: str, hook: bool, note: str, remedy: str
) -> None:
    system = _h100_with_triton({"TILEC_AS_TRITON": env})
    if not hook:
        del system.files[HOOK]
    finding = _finding(_report(system))
    assert finding["status"] == "warn"
    assert finding["summary"].startswith("import triton gives the installed Triton 3.5.0")
    assert note in finding["summary"] and remedy in finding["remediation"]["text"]


def test_without_the_hook_the_variable_changes_nothing_where_no_triton_is_installed() -> None:
    system = _cpu_laptop({"TILEC_AS_TRITON": "1"})
    del system.files[HOOK]
    facts = gather(system).triton
    assert facts is not None and facts.startup_hook == ""
    assert resolve(facts).provider is Provider.NONE and resolve(facts).inert


def test_triton_on_pythonpath_counts_and_its_version_comes_from_the_package() -> None:
    system = _cpu_laptop({"PYTHONPATH": "/src/triton/python"})
    system.files["/src/triton/python/triton/__init__.py"] = '__version__ = "3.6.0+git1234"\n'
    facts = gather(system).triton
    assert facts == TritonFacts("/src/triton/python/triton", "3.6.0+git1234", "", "", HOOK)


def test_a_report_from_before_the_triton_facts_replays_without_the_finding(capsys) -> None:
    saved = DATA / "h200-real.json"
    assert "triton" not in json.loads(saved.read_text())["facts"]
    assert doctor.load_facts(str(saved)).triton is None
    doctor.main(as_json=True, facts=str(saved))
    report = json.loads(capsys.readouterr().out)
    assert [f for f in report["findings"] if f["check"] == "tilec.triton"] == []
    assert report["facts"]["triton"] is None


def test_fixture_reports_validate_against_the_schema() -> None:
    from importlib import resources

    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(
        resources.files("tilec.platform").joinpath("doctor.schema.json").read_text()
    )
    for name in FIXTURES:
        jsonschema.validate(json.loads((DATA / f"{name}.json").read_text()), schema)
    assert set(schema["$defs"]["TritonFacts"]["properties"]) == set(
        TritonFacts.__dataclass_fields__
    )
    assert "triton" in schema["$defs"]["Facts"]["properties"]
    assert "triton" in Facts.__dataclass_fields__


def test_real_doctor_finds_a_triton_on_pythonpath_and_the_variable(tmp_path) -> None:
    """The real probe (no fake): a Triton package on PYTHONPATH, TILEC_AS_TRITON=replace."""
    (tmp_path / "triton").mkdir()
    (tmp_path / "triton" / "__init__.py").write_text("__version__ = '3.4.0'\n")
    src = Path(__file__).resolve().parents[2] / "src"
    env = {k: v for k, v in os.environ.items() if k != "TILEC_AS_TRITON"}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(src)]), TILEC_AS_TRITON="replace")
    out = subprocess.run([sys.executable, "-m", "tilec", "doctor", "--json"], env=env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    report = json.loads(out.stdout)
    triton = report["facts"]["triton"]
    assert (triton["path"], triton["version"], triton["as_triton"]) == (
        str(tmp_path / "triton"), "3.4.0", "replace")  # fmt: skip
    summary = _finding(report)["summary"]
    if triton["startup_hook"]:  # the hook is installed: tilec answers, over the package
        assert (
            "gives tilec (TILEC_AS_TRITON=replace), shadowing the installed Triton 3.4.0" in summary
        )
    else:
        assert "start-up hook (tilec_as_triton.pth) is not installed" in summary


if __name__ == "__main__":
    for fixture, (build, *_) in FIXTURES.items():
        path = DATA / f"{fixture}.json"
        path.write_text(json.dumps(_report(build()), indent=2, ensure_ascii=False) + "\n")
        print("wrote", path)
