"""The last move of an episode's budget: terminated and truncated are both true."""

from typing import List

import gymnasium
import numpy as np

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)


def play(problem: str, moves: int, rules: List[str]) -> None:
    """Apply the first valid action of each named rule, one rule per move."""
    env = gymnasium.make(
        "mathy-poly-easy-v0", env_problem=problem, env_max_moves=moves, published_info=True
    )
    names = [type(rule).__name__ for rule in env.unwrapped.mathy.rules]
    obs, info = env.reset(seed=0)
    print(f"{problem}, {moves} moves")
    for rule in rules:
        row = info["action_mask"].reshape(len(names), -1)[names.index(rule)]
        action = names.index(rule) * row.size + int(np.flatnonzero(row)[0])
        obs, reward, terminated, truncated, info = env.step(action)
        print(
            f"  {info['change'].expression:<14} reward {reward:+.2f}  "
            f"terminated={terminated!s:<5} truncated={truncated}"
        )
    print(f"  win={info['win']}")
    assert terminated and truncated


# Out of moves: a loss.
play("4x + 2y + 3x", 3, ["CommutativeSwapRule"] * 3)
# Won with the last move.
play("4x + 2x", 2, ["DistributiveFactorOutRule", "ConstantsSimplifyRule"])
