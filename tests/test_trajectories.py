"""Replay trajectories recorded before the speed work (tools/record_trajectories.py)
and check that every problem, mask, action result, reward and terminal flag is
unchanged."""

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest

from mathy_envs.envs import ENV_TASKS
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs

DATA = Path(__file__).resolve().parent / "data" / "trajectories.json"
EPISODES: List[Dict[str, Any]] = json.loads(DATA.read_text())
GROUPS: Dict[Tuple[str, str], List[Dict[str, Any]]] = defaultdict(list)
for _episode in EPISODES:
    GROUPS[(_episode["task"], _episode["difficulty"])].append(_episode)


def test_recording_covers_every_env_and_difficulty() -> None:
    expected = {(task, d.value) for task in ENV_TASKS for d in MathyEnvDifficulty}
    assert set(GROUPS) == expected
    assert sum(len(e["steps"]) for e in EPISODES) > 500


@pytest.mark.parametrize("key", sorted(GROUPS), ids=["-".join(k) for k in sorted(GROUPS)])
def test_replay_matches_recording(key: Tuple[str, str]) -> None:
    task, difficulty = key
    env = ENV_TASKS[task](seed=7)
    for episode in sorted(GROUPS[key], key=lambda e: e["episode"]):
        state, problem = env.get_initial_state(
            MathyEnvProblemArgs(MathyEnvDifficulty(difficulty)), print_problem=False
        )
        assert problem.text == episode["problem"]
        assert problem.complexity == episode["complexity"]
        assert state.max_moves == episode["max_moves"]
        for step in episode["steps"]:
            assert state.agent.problem == step["text"]
            if "valid" not in step:
                break
            mask = np.asarray(env.get_valid_moves(state))
            assert [[int(r), int(n)] for r, n in zip(*np.nonzero(mask))] == step["valid"]
            if "action" not in step:
                break
            state, time_step, _ = env.get_next_state(state, tuple(step["action"]))
            assert time_step.reward == step["reward"]
            assert is_terminal_transition(time_step) == step["terminal"]
        env.finalize_state(state)
