"""Every shell snippet in snippets/ runs as its own test, like the Python ones in
tests/test_snippets.py; together they cover every file of the folder."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets"
SHELL_SNIPPETS = sorted(SNIPPETS.rglob("*.sh"))
SLOW = {"bench.sh"}
"""Snippets that take more than a few seconds (marked `slow`)."""


def test_every_snippet_is_a_tested_kind() -> None:
    others = [
        path.relative_to(SNIPPETS)
        for path in SNIPPETS.rglob("*")
        if path.is_file()
        and path.suffix not in (".py", ".sh")
        and "__pycache__" not in path.parts
    ]
    assert others == [], "snippets are .py or .sh files, so that they run as tests"


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            path,
            id=str(path.relative_to(SNIPPETS)),
            marks=[pytest.mark.slow] if path.name in SLOW else [],
        )
        for path in SHELL_SNIPPETS
    ],
)
def test_shell_snippet_runs(path: Path, tmp_path: Path) -> None:
    # `mathy-envs` is the working tree's program, whether or not (and whichever
    # version) is installed.
    launcher = tmp_path / "mathy-envs"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mathy_envs "$@"\n')
    launcher.chmod(0o755)
    env = {
        **os.environ,
        "PYTHONHASHSEED": "random",
        "PYTHONPATH": str(SNIPPETS.parent),
        "PATH": f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    result = subprocess.run(
        ["bash", "-euo", "pipefail", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=path.parent,
        env=env,
    )
    assert result.returncode == 0, result.stderr or result.stdout
