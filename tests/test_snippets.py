"""Every documentation snippet runs unchanged, each in its own interpreter."""

import importlib.util
from pathlib import Path

import pytest

from helpers import MASKABLE_PPO_SNIPPET, REPO, RLLIB_PPO_SNIPPET, run_python

SNIPPETS = REPO / "snippets"
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
# Snippets that need an optional package: skipped only where it is not installed.
REQUIRES = {
    "maskable_ppo.py": "sb3_contrib",
    "gnn_policy.py": "torch_geometric",
    "train_ppo_masked.py": "ray",
}
GNN_POLICY_SNIPPET = SNIPPETS / "pyg" / "gnn_policy.py"
"""The PyTorch Geometric example (importing torch_geometric alone takes seconds)."""
# Training runs, each made once per session by a fixture (the RLlib one in its
# quick form) and shared with the tests that check their output.
TRAINING_RUNS = {
    MASKABLE_PPO_SNIPPET: "maskable_ppo_run",
    RLLIB_PPO_SNIPPET: "rllib_ppo_run",
}


def test_every_seed_snippet_is_present() -> None:
    assert EXPECTED <= {path.stem for path in ALL_SNIPPETS}


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            path,
            id=str(path.relative_to(SNIPPETS)),
            marks=(
                [pytest.mark.slow]
                if path in TRAINING_RUNS or path == GNN_POLICY_SNIPPET
                else []
            ),
        )
        for path in ALL_SNIPPETS
    ],
)
def test_snippet_runs(path: Path, request: pytest.FixtureRequest) -> None:
    needs = REQUIRES.get(path.name)
    if needs is not None and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{path.name} needs {needs}, which is not installed")
    if path in TRAINING_RUNS:
        result = request.getfixturevalue(TRAINING_RUNS[path])
    else:
        result = run_python(str(path), hash_seed="random", cwd=path.parent)
    assert result.returncode == 0, result.stderr
