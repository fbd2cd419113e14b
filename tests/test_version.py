"""The version: above the published mathy_envs 0.12.5 (so pip never "upgrades" to
it), one value for the package, its metadata and `mathy-envs --version`."""

import importlib.metadata
import io
import re
import sys
from typing import Optional

import pytest
from helpers import run_python

import mathy_envs
from mathy_envs.cli import main
from mathy_envs._engine.native import CORE, CORE_VARIABLE, native_built

PUBLISHED = (0, 12, 5)


def _release(version: str) -> tuple:  # type: ignore[type-arg]
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    assert match, f"{version!r} is not a plain MAJOR.MINOR.PATCH release"
    return tuple(int(part) for part in match.groups())


def test_the_version_is_above_the_published_package() -> None:
    assert _release(mathy_envs.__version__) > PUBLISHED
    assert _release(mathy_envs.__version__) >= (1, 0, 0)


def test_the_installed_metadata_has_the_same_version() -> None:
    assert importlib.metadata.version("mathy_envs") == mathy_envs.__version__


def test_cli_version_prints_it() -> None:
    out = io.StringIO()
    assert main(["--version"], out=out) == 0
    line = out.getvalue().strip()
    core = importlib.metadata.version("mathy_core")
    python = ".".join(str(part) for part in sys.version_info[:3])
    used = {
        "native": "native core",
        "python": "pure-Python core, chosen by MATHY_ENVS_CORE"
        if native_built()
        else "pure-Python core: the native core is not built",
    }[CORE]
    assert line == (
        f"mathy-envs {mathy_envs.__version__} (mathy_core {core}, Python {python}, {used})"
    )


@pytest.mark.parametrize(
    "choice, expected",
    [("python", "pure-Python core"), ("auto", None), ("", None)],
)
def test_the_core_is_chosen_by_mathy_envs_core(choice: str, expected: Optional[str]) -> None:
    result = run_python("-m", "mathy_envs", "--version", env={CORE_VARIABLE: choice})
    assert result.returncode == 0, result.stderr
    if expected is None:
        expected = "native core" if native_built() else "the native core is not built"
    assert expected in result.stdout


def test_an_unknown_core_is_a_value_error_naming_the_choices() -> None:
    result = run_python("-c", "import mathy_envs._engine.native", env={CORE_VARIABLE: "fortran"})
    assert result.returncode != 0
    assert "ValueError: MATHY_ENVS_CORE='fortran' is not one of auto, native, python" in (
        result.stderr
    )


def test_asking_for_the_native_core_where_it_is_not_built_is_an_import_error() -> None:
    # A fresh interpreter that can't find the extension.
    code = (
        "import sys, importlib.abc\n"
        "class NoNative(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mathy_envs._native':\n"
        "            raise ImportError('no native core here')\n"
        "sys.meta_path.insert(0, NoNative())\n"
        "import mathy_envs._engine.native\n"
    )
    result = run_python("-c", code, env={CORE_VARIABLE: "native"})
    assert result.returncode != 0
    assert "MATHY_ENVS_CORE=native, but mathy_envs' native core is not built" in result.stderr
    auto = run_python(
        "-c", code + "print(mathy_envs._engine.native.CORE)", env={CORE_VARIABLE: "auto"}
    )
    assert auto.returncode == 0 and auto.stdout.strip() == "python", auto.stderr


def test_mathy_envs_dash_dash_version_in_a_child_process() -> None:
    result = run_python("-m", "mathy_envs", "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"mathy-envs {mathy_envs.__version__} (")
    assert result.stderr == ""
