"""`tools/baselines.py` with behavioural cloning: the swarm's solutions of
training problems cloned by a small MLP, played greedily on the held-out
problems; and the `--quick` run of every agent and cell that CI makes. Needs
torch (and sb3-contrib for the whole quick run)."""

import json
from pathlib import Path
from typing import Any, Dict

import numpy as np
import pytest

pytest.importorskip("torch")

from helpers import run_python  # noqa: E402

from mathy_envs.envs import ENV_TASKS  # noqa: E402
from mathy_envs.gym import MathyGymEnv  # noqa: E402

from . import load_tool  # noqa: E402

baselines = load_tool("baselines")


def bc_quick_run(tmp_path: Path, name: str) -> Dict[str, Any]:
    out = tmp_path / f"{name}.json"
    argv = ["--quick", "--envs", "poly", "--difficulties", "easy", "--agents", "bc"]
    assert baselines.main([*argv, "--json", str(out)]) == 0
    report: Dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.mark.slow
def test_bc_quick_run_is_reproducible(tmp_path: Path) -> None:
    first = bc_quick_run(tmp_path, "first")
    [row] = first["rows"]
    bc = row["bc"]
    assert row["maskable_ppo"] is None and row["random"] is None
    assert 0 <= bc["wins"] <= row["problems"] == baselines.QUICK.problems
    assert bc["rate"] == bc["wins"] / row["problems"]
    assert 0 <= bc["sampled_wins"] <= row["problems"]
    assert bc["sampled_rate"] == bc["sampled_wins"] / row["problems"]
    assert bc["expert_problems"] == baselines.QUICK.bc_problems
    assert 0 < bc["expert_solved"] <= bc["expert_problems"]
    assert bc["train_steps"] >= bc["expert_solved"]  # one move at least per solution
    assert 0 <= bc["eval_problems_seen_in_training"] <= row["problems"]
    assert "behavioural cloning" in baselines.markdown(first)
    [again] = bc_quick_run(tmp_path, "second")["rows"]
    for key in (
        "wins",
        "won",
        "sampled_wins",
        "train_steps",
        "expert_solved",
        "eval_problems_seen_in_training",
    ):
        assert again["bc"][key] == bc[key]


def test_bc_trains_on_the_observations_the_gym_env_gives() -> None:
    """The observation behavioural cloning learns from is, byte for byte, the
    one `MathyGymEnv` gives the policy when it plays."""
    env_class = ENV_TASKS["poly-commute"]
    env = env_class()
    gym_env = MathyGymEnv(env_class, env_problem="4x + 2y + 3x", env_max_moves=6)
    obs, info = gym_env.reset()
    state = env.state_from_text("4x + 2y + 3x", 6)
    for _ in range(4):
        assert baselines.expert_observation(env, state).tobytes() == obs.tobytes()
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, _, terminated, truncated, info = gym_env.step(action)
        state, _, _ = env.get_next_state(state, divmod(action, env.max_seq_len))
        if terminated or truncated:
            break


@pytest.mark.slow
def test_the_quick_run_of_every_agent_and_cell(tmp_path: Path) -> None:
    """`--quick` with every agent on every env and difficulty, on two worker
    processes, as CI runs it: every cell has its rates."""
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "quick.json"
    result = run_python(
        str(baselines.__file__), "--quick", "--jobs", "2", "--json", str(out), timeout=900
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert len(report["rows"]) == 3 * len(ENV_TASKS)
    trained = [row for row in report["rows"] if row["bc"] is not None]
    assert len(trained) == len(ENV_TASKS) + 3
    assert all(row["maskable_ppo"] is not None for row in trained)
