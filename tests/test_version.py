"""The version: above the published mathy_envs 0.12.5 (so pip never "upgrades" to
it), one value for the package, its metadata and `mathy-envs --version`."""

import importlib.metadata
import io
import re
import sys

from helpers import run_python

import mathy_envs
from mathy_envs.cli import main

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
    assert line == f"mathy-envs {mathy_envs.__version__} (mathy_core {core}, Python {python})"


def test_mathy_envs_dash_dash_version_in_a_child_process() -> None:
    result = run_python("-m", "mathy_envs", "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"mathy-envs {mathy_envs.__version__} (")
    assert result.stderr == ""
