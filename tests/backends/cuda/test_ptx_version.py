"""The PTX ISA version: the architecture's minimum, capped by what the driver can load."""

from __future__ import annotations

import pytest

from tilec.backends.cuda import ptx_version
from tilec.backends.cuda.driver import arch_name
from tilec.errors import PlatformError, UnsupportedFeature


def test_minimum_per_architecture() -> None:
    assert ptx_version.choose("sm_80") == 70
    assert ptx_version.choose("sm_90") == 78
    assert ptx_version.choose("sm_90a") == 80


def test_driver_caps_the_version() -> None:
    assert ptx_version.max_for_driver(13000) == 90
    assert ptx_version.max_for_driver(12080) == 87
    assert ptx_version.max_for_driver(12040) == 84
    assert ptx_version.choose("sm_90a", driver_cuda_version=12000) == 80
    with pytest.raises(PlatformError, match="update the driver"):
        ptx_version.choose("sm_90a", driver_cuda_version=11080)


def test_requested_versions_are_validated_before_llvm_sees_them() -> None:
    assert ptx_version.choose("sm_80", requested=85) == 85
    with pytest.raises(UnsupportedFeature):
        ptx_version.choose("sm_90a", requested=78)  # LLVM would abort on this pair
    with pytest.raises(UnsupportedFeature):
        ptx_version.choose("sm_42")


def test_arch_names_for_compute_capabilities() -> None:
    assert arch_name(8, 0) == "sm_80"
    assert arch_name(8, 6) == "sm_86"
    assert arch_name(9, 0) == "sm_90a"
