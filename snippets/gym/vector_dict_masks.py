"""Vector environments whose observations carry their masks."""

import gymnasium
import numpy as np

from mathy_envs.gym import sample_valid_actions

envs = gymnasium.vector.SyncVectorEnv(
    [
        lambda: gymnasium.make("mathy_envs.gym:mathy-poly-easy-v0", mask_in_observation=True)
        for _ in range(3)
    ]
)
obs, infos = envs.reset(seed=0)
print({key: (value.shape, str(value.dtype)) for key, value in obs.items()})

rng = np.random.default_rng(0)
episodes = 0
for _ in range(200):
    # The batched "action_mask" is always that of the batched "observations".
    assert np.array_equal(obs["action_mask"], infos["action_mask"])
    actions = sample_valid_actions(obs["action_mask"], rng)
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    episodes += int(np.sum(terminated | truncated))
print(f"{episodes} episodes")
envs.close()
