"""Every documentation snippet runs unchanged, each in its own interpreter."""

import importlib.util
import re
from pathlib import Path
from typing import Callable, Dict

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
    "masked_ppo.py": "torch",
    "masked_rollout.py": "torchrl",
    "vector_backends.py": "pufferlib",
    "behavioural_cloning.py": "torch",
    "reasoning_gym_dataset.py": "reasoning_gym",
    "verifiers_env.py": "verifiers",
}


def _learns(stdout: str) -> None:
    """The CleanRL-style loop wins more episodes in its last update than in its first."""
    rates = [int(m) for m in re.findall(r"episodes ended, (\d+)% won", stdout)]
    assert len(rates) >= 2 and rates[-1] > rates[0] + 20, stdout


def _masked(stdout: str) -> None:
    """Every TorchRL episode played only valid actions."""
    episodes = [line for line in stdout.splitlines() if line.startswith("episode ")]
    assert len(episodes) == 3 and all("every action valid: True" in e for e in episodes), stdout


def _both_backends(stdout: str) -> None:
    """Both PufferLib backends played episodes to their end."""
    for backend in ("Serial", "Multiprocessing"):
        match = re.search(backend + r": observations \(4, \d+\), (\d+) episodes", stdout)
        assert match and int(match.group(1)) > 0, stdout


def _clones(stdout: str) -> None:
    """The cloned policy wins more held-out problems than random play."""
    wins = dict(re.findall(r"^(cloned policy|random play)\s+wins (\d+) of", stdout, re.M))
    assert int(wins["cloned policy"]) > int(wins["random play"]) + 20, stdout


def _leaves_out_the_move_back(stdout: str) -> None:
    """With `mask_revisits` the swap back (and only it) is left out; without, it
    is offered; taken anyway, it is valid both times."""
    offered, published = stdout.split("mask_revisits=False")
    assert offered.count("left out") == 1 and "left out  Commutative Swap at 3" in offered
    assert "left out" not in published and "offered   Commutative Swap at 3" in published
    assert stdout.count("swapping back anyway: valid True") == 2, stdout


def _text_episode(stdout: str) -> None:
    """The scripted replies get their verdicts, and the episode is won."""
    kinds = re.findall(r"^(malformed|not_one_move|accepted) ", stdout, re.M)
    assert kinds == ["malformed", "not_one_move", "accepted", "accepted", "accepted"], stdout
    assert "won: True" in stdout


def _derivation_rewards(stdout: str) -> None:
    """One rewrite a line scores 1 at every grain; two rewrites on a line only
    from grain 2; the answer alone only at grain None; a slip never, found at
    its line."""
    table = re.findall(r"^(.+?)\s+steps_per_line=1: (\d)  =2: (\d)  =None: (\d)$", stdout, re.M)
    assert [row[1:] for row in table] == [
        ("1", "1", "1"),
        ("0", "1", "1"),
        ("0", "0", "1"),
        ("0", "0", "0"),
    ], stdout
    assert "step rewards (1.0, 0.0) first bad step 2" in stdout, stdout


def _grpo_rewards(stdout: str) -> None:
    last, one_rewrite = stdout.rstrip().splitlines()[-2:]
    assert last == "[1.0, 1.0, 1.0, 0.0]", stdout
    assert one_rewrite == "[1.0, 1.0, 0.0, 0.0] (steps_per_line=1)", stdout


def _reasoning_gym_scores(stdout: str) -> None:
    assert re.search(r"^the reference\s+1\.00 \(steps_per_line=None\)  1\.00", stdout, re.M), stdout
    assert re.search(r"^the final line alone\s+1\.00 \(steps_per_line=None\)  0\.00", stdout, re.M), stdout
    assert re.search(r"^a slip\s+0\.00 \(steps_per_line=None\)  0\.00", stdout, re.M), stdout


OUTPUT_CHECKS: Dict[str, Callable[[str], None]] = {
    "episode.py": _text_episode,
    "derivations.py": _derivation_rewards,
    "grpo_reward.py": _grpo_rewards,
    "reasoning_gym_dataset.py": _reasoning_gym_scores,
    "mask_revisits.py": _leaves_out_the_move_back,
    "behavioural_cloning.py": _clones,
    "masked_ppo.py": _learns,
    "masked_rollout.py": _masked,
    "vector_backends.py": _both_backends,
}
"""What the RL clients' snippets must print, beyond running."""
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
    check = OUTPUT_CHECKS.get(path.name)
    if check is not None:
        check(result.stdout)
