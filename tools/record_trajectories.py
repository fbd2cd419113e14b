"""Record seeded masked-random trajectories of every built-in env to
tests/data/trajectories.json: for every step the expression text, the valid
(rule, node) pairs, the action, the reward and whether the step was terminal.

The file was recorded before the speed work of issue 7; tests/test_trajectories.py
replays it, so any change of behaviour (masks, rewards, texts) fails a test.
Re-record only for an intended behaviour change.

    python tools/record_trajectories.py                  # rewrites tests/data/trajectories.json
    python tools/record_trajectories.py --out /tmp/t.json  # elsewhere, e.g. to diff
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

from mathy_envs.env import MathyEnv
from mathy_envs.envs import ENV_TASKS
from mathy_envs.episodes import random_episode
from mathy_envs.state import MathyEnvState
from mathy_envs.time_step import is_terminal_transition
from mathy_envs.types import MathyEnvDifficulty, MathyEnvProblemArgs

EPISODES = 3
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "trajectories.json"


def valid_actions(env: MathyEnv, state: MathyEnvState) -> List[List[int]]:
    """The state's valid `[rule, node]` pairs, rule by rule, left to right."""
    mask = env.valid_moves_array(state)
    return [[int(r), int(n)] for r, n in zip(*np.nonzero(mask))]


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
                played = random_episode(env, state, rng, record=True)
                assert played.transitions is not None
                steps: List[Dict[str, Any]] = [
                    {
                        "text": step.state.agent.problem,
                        "valid": valid_actions(env, step.state),
                        "action": list(step.action),
                        "reward": step.time_step.reward,
                        "terminal": is_terminal_transition(step.time_step),
                    }
                    for step in played.transitions
                ]
                last: Dict[str, Any] = {"text": played.state.agent.problem}
                if not played.done:  # stopped at a state with no valid action
                    last["valid"] = valid_actions(env, played.state)
                steps.append(last)
                episodes.append(
                    {
                        "task": task,
                        "difficulty": difficulty.value,
                        "episode": episode,
                        "problem": problem.text,
                        "complexity": problem.complexity,
                        "max_moves": state.max_moves,
                        "steps": steps,
                    }
                )
    return episodes


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join((__doc__ or "").split("\n\n")[1:]),
    )
    parser.add_argument(
        "--out", type=Path, default=OUT, help=f"where to write them (default {OUT.name} in tests/data)"
    )
    args = parser.parse_args(argv)
    data = record()
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {len(data)} episodes to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
