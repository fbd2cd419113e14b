"""Four environments in worker processes, played with masked random actions."""

from typing import Dict

import gymnasium
import numpy as np

from mathy_envs.gym import sample_valid_actions

# "module:id" makes each worker import mathy_envs.gym, which registers the ids.
ENV_ID = "mathy_envs.gym:mathy-poly-normal-v0"


def play(envs: gymnasium.vector.VectorEnv, steps: int, seed: int = 0) -> Dict[str, int]:
    """`steps` batched steps of uniformly random valid actions."""
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    counts = {"episodes": 0, "wins": 0}
    for _ in range(steps):
        # One valid action per row. A row without one comes with the step that
        # ended an episode; it gets action 0, which the next step ignores: it
        # resets that environment instead.
        actions = sample_valid_actions(infos["action_mask"], rng)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        counts["episodes"] += int(np.sum(terminated | truncated))
        if "win" in infos:
            counts["wins"] += int(np.sum(infos["win"] & infos["_win"]))
    return counts


if __name__ == "__main__":
    envs = gymnasium.vector.AsyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID)] * 4, context="spawn"
    )
    print(f"batched action space: {envs.action_space}")
    print(play(envs, steps=200))
    envs.close()
