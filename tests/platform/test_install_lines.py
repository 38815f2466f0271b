"""Every install line the doctor prints works: no package index serves tilec, so a checkout
installs extras from its own directory and a wheel install gets the extras' packages by name,
which must be exactly pyproject.toml's extras."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import machines
import pytest
from fake_system import SITE, FakeSystem
from test_machines import CASES

from tilec.platform import doctor
from tilec.platform.checks import run_checks
from tilec.platform.install import InstallKind, classify
from tilec.platform.matrix import load_policy
from tilec.platform.probes import gather
from tilec.platform.select import select_backend
from tilec.platform.system import CudaDevice

ROOT = Path(__file__).resolve().parents[2]
CHECKOUT = "/home/me/tilec"
PYPROJECT = '[project]\nname = "tilec"\ndynamic = ["version"]\n'
GTX1080 = CudaDevice("NVIDIA GeForce GTX 1080", 6, 1, 8 << 30)


def _direct_url(url: str, editable: bool | None = None) -> str:
    if url.endswith(".whl"):
        return json.dumps({"url": url, "archive_info": {}})
    return json.dumps({"url": url, "dir_info": {"editable": True} if editable else {}})


def editable_checkout(sys: FakeSystem) -> FakeSystem:
    """pip install -e /home/me/tilec: the package runs from the checkout's src/."""
    sys.tilec_dir = f"{CHECKOUT}/src/tilec"
    sys.files[f"{CHECKOUT}/pyproject.toml"] = PYPROJECT
    sys.dist_files[("tilec", "direct_url.json")] = _direct_url(f"file://{CHECKOUT}", True)
    return sys


def built_from_checkout(sys: FakeSystem) -> FakeSystem:
    """pip install /home/me/tilec: a copy in site-packages, the checkout still there."""
    sys.files[f"{CHECKOUT}/pyproject.toml"] = PYPROJECT
    sys.dist_files[("tilec", "direct_url.json")] = _direct_url(f"file://{CHECKOUT}")
    return sys


@pytest.mark.parametrize(
    ("package", "pyproject", "direct_url", "exists", "expected"),
    [
        (f"{CHECKOUT}/src/tilec", PYPROJECT, _direct_url(f"file://{CHECKOUT}", True), True,
         (InstallKind.EDITABLE, CHECKOUT)),
        (f"{CHECKOUT}/src/tilec", PYPROJECT, None, False, (InstallKind.SOURCE, CHECKOUT)),
        # an editable install of another checkout, but this one is on PYTHONPATH
        (f"{CHECKOUT}/src/tilec", PYPROJECT, _direct_url("file:///srv/other", True), True,
         (InstallKind.SOURCE, CHECKOUT)),
        (f"{SITE}/tilec", None, _direct_url(f"file://{CHECKOUT}"), True,
         (InstallKind.DIRECTORY, CHECKOUT)),
        (f"{SITE}/tilec", None, _direct_url(f"file://{CHECKOUT}"), False, (InstallKind.WHEEL, "")),
        (f"{SITE}/tilec", None, _direct_url("file:///tmp/dist/tilec-0.1.0-cp310-abi3-manylinux_2_34_x86_64.whl"),
         False, (InstallKind.WHEEL, "")),
        (f"{SITE}/tilec", None, None, False, (InstallKind.WHEEL, "")),
        (f"{SITE}/tilec", None, "{not json", False, (InstallKind.WHEEL, "")),
        (f"{SITE}/tilec", None, json.dumps({"url": "git+https://github.com/tilec/tilec", "vcs_info": {}}),
         False, (InstallKind.WHEEL, "")),
        # src/tilec inside some other project is not a tilec checkout
        ("/srv/app/src/tilec", '[project]\nname = "app"\n', None, False, (InstallKind.WHEEL, "")),
        ("C:/Users/me/venv/Lib/site-packages/tilec", None,
         _direct_url("file:///C:/Users/me/src/tilec%20x"), True,
         (InstallKind.DIRECTORY, "C:/Users/me/src/tilec x")),
    ],
)  # fmt: skip
def test_classify(package, pyproject, direct_url, exists, expected) -> None:
    assert classify(package, pyproject, direct_url, exists) == expected


def test_the_probe_records_how_tilec_was_installed() -> None:
    facts = gather(editable_checkout(FakeSystem()))
    assert (facts.tilec.install_kind, facts.tilec.source_dir) == ("editable", CHECKOUT)
    facts = gather(FakeSystem())
    assert (facts.tilec.install_kind, facts.tilec.source_dir) == ("wheel", "")


@pytest.mark.parametrize(
    ("install", "cu13", "cu12"),
    [
        (lambda s: s, machines.CU13_LINE, machines.CU12_LINE),
        (editable_checkout, f'pip install -e "{CHECKOUT}[cuda]"',
         f'pip install -e "{CHECKOUT}[cuda12]"'),
        (built_from_checkout, f'pip install "{CHECKOUT}[cuda]"', f'pip install "{CHECKOUT}[cuda12]"'),
    ],
)  # fmt: skip
def test_install_line_fits_the_install_and_the_driver(install, cu13, cu12) -> None:
    h100 = machines.CudaDevice("NVIDIA H100 80GB HBM3", 9, 0, 80 << 30)
    new_driver = install(machines.linux_nvidia("580.65.06", 13000, h100))
    old_driver = install(machines.linux_nvidia("550.90.07", 12040, h100))
    assert select_backend(gather(new_driver)).install == cu13
    assert select_backend(gather(old_driver)).install == cu12


def test_a_gpu_the_cuda_backend_cannot_use_needs_nothing_installed() -> None:
    assert select_backend(gather(machines.linux_nvidia("535.183.01", 12020, GTX1080))).install == ""
    text = doctor.render_text(doctor.build_report(gather(FakeSystem())))
    assert (
        text.splitlines()[-1] == "Install: nothing more (no GPU here that a CUDA extra would serve)"
    )


