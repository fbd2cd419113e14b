"""A vector env of graph observations: each is a dict of arrays, stacked."""

import numpy as np

from mathy_envs.gym import MathyVectorEnv, sample_valid_actions

envs = MathyVectorEnv.from_id("mathy-poly-normal-v0", num_envs=8, obs_type="graph")
obs, infos = envs.reset(seed=0)
for key, value in obs.items():
    print(f"{key:14} {value.shape} {value.dtype}")

rng = np.random.default_rng(0)
for _ in range(20):
    actions = sample_valid_actions(infos["action_mask"], rng)
    obs, rewards, terminated, truncated, infos = envs.step(actions)
print("nodes per episode:", obs["num_nodes"].tolist())
print("in the space:", envs.observation_space.contains(obs))
