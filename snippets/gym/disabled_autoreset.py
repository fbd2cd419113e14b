"""Masked random play with AutoresetMode.DISABLED: the loop resets the finished
environments itself, right after the step that ended them."""

from typing import Dict

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from mathy_envs.gym import sample_valid_actions

ENV_ID = "mathy_envs.gym:mathy-poly-easy-v0"


def play(envs: gymnasium.vector.VectorEnv, steps: int, seed: int = 0) -> Dict[str, int]:
    """`steps` batched steps of uniformly random valid actions."""
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    masks = infos["action_mask"]
    counts = {"episodes": 0, "partial resets": 0}
    for _ in range(steps):
        actions = sample_valid_actions(masks, rng)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        masks = infos["action_mask"]  # every env stepped: every row is current
        done = terminated | truncated
        if done.any():
            # `obs` comes back whole, but the reset's infos hold only the envs it
            # reset (the other rows of its "action_mask" are zeros): take those
            # rows, and keep the step's masks for the envs still playing.
            obs, reset_infos = envs.reset(options={"reset_mask": done})
            masks = np.where(done[:, None], reset_infos["action_mask"], masks)
            counts["episodes"] += int(done.sum())
            counts["partial resets"] += int(not done.all())
    return counts


if __name__ == "__main__":
    # invalid_action_response="raise": one invalid action would stop the run.
    envs = SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, invalid_action_response="raise")] * 3,
        autoreset_mode=AutoresetMode.DISABLED,
    )
    print(play(envs, steps=300))
    envs.close()