def test_remedies_that_reinstall_tilec_use_the_checkout() -> None:
    sys = editable_checkout(FakeSystem(launcher_error="ModuleNotFoundError: tilec._launcher"))
    (f,) = [f for f in run_checks(gather(sys)) if f.check == "tilec.launcher"]
    assert f.remediation.commands == (f'pip install --force-reinstall --no-deps -e "{CHECKOUT}"',)
    sys.dist_files.clear()  # the checkout's src/ on PYTHONPATH: build the launcher in place
    (f,) = [f for f in run_checks(gather(sys)) if f.check == "tilec.launcher"]
    assert f.remediation.commands == (f'bash "{CHECKOUT}/ci/build_inplace.sh"',)


def test_duplicate_flavours_reinstall_from_where_tilec_came_from() -> None:
    sys = built_from_checkout(FakeSystem())
    sys.dists.update({"tilec": "0.1.0", "tilec-cu12": "0.1.0"})
    (f,) = [f for f in run_checks(gather(sys)) if f.check == "tilec.flavours"]
    assert f.remediation.commands == (
        "pip uninstall -y tilec tilec-cu12",
        f'pip install --force-reinstall --no-deps "{CHECKOUT}"',
    )


def _installs_tilec_by_name(command: str) -> bool:
    """Whether a pip command asks an index for tilec ('tilec', 'tilec[cuda]', 'tilec>=0.1')."""
    if not command.startswith("pip install"):
        return False
    words = shlex.split(command, comments=True)
    return any(re.fullmatch(r"tilec(\[[^\]]*\])?([<>=!~].*)?", w) for w in words[2:])


def test_the_checker_catches_the_lines_no_index_serves() -> None:
    assert _installs_tilec_by_name('pip install "tilec[cuda]"')
    assert _installs_tilec_by_name('pip install -U "tilec"')
    assert _installs_tilec_by_name("pip install --force-reinstall --no-deps tilec")
    assert not _installs_tilec_by_name(f'pip install -e "{CHECKOUT}[cuda]"')
    assert not _installs_tilec_by_name(machines.CU13_LINE)


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_printed_command_installs_tilec_from_an_index(name: str) -> None:
    for build in (CASES[name].build, lambda: editable_checkout(CASES[name].build())):
        report = doctor.render_json(doctor.build_report(gather(build())))
        commands = [report["selection"]["install"]] + [
            c for f in report["findings"] if f["remediation"] for c in f["remediation"]["commands"]
        ]
        assert not [c for c in commands if c and _installs_tilec_by_name(c)]


def _pyproject_extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["optional-dependencies"]


def test_support_table_lists_exactly_the_cuda_extras_of_pyproject() -> None:
    extras = _pyproject_extras()
    for floor in load_policy().driver_floors:
        assert list(floor.requirements) == extras[floor.extra], (
            f"support.json's driver floor for CUDA {floor.cuda_major} must list the "
            f"[{floor.extra}] extra of pyproject.toml as it is"
        )


def test_support_table_matches_the_installed_metadata() -> None:
    """What pip installed for this tilec (its METADATA) has the same CUDA extras."""
    metadata = pytest.importorskip("importlib.metadata")
    requirements = pytest.importorskip("packaging.requirements")
    try:
        declared = metadata.requires("tilec") or []
    except metadata.PackageNotFoundError:
        pytest.skip("tilec is not installed (tests run from src/)")

    def normal(text: str) -> tuple[str, str]:
        req = requirements.Requirement(text)
        return req.name, str(req.specifier)

    for floor in load_policy().driver_floors:
        installed = {
            normal(r.split(";")[0])
            for r in declared
            if re.search(rf"""extra\s*==\s*['"]{floor.extra}['"]""", r)
        }
        assert installed == {normal(r) for r in floor.requirements}, floor.extra


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_show_no_install_command_that_no_index_serves(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    spans = re.findall(r"`([^`\n]+)`", text) + [
        line.strip() for line in text.splitlines() if line.strip().startswith("pip install")
    ]
    bad = [s for s in spans if s.startswith("pip install") and _installs_tilec_by_name(s)]
    assert not bad, f"{path.name}: {bad}"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_name_the_cuda_pieces_as_the_support_table_does(path: Path) -> None:
    """A documented 'pip install "cuda-bindings..."' line is one the doctor prints for a wheel."""
    from tilec.platform.install import Install, extra_line

    lines = {extra_line(Install(InstallKind.WHEEL), f) for f in load_policy().driver_floors}
    text = path.read_text(encoding="utf-8")
    documented = re.findall(r'pip install "cuda-bindings[^`\n]*', text)
    assert [d.strip() for d in documented if d.strip() not in lines] == []


@pytest.mark.parametrize(
    ("fixture", "line"),
    [
        ("h100-without-cuda-pieces-wheel", machines.CU13_LINE),
        ("h100-driver-550-without-cuda-pieces-wheel", machines.CU12_LINE),
        ("h100-without-cuda-pieces-checkout", f'pip install -e "{CHECKOUT}[cuda]"'),
    ],
)
def test_replayed_gpu_machine_without_cuda_pieces_is_told_a_line_that_works(
    fixture: str, line: str, capsys
) -> None:
    saved = Path(__file__).with_name("data") / f"{fixture}.json"
    assert doctor.main(as_json=True, facts=str(saved)) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["selection"]["backend"], report["selection"]["install"]) == ("cpu", line)
    (finding,) = [f for f in report["findings"] if f["check"] == "nvidia.cuda_bindings"]
    assert finding["remediation"]["commands"] == [line]
