"""Record seeded masked-random trajectories of every built-in env to
tests/data/trajectories.json: for every step the expression text, the valid
(rule, node) pairs, the action, the reward and whether the step was terminal.

The file was recorded before the speed work of issue 7; tests/test_trajectories.py
replays it, so any change of behaviour (masks, rewards, texts) fails a test.
Re-record only for an intended behaviour change.
"""

import json
import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

from mathy_envs.envs import ENV_TASKS
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs

EPISODES = 3
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "trajectories.json"


def record() -> List[Dict[str, Any]]:
    episodes = []
    for task, env_class in ENV_TASKS.items():
        for difficulty in MathyEnvDifficulty:
            env = env_class(seed=7)
            rng = np.random.default_rng(11)
            for episode in range(EPISODES):
                state, problem = env.get_initial_state(
                    MathyEnvProblemArgs(difficulty), print_problem=False
                )
                start_moves = state.max_moves
                steps = []
                while True:
                    mask = env.valid_moves_array(state)
                    valid = [[int(r), int(n)] for r, n in zip(*np.nonzero(mask))]
                    if not valid:
                        steps.append({"text": state.agent.problem, "valid": valid})
                        break
                    action = valid[int(rng.integers(len(valid)))]
                    next_state, time_step, _ = env.get_next_state(state, tuple(action))
                    steps.append(
                        {
                            "text": state.agent.problem,
                            "valid": valid,
                            "action": action,
                            "reward": time_step.reward,
                            "terminal": is_terminal_transition(time_step),
                        }
                    )
                    state = next_state
                    if is_terminal_transition(time_step):
                        steps.append({"text": state.agent.problem})
                        break
                episodes.append(
                    {
                        "task": task,
                        "difficulty": difficulty.value,
                        "episode": episode,
                        "problem": problem.text,
                        "complexity": problem.complexity,
                        "max_moves": start_moves,
                        "steps": steps,
                    }
                )
    return episodes


if __name__ == "__main__":
    data = record()
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {len(data)} episodes to {OUT}", file=sys.stderr)
