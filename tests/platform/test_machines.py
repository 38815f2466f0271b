"""Every machine of issue #3: the verdict, the selected backend and the remedy; then the same
verdict again when its saved ``--json`` report is replayed through ``tilec doctor --facts``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import machines
import pytest

from tilec.platform import doctor
from tilec.platform.finding import Status
from tilec.platform.probes import gather


@dataclass(frozen=True)
class Expect:
    build: Callable[[], machines.FakeSystem]
    status: Status  # the report's verdict
    backend: str
    arch: str
    check: str = ""  # the finding that carries the remedy ("" = none expected anywhere)
    remedy: str = ""  # text that must appear in that finding's remedy
    install: str = ""  # nothing more to install
    ptx: int | None = None
    route: str = ""


CASES = {
    "ubuntu-h100-driver-580": Expect(
        machines.ubuntu_h100_580, Status.OK, "cuda", "sm_90a",
        install=machines.CU13_LINE, ptx=80, route="nvjitlink",
    ),
    "wsl2-rtx4090-driver-566": Expect(
        machines.wsl2_rtx4090_566, Status.WARN, "cuda", "sm_89", "nvidia.wsl_loader",
        "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH",
        install=machines.CU12_LINE, ptx=78, route="nvjitlink",
    ),
    "wsl1": Expect(machines.wsl1, Status.WARN, "cpu", "znver4", "system.os", "wsl --set-version <distro> 2"),
    "windows11-rtx3060": Expect(
        machines.windows11_rtx3060, Status.WARN, "cuda", "sm_86", "system.long_paths",
        "LongPathsEnabled -Value 1", install=machines.CU12_LINE, ptx=71, route="nvjitlink",
    ),
    "macos14-arm64": Expect(machines.macos14_arm64, Status.OK, "cpu", "apple-m3"),
    "macos-rosetta": Expect(
        machines.macos_rosetta, Status.WARN, "cpu", "westmere", "system.emulation", "native arm64 Python"
    ),
    "linux-gtx1080": Expect(
        machines.linux_gtx1080, Status.FAIL, "cpu", "znver4", "nvidia.compute_capability",
        "Volta-or-newer GPU",
    ),
    "linux-amd-mi300-radeon": Expect(
        machines.linux_amd_mi300_radeon, Status.WARN, "cpu", "znver4", "gpu.amd",
        "pip install triton",
    ),
    "linux-intel-arc": Expect(
        machines.linux_intel_arc, Status.WARN, "cpu", "znver4", "gpu.intel",
        "pip install torch --index-url https://download.pytorch.org/whl/xpu",
    ),
    "container-without-gpu": Expect(
        machines.container_without_gpu, Status.WARN, "cpu", "znver4", "system.container_gpu",
        "docker run --gpus all",
    ),
    "driver-470": Expect(
        machines.linux_driver_470, Status.FAIL, "cpu", "znver4", "nvidia.driver", "sudo ubuntu-drivers install"
    ),
    "blackwell-12.0-old-toolchain": Expect(
        machines.blackwell_old_toolchain, Status.WARN, "cuda", "sm_120", "nvidia.toolchain_arch",
        machines.CU12_LINE, install=machines.CU12_LINE, ptx=87, route="driver-jit",
    ),
    "no-llvmlite-nvptx": Expect(
        machines.no_llvm_nvptx, Status.FAIL, "cpu", "znver4", "nvidia.llvm_nvptx",
        'pip install --force-reinstall "llvmlite>=0.50"', install=machines.CU13_LINE,
    ),
}  # fmt: skip


def _assert_expected(report_json: dict, expect: Expect) -> None:
    sel = report_json["selection"]
    assert report_json["status"] == expect.status.value, report_json["findings"]
    assert report_json["exit_code"] == (1 if expect.status is Status.FAIL else 0)
    assert (sel["backend"], sel["arch"], sel["install"]) == (
        expect.backend,
        expect.arch,
        expect.install,
    )
    assert (sel["ptx_version"], sel["cubin_route"]) == (expect.ptx, expect.route)
    remedied = {f["check"]: f["remediation"] for f in report_json["findings"] if f["remediation"]}
    if not expect.check:
        assert remedied == {}
        return
    remedy = remedied[expect.check]
    assert expect.remedy in remedy["text"] + "\n".join(remedy["commands"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_machine_verdict_backend_and_remedy(name: str) -> None:
    expect = CASES[name]
    report = doctor.build_report(gather(expect.build()))
    assert report.facts.probe_errors == ()
    _assert_expected(doctor.render_json(report), expect)


@pytest.mark.parametrize("name", sorted(CASES))
def test_replaying_the_saved_report_gives_the_same_verdict(name, tmp_path, capsys) -> None:
    expect = CASES[name]
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(doctor.render_json(doctor.build_report(gather(expect.build())))))
    code = doctor.main(as_json=True, facts=str(saved))
    replayed = json.loads(capsys.readouterr().out)
    assert code == replayed["exit_code"]
    _assert_expected(replayed, expect)
    assert replayed == json.loads(saved.read_text())
