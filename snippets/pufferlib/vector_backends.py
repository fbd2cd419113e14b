"""PufferLib (`pufferlib-core`): a registered mathy id through its Gymnasium
emulation, on its serial and multiprocessing vector backends.

Needs `pip install mathy_envs[gym] pufferlib-core`. PufferLib's vector envs return
observations in one shared buffer and no per-env infos, so take the action masks
from the observations: a flat observation ends with its action mask.
"""

import gymnasium
import numpy as np
import pufferlib.emulation
import pufferlib.vector

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)
from mathy_envs.gym import sample_valid_actions

ENV_ID = "mathy-poly-easy-v0"


def make_env(buf=None, seed=0):
    """One emulated env: what PufferLib's backends call in each worker."""
    return pufferlib.emulation.GymnasiumPufferEnv(
        env_creator=gymnasium.make, env_args=[ENV_ID], buf=buf, seed=seed
    )


if __name__ == "__main__":  # the multiprocessing backend starts worker processes
    num_actions = gymnasium.make(ENV_ID).action_space.n
    for backend in (pufferlib.vector.Serial, pufferlib.vector.Multiprocessing):
        vecenv = pufferlib.vector.make(
            make_env, num_envs=4, num_workers=2, backend=backend, seed=0
        )
        obs, _ = vecenv.reset(seed=0)
        rng = np.random.default_rng(0)
        ended = won = 0
        for _ in range(200):
            masks = obs[:, -num_actions:]  # the mask: the last R*L values
            obs, rewards, terminals, truncations, _ = vecenv.step(
                sample_valid_actions(masks, rng)
            )
            ended += int((terminals | truncations).sum())
            won += int((terminals & (rewards > 0)).sum())
        vecenv.close()
        # Each backend seeds its envs its own way: their problems differ.
        print(f"{backend.__name__}: observations {obs.shape}, {ended} episodes, {won} won")
