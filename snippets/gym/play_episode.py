"""Play one episode of a registered mathy task, picking only valid actions."""

import gymnasium
import numpy as np

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)

# published_info=True: step infos also hold the change a move made (off by
# default: infos then hold only arrays and bools, which RL libraries stack).
env = gymnasium.make("mathy-poly-easy-v0", published_info=True)
obs, info = env.reset(seed=14)
rng = np.random.default_rng(14)
print(f"observation {obs.shape}, {env.action_space.n} actions")

done = False
while not done:
    valid = np.flatnonzero(info["action_mask"])  # flat (rule, node) indices
    action = int(rng.choice(valid))
    obs, reward, terminated, truncated, info = env.step(action)
    change = info["change"]
    print(f"{change.rule:<24} node {change.node:>2}  {change.expression}  {reward:+.2f}")
    done = terminated or truncated

print("won" if info["win"] else "lost")
