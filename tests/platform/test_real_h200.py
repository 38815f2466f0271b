"""A report recorded by `tilec doctor --json` on a real H200 machine (driver 580.159.04), replayed."""

from __future__ import annotations

import json
from pathlib import Path

from tilec.platform import doctor

SAVED = Path(__file__).with_name("data") / "h200-real.json"


def test_replayed_h200_selects_cuda_sm90a_with_nvjitlink(capsys) -> None:
    assert doctor.main(as_json=True, facts=str(SAVED)) == 0
    report = json.loads(capsys.readouterr().out)
    nv = report["facts"]["nvidia"]
    assert (nv["driver_version"], nv["cuda_version"]) == ("580.159.04", 13000)
    assert nv["gpus"][0]["compute_capability"] == "9.0"
    sel = report["selection"]
    assert (sel["backend"], sel["arch"], sel["ptx_version"], sel["cubin_route"]) == (
        "cuda",
        "sm_90a",
        80,
        "nvjitlink",
    )
    # recorded before the doctor noted how tilec was installed: read as a wheel install, which
    # gets the [cuda] extra's packages by name
    assert sel["install"] == (
        'pip install "cuda-bindings>=13,<14" "cuda-pathfinder>=1.2" "nvidia-nvjitlink>=13,<14" '
        '"nvidia-cuda-nvcc>=13,<14" "nvidia-nvvm>=13,<14"'
    )
