"""Run four environments in worker processes with AsyncVectorEnv."""

import gymnasium
import numpy as np

import mathy_envs.gym  # noqa: F401 (registers the mathy-* ids)


def make_env() -> gymnasium.Env:
    import mathy_envs.gym  # noqa: F401 (each worker registers the ids too)

    return gymnasium.make("mathy-poly-normal-v0")


if __name__ == "__main__":
    envs = gymnasium.vector.AsyncVectorEnv([make_env] * 4)
    obs, infos = envs.reset(seed=42)
    rng = np.random.default_rng(0)
    for _ in range(10):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in infos["action_mask"]]
        obs, rewards, terminated, truncated, infos = envs.step(np.array(actions))
    print(f"observations {obs.shape}, rewards {np.round(rewards, 2).tolist()}")
    envs.close()
