"""64 episodes in one process, stepped together by MathyVectorEnv."""

import numpy as np

from mathy_envs.gym import MathyVectorEnv, sample_valid_actions

envs = MathyVectorEnv.from_id("mathy-poly-normal-v0", num_envs=64)
obs, infos = envs.reset(seed=0)
print("observations", obs.shape, obs.dtype, "masks", infos["action_mask"].shape)

rng = np.random.default_rng(0)
episodes = wins = 0
for _ in range(200):
    actions = sample_valid_actions(infos["action_mask"], rng)
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    ended = terminated | truncated
    episodes += int(ended.sum())
    if "win" in infos:
        wins += int(infos["win"].sum())
print(f"{200 * 64} steps: {episodes} episodes ended, {wins} won")
