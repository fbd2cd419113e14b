"""Observations that carry their action mask, by option or by wrapper."""

import gymnasium
import numpy as np

from mathy_envs.gym import ActionMaskObservation

env = gymnasium.make("mathy-poly-easy-v0", mask_in_observation=True)
print(env.observation_space)

# The same for an env that is already built, of any observation type.
wrapped = ActionMaskObservation(gymnasium.make("mathy-poly-easy-v0", obs_type="graph"))
obs, info = wrapped.reset(seed=0)
print({key: np.shape(value) for key, value in obs["observations"].items()})
mask = obs["action_mask"]
print(f"action_mask: {mask.dtype} {mask.shape}, {int(mask.sum())} valid actions")
assert np.array_equal(mask, info["action_mask"])
