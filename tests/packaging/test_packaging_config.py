"""Fast checks of the packaging inputs: version, build configuration, and the C core's
independence from Python and libcuda. (Wheel builds are in test_packaging_builds.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tilec

ROOT = Path(__file__).resolve().parents[2]
PLATFORM = ROOT / "platform"
in_checkout = pytest.mark.skipif(
    not (ROOT / "pyproject.toml").is_file() or not (PLATFORM / "CMakeLists.txt").is_file(),
    reason="needs the source checkout",
)


def pyproject() -> dict:
    toml = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    return toml.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_cli_version_is_the_package_version():
    out = subprocess.run(
        [sys.executable, "-m", "tilec", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"tilec {tilec.__version__}"


def test_installed_metadata_matches_the_package_version():
    from importlib import metadata

    try:
        version = metadata.version("tilec")
    except metadata.PackageNotFoundError:
        pytest.skip("tilec is not installed (running from the source tree)")
    assert version == tilec.__version__


@in_checkout
def test_build_is_scikit_build_core_on_platform_with_a_pure_fallback():
    cfg = pyproject()
    assert cfg["build-system"]["build-backend"] == "scikit_build_core.build"
    skb = cfg["tool"]["scikit-build"]
    assert skb["cmake"]["source-dir"] == "platform"
    assert re.fullmatch(r"cp3\d+", skb["wheel"]["py-api"])
    (fallback,) = [o for o in skb["overrides"] if o["if"].get("failed")]
    assert fallback["wheel"] == {"cmake": False, "py-api": "py3"}
    assert "fallback" in fallback["messages"]["after-success"]


@in_checkout
def test_cmake_builds_an_abi3_module_and_never_links_cuda():
    cmake = (PLATFORM / "CMakeLists.txt").read_text(encoding="utf-8")
    assert "USE_SABI ${SKBUILD_SABI_VERSION}" in cmake
    assert "install(TARGETS _launcher" in cmake
    links = " ".join(re.findall(r"target_link_libraries\(([^)]*)\)", cmake)).lower()
    assert "cuda" not in links


@in_checkout
def _cmake_sources(pattern: str) -> set[str]:
    cmake = (PLATFORM / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(pattern, cmake, re.S)
    assert match, pattern
    return set(re.findall(r"launcher/(\w+\.c)", match.group(1)))


def test_the_c_core_does_not_use_the_python_api():
    core = _cmake_sources(r"add_library\(tilec_launcher_core STATIC(.*?)\)")
    binding = _cmake_sources(r"set\(BINDING(.*?)\)")
    sources = {p.name for p in (PLATFORM / "launcher").glob("*.c")}
    assert core >= {"grid.c", "pack.c", "cuda.c"} and "module.c" in binding
    assert sources == core | binding and not core & binding
    for name in [*core, "tilec_launcher.h"]:
        text = (PLATFORM / "launcher" / name).read_text(encoding="utf-8")
        assert "Python.h" not in text and "PyObject" not in text, name


@in_checkout
def test_platform_is_not_a_python_package():
    # platform/__init__.py would shadow the standard library's `platform` module
    assert not (PLATFORM / "__init__.py").exists()


@in_checkout
def test_cibuildwheel_matrix_and_test_command():
    cibw = pyproject()["tool"]["cibuildwheel"]
    assert {"*-musllinux_*", "*-win32", "*_i686"} <= set(cibw["skip"])
    assert cibw["linux"]["archs"] == ["x86_64", "aarch64"]
    assert cibw["linux"]["manylinux-x86_64-image"] == "manylinux_2_28"
    assert "AMD64" in cibw["windows"]["archs"]
    assert "arm64" in cibw["macos"]["archs"]
    script = cibw["test-command"].split()[-1]
    assert (ROOT / script).is_file()
    for os_name in ("linux", "windows", "macos"):
        assert "{wheel}" in cibw[os_name]["repair-wheel-command"]


def test_an_installed_tilec_carries_the_launcher_and_py_typed():
    package = Path(tilec.__file__).parent
    if package == ROOT / "src" / "tilec":
        pytest.skip("tilec is imported from the source tree, not an installed wheel")
    assert (package / "py.typed").is_file()
    built = list(package.glob("_launcher*"))
    from tilec.backends import launcher

    # A wheel built without a C compiler is pure on purpose; then the launcher says why.
    assert built or "not available" in launcher.status().reason
    assert launcher.status().native is bool(built)
