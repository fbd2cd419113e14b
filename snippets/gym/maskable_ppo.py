"""Train sb3-contrib's MaskablePPO on a mathy task, then measure its win rate.

Needs `pip install mathy_envs[gym] sb3-contrib`. MaskablePPO reads the valid actions
from the env's `action_masks()` while training; when evaluating, pass them to
`predict` yourself.
"""

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)

torch.set_num_threads(1)  # a small MLP: extra threads only contend for the CPU

env = gymnasium.make("mathy-poly-easy-v0")
model = MaskablePPO(
    "MlpPolicy",
    env,
    n_steps=256,
    batch_size=64,
    n_epochs=4,
    seed=1337,
    device="cpu",
    verbose=0,
)
model.learn(total_timesteps=4096)

episodes = 40
wins = 0
for episode in range(episodes):
    obs, info = env.reset(seed=episode)
    done = False
    while not done:
        action, _ = model.predict(
            obs, action_masks=env.unwrapped.action_masks(), deterministic=True
        )
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    wins += int(info["win"])
print(f"win rate: {wins / episodes:.2f} ({wins}/{episodes} episodes)")
