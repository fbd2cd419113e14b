"""Every documentation snippet runs unchanged, each in its own interpreter."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SNIPPETS = Path(__file__).resolve().parent.parent / "snippets"
EXPECTED = {
    "text_to_tree",
    "tree_to_list",
    "lists_to_observations",
    "flat_observations",
    "graph_observations",
    "hierarchical_observations",
    "message_passing_observations",
    "unified_observations",
    "basic_observation_creation",
    "environment_integration",
}
ALL_SNIPPETS = sorted(SNIPPETS.rglob("*.py"))


def test_every_seed_snippet_is_present() -> None:
    assert EXPECTED <= {path.stem for path in ALL_SNIPPETS}


@pytest.mark.parametrize(
    "path", ALL_SNIPPETS, ids=[str(p.relative_to(SNIPPETS)) for p in ALL_SNIPPETS]
)
def test_snippet_runs(path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=path.parent,
        env={**os.environ, "PYTHONHASHSEED": "random"},
    )
    assert result.returncode == 0, result.stderr
